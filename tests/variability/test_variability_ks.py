"""Trimmed KS distance (SPEC B2), DKW threshold and the robust test (SPEC B3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import naive_dkw_threshold, naive_trimmed_ks
from numpy.testing import assert_allclose

from genexpy_nb import config
from genexpy_nb.variability import (
    RobustKSResult,
    clip_gaps,
    dkw_threshold,
    ks_to_reference,
    reference_ecdf,
    robust_ks_test,
    trimmed_ks,
)

# every test here runs on both routes: NumPy (small inputs) and the numba kernel
pytestmark = pytest.mark.usefixtures("trimmed_ks_route")


ALPHAS = np.array([0.0, 0.01, 0.05, 0.1, 0.25, 0.45, 0.6, 0.9])


def _samples(rng: np.random.Generator, kind: str, m: int, n: int):
    if kind == "continuous":
        return rng.normal(size=m), rng.normal(rng.normal(), rng.uniform(0.3, 2), size=n)
    if kind == "ties":
        return (
            rng.integers(-3, 4, size=m).astype(float),
            rng.integers(-2, 5, size=n).astype(float),
        )
    # heavy tails clipped to [-L, L]: many values sit exactly on the bounds
    L = 2.0
    return (
        clip_gaps(rng.standard_t(1, size=m) * 2, L),
        clip_gaps(rng.standard_t(1, size=n) * 2 + 0.5, L),
    )


@pytest.mark.parametrize("kind", ["continuous", "ties", "clipped"])
@pytest.mark.parametrize("m,n", [(1, 1), (1, 7), (6, 1), (13, 13), (40, 25), (17, 60)])
def test_matches_naive_twin(kind, m, n):
    rng = np.random.default_rng(1000 * m + n + len(kind))
    for _ in range(3):
        r, x = _samples(rng, kind, m, n)
        fast = trimmed_ks(r, x, ALPHAS)
        slow = np.array([naive_trimmed_ks(r, x, a) for a in ALPHAS])
        assert_allclose(fast, slow, rtol=0, atol=1e-12)


def test_grid_in_one_pass_equals_single_calls():
    rng = np.random.default_rng(3)
    r, x = rng.normal(size=300), rng.normal(0.4, 1.2, size=250)
    grid = np.array(config.ALPHA_GRID)
    many = trimmed_ks(r, x, grid)
    one = np.array([trimmed_ks(r, x, float(a)) for a in grid])
    assert isinstance(trimmed_ks(r, x, 0.1), float)
    assert many.shape == grid.shape
    assert_allclose(many, one, rtol=0, atol=0)


def test_order_of_the_samples_does_not_matter():
    rng = np.random.default_rng(4)
    r, x = rng.integers(0, 5, 50).astype(float), rng.normal(2, 1, 40)
    d = trimmed_ks(r, x, ALPHAS)
    assert_allclose(trimmed_ks(rng.permutation(r), rng.permutation(x), ALPHAS), d, atol=0)


def _independent_ks(r: np.ndarray, x: np.ndarray, *, bottom_left_limit: bool = False) -> float:
    """sup_v |F0(v) - Fn(v)| with F0 the interpolated reference eCDF, checked at every pooled
    value and at its left limit (F0 is linear and Fn constant in between).

    ``bottom_left_limit``: also compare F0 at the smallest reference value r_(1) with the
    candidate's left limit Fn(r_(1)-), as SPEC B2 step 4 (and the reference code) does with
    U_i = F0_i - Fn_{i-1}: F0 is continuous everywhere except at r_(1), where it jumps from
    0, so this term differs from the sup only when candidate values tie with r_(1).
    """
    knots, counts = np.unique(r, return_counts=True)
    heights = np.cumsum(counts) / r.size
    xs = np.sort(x)
    pts = np.unique(np.concatenate([r, x]))
    f0 = np.where(pts < knots[0], 0.0, np.interp(pts, knots, heights))
    f0_left = np.where(pts <= knots[0], 0.0, f0)  # F0 jumps only at the smallest knot
    fn = np.searchsorted(xs, pts, side="right") / xs.size
    fn_left = np.searchsorted(xs, pts, side="left") / xs.size
    d = max(np.abs(f0 - fn).max(), np.abs(f0_left - fn_left).max())
    if bottom_left_limit:
        d = max(d, heights[0] - np.searchsorted(xs, knots[0], side="left") / xs.size)
    return float(d)


small_floats = st.floats(-5, 5, allow_nan=False, allow_infinity=False)
small_ints = st.integers(-3, 3).map(float)
sample = st.one_of(
    st.lists(small_floats, min_size=1, max_size=30),
    st.lists(small_ints, min_size=1, max_size=30),
).map(np.array)


@settings(max_examples=60, deadline=None)
@given(r=sample, x=sample)
def test_d0_is_the_ks_distance_to_the_interpolated_reference(r, x):
    d0 = trimmed_ks(r, x, 0.0)
    assert d0 == pytest.approx(_independent_ks(r, x, bottom_left_limit=True), abs=1e-12)
    if not np.any(x == r.min()):
        # the plain sup distance whenever no candidate value ties with min(x_ref)
        assert d0 == pytest.approx(_independent_ks(r, x), abs=1e-12)


def test_d0_with_a_candidate_tied_to_the_smallest_reference_value():
    # F0 jumps 0 -> 1 at 0 and so does Fn: the sup distance is 0, but step 4 of SPEC B2
    # compares F0(0) = 1 with Fn(0-) = 0 (the published code does the same).
    assert trimmed_ks([0.0], [0.0], 0.0) == 1.0
    assert trimmed_ks([0.0], [0.0], 0.0) == naive_trimmed_ks([0.0], [0.0], 0.0)
    # a continuous sample without such a tie: plain sup distance
    # (F0 = 0.5, 0.75, 1 at 0, 0.5, 1; Fn jumps at 0.5: sup at 0.5- is 0.75 - 0)
    assert trimmed_ks([0.0, 1.0], [0.5], 0.0) == pytest.approx(0.75)


@settings(max_examples=60, deadline=None)
@given(r=sample, x=sample)
def test_non_increasing_in_alpha_and_bounded(r, x):
    d = trimmed_ks(r, x, np.linspace(0.0, 0.95, 40))
    assert np.all(np.diff(d) <= 1e-12)
    assert np.all(d >= -1e-12) and np.all(d <= 1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(r=st.lists(small_floats, min_size=1, max_size=40, unique=True).map(np.array))
def test_identical_samples_are_within_the_interpolation_error(r):
    # no ties: the linear interpolation moves F0 by at most 1/m; the candidate's values all
    # differ from r_(1) except r_(1) itself, which adds F0(r_(1)) = 1/m as well.
    assert trimmed_ks(r, r, 0.0) <= 1.0 / r.size + 1e-12


def test_atoms_in_the_reference_cost_their_mass():
    # Clipping to [-L, L] puts atoms on the bounds; the interpolated F0 smears them, so even
    # identical samples are at distance ~ the atom's mass (documented in clip_gaps).
    r = np.concatenate([np.full(10, -1.0), np.linspace(-0.9, 0.9, 80), np.full(10, 1.0)])
    assert trimmed_ks(r, r, 0.0) == pytest.approx(0.1, abs=1e-12)


def test_ks_to_reference_uses_the_pooled_interpolated_reference():
    rng = np.random.default_rng(5)
    ref = rng.normal(size=(4, 60))
    cands = rng.normal(0.3, 1, size=(3, 60))
    got = ks_to_reference(ref, cands, clip=None)
    want = [_independent_ks(ref.ravel(), c) for c in cands]
    assert_allclose(got, want, atol=1e-12)
    # and the reference function is what the test interpolates
    v = np.linspace(-3, 3, 11)
    knots, counts = np.unique(ref, return_counts=True)
    assert_allclose(
        reference_ecdf(ref, v, interpolate=True),
        np.where(v < knots[0], 0, np.interp(v, knots, np.cumsum(counts) / ref.size)),
    )
    grid = ks_to_reference(ref, cands, clip=None, alpha=[0.0, 0.2])
    assert grid.shape == (3, 2) and np.all(grid[:, 1] <= grid[:, 0])


def test_dkw_threshold_formula():
    for m, eps in [(1, 0.5), (10, 0.01), (2000, 0.05), (1234, 1e-6)]:
        tau = dkw_threshold(m, eps)
        assert tau == pytest.approx(naive_dkw_threshold(m, eps), rel=1e-15)
        assert tau == pytest.approx(math.sqrt(math.log(2 / eps) / m) + 1 / m)
    assert dkw_threshold(100) == pytest.approx(naive_dkw_threshold(100, config.DKW_EPS))


def test_robust_ks_test_decision():
    rng = np.random.default_rng(6)
    r = rng.normal(size=500)
    near = robust_ks_test(r, rng.normal(size=400), alpha=0.0)
    assert isinstance(near, RobustKSResult)
    assert near.accept and near.statistic <= near.threshold
    assert (near.m, near.n) == (500, 400)
    assert near.threshold == pytest.approx(dkw_threshold(500))
    # 30% of the candidate moved far away: rejected untrimmed, accepted after trimming 35%
    x = np.concatenate([rng.normal(size=280), rng.normal(8, 0.5, size=120)])
    assert not robust_ks_test(r, x, alpha=0.0).accept
    assert robust_ks_test(r, x, alpha=0.35).accept
    assert robust_ks_test(r, x, alpha=0.35).statistic == pytest.approx(trimmed_ks(r, x, 0.35))


def test_rows_kernel_matches_naive_twin():
    rng = np.random.default_rng(9)
    ref = rng.integers(-4, 5, size=(3, 12)).astype(float)
    cands = np.vstack([rng.normal(0, 2, 12), rng.integers(-4, 5, 12).astype(float)])
    got = ks_to_reference(ref, cands, clip=3.0, alpha=ALPHAS)
    pooled = np.clip(ref, -3, 3).ravel()
    for c, row in enumerate(np.clip(cands, -3, 3)):
        want = [naive_trimmed_ks(pooled, row, a) for a in ALPHAS]
        assert_allclose(got[c], want, rtol=0, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**31), M=st.integers(2, 4), T=st.integers(1, 50),
       C=st.integers(1, 5), rounded=st.booleans())
def test_distances_same_bits_on_both_routes(seed, M, T, C, rounded):
    """The full-data distances of NumPy's route and the kernel's are the same bits."""

    rng = np.random.default_rng(seed)
    ref, cand = rng.normal(size=(M, T)) * 4, rng.normal(0.5, 4, size=(C, T))
    if rounded:
        ref, cand = np.round(ref), np.round(cand)
    alphas = [0.3, 0.0, 0.05, 0.6]
    out = []
    for work in (1e18, 0):
        with config.force_route(ks_numpy_max_work=work):
            out.append(ks_to_reference(ref, cand, alpha=alphas, clip=None))
    np.testing.assert_array_equal(out[0], out[1])
