"""The large-input paths of the core (numba kernels on row blocks) against the naive twins.

Small studies run on NumPy/BLAS; large ones on numba kernels split over threads. The size
thresholds are lowered here so that both paths see the same small inputs, with ties,
tier values that are not dense, more than 64 alternatives (several bitset words), and
thread pools on tiny work, and must agree with tests/naive.py and with each other.
"""

import importlib
import math

import naive
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genexpy_nb import config
from genexpy_nb.generalizability import _gram
from genexpy_nb.generalizability.kernels import RBF, Jaccard, Mallows
from genexpy_nb.generalizability.mmd import draw_pairs, kernel_support, mmd_from_pairs

mmod = importlib.import_module("genexpy_nb.generalizability.mmd")  # the module, not mmd()


def _force_numba(monkeypatch):
    monkeypatch.setattr(config.ROUTES, "mallows_blas_max", -1)
    monkeypatch.setattr(config.ROUTES, "mallows_levels_max", -1)
    monkeypatch.setattr(config.ROUTES, "rbf_numpy_max", -1)
    monkeypatch.setattr(config.ROUTES, "mmd_small_m", -1)
    monkeypatch.setattr(config.ROUTES, "mmd_gather_max_work", -1)
    monkeypatch.setattr(config.ROUTES, "pairs_bucket_min_work", 0)
    monkeypatch.setattr(config.ROUTES, "parallel_min_work", 0)


def _force_numpy_blocks(monkeypatch):
    """The NumPy paths of moderate inputs, in the smallest blocks (one alternative or one
    row of the kernel matrix, one pair of samples at a time)."""
    monkeypatch.setattr(config.ROUTES, "mallows_levels_max", -1)
    monkeypatch.setattr(_gram, "_NUMPY_BLOCK_BYTES", 8)
    monkeypatch.setattr(config.ROUTES, "mmd_small_m", -1)
    monkeypatch.setattr(mmod, "_GATHER_BLOCK", 1)


@pytest.fixture(params=["numba", "numpy"])
def large_paths(request, monkeypatch):
    """The large-input paths, even for tiny inputs: the numba kernels on thread pools, and
    the NumPy/BLAS paths of moderate inputs in their smallest blocks."""
    if request.param == "numba":
        _force_numba(monkeypatch)
    else:
        _force_numpy_blocks(monkeypatch)
    return request.param


@st.composite
def rankings(draw, max_na=70):
    na = draw(st.integers(2, max_na))
    n = draw(st.integers(1, 5))
    top = draw(st.integers(0, 4))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    # tier values with gaps and repeats (not dense), sometimes all tied
    return rng.integers(0, top + 1, (n, na)) * 3 + 1


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # constant patches
@given(X=rankings(), Y=rankings())
def test_mallows_bitsets_match_naive(large_paths, X, Y):
    na = min(X.shape[1], Y.shape[1])
    X, Y = np.ascontiguousarray(X[:, :na]), np.ascontiguousarray(Y[:, :na])
    if na < 2:
        return
    k = Mallows(nu=0.05).resolve(na)
    fast = k.gram(X, Y)
    slow = naive.gram(lambda r, s: naive.mallows(r, s, 0.05), X.tolist(), Y.tolist())
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-14)
    sym = k.gram(X)
    np.testing.assert_allclose(sym, naive.gram(lambda r, s: naive.mallows(r, s, 0.05),
                                               X.tolist(), X.tolist()), rtol=1e-12, atol=1e-14)
    assert np.array_equal(sym, sym.T)


@pytest.mark.parametrize("chunk_bytes", [8, 100, 2**30])
def test_mallows_chunks_of_alternatives_match_naive(large_paths, monkeypatch, chunk_bytes):
    """Bit matrices taken one alternative at a time, in chunks with a shorter last one,
    or all at once: the same counts (rows not a multiple of 4, ties, X and Y apart)."""
    monkeypatch.setattr(_gram, "_BITS_CHUNK_BYTES", chunk_bytes)
    rng = np.random.default_rng(7)
    X = rng.integers(0, 9, (7, 75)) * 2
    Y = rng.integers(0, 40, (5, 75))
    k = Mallows(nu=0.01).resolve(75)
    def slow(A, B):
        return naive.gram(lambda r, s: naive.mallows(r, s, 0.01), A.tolist(), B.tolist())
    np.testing.assert_allclose(k.gram(X, Y), slow(X, Y), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(k.gram(X), slow(X, X), rtol=1e-12, atol=1e-14)


def test_mallows_paths_agree_bit_for_bit(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.integers(0, 30, (12, 130))
    k = Mallows().resolve(130)
    small = k.gram(X)
    monkeypatch.setattr(_gram, "_NUMPY_BLOCK_BYTES", 8)  # BLAS, one alternative at a time
    chunked = k.gram(X)
    _force_numba(monkeypatch)
    large = k.gram(X)
    np.testing.assert_array_equal(chunked, small)
    # twice the number of discordant pairs is an integer on both paths: same exponent
    np.testing.assert_allclose(large, small, rtol=1e-15, atol=0)
    # worked example (paper Example 4.1) on the bitset path
    assert Mallows().resolve(3)(np.array([0, 0, 0]), np.array([0, 1, 1])) == pytest.approx(
        math.exp(-1 / 3))


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(X=rankings(), Y=rankings(), block=st.sampled_from([8, 100, 2**30]))
def test_mallows_tie_levels_match_naive_and_the_other_routes(monkeypatch, X, Y, block):
    """The contingency tables of the tie levels (tiers with gaps and repeats, all tied,
    X and Y apart, row blocks of one row): the naive values, and the very bits of the
    "above" routes."""
    na = min(X.shape[1], Y.shape[1])
    X, Y = np.ascontiguousarray(X[:, :na]), np.ascontiguousarray(Y[:, :na])
    if na < 2:
        return
    monkeypatch.setattr(_gram, "_NUMPY_BLOCK_BYTES", block)
    k = Mallows(nu=0.05).resolve(na)
    with config.force_route(mallows_levels_max=math.inf):
        fast, sym = k.gram(X, Y), k.gram(X)
    slow = naive.gram(lambda r, s: naive.mallows(r, s, 0.05), X.tolist(), Y.tolist())
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-14)
    assert np.array_equal(sym, sym.T)
    for route in ("numba", "numpy"):
        with config.force_route(route):
            assert np.array_equal(k.gram(X, Y), fast) and np.array_equal(k.gram(X), sym)


def test_mallows_levels_are_dense_tiers_and_binary_rankings_take_them():
    R = np.array([[5, 5, 9, 1], [0, 0, 0, 0], [7, 3, 3, 100]])
    assert _gram._levels(R).tolist() == [[1, 1, 2, 0], [0, 0, 0, 0], [1, 0, 0, 2]]
    # 0/1 correctness of 20 models on items: L = 2, the levels route by default
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, (30, 20))
    k = Mallows().resolve(20)
    calls = []
    real = _gram._concordant_levels
    try:
        _gram._concordant_levels = lambda *a: calls.append(1) or real(*a)
        K = k.gram(X)
    finally:
        _gram._concordant_levels = real
    assert calls
    np.testing.assert_allclose(K, naive.gram(lambda r, s: naive.mallows(r, s, k.nu),
                                             X.tolist(), X.tolist()), rtol=1e-12)


def test_rbf_rows_match_naive(large_paths):
    rng = np.random.default_rng(2)
    X, Y = rng.random((7, 9)), rng.random((5, 9))
    k = RBF().resolve(9)
    slow = naive.gram(lambda a, b: naive.rbf(a, b, k.gamma), X.tolist(), Y.tolist())
    np.testing.assert_allclose(k.gram(X, Y), slow, rtol=1e-12)
    sym = k.gram(X)
    assert np.all(np.diag(sym) == 1.0) and np.array_equal(sym, sym.T)


@pytest.mark.parametrize("disjoint,replace", [(True, False), (True, True), (False, False),
                                              (False, True)])
def test_sparse_mmd_rows_match_naive(large_paths, disjoint, replace):
    rng = np.random.default_rng(3)
    N, na = 30, 5
    R = np.array([np.unique(r, return_inverse=True)[1] for r in rng.integers(0, 3, (N, na))])
    for kernel in (Jaccard(1).resolve(na), Mallows().resolve(na)):
        K, inv, _ = kernel_support(kernel, R)
        for n in (1, 3, 7):
            IX, IY = draw_pairs(N, n, 40, disjoint=disjoint, replace=replace, seed=n)
            fast = mmd_from_pairs(K, inv, IX, IY)
            f = (lambda r, s, k=kernel: naive.jaccard(r, s, 1)) if kernel.name == "jaccard" \
                else (lambda r, s, k=kernel: naive.mallows(r, s, k.nu))
            slow = [naive.mmd(f, R[IX[i]].tolist(), R[IY[i]].tolist()) for i in range(40)]
            np.testing.assert_allclose(fast, slow, atol=1e-7)


def test_mmd_paths_agree(monkeypatch):
    rng = np.random.default_rng(4)
    N, na = 300, 6
    R = rng.integers(0, 4, (N, na))
    k = Mallows().resolve(na)
    K, inv, _ = kernel_support(k, R)
    assert K.shape[0] > 96  # a large support
    IX, IY = draw_pairs(N, 5, 64, seed=0)
    gathered = mmd_from_pairs(K, inv, IX, IY)  # NumPy gathers of the touched points
    monkeypatch.setattr(config.ROUTES, "mmd_gather_max_work", -1)
    loop = mmd_from_pairs(K, inv, IX, IY)  # numba loop over the touched points
    monkeypatch.setattr(config.ROUTES, "mmd_small_m", 10**9)
    dense = mmd_from_pairs(K, inv, IX, IY)  # BLAS
    np.testing.assert_allclose(gathered, dense, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(loop, dense, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bucket", [False, True])
@pytest.mark.parametrize("N,k", [(300, 40), (300, 300), (1000, 7), (1000, 999), (1000, 1)])
def test_first_order_is_argsort(monkeypatch, N, k, bucket):
    """The numba bucket sort and NumPy's partition give argsort's first k, ties included."""
    if bucket:
        monkeypatch.setattr(config.ROUTES, "pairs_bucket_min_work", 0)
    U = np.random.default_rng(N + k).random((33, N))
    np.testing.assert_array_equal(mmod._first_order(U, k), np.argsort(U, axis=1)[:, :k])
    U[5, 17] = U[5, 200]  # a tie: falls back to NumPy's own order
    np.testing.assert_array_equal(mmod._first_order(U, k), np.argsort(U, axis=1)[:, :k])


def test_threads_do_not_change_bits(monkeypatch):
    import numba

    _force_numba(monkeypatch)
    rng = np.random.default_rng(5)
    R = rng.integers(0, 50, (200, 80))
    k = Mallows().resolve(80)
    IX, IY = draw_pairs(200, 20, 50, seed=1)
    outs = []
    for t in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        numba.set_num_threads(t)
        try:
            K, inv, _ = kernel_support(k, R)
            outs.append((K, mmd_from_pairs(K, inv, IX, IY)))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for K, v in outs[1:]:
        assert np.array_equal(K, outs[0][0]) and np.array_equal(v, outs[0][1])


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(X=rankings(), Y=rankings())
def test_rbf_on_integer_scores_one_product_equals_differences_bit_for_bit(monkeypatch, X, Y):
    """Integer scores: squared distances through one matrix product are exact, so the
    RBF matrix is the one of the direct differences, bit for bit."""
    na = min(X.shape[1], Y.shape[1])
    X, Y = np.ascontiguousarray(X[:, :na]), np.ascontiguousarray(Y[:, :na])
    k = RBF().resolve(na)
    fast, fast_sym = k.gram(X, Y), k.gram(X)
    monkeypatch.setattr(_gram, "_integer_sq_dists", lambda X, Y: None)
    np.testing.assert_array_equal(fast, k.gram(X, Y))
    np.testing.assert_array_equal(fast_sym, k.gram(X))
    np.testing.assert_array_equal(fast_sym, fast_sym.T)


def test_rbf_on_scores_takes_the_differences():
    """Non-integer values would lose digits in |x|^2 + |y|^2 - 2 x.y: not that path."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(6, 4)) * 1e3
    assert _gram._integer_sq_dists(X, X) is None
    assert _gram._integer_sq_dists(np.round(X), np.round(X)) is not None
    assert _gram._integer_sq_dists(np.full((2, 3), 2.0**40), np.ones((2, 3))) is None
