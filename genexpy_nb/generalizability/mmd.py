"""Maximum Mean Discrepancy and the resampled distribution of MMD_n (paper Sec. 4.3; Sec. 4.5)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import config
from .._codes import unique_rows
from .._validation import GenexpyInputError, check_memory, check_positive_int, rng_from_seed
from .kernels import Kernel

__all__ = ["mmd", "support", "kernel_support", "draw_pairs", "mmd_distribution", "mmd_from_pairs",
           "MODES"]

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

    Returns
    -------
    float
        The MMD, the square root of ``MMD^2`` (never negative).
    """
    for nm, arr in (("x", x), ("y", y)):
        if np.ndim(arr) not in (1, 2) or np.shape(arr)[0] == 0 or np.size(arr) == 0:
            raise GenexpyInputError(
                f"mmd: sample {nm} is empty (shape {np.shape(arr)}); MMD needs at least one "
                "result in each sample."
            )
    kxx = kernel.gram(x)
    kyy = kernel.gram(y)
    kxy = kernel.gram(x, y)
    v = kxx.mean() + kyy.mean() - 2.0 * kxy.mean()
    return float(np.sqrt(max(v, 0.0)))


def support(sample: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the distinct results of a sample, where each result lies, and how often.

    Parameters
    ----------
    sample : (N, na) array
        One result (a ranking, a score vector) per row.

    Returns
    -------
    support : (m, na) array
        The m distinct rows, in lexicographic order (as ``np.unique(axis=0)``).
    inverse : (N,) int64
        The row of ``support`` each result equals.
    counts : (m,) int64
        How many results equal each row of ``support``.
    """
    sample = np.asarray(sample)
    first, inv, cnt = unique_rows(sample)
    return sample[first], inv, cnt


def draw_pairs(
    N: int, n: int, rep: int, *, disjoint: bool = True, replace: bool = False,
    seed: int | np.random.Generator | None = 0, bucket: bool | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw the indices of ``rep`` pairs of samples of size ``n`` from ``N`` results (Sec. 4.5).

    ========  =======  =====================================================  ==========
    disjoint  replace  one pair                                               valid for
    ========  =======  =====================================================  ==========
    True      False    2n distinct indices without replacement, halved        2n <= N
    True      True     random halving of the N indices, n with replacement    any n
                       from each half
    False     False    each sample n indices without replacement, independent n <= N
    False     True     each sample n indices with replacement, independent    any n
    ========  =======  =====================================================  ==========

    Parameters
    ----------
    N : int
        Results to draw from (indices ``0 .. N - 1``).
    n : int
        Size of each sample.
    rep : int
        Pairs to draw.
    disjoint, replace : bool
        The sampling scheme (the table above); the paper's is the default.
    seed : int, numpy Generator or None
        Same seed, same pairs.
    bucket : bool or None
        How the uniforms behind the samples are ordered: by the numba bucket sort (True) or
        by NumPy (False); None by the work of this call
        (``config.ROUTES.pairs_bucket_min_work``). The same pairs either way.

    Returns
    -------
    IX, IY : (rep, n) int64
        The indices of the first and second sample of each pair.
    """
    N = check_positive_int("N", N, minimum=1)
    n = check_positive_int("n", n, minimum=1)
    rep = check_positive_int("rep", rep, minimum=1)
    check_memory("rep", rep, per_unit=16.0 * (N + 2 * n), what=f"{rep} pairs of samples")
    return _draw_pairs(N, n, rep, disjoint, replace, rng_from_seed(seed), bucket)


def _draw_pairs(N: int, n: int, rep: int, disjoint: bool, replace: bool,
                rng: np.random.Generator, bucket: bool | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`draw_pairs` on checked arguments; ``bucket`` forces the route of the order.

    ``bucket=True`` orders the uniforms by the numba bucket sort, ``False`` by NumPy,
    None as ``config.ROUTES.pairs_bucket_min_work`` says for this one call: the same
    indices either way (a full grid's draws decide once for all its sizes).
    """
    if disjoint and not replace:
        if 2 * n > N:
            raise GenexpyInputError(
                f"n={n}: two disjoint samples without replacement need 2n <= N={N}. "
                "Use n <= N // 2, or replace=True."
            )
        idx = _first_order(rng.random((rep, N)), 2 * n, bucket)
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
        IX = _first_order(rng.random((rep, N)), n)
        IY = _first_order(rng.random((rep, N)), n)
        return np.ascontiguousarray(IX), np.ascontiguousarray(IY)
    IX = rng.integers(0, N, size=(rep, n))
    IY = rng.integers(0, N, size=(rep, n))
    return IX, IY




def _first_order(U: np.ndarray, k: int, bucket: bool | None = None) -> np.ndarray:
    """``np.argsort(U, axis=1)[:, :k]`` for uniforms U (rep, N), bit for bit.

    ``bucket``: the numba bucket sort (True) or NumPy (False); None: by the work of this
    call (``config.ROUTES.pairs_bucket_min_work``).
    """
    rep, N = U.shape
    if bucket is None:
        bucket = rep * N >= config.ROUTES.pairs_bucket_min_work
    if not bucket:
        if N < 256 or 2 * k > N:
            return np.argsort(U, axis=1)[:, :k]
        # the k smallest by partition, then sorted: argsort's order when they are distinct
        # and strictly below the rest (ties have probability ~ N^2 / 2^53: argsort then)
        part = np.argpartition(U, k - 1, axis=1)
        vals = np.take_along_axis(U, part, axis=1)
        sel = np.argsort(vals[:, :k], axis=1)
        top = np.take_along_axis(vals[:, :k], sel, axis=1)
        if (np.any(top[:, 1:] == top[:, :-1])
                or (k < N and np.any(vals[:, k:].min(axis=1) <= top[:, -1]))):
            return np.argsort(U, axis=1)[:, :k]
        return np.take_along_axis(part[:, :k], sel, axis=1)
    from .._numba import compile_note, run_blocks
    from .._numba import core as _core

    out = np.empty((rep, k), dtype=np.int64)
    ok = [True]

    def block(r0, r1):
        if not _core.first_order(U, k, r0, r1, out):
            ok[0] = False

    with compile_note(_core.first_order):
        run_blocks(block, rep, 10.0 * rep * N)
    if not ok[0]:  # tied uniforms (probability ~ N^2 / 2^53): NumPy's own order
        return np.argsort(U, axis=1)[:, :k]
    return out


def kernel_support(kernel: Kernel, sample: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the kernel matrix on the distinct results of a sample, as the kernel sees them.

    Parameters
    ----------
    kernel : Kernel
        The kernel (its ``support`` says which results it cannot tell apart).
    sample : (N, na) array
        One result per row.

    Returns
    -------
    K : (m, m) float64
        The kernel between every two distinct results.
    inverse : (N,) int64
        The distinct result each row of ``sample`` is.
    counts : (m,) int64
        How many rows of ``sample`` each distinct result stands for.
    """
    first, inv, counts = kernel.support(sample)
    return kernel.gram(np.asarray(sample)[first]), inv, counts


def mmd_from_pairs(K: np.ndarray, inv: np.ndarray, IX: np.ndarray, IY: np.ndarray
                   ) -> np.ndarray:
    """MMD of each pair of index samples, from the kernel matrix on the support.

    Uses the support form ``MMD^2 = w' K w``, ``w = (cx - cy) / n`` (paper Sec. 4.3). Pairs
    that touch much of the support: the count differences of all pairs from one weighted
    bincount, then one matrix product evaluates every quadratic form. Pairs that touch few
    points of a large support: the quadratic form over the touched points only (NumPy
    gathers for moderate work, a numba loop beyond).

    Parameters
    ----------
    K : (m, m) kernel matrix on the support
    inv : (N,) support index of each result
    IX, IY : (rep, n) indices into the N results

    Returns
    -------
    (rep,) float64
    """
    n = IX.shape[1]
    if IY.shape[1] != n:
        raise GenexpyInputError("the two samples of a pair must have the same size.")
    K = np.ascontiguousarray(K, dtype=np.float64)
    inv = np.ascontiguousarray(inv, dtype=np.int64)
    IX = np.ascontiguousarray(IX, dtype=np.int64)
    IY = np.ascontiguousarray(IY, dtype=np.int64)
    rep, m = IX.shape[0], K.shape[0]
    out = np.empty(rep)
    k = min(2 * n, m)  # support points a pair touches, at most
    r = config.ROUTES
    dense_from = (r.mmd_dense_fraction_small if m <= r.mmd_cache_m
                  else r.mmd_dense_fraction_large)
    if m <= r.mmd_small_m or k >= m * dense_from:
        # dense count vectors and one BLAS product per block of pairs (C K, then row-wise
        # dots): near the machine's flop rate, and no compiled kernel for small supports
        from .._numba import run_blocks

        # the support index of every point of every pair, offset by its pair's row (one
        # gather); then one weighted bincount gives the count differences (+1 for x, -1 for
        # y) of every pair at once: few NumPy calls, which is what costs at m ~ 50
        idx = inv[np.concatenate((IX, IY), axis=1)]
        idx += _cached(("base", rep, m), lambda: (np.arange(rep, dtype=np.int64) * m)[:, None])
        n2 = float(n * n)

        def block(r0, r1):
            nr = r1 - r0
            signs = _cached(("signs", nr, n), lambda: np.tile(
                np.concatenate((np.ones(n), -np.ones(n))), nr))
            flat = idx[r0:r1].ravel()
            if r0:
                flat = flat - r0 * m
            C = np.bincount(flat, weights=signs, minlength=nr * m).reshape(nr, m)
            v = _rowdot(C @ K, C)
            np.divide(v, n2, out=v)
            np.maximum(v, 0.0, out=v)
            np.sqrt(v, out=out[r0:r1])

        # blocks of a fixed number of pairs, whatever the thread count: a BLAS product may
        # sum a row in another order in a block of another height, and the bits of MMD_n
        # (hence of n*) must not depend on the threads or on the machine's cores
        run_blocks(block, rep, 2.0 * rep * m * m, block_rows=_PAIRS_PER_BLOCK)
        return out
    # large support, pairs touching a small part of it: the quadratic form over the touched
    # points only, with NumPy gathers for moderate work, a numba loop beyond
    if rep * k * k <= config.ROUTES.mmd_gather_max_work:
        mmd_touched(K, inv, IX, IY, out)
        return out
    from .._numba import compile_note, run_blocks
    from .._numba import core as _core

    with compile_note(_core.mmd_rows):
        run_blocks(lambda r0, r1: _core.mmd_rows(K, inv, IX, IY, r0, r1, out), rep,
                   rep * k * k / 2.0)
    return out




def mmd_touched(K: np.ndarray | None, inv: np.ndarray, IX: np.ndarray, IY: np.ndarray,
                 out: np.ndarray,
                 values: Callable[[np.ndarray], np.ndarray] | None = None) -> None:
    """``MMD^2 = w' K w`` over the support points each pair touches (NumPy).

    Per pair: the support indices of both samples sorted, runs of equal indices summed to
    the count difference ``w`` (+1 per x, -1 per y); points whose difference is 0 dropped;
    then the k x k block of K on the remaining points, gathered and weighted. A pair of equal
    multisets gives exactly 0, as in the dense path. ``values(P)``: the blocks (rows, k, k)
    on the points ``P`` (rows, k) when K is not held (computed from the support's results).
    """
    rep, n = IX.shape
    signs = np.concatenate((np.ones(n), -np.ones(n)))
    step = max(1, (_GATHER_BLOCK // (4 * n * n)))
    for r0 in range(0, rep, step):
        r1 = min(rep, r0 + step)
        nr = r1 - r0
        idx = np.concatenate((inv[IX[r0:r1]], inv[IY[r0:r1]]), axis=1)
        order = np.argsort(idx, axis=1, kind="stable")
        s = np.take_along_axis(idx, order, axis=1)
        new = np.empty(s.shape, dtype=bool)
        new[:, 0] = True
        np.not_equal(s[:, 1:], s[:, :-1], out=new[:, 1:])
        w = np.bincount(np.cumsum(new.ravel()) - 1, weights=signs[order].ravel())
        pts = s.ravel()[new.ravel()]
        row = np.repeat(np.arange(nr), new.sum(axis=1))
        keep = w != 0.0
        w, pts, row = w[keep], pts[keep], row[keep]
        cnt = np.bincount(row, minlength=nr)
        col = np.arange(w.size) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        kmax = int(cnt.max()) if w.size else 0
        Wt = np.zeros((nr, kmax))
        Pt = np.zeros((nr, kmax), dtype=np.int64)
        Wt[row, col] = w
        Pt[row, col] = pts
        Q = K[Pt[:, :, None], Pt[:, None, :]] if values is None else values(Pt)
        v = _rowdot(np.matmul(Q, Wt[:, :, None])[:, :, 0], Wt)
        np.divide(v, float(n * n), out=v)
        np.maximum(v, 0.0, out=v)
        np.sqrt(v, out=out[r0:r1])


#: pairs per matrix product in the dense path of :func:`mmd_from_pairs` (the default
#: ``rep`` of 200 is two blocks; BLAS is near its rate from about 100 rows)
_PAIRS_PER_BLOCK = 100

#: entries of the gathered blocks of K at once in ``mmd_touched``
_GATHER_BLOCK = 4_000_000


def _cached(key: tuple, make) -> np.ndarray:
    """Return a small read-only helper array of the dense MMD path, made once per shape."""
    a = _HELPERS.get(key)
    if a is None:
        a = make()
        if a.nbytes > _HELPER_MAX_BYTES:  # a huge rep: made anew, never kept (memory)
            return a
        a.flags.writeable = False
        if len(_HELPERS) > 256:
            _HELPERS.clear()
        _HELPERS[key] = a
    return a


_HELPERS: dict[tuple, np.ndarray] = {}
#: helper arrays larger than this are not kept (a call with rep = 10**6 would otherwise keep
#: one 8 MB array per sample size, gigabytes in all)
_HELPER_MAX_BYTES = 1 << 20


def _rowdot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise dot products (``np.vecdot`` from NumPy 2.0 on, faster than ``einsum``)."""
    if hasattr(np, "vecdot"):
        return np.vecdot(a, b)
    return np.einsum("rm,rm->r", a, b)  # pragma: no cover - NumPy 1.x



def mmd_distribution(
    sample: np.ndarray, kernel: Kernel, n: int, *, rep: int = config.REP,
    disjoint: bool = True, replace: bool = False,
    seed: int | np.random.Generator | None = 0, n_jobs: int | None = None,
) -> np.ndarray:
    """``rep`` resampled values of MMD_n from one configuration's N results (paper Sec. 4.5).

    Parameters
    ----------
    sample : numpy.ndarray, shape (N, na)
        One configuration's N results: rankings (tiers, 0 = best) or, for :class:`RBF`,
        score vectors.
    kernel : Kernel
        A resolved kernel (:meth:`Kernel.resolve`): the research question.
    n : int
        The sample size: each value is the MMD between two samples of n results.
    rep : int, default ``config.REP`` (200)
        Number of resampled pairs of samples.
    disjoint, replace : bool, default True, False
        Resampling mode, see ``genexpy_nb.generalizability.mmd.draw_pairs`` (the default is the
        paper's "realistic"
        mode: two disjoint samples drawn without replacement).
    seed : int, numpy.random.Generator or None, default 0
        The same seed gives the same values.
    n_jobs : int, optional
        Threads (default all numba threads).

    Returns
    -------
    numpy.ndarray of float64, shape (rep,)
        The resampled values of MMD_n (in the kernel's units: between 0 and
        ``sqrt(2 kappa_sup)``).

    Examples
    --------
    >>> import numpy as np
    >>> from genexpy_nb.generalizability.kernels import Jaccard
    >>> sample = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [0, 1, 2]] * 5)
    >>> values = mmd_distribution(sample, Jaccard(k=1).resolve(3), n=4, rep=50, seed=0)
    >>> values.shape, bool((values >= 0).all())
    ((50,), True)
    """
    sample = np.asarray(sample)
    if sample.ndim != 2:
        raise GenexpyInputError("sample must be a 2-d array (results, alternatives).")
    if sample.shape[0] == 0:
        raise GenexpyInputError("sample is empty (0 results); MMD_n needs observed results.")
    K, inv, _ = kernel_support(kernel, sample)
    IX, IY = draw_pairs(sample.shape[0], n, rep, disjoint=disjoint, replace=replace, seed=seed)
    from .._numba import one_blas_thread, threads

    with threads(n_jobs), one_blas_thread():
        return mmd_from_pairs(K, inv, IX, IY)
