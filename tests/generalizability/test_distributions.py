"""Tests of generalizability.distributions: weak orders, sampling from a pmf, uniform sampling."""

from __future__ import annotations

import math

import naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from scipy import stats

from genexpy_nb import GenexpyInputError
from genexpy_nb import distributions as dist
from genexpy_nb._numba.distributions import _sample_weak_orders

ORDERED_BELL = [1, 1, 3, 13, 75, 541, 4683, 47293, 545835]  # n = 0..8 (OEIS A000670)


def _code(rankings: np.ndarray, na: int) -> np.ndarray:
    """One integer per ranking (base-na digits) for counting."""
    return rankings @ (na ** np.arange(na)[::-1])


# =====================================================================================
# Counting and enumeration
# =====================================================================================


def test_fubini_numbers():
    assert [dist.fubini(n) for n in range(9)] == ORDERED_BELL
    assert [dist.fubini(n) for n in range(12)] == [naive.fubini_exact(n) for n in range(12)]
    assert dist.fubini(200) > 10**300  # exact Python int, no overflow


def test_log_fubini_recursion_matches_exact_integers(monkeypatch):
    exact = dist._log_fubini(120)
    monkeypatch.setattr(dist, "_EXACT_LOG_FUBINI_N", 5)  # force the log-space recursion
    approx = dist._log_fubini(120)
    np.testing.assert_allclose(approx, exact, rtol=1e-13)
    assert approx[120] == pytest.approx(math.log(dist.fubini(120)), rel=1e-13)


@pytest.mark.parametrize("na", range(1, 7))
def test_weak_orders_count_and_validity(na):
    w = dist.weak_orders(na)
    assert w.shape == (ORDERED_BELL[na], na) and w.dtype == np.int64
    assert np.unique(w, axis=0).shape[0] == w.shape[0]  # all distinct
    dist.check_rankings(w)  # all dense, 0 = best
    codes = _code(w, na)
    assert np.all(np.diff(codes) > 0)  # lexicographic order


@pytest.mark.parametrize("na", range(1, 6))
def test_weak_orders_match_naive(na):
    assert_array_equal(dist.weak_orders(na), naive.enumerate_weak_orders(na))


def test_weak_orders_na3_explicit():
    w = {tuple(r) for r in dist.weak_orders(3).tolist()}
    assert (0, 0, 0) in w and (0, 1, 1) in w and (2, 1, 0) in w and (0, 2, 1) in w
    assert (0, 2, 2) not in w  # not dense


def test_uniform_distribution():
    support, probs = dist.uniform_distribution(4)
    assert support.shape == (75, 4)
    assert np.allclose(probs, 1 / 75) and math.isclose(probs.sum(), 1.0)


# =====================================================================================
# Sampling
# =====================================================================================


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 7), st.integers(1, 20), st.integers(0, 2**31 - 1))
def test_recursive_sampler_matches_naive(na, n, seed):
    rng = np.random.default_rng(seed)
    u = rng.random((n, na))
    perm = np.argsort(rng.random((n, na)), axis=1).astype(np.int64)
    fast = _sample_weak_orders(dist._log_fubini(na), u, perm)
    assert_array_equal(fast, naive.sample_weak_orders(na, u, perm))
    dist.check_rankings(fast)


@pytest.mark.parametrize("method", ["enumerate", "recursive"])
@pytest.mark.parametrize("na", [3, 4])
def test_uniform_sampling_chi_square(na, method):
    m = dist.fubini(na)
    n = 200 * m
    x = dist.sample_uniform_rankings(na, n, seed=12345, method=method)
    support = dist.weak_orders(na)
    index = {c: t for t, c in enumerate(_code(support, na).tolist())}
    counts = np.bincount([index[c] for c in _code(x, na).tolist()], minlength=m)
    assert counts.sum() == n  # every draw is a valid ranking of the support
    p = stats.chisquare(counts).pvalue
    assert p > 0.01, f"chi-square rejects uniformity (p={p:.2e})"


def test_chi_square_detects_a_non_uniform_sampler():
    # the test above has power: tiers drawn independently per alternative, then made dense
    # (a natural but wrong sampler) is rejected at the same sample size and seed
    na, m = 4, 75
    rng = np.random.default_rng(12345)
    raw = rng.integers(0, na, size=(200 * m, na))
    dense = np.array([np.unique(r, return_inverse=True)[1] for r in raw])
    support = dist.weak_orders(na)
    index = {c: t for t, c in enumerate(_code(support, na).tolist())}
    counts = np.bincount([index[c] for c in _code(dense, na).tolist()], minlength=m)
    assert stats.chisquare(counts).pvalue < 1e-6


def test_recursive_sampling_large_na_number_of_tiers():
    # na = 12 (Fubini = 28,091,567,595: no enumeration). The number of tiers m of a uniform
    # weak order has pmf m! S(na, m) / F(na); compare with a chi-square test.
    na, n = 12, 20000
    x = dist.sample_uniform_rankings(na, n, seed=3)
    assert x.shape == (n, na)
    dist.check_rankings(x)
    tiers = x.max(axis=1) + 1

    pmf = np.array([math.factorial(m) * naive.stirling2(na, m) for m in range(1, na + 1)],
                   dtype=float)
    pmf /= dist.fubini(na)
    observed = np.bincount(tiers, minlength=na + 1)[1:]
    expected = pmf * n
    keep = expected >= 5  # pool the rare tier counts
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    assert stats.chisquare(obs, exp).pvalue > 0.01
    # alternatives are exchangeable: the mean tier is the same for all
    assert np.ptp(x.mean(axis=0)) < 0.15


def test_recursive_sampling_huge_na_does_not_overflow():
    x = dist.sample_uniform_rankings(300, 5, seed=0)
    dist.check_rankings(x)
    assert x.shape == (5, 300)


def test_sampling_is_seeded():
    a = dist.sample_uniform_rankings(9, 50, seed=4)
    assert_array_equal(a, dist.sample_uniform_rankings(9, 50, seed=4))
    assert not np.array_equal(a, dist.sample_uniform_rankings(9, 50, seed=5))
    g1, g2 = np.random.default_rng(6), np.random.default_rng(6)
    assert_array_equal(dist.sample_uniform_rankings(4, 30, seed=g1),
                       dist.sample_uniform_rankings(4, 30, seed=g2))


def test_sample_rankings_from_pmf():
    support = [[0, 1, 2, 3, 4], [1, 0, 2, 3, 4]]  # SPEC A10
    x = dist.sample_rankings(support, [0.55, 0.45], 4000, seed=0)
    assert x.shape == (4000, 5)
    share = np.mean(x[:, 0] == 0)
    assert abs(share - 0.55) < 3 * math.sqrt(0.55 * 0.45 / 4000)
    assert_array_equal(x, dist.sample_rankings(support, [0.55, 0.45], 4000, seed=0))
    only = dist.sample_rankings(support, [0.0, 1.0], 10, seed=1)
    assert (only[:, 0] == 1).all()


# =====================================================================================
# Bad input
# =====================================================================================


def test_probs_must_sum_to_one():
    with pytest.raises(GenexpyInputError, match="sum to 1"):
        dist.sample_rankings([[0, 1], [1, 0]], [0.5, 0.6], 3)


def test_probs_must_match_support():
    with pytest.raises(GenexpyInputError, match="one per ranking"):
        dist.sample_rankings([[0, 1], [1, 0]], [1.0], 3)


def test_probs_must_be_non_negative():
    with pytest.raises(GenexpyInputError, match="non-negative"):
        dist.sample_rankings([[0, 1], [1, 0]], [1.5, -0.5], 3)


def test_rankings_must_be_dense():
    with pytest.raises(GenexpyInputError, match="dense"):
        dist.check_rankings([[0, 2, 2]])
    with pytest.raises(GenexpyInputError, match="dense"):
        dist.check_rankings([[0, 1, 3, 1]])


def test_rankings_must_be_integers():
    with pytest.raises(GenexpyInputError, match="whole numbers"):
        dist.check_rankings([[0.0, 0.5]])
    with pytest.raises(GenexpyInputError, match=">= 0"):
        dist.check_rankings([[-1, 0]])


def test_ragged_rankings_rejected():
    with pytest.raises(GenexpyInputError, match="ragged"):
        dist.check_rankings([[0, 1], [0, 1, 2]])


def test_enumeration_limit():
    with pytest.raises(GenexpyInputError, match="sample_uniform_rankings"):
        dist.weak_orders(dist.MAX_ENUMERATE_NA + 1)


def test_bad_method_and_sizes():
    with pytest.raises(GenexpyInputError, match="method"):
        dist.sample_uniform_rankings(3, 5, method="exact")
    with pytest.raises(GenexpyInputError, match="n must be"):
        dist.sample_uniform_rankings(3, 0)
    with pytest.raises(GenexpyInputError, match="na must be"):
        dist.weak_orders(0)
