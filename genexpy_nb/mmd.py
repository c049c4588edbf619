"""Maximum Mean Discrepancy and the resampled distribution of MMD_n (SPEC A4-A5)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import config
from ._numba import core as _core
from ._validation import GenexpyInputError, check_positive_int, numba_threads, rng_from_seed
from .kernels import Kernel

__all__ = ["mmd", "support", "draw_pairs", "mmd_distribution", "mmd_from_pairs", "MODES"]

#: (disjoint, replace) -> name used in the paper
MODES = {
    (True, False): "realistic",
    (True, True): "pessimistic",
    (False, False): "optimistic",
    (False, True): "independent with replacement",
}


def mmd(x: np.ndarray, y: np.ndarray, kernel: Kernel) -> float:
    """Biased (V-statistic) MMD between two samples of rankings (or score vectors).

    ``MMD^2 = mean k(x_i, x_j) + mean k(y_i, y_j) - 2 mean k(x_i, y_j)``, clipped at 0.

    Parameters
    ----------
    x : (n, na) array
    y : (m, na) array
    kernel : a resolved Kernel (``kernel.resolve(na, alternatives)``)
    """
    kxx = kernel.gram(x)
    kyy = kernel.gram(y)
    kxy = kernel.gram(x, y)
    v = kxx.mean() + kyy.mean() - 2.0 * kxy.mean()
    return float(np.sqrt(max(v, 0.0)))


def support(sample: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct results of a sample: (support (m, na), inverse (N,), counts (m,))."""
    sample = np.asarray(sample)
    u, inv, cnt = np.unique(sample, axis=0, return_inverse=True, return_counts=True)
    return u, np.ascontiguousarray(inv.ravel(), dtype=np.int64), cnt


def draw_pairs(
    N: int, n: int, rep: int, *, disjoint: bool = True, replace: bool = False,
    seed: int | np.random.Generator | None = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Indices of ``rep`` pairs of samples of size ``n`` from ``N`` results (SPEC A5).

    ========  =======  =====================================================  ==========
    disjoint  replace  one pair                                               valid for
    ========  =======  =====================================================  ==========
    True      False    2n distinct indices without replacement, halved        2n <= N
    True      True     random halving of the N indices, n with replacement    any n
                       from each half
    False     False    each sample n indices without replacement, independent n <= N
    False     True     each sample n indices with replacement, independent    any n
    ========  =======  =====================================================  ==========

    Returns
    -------
    IX, IY : (rep, n) int64
    """
    N = check_positive_int("N", N, minimum=1)
    n = check_positive_int("n", n, minimum=1)
    rep = check_positive_int("rep", rep, minimum=1)
    rng = rng_from_seed(seed)
    if disjoint and not replace:
        if 2 * n > N:
            raise GenexpyInputError(
                f"n={n}: two disjoint samples without replacement need 2n <= N={N}. "
                "Use n <= N // 2, or replace=True."
            )
        idx = np.argsort(rng.random((rep, N)), axis=1)[:, : 2 * n]
        return np.ascontiguousarray(idx[:, :n]), np.ascontiguousarray(idx[:, n:])
    if disjoint and replace:
        if N < 2:
            raise GenexpyInputError("splitting into two halves needs N >= 2 results.")
        perm = np.argsort(rng.random((rep, N)), axis=1)
        h = N // 2
        a = rng.integers(0, h, size=(rep, n))
        b = rng.integers(h, N, size=(rep, n))
        IX = np.take_along_axis(perm, a, axis=1)
        IY = np.take_along_axis(perm, b, axis=1)
        return np.ascontiguousarray(IX), np.ascontiguousarray(IY)
    if not replace:
        if n > N:
            raise GenexpyInputError(f"n={n} > N={N}: sampling without replacement needs n <= N.")
        IX = np.argsort(rng.random((rep, N)), axis=1)[:, :n]
        IY = np.argsort(rng.random((rep, N)), axis=1)[:, :n]
        return np.ascontiguousarray(IX), np.ascontiguousarray(IY)
    IX = rng.integers(0, N, size=(rep, n))
    IY = rng.integers(0, N, size=(rep, n))
    return IX, IY


def stacked_support_grams(sample_by_kernel: Sequence[np.ndarray], kernels: Sequence[Kernel]
                          ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Kernel matrices of several kernels on one joint support.

    Rankings kernels and score kernels see different arrays; the joint support is the set of
    distinct (ranking, scores) rows, so one count vector serves every kernel.

    Returns (Ks (nk, m, m), inverse (N,), supports per kernel).
    """
    N = sample_by_kernel[0].shape[0]
    joint = np.concatenate([np.asarray(s, dtype=np.float64).reshape(N, -1)
                            for s in sample_by_kernel], axis=1)
    _, first, inv = np.unique(joint, axis=0, return_index=True, return_inverse=True)
    inv = np.ascontiguousarray(inv.ravel(), dtype=np.int64)
    m = first.size
    Ks = np.empty((len(kernels), m, m))
    sups = []
    for q, (k, s) in enumerate(zip(kernels, sample_by_kernel, strict=True)):
        u = np.asarray(s)[first]
        sups.append(u)
        Ks[q] = k.gram(u)
    return Ks, inv, sups


def mmd_from_pairs(Ks: np.ndarray, inv: np.ndarray, IX: np.ndarray, IY: np.ndarray,
                   n_jobs: int | None = None) -> np.ndarray:
    """MMD of each pair of index samples for every stacked kernel matrix: (nk, rep)."""
    with numba_threads(n_jobs):
        return _core.mmd_samples(np.ascontiguousarray(Ks, dtype=np.float64),
                                 np.ascontiguousarray(inv, dtype=np.int64),
                                 np.ascontiguousarray(IX, dtype=np.int64),
                                 np.ascontiguousarray(IY, dtype=np.int64))


def mmd_distribution(
    sample: np.ndarray, kernel: Kernel, n: int, *, rep: int = config.REP,
    disjoint: bool = True, replace: bool = False,
    seed: int | np.random.Generator | None = 0, n_jobs: int | None = None,
) -> np.ndarray:
    """``rep`` resampled values of MMD_n from one configuration's N results (SPEC A5).

    Parameters
    ----------
    sample : (N, na) rankings (or scores for RBF)
    kernel : resolved Kernel
    n : sample size
    rep : number of resampled pairs (default 200)
    disjoint, replace : resampling mode, see :func:`draw_pairs`
    seed : int or Generator; the same seed gives the same values

    Returns
    -------
    (rep,) float64
    """
    sample = np.asarray(sample)
    if sample.ndim != 2:
        raise GenexpyInputError("sample must be a 2-d array (results, alternatives).")
    Ks, inv, _ = stacked_support_grams([sample], [kernel])
    IX, IY = draw_pairs(sample.shape[0], n, rep, disjoint=disjoint, replace=replace, seed=seed)
    return mmd_from_pairs(Ks, inv, IX, IY, n_jobs)[0]
