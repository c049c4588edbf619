import math

import naive
import numpy as np
import pytest
from hypothesis import given, settings
from strategies import ranking_samples

from genexpy_nb import GenexpyInputError
from genexpy_nb.generalizability.kernels import RBF, Borda, Jaccard, Mallows
from genexpy_nb.generalizability.mmd import (
    draw_pairs,
    kernel_support,
    mmd,
    mmd_distribution,
    mmd_from_pairs,
)

NAIVE = {
    "jaccard": lambda k: (lambda r, s: naive.jaccard(r, s, k.k)),
    "mallows": lambda k: (lambda r, s: naive.mallows(r, s, k.nu)),
    "borda": lambda k: (lambda r, s: naive.borda(r, s, k.index, k.nu)),
}


@pytest.mark.parametrize("kernel", [Jaccard(1), Mallows(), Borda(0)])
@settings(max_examples=25, deadline=None)
@given(X=ranking_samples(min_n=1, max_n=7), Y=ranking_samples(min_n=1, max_n=7, min_na=6))
def test_mmd_matches_naive_and_properties(kernel, X, Y):
    na = X.shape[1]
    Y = Y[:, :na]
    Y = np.array([np.unique(r, return_inverse=True)[1] for r in Y])
    k = kernel.resolve(na)
    v = mmd(X, Y, k)
    assert v == pytest.approx(naive.mmd(NAIVE[k.name](k), X.tolist(), Y.tolist()), abs=1e-7)
    assert 0.0 <= v <= k.mmd_max + 1e-12
    assert mmd(X, X, k) == pytest.approx(0.0, abs=1e-7)
    assert mmd(Y, X, k) == pytest.approx(v, abs=1e-12)


@pytest.mark.parametrize("disjoint,replace", [(True, False), (True, True), (False, False),
                                              (False, True)])
def test_mmd_samples_match_naive(disjoint, replace):
    rng = np.random.default_rng(3)
    N, na = 14, 4
    R = np.array([np.unique(r, return_inverse=True)[1] for r in rng.integers(0, 3, (N, na))])
    S = rng.random((N, na))
    kernels = [Jaccard(1).resolve(na), Mallows().resolve(na), Borda(2).resolve(na),
               RBF().resolve(na)]
    data = [R, R, R, S]
    IX, IY = draw_pairs(N, 5, 30, disjoint=disjoint, replace=replace, seed=1)
    fast = [mmd_from_pairs(*kernel_support(k, d)[:2], IX, IY) for k, d in zip(kernels, data)]
    funs = [NAIVE["jaccard"](kernels[0]), NAIVE["mallows"](kernels[1]),
            NAIVE["borda"](kernels[2]), lambda a, b: naive.rbf(a, b, kernels[3].gamma)]
    for q, (f, d) in enumerate(zip(funs, data)):
        slow = [naive.mmd(f, d[IX[r]].tolist(), d[IY[r]].tolist()) for r in range(len(IX))]
        np.testing.assert_allclose(fast[q], slow, atol=1e-7)


def test_draw_pairs_modes():
    N, n, rep = 20, 6, 50
    IX, IY = draw_pairs(N, n, rep, disjoint=True, replace=False, seed=0)
    for a, b in zip(IX, IY):
        assert len(set(a) | set(b)) == 2 * n  # disjoint, no repeats
    IX, IY = draw_pairs(N, 15, rep, disjoint=True, replace=True, seed=0)
    for a, b in zip(IX, IY):
        assert not set(a) & set(b)  # halves are disjoint
    IX, IY = draw_pairs(N, n, rep, disjoint=False, replace=False, seed=0)
    assert all(len(set(a)) == n for a in IX)
    assert any(set(a) & set(b) for a, b in zip(IX, IY))
    IX, IY = draw_pairs(N, 30, rep, disjoint=False, replace=True, seed=0)
    assert IX.shape == (rep, 30) and IX.max() < N


def test_draw_pairs_seeded():
    a = draw_pairs(30, 5, 10, seed=7)
    b = draw_pairs(30, 5, 10, seed=7)
    c = draw_pairs(30, 5, 10, seed=8)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], c[0])


def test_too_few_results_for_n():
    with pytest.raises(GenexpyInputError, match="2n <= N"):
        draw_pairs(10, 6, 5)
    with pytest.raises(GenexpyInputError, match="n <= N"):
        draw_pairs(10, 11, 5, disjoint=False)


def test_mmd_distribution_same_result_any_thread_count():
    rng = np.random.default_rng(0)
    R = np.array([np.unique(r, return_inverse=True)[1] for r in rng.integers(0, 4, (40, 5))])
    k = Mallows().resolve(5)
    a = mmd_distribution(R, k, 8, rep=100, seed=3, n_jobs=1)
    b = mmd_distribution(R, k, 8, rep=100, seed=3, n_jobs=2)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (100,) and (a >= 0).all() and (a <= k.mmd_max).all()


def test_mmd_bound_reached_by_disjoint_supports():
    k = Jaccard(1).resolve(3)
    x = np.array([[0, 1, 2]] * 3)
    y = np.array([[2, 1, 0]] * 3)
    assert mmd(x, y, k) == pytest.approx(math.sqrt(2.0))
    assert k.mmd_max == pytest.approx(math.sqrt(2.0))


def test_kernel_support_merges_equivalent_results():
    R = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [0, 1, 1]])
    first, inv, counts = Jaccard(1).resolve(3).support(R)
    assert len(first) == 2 and counts.sum() == 4  # top sets {a0} and {a1}
    first, inv, counts = Mallows().resolve(3).support(R)
    assert len(first) == 4
    first, inv, counts = Borda(0).resolve(3).support(R)
    assert len(first) == 2  # b = 3 (a0 best) or 2


def test_dense_mmd_blocks_do_not_depend_on_the_thread_count(monkeypatch):
    """Fixed blocks of pairs per BLAS product: the same bits at 1, 2 and 4 threads."""
    import genexpy_nb._numba as nb
    from genexpy_nb import config
    from genexpy_nb._numba import threads
    from genexpy_nb.generalizability.mmd import _PAIRS_PER_BLOCK, mmd_from_pairs

    monkeypatch.setattr(nb, "_max_threads", lambda: 4)
    rng = np.random.default_rng(3)
    m, rep, n = 60, 3 * _PAIRS_PER_BLOCK + 17, 20
    A = rng.normal(size=(m, m))
    K = A @ A.T / m
    inv = rng.integers(0, m, size=150)
    IX, IY = rng.integers(0, 150, size=(rep, n)), rng.integers(0, 150, size=(rep, n))
    seen = []
    real = nb._run_fixed_blocks
    monkeypatch.setattr(nb, "_run_fixed_blocks",
                        lambda fn, nrows, rows, nt: (seen.append((nrows, rows)),
                                                     real(fn, nrows, rows, nt)))
    outs = []
    with config.force_route(parallel_min_work=0, mmd_small_m=1e9):
        for t in (1, 2, 4):
            with threads(t):
                outs.append(mmd_from_pairs(K, inv, IX, IY))
    assert seen == [(rep, _PAIRS_PER_BLOCK)] * 3  # the dense path, in fixed blocks
    assert all(np.array_equal(outs[0], o) for o in outs[1:])
