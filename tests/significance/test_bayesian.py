"""Bayesian comparisons (genexpy_nb.significance.bayesian) against baycomp and a naive twin."""

from __future__ import annotations

import naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from genexpy_nb import GenexpyInputError
from genexpy_nb.significance import (
    DegenerateTestWarning,
    bayesian_sign_test,
    bayesian_signed_rank,
    correlated_bayesian_ttest,
)
from genexpy_nb.significance import bayesian as bayes

baycomp = pytest.importorskip("baycomp", reason="baycomp (the oracle) is in the test extra")


def _scores(seed, n, shift=0.005, sd=0.02):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.8, 0.05, n)
    return x, x + rng.normal(shift, sd, n)


# ---- correlated Bayesian t-test --------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rope", [0.0, 0.002, 0.01, 0.05])
@pytest.mark.parametrize("runs", [1, 2, 5])
def test_ttest_equals_baycomp(seed, rope, runs):
    x, y = _scores(seed, 10 * runs, shift=0.004 * (seed - 2), sd=0.01)
    res = correlated_bayesian_ttest(x, y, rope=rope, runs=runs, higher_is_better=True)
    ref = baycomp.CorrelatedTTest.probs(x, y, rope, runs=runs)
    if rope == 0:
        np.testing.assert_allclose([res.probs[0], res.probs[2]], ref, rtol=0, atol=1e-9)
        assert res.probs[1] == 0.0
    else:
        np.testing.assert_allclose(res.probs, ref, rtol=0, atol=1e-9)
    mean, var, df = baycomp.CorrelatedTTest.compute_statistics(x, y, runs)
    assert res.mean == pytest.approx(mean, abs=1e-15)
    assert res.scale == pytest.approx(np.sqrt(var), rel=1e-12)
    assert res.df == df
    assert sum(res.probs) == pytest.approx(1.0, abs=1e-12)


@given(
    d=hnp.arrays(np.float64, st.integers(2, 40),
                 elements=st.floats(-1, 1, allow_nan=False, width=32)),
    rope=st.floats(0, 0.5),
)
@settings(max_examples=60, deadline=None)
def test_ttest_equals_baycomp_property(d, rope):
    """Any differences (ties, zeros, tiny variances): baycomp's numbers, to 1e-9."""
    x = np.zeros(d.size)
    y = d.astype(np.float64)
    if np.all(y == y[0]):
        return  # zero variance: tested below (a DegenerateTestWarning)
    res = correlated_bayesian_ttest(x, y, rope=rope, runs=1, higher_is_better=True)
    ref = baycomp.CorrelatedTTest.probs(x, y, rope, runs=1)
    got = [res.probs[0], res.probs[2]] if rope == 0 else list(res.probs)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-9)
    assert all(0 <= p <= 1 for p in res.probs) and sum(res.probs) == pytest.approx(1)


def test_ttest_errors_direction_and_swap():
    """Errors (lower is better) are the negated scores; swapping x and y swaps left/right."""
    x, y = _scores(1, 20, shift=0.01)
    hi = correlated_bayesian_ttest(x, y, rope=0.01, runs=2, higher_is_better=True)
    lo = correlated_bayesian_ttest(-x, -y, rope=0.01, runs=2, higher_is_better=False)
    assert hi.probs == lo.probs
    sw = correlated_bayesian_ttest(y, x, rope=0.01, runs=2, higher_is_better=True)
    np.testing.assert_allclose(sw.probs, hi.probs[::-1], atol=1e-15)
    # unpacking and the named probabilities
    left, rope, right = hi
    assert (left, rope, right) == hi.probs == (hi.p_left, hi.p_rope, hi.p_right)


def test_ttest_nadeau_bengio_sizes_equal_runs():
    """n_train / n_test of k-fold CV give baycomp's rho = 1/k."""
    x, y = _scores(2, 30)
    a = correlated_bayesian_ttest(x, y, rope=0.005, runs=3, higher_is_better=True)
    b = correlated_bayesian_ttest(x, y, rope=0.005, n_train=900, n_test=100,
                                  higher_is_better=True)
    np.testing.assert_allclose(a.probs, b.probs, atol=1e-12)
    assert a.scale == pytest.approx(b.scale, rel=1e-12)


def test_ttest_sample_is_the_posterior_and_seeded():
    x, y = _scores(3, 20, shift=0.01)
    res = correlated_bayesian_ttest(x, y, rope=0.01, runs=2, higher_is_better=True, seed=5)
    again = correlated_bayesian_ttest(x, y, rope=0.01, runs=2, higher_is_better=True, seed=5)
    assert np.array_equal(res.sample, again.sample)
    assert res.sample.shape == (50_000,)
    emp = (np.mean(res.sample < -0.01), np.mean(np.abs(res.sample) <= 0.01),
           np.mean(res.sample > 0.01))
    np.testing.assert_allclose(emp, res.probs, atol=0.01)


def test_ttest_degenerate_point_posterior():
    x = np.full(10, 0.8)
    with pytest.warns(DegenerateTestWarning, match="zero variance"):
        res = correlated_bayesian_ttest(x, x + 0.02, rope=0.01, runs=1,
                                        higher_is_better=True)
    assert res.probs == (0.0, 0.0, 1.0) and res.note
    with pytest.warns(DegenerateTestWarning):
        res = correlated_bayesian_ttest(x, x, rope=0.0, runs=1, higher_is_better=True)
    assert res.probs == (0.5, 0.0, 0.5)
    assert np.all(res.sample == 0.0)


def test_ttest_input_errors():
    x, y = _scores(0, 10)
    with pytest.raises(GenexpyInputError, match="rope"):
        correlated_bayesian_ttest(x, y, runs=1, higher_is_better=True)
    with pytest.raises(GenexpyInputError, match="higher_is_better"):
        correlated_bayesian_ttest(x, y, rope=0.01, runs=1)
    with pytest.raises(GenexpyInputError, match="rope must be"):
        correlated_bayesian_ttest(x, y, rope=-0.1, runs=1, higher_is_better=True)
    with pytest.raises(GenexpyInputError, match="runs=R"):
        correlated_bayesian_ttest(x, y, rope=0.01, higher_is_better=True)
    with pytest.raises(GenexpyInputError, match="not both"):
        correlated_bayesian_ttest(x, y, rope=0.01, runs=1, n_train=9, n_test=1,
                                  higher_is_better=True)
    with pytest.raises(GenexpyInputError, match="multiple of runs"):
        correlated_bayesian_ttest(x, y, rope=0.01, runs=3, higher_is_better=True)
    with pytest.raises(GenexpyInputError, match="k >= 2"):
        correlated_bayesian_ttest(x, y, rope=0.01, runs=10, higher_is_better=True)
    with pytest.raises(GenexpyInputError, match="paired"):
        correlated_bayesian_ttest(x, y[:-1], rope=0.01, runs=1, higher_is_better=True)
    y2 = y.copy()
    y2[0] = np.nan
    with pytest.raises(GenexpyInputError, match="NaN"):
        correlated_bayesian_ttest(x, y2, rope=0.01, runs=1, higher_is_better=True)
    res = correlated_bayesian_ttest(x[1:], y2[1:], rope=0.01, runs=1, higher_is_better=True)
    om = correlated_bayesian_ttest(x, y2, rope=0.01, runs=1, higher_is_better=True,
                                   nan_policy="omit")
    assert om.probs == res.probs and om.n == 9
    with pytest.raises(GenexpyInputError, match="names"):
        correlated_bayesian_ttest(x, y, rope=0.01, runs=1, higher_is_better=True,
                                  names=("a", "a"))


# ---- Bayesian signed-rank test ---------------------------------------------------------
@pytest.mark.parametrize(("seed", "rope", "shift"), [(0, 0.01, 0.005), (1, 0.0, 0.003),
                                                     (2, 0.005, 0.0)])
def test_signed_rank_within_monte_carlo_error_of_baycomp(seed, rope, shift):
    """At 50,000 samples both sit within about 0.005 of the exact probabilities."""
    x, y = _scores(seed, 50, shift=shift)
    res = bayesian_signed_rank(x, y, rope=rope, higher_is_better=True, seed=seed)
    ref = baycomp.SignedRankTest.probs(x, y, rope, random_state=seed)
    got = [res.probs[0], res.probs[2]] if rope == 0 else list(res.probs)
    np.testing.assert_allclose(got, ref, atol=0.01)
    assert sum(res.probs) == pytest.approx(1.0)
    # baycomp's own samples: the same posterior (means of the sampled probabilities)
    ref_sample = baycomp.SignedRankTest.sample(x, y, rope, nsamples=20_000, random_state=seed)
    np.testing.assert_allclose(res.sample.mean(axis=0), ref_sample.mean(axis=0), atol=0.005)


@pytest.mark.parametrize("rope", [0.0, 0.01])
@pytest.mark.parametrize("prior", [0.5, 2.0])
def test_signed_rank_equals_naive_twin(rope, prior):
    """Same draws, baycomp's dense computation: the same samples to 1e-12."""
    x, y = _scores(4, 23)
    y[3] = x[3]  # a zero difference: tied with the pseudo-observation
    y[5] = x[5] + 0.01  # on the rope's edge: a tie of z_i + z_0 with the rope
    res = bayesian_signed_rank(x, y, rope=rope, prior=prior, higher_is_better=True,
                               nsamples=700, seed=11)
    ref = naive.bayesian_signed_rank_samples(y - x, rope, prior, 700, 11, bayes.SAMPLE_BLOCK)
    np.testing.assert_allclose(res.sample, ref, rtol=0, atol=1e-12)


def test_signed_rank_blocks_and_threads_same_bits(monkeypatch):
    """Blocks of samples on 1 or 2 threads: the same bits."""
    from genexpy_nb._numba import threads

    x, y = _scores(5, 40)
    monkeypatch.setattr(bayes, "SAMPLE_BLOCK", 1000)
    with threads(1):
        a = bayesian_signed_rank(x, y, rope=0.01, higher_is_better=True, nsamples=9000, seed=3)
    with threads(2):
        b = bayesian_signed_rank(x, y, rope=0.01, higher_is_better=True, nsamples=9000, seed=3)
    assert np.array_equal(a.sample, b.sample)
    ref = naive.bayesian_signed_rank_samples(y - x, 0.01, 0.5, 3000, 3, 1000)  # 3 blocks
    np.testing.assert_allclose(a.sample[:3000], ref, atol=1e-12)


@given(
    d=hnp.arrays(np.float64, st.integers(2, 25),
                 elements=st.sampled_from([-0.03, -0.01, -0.005, 0.0, 0.005, 0.01, 0.02])),
    rope=st.sampled_from([0.0, 0.005, 0.01]),
    seed=st.integers(0, 2**31),
)
@settings(max_examples=40, deadline=None)
def test_signed_rank_invariants(d, rope, seed):
    """Ties everywhere: samples are probabilities; rope 0 has no rope; seeded."""
    if rope == 0 and not d.any():  # identical alternatives, no rope: symmetric, and said
        with pytest.warns(DegenerateTestWarning, match="symmetric"):
            res = bayesian_signed_rank(np.zeros(d.size), d, rope=rope,
                                       higher_is_better=True, nsamples=300, seed=seed)
        assert res.probs == (0.5, 0.0, 0.5) and "symmetric" in res.note
        return
    res = bayesian_signed_rank(np.zeros(d.size), d, rope=rope, higher_is_better=True,
                               nsamples=300, seed=seed)
    s = res.sample
    assert s.shape == (300, 3)
    assert np.all(s >= -1e-12) and np.all(s <= 1 + 1e-12)
    np.testing.assert_allclose(s.sum(axis=1), 1.0, atol=1e-12)
    assert sum(res.probs) == pytest.approx(1.0)
    if rope == 0:
        assert np.all(s[:, 1] == 0)
    again = bayesian_signed_rank(np.zeros(d.size), d, rope=rope, higher_is_better=True,
                                 nsamples=300, seed=seed)
    assert np.array_equal(s, again.sample) and res.probs == again.probs
    ref = naive.bayesian_signed_rank_samples(d, rope, 0.5, 300, seed, bayes.SAMPLE_BLOCK)
    np.testing.assert_allclose(s, ref, atol=1e-12)


def test_signed_rank_direction_and_decisions():
    x, y = _scores(6, 30, shift=0.0, sd=0.002)
    big = bayesian_signed_rank(x, y + 0.05, rope=0.01, higher_is_better=True)
    assert big.probs[2] > 0.99 and big.decision() == "right"
    assert "y is practically better" in big.interpretation
    err = bayesian_signed_rank(x, y + 0.05, rope=0.01, higher_is_better=False,
                               names=("A", "B"))
    assert err.probs[0] > 0.99 and "A is practically better" in err.interpretation
    same = bayesian_signed_rank(x, y, rope=0.01, higher_is_better=True)
    assert same.probs[1] > 0.99 and same.decision() == "rope"
    mid = bayesian_signed_rank(x[:4], y[:4] + 0.01, rope=0.01, higher_is_better=True)
    assert mid.decision() is None and "no decision" in mid.interpretation
    assert "\n" not in mid.interpretation
    frame = big.to_frame()
    assert frame["probability"].to_list() == list(big.probs)
    assert "Bayesian signed-rank" in repr(big)


def test_signed_rank_input_errors():
    x, y = _scores(0, 10)
    with pytest.raises(GenexpyInputError, match="rope"):
        bayesian_signed_rank(x, y, higher_is_better=True)
    with pytest.raises(GenexpyInputError, match="higher_is_better"):
        bayesian_signed_rank(x, y, rope=0.01)
    with pytest.raises(GenexpyInputError, match="prior"):
        bayesian_signed_rank(x, y, rope=0.01, higher_is_better=True, prior=0)
    with pytest.raises(GenexpyInputError, match="nsamples"):
        bayesian_signed_rank(x, y, rope=0.01, higher_is_better=True, nsamples=0)
    with pytest.raises(GenexpyInputError, match="at least 2"):
        bayesian_signed_rank(x[:1], y[:1], rope=0.01, higher_is_better=True)
    with pytest.raises(GenexpyInputError, match="infinite"):
        bayesian_signed_rank(x, np.r_[y[:-1], np.inf], rope=0.01, higher_is_better=True)
    with pytest.raises(GenexpyInputError, match="rope must be"):
        bayesian_signed_rank(x, y, rope=float("nan"), higher_is_better=True)


# ---- Bayesian sign test ------------------------------------------------------------------
@pytest.mark.parametrize(("seed", "rope"), [(0, 0.01), (1, 0.0), (2, 0.02)])
def test_sign_test_within_monte_carlo_error_of_baycomp(seed, rope):
    x, y = _scores(seed, 40, shift=0.004)
    res = bayesian_sign_test(x, y, rope=rope, higher_is_better=True, seed=seed)
    ref = baycomp.SignTest.probs(x, y, rope, random_state=seed)
    got = [res.probs[0], res.probs[2]] if rope == 0 else list(res.probs)
    np.testing.assert_allclose(got, ref, atol=0.01)
    assert sum(res.probs) == pytest.approx(1.0)


def test_sign_test_prior_place_and_counts():
    d = np.array([-0.05, -0.05, 0.0, 0.05, 0.05, 0.05, 0.05])
    res = bayesian_sign_test(np.zeros(7), d, rope=0.01, higher_is_better=True,
                             prior_place="right", prior=3.0, nsamples=20_000, seed=1)
    # Dirichlet(2 + eps, 1 + eps, 4 + 3 + eps): mean of the right share 7/10
    assert res.sample.mean(axis=0)[2] == pytest.approx(7.0003 / 10.0003, abs=0.01)
    ref = baycomp.SignTest.probs(np.zeros(7), d, 0.01, prior=(3.0, baycomp.SignTest.RIGHT),
                                 random_state=1)
    np.testing.assert_allclose(res.probs, ref, atol=0.01)
    with pytest.raises(GenexpyInputError, match="prior_place"):
        bayesian_sign_test(np.zeros(7), d, rope=0.01, higher_is_better=True,
                           prior_place="middle")


def test_correlated_ttest_draws_its_sample_only_when_read():
    import pickle

    rng = np.random.default_rng(11)
    x = rng.normal(0.8, 0.02, 30)
    y = x + rng.normal(0.004, 0.01, 30)
    res = correlated_bayesian_ttest(x, y, rope=0.01, runs=3, higher_is_better=True, seed=7,
                                    nsamples=1000)
    assert not isinstance(res.__dict__["_sample"], np.ndarray)  # probabilities only: no draw
    copy = pickle.loads(pickle.dumps(res))
    eager = res.mean + res.scale * np.random.default_rng(7).standard_t(res.df, 1000)
    assert np.array_equal(res.sample, eager)  # the draws an eager sample would have made
    assert res.sample is res.sample  # drawn once
    assert np.array_equal(copy.sample, eager)
    # a Generator is the caller's stream: drawn from at once
    gen = np.random.default_rng(7)
    res_g = correlated_bayesian_ttest(x, y, rope=0.01, runs=3, higher_is_better=True,
                                      seed=gen, nsamples=1000)
    assert isinstance(res_g.__dict__["_sample"], np.ndarray)
    assert np.array_equal(res_g.sample, eager)
    with pytest.raises(GenexpyInputError, match="seed"):
        correlated_bayesian_ttest(x, y, rope=0.01, runs=3, higher_is_better=True, seed=-1)


@given(
    d=hnp.arrays(np.float64, st.integers(1, 60),
                 elements=st.one_of(st.sampled_from([-1 / 3, -0.1, -0.05, 0.0, 0.05, 0.1, 0.15,
                                                     1 / 3, 0.2]),
                                    st.floats(-1, 1, allow_nan=False))),
    rope=st.sampled_from([0.0, 0.025, 0.05, 0.1, 1 / 6]),
)
@settings(max_examples=200, deadline=None)
def test_signed_rank_counts_equal_the_dense_comparisons(d, rope):
    """The O(m log m) prefix counts are baycomp's m x m comparisons of the same sums."""
    z = np.sort(np.concatenate(([0.0], d)))
    s = z[:, None] + z[None, :]
    t = 2.0 * rope
    dense = [(s <= t).sum(1), (s < t).sum(1), (-s > t).sum(1), (-s >= t).sum(1)]
    for got, want in zip(bayes._signed_rank_indices(z, rope), dense):
        assert np.array_equal(got, want)


def test_signed_rank_cost_is_bounded_before_the_work():
    x = np.linspace(0, 1, 100_000)
    with pytest.raises(GenexpyInputError, match=r"100,000 datasets x nsamples=5,000,000 .*"
                                                r"minutes.*use nsamples="):
        bayesian_signed_rank(x, x + 0.01, rope=0.0, higher_is_better=True,
                             nsamples=5_000_000)
    assert bayes.signed_rank_seconds(100_000, 50_000) < bayes.MAX_SIGNED_RANK_SECONDS


def test_signed_rank_shows_a_bar_with_its_estimate(monkeypatch, capsys):
    monkeypatch.setenv("GENEXPY_NB_PROGRESS", "1")
    monkeypatch.setattr(bayes, "_SECONDS_PER_SAMPLE_DATASET", 1e-4)  # as if it were slow
    x, y = _scores(2, 30)
    bayesian_signed_rank(x, y, rope=0.01, higher_is_better=True, nsamples=2000, seed=0)
    err = capsys.readouterr().err
    assert "Bayesian signed-rank, 30 datasets (about 6 s on one core)" in err
    bayesian_signed_rank(x, y, rope=0.01, higher_is_better=True, nsamples=2000, seed=0,
                         progress=False)
    assert "Bayesian signed-rank" not in capsys.readouterr().err
