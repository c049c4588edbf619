"""The family test behind the rank sets and tiers, against its naive twin."""

import math

import naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from genexpy_nb import config
from genexpy_nb.leaderboards._stepdown import (
    ahead_matrix,
    cuts_held,
    kth_index,
    marginal_places,
    places,
    stepdown,
    t_rescale,
    tier_cuts,
)


def _case(seed, B, P, spread=3.0):
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((B, P)).astype(np.float32)
    z = rng.normal(0, spread, P)
    z[rng.random(P) < 0.1] = np.inf * np.sign(rng.normal())
    z[rng.random(P) < 0.1] = 0.0
    return z, G


@settings(max_examples=40)
@given(st.integers(0, 10_000), st.integers(3, 60), st.integers(1, 30),
       st.sampled_from([0.5, 0.9, 0.95]))
def test_numpy_route_equals_naive(seed, B, P, level):
    z, G = _case(seed, B, P)
    with config.force_route("numpy"):
        got = stepdown(z, G, level)
    assert got.tolist() == naive.stepdown(z.tolist(), G.tolist(), level)


@settings(max_examples=40)
@given(st.integers(0, 10_000), st.integers(3, 60), st.integers(1, 70),
       st.sampled_from([0.5, 0.95]))
def test_kernel_equals_naive(seed, B, P, level):
    """The kernel walks each draw's largest |G| (48 kept): P > 48 exercises the full scan."""
    z, G = _case(seed, B, P)
    live = np.random.default_rng(seed).integers(0, 4, P).astype(np.uint8)
    with config.force_route("numba"):
        got = stepdown(np.stack([z, -z]), G, level, live0=live)
    assert got[0].tolist() == naive.stepdown(z.tolist(), G.tolist(), level, live.tolist())
    assert got[1].tolist() == naive.stepdown((-z).tolist(), G.tolist(), level, live.tolist())


def test_kernel_rows_independent_of_threads():
    z, G = _case(5, 400, 200, spread=4.0)
    Z = np.stack([z + s for s in np.linspace(-1, 1, 64)])
    with config.force_route("numba"):
        from genexpy_nb._numba import threads

        with threads(1):
            one = stepdown(Z, G, 0.95)
        with threads(None):
            many = stepdown(Z, G, 0.95)
    assert np.array_equal(one, many)
    with config.force_route("numpy"):
        assert np.array_equal(stepdown(Z, G, 0.95), one)


def test_critical_value_map_is_applied_in_both_routes():
    z, G = _case(2, 300, 40, spread=3.0)
    grid = np.linspace(0, 60, 3001)
    cmap = (grid, t_rescale(grid, 9, 29))  # thinner tails at 29 df: smaller critical values
    with config.force_route("numpy"):
        a = stepdown(z, G, 0.95, cmap=cmap)
        plain = stepdown(z, G, 0.95)
    with config.force_route("numba"):
        b = stepdown(z[None], G, 0.95, cmap=cmap)[0]
    assert np.array_equal(a, b)
    assert np.count_nonzero(a) >= np.count_nonzero(plain)


def test_t_rescale_matches_scipy():
    x = np.array([-50.0, -3.0, -0.2, 0.0, 0.7, 4.0, 12.0, np.inf, -np.inf])
    got = t_rescale(x, 9, 40)
    want = stats.t.ppf(stats.t.cdf(x[1:6], 9), 40)
    np.testing.assert_allclose(got[1:6], want, rtol=1e-9)
    assert -11 < got[0] < -9 and got[-2] == np.inf and got[-1] == -np.inf and got[3] == 0
    np.testing.assert_array_equal(t_rescale(x, 9, 9), x)
    np.testing.assert_allclose(t_rescale(x[1:6], 9, math.inf), stats.norm.ppf(
        stats.t.cdf(x[1:6], 9)), rtol=1e-9)


def test_kth_index():
    assert kth_index(0.95, 2000) == 1899
    assert kth_index(0.95, 100) == 94
    assert kth_index(0.999, 10) == 9


@settings(max_examples=60)
@given(st.integers(0, 10_000), st.integers(2, 9))
def test_cuts_against_naive(seed, K):
    rng = np.random.default_rng(seed)
    iu, ju = np.triu_indices(K, 1)
    rej = rng.choice(np.array([-1, 0, 1], np.int8), size=(3, iu.size), p=[0.45, 0.1, 0.45])
    pos = rng.permutation(K)
    pi, pj = pos[iu], pos[ju]
    for route in ("numpy", "numba"):
        with config.force_route(route):
            got = cuts_held(rej, pi, pj)
        for r in range(3):
            assert got[r].tolist() == naive.cuts_held(rej[r].tolist(), pi.tolist(), pj.tolist())
    # tier_cuts (one board, from the matrix of who is ahead) says the same
    order = np.argsort(pos)
    A = ahead_matrix(rej[0], iu, ju, K)
    assert tier_cuts(A, order).tolist() == naive.cuts_held(rej[0].tolist(), pi.tolist(),
                                                           pj.tolist())


def test_places_count_who_is_ahead_and_behind():
    iu, ju = np.triu_indices(3, 1)  # pairs (0,1), (0,2), (1,2)
    rej = np.array([-1, -1, 0], np.int8)  # 0 ahead of 1 and 2; 1 vs 2 open
    lo, hi = places(ahead_matrix(rej, iu, ju, 3))
    assert lo.tolist() == [1, 2, 2] and hi.tolist() == [1, 3, 3]


def test_marginal_family_rejects_at_least_the_simultaneous():
    """A subfamily's step-down critical values are never larger: marginal sets are nested."""
    rng = np.random.default_rng(4)
    K = 7
    iu, ju = np.triu_indices(K, 1)
    for _ in range(20):
        G = rng.standard_normal((300, iu.size)).astype(np.float32)
        z = rng.normal(0, 3, iu.size)
        lo, hi = places(ahead_matrix(stepdown(z, G, 0.9), iu, ju, K))
        mlo, mhi = marginal_places(iu, ju, z, G, 0.9, K)
        assert np.all(mlo >= lo) and np.all(mhi <= hi)


@pytest.mark.parametrize("level", [0.8, 0.95])
def test_never_wider_than_bonferroni_of_the_same_draws(level):
    """The union bound holds in the draws' own distribution: max-t rejects what Bonferroni does.

    Bonferroni's common critical value c: the smallest with sum_h P*(G_h > c) <= 1 - level
    over the 2P one-sided hypotheses; the max-t value is never above it.
    """
    rng = np.random.default_rng(9)
    P = 30
    for _ in range(20):
        G = (rng.standard_normal((500, P)) * rng.uniform(0.7, 1.3, P)).astype(np.float32)
        z = rng.normal(0, 3, P)
        rej = stepdown(z, G, level)
        cand = np.sort(np.abs(G).ravel())
        lo, hi = 0, cand.size - 1  # the tails' sum falls as c grows: bisection

        def tail(c, G=G):
            return (G > c).mean(axis=0).sum() + (-G > c).mean(axis=0).sum()

        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if tail(cand[mid]) <= 1 - level else (mid + 1, hi)
        c_bonf = cand[lo]
        assert np.all(rej[z > c_bonf] == 1) and np.all(rej[z < -c_bonf] == -1)


def test_top_abs_kernel_keeps_the_largest_as_a_full_sort_does():
    """The one-pass top-L of each draw (numba) against sorting the whole row (its twin)."""
    from genexpy_nb._numba.leaderboards import top_abs

    rng = np.random.default_rng(3)
    B, P, L = 40, 500, 24
    G = rng.standard_normal((B, P)).astype(np.float32)
    G[0] = 1.0  # all tied
    G[1, ::3] = np.round(G[1, ::3], 1)  # many ties
    G[2, 7] = np.inf
    G[3] = np.sort(np.abs(G[3]))  # increasing: the buffer is compacted on every block
    order = np.empty((B, L), dtype=np.int32)
    top_abs(G, L, order, 0, B)
    a = np.abs(G)
    for r in range(B):
        want = np.sort(a[r])[::-1][:L]
        np.testing.assert_array_equal(a[r, order[r]], want)  # the values, largest first
        assert len(set(order[r].tolist())) == L  # L distinct columns
    assert order[2, 0] == 7


def test_studentised_draws_kernel_equals_the_numpy_arithmetic():
    """The rank sets' draws (numba) bit for bit against the NumPy route's formula."""
    from genexpy_nb._numba.leaderboards import studentised_draws
    from genexpy_nb.leaderboards.sets import moderated, studentised

    rng = np.random.default_rng(5)
    N, K, b = 30, 8, 50
    x = rng.integers(1, K + 1, size=(N, K)).astype(float)
    x[:, 3] = x[:, 2]  # a pair with no variance at all
    iu, ju = (a.astype(np.int64) for a in np.triu_indices(K, 1))
    d = x[:, iu].mean(0) - x[:, ju].mean(0)
    idx = rng.integers(0, N, size=(b, N))
    W = np.stack([np.bincount(r, minlength=N) for r in idx]).astype(float)
    m1 = W @ x / N
    D = x[:, iu] - x[:, ju]
    M2 = W @ (D * D)
    for var0 in (0.0, 0.7):
        e1 = m1[:, iu] - m1[:, ju]
        v = np.maximum(M2 / N - e1 * e1, 0.0) * (N / (N - 1))
        want = studentised(e1 - d, moderated(v, var0, N - 1), N).astype(np.float32)
        got = np.empty((b, iu.size), dtype=np.float32)
        studentised_draws(M2, m1, iu, ju, d, var0, N, got, 0, 0, b)
        np.testing.assert_array_equal(got, want)
        # rows in blocks (as on threads), into columns of a wider array (as the rank sets'
        # draws, a block of pairs at a time): the same bits, nothing else written
        wide = np.full((b, iu.size + 5), np.nan, dtype=np.float32)
        for r0, r1 in ((0, 7), (7, 8), (8, b)):
            studentised_draws(M2, m1, iu, ju, d, var0, N, wide, 2, r0, r1)
        np.testing.assert_array_equal(wide[:, 2:-3].view(np.int32), want.view(np.int32))
        assert np.isnan(wide[:, :2]).all() and np.isnan(wide[:, -3:]).all()
        if var0 == 0.0:  # the pair with no variance: 0, the branch of a zero variance
            q = np.flatnonzero((iu == 2) & (ju == 3))[0]
            assert (got[:, q] == 0.0).all() and np.abs(got).max() > 0.5
