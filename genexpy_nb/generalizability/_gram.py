"""The kernel matrices' computations on arrays (NumPy/BLAS; numba for the large ones).

Borda counts, Mallows' discordant pairs as concordance products (BLAS on 0/1 matrices or popcounts
on bit matrices), RBF's squared distances (exact on integer scores). The kernel classes of
:mod:`genexpy_nb.generalizability.kernels` call them.
"""

from __future__ import annotations

import numpy as np

from .. import config


def _borda_counts(R: np.ndarray, a_star: int) -> np.ndarray:
    """b(r) = #{a : r[a] >= r[a*]} for every row of R (N, na), int64."""
    return (R >= R[:, a_star : a_star + 1]).sum(axis=1, dtype=np.int64)


#: memory of one block of the NumPy/BLAS paths (bytes)
_NUMPY_BLOCK_BYTES = 32 * 2**20


def _mallows_gram(X: np.ndarray, Y: np.ndarray, nu: float) -> np.ndarray:
    """Mallows matrix ``exp(-nu n_d)`` from concordant-pair counts.

    ``n_d = C(na, 2) - P - (tied_x + tied_y) / 2``, P the pairs ordered the same strict way
    by both rankings (a reversed pair counts 1, tied in one ranking only 1/2, tied in both
    0; paper App. B); twice n_d is an integer, so every path gives exact counts. Rankings
    with few tie levels (0/1 item correctness: two): P from the contingency tables of the
    levels (:func:`_concordant_levels`, ``config.ROUTES.mallows_levels_max``). Moderate
    inputs: P as BLAS products of 0/1 "a above b" matrices, in chunks of alternatives.
    Large: the same product on bit matrices with popcounts (``na^2 / 64`` word operations per
    pair, in chunks of alternatives: memory linear in the support).
    """
    sym = Y is X
    na = X.shape[1]
    c2 = na * (na - 1)
    nx, ny = X.shape[0], Y.shape[0]
    LX = _levels(X)
    LY = LX if sym else _levels(Y)
    L = max(int(LX.max(initial=0)), int(LY.max(initial=0))) + 1
    if (L - 1) ** 2 * (2 * na + 2) <= config.ROUTES.mallows_levels_max * na * na:
        P = _concordant_levels(LX, LY, L)
    elif float(nx) * ny * na * na <= config.ROUTES.mallows_blas_max:
        P = _concordant_blas(X, Y, sym)
    else:
        P = _concordant_bits(X, Y, sym)
    tx = _tied_pairs(X)
    ty = tx if sym else _tied_pairs(Y)
    # nd2 = c2 - 2 P - tx - ty in place (exact integers in float64: the same numbers in
    # any order), then exp(-nu nd2 / 2)
    nd2 = np.multiply(P, -2.0, out=P) if P.dtype == np.float64 else -2.0 * P
    nd2 += c2
    nd2 -= tx[:, None]
    nd2 -= ty[None, :]
    np.multiply(nd2, -nu * 0.5, out=nd2)
    return np.exp(nd2, out=nd2)


def _levels(R: np.ndarray) -> np.ndarray:
    """Each ranking's tiers as dense levels 0, 1, ..., L - 1 (the same order, ties kept)."""
    if R.size == 0:
        return np.zeros(R.shape, dtype=np.int64)
    order = np.argsort(R, axis=1, kind="stable")
    S = np.take_along_axis(R, order, axis=1)
    d = np.zeros(S.shape, dtype=np.int64)
    np.cumsum(S[:, 1:] != S[:, :-1], axis=1, out=d[:, 1:])
    out = np.empty_like(d)
    np.put_along_axis(out, order, d, axis=1)
    return out


def _concordant_levels(X: np.ndarray, Y: np.ndarray, L: int) -> np.ndarray:
    """P (see :func:`_mallows_gram`) from the contingency tables of the rankings' levels.

    X, Y hold dense levels below L (:func:`_levels`). With ``n_pq`` the alternatives at
    level p in x and q in y and ``s_pq`` those above p in x and above q in y, the pairs
    ordered the same strict way by both are ``P = sum_{p, q < L - 1} n_pq s_pq``: 2 (L -
    1)^2 BLAS products of 0/1 matrices (rows x na) instead of one of width na^2 (two
    tie levels, as 0/1 item correctness: 2 against na^2 / na products). Exact: every count
    is an integer below 2^53.
    """
    from .._numba import run_blocks

    nx, na = X.shape
    ny = Y.shape[0]
    P = np.empty((nx, ny))
    eq_y = [(Y == q).astype(np.float64) for q in range(L - 1)]
    gt_y = [(Y > q).astype(np.float64) for q in range(L - 1)]

    def block(r0: int, r1: int) -> None:
        x, out = X[r0:r1], P[r0:r1]
        out[...] = 0.0
        for p in range(L - 1):
            eq_x, gt_x = (x == p).astype(np.float64), (x > p).astype(np.float64)
            for q in range(L - 1):
                n = eq_x @ eq_y[q].T
                n *= gt_x @ gt_y[q].T
                out += n

    # row blocks on threads (exact counts: the same numbers however the rows are cut)
    run_blocks(block, nx, 2.0 * nx * ny * na * (L - 1) ** 2,
               block_rows=max(1, _NUMPY_BLOCK_BYTES // (8 * max(1, ny))))
    return P


def _concordant_blas(X: np.ndarray, Y: np.ndarray, sym: bool) -> np.ndarray:
    """P (see :func:`_mallows_gram`) as products of 0/1 "a above b" matrices.

    Single precision is exact here: every chunk's counts are integers below 2^24 (a chunk
    of c alternatives contributes at most c * na), and they are summed in float64.
    """
    nx, na = X.shape
    ny = Y.shape[0]
    chunk = max(1, min(na, (1 << 24) // na,
                       _NUMPY_BLOCK_BYTES // (4 * na * max(nx, ny))))
    P = np.zeros((nx, ny))

    def above(R, a0, a1):
        return (R[:, a0:a1, None] < R[:, None, :]).reshape(R.shape[0], -1).astype(np.float32)

    for a0 in range(0, na, chunk):
        a1 = min(na, a0 + chunk)
        ax = above(X, a0, a1)
        P += ax @ (ax if sym else above(Y, a0, a1)).T
    return P


def _concordant_bits(X: np.ndarray, Y: np.ndarray, sym: bool) -> np.ndarray:
    """P (see :func:`_mallows_gram`) from bit matrices and popcounts (numba, on threads)."""
    na = X.shape[1]
    from .._numba import compile_note, run_blocks
    from .._numba import core as _core

    # P = sum over alternatives a of |below_x(a) & below_y(a)|: a product of bit matrices
    # (rankings x (alternative, word)), taken in chunks of alternatives of at most
    # _BITS_CHUNK_BYTES per side, so that memory stays linear in the number of rankings
    nx, ny = X.shape[0], Y.shape[0]
    W = (na + 63) // 64
    px, py = -(-nx // 4) * 4, -(-ny // 4) * 4
    chunk = max(1, min(na, _BITS_CHUNK_BYTES // (8 * W * max(px, py))))
    P = np.zeros((px, py), dtype=np.int64)
    nb = px // 4
    with compile_note(_core.popcount_gram):
        OX = np.ascontiguousarray(np.argsort(X, axis=1, kind="stable"))
        OY = OX if sym else np.ascontiguousarray(np.argsort(Y, axis=1, kind="stable"))
        AX = np.zeros((px, chunk * W), dtype=np.uint64)
        AY = AX if sym else np.zeros((py, chunk * W), dtype=np.uint64)
        # row blocks of equal work: the upper triangle shrinks with the row when sym
        edges = (_triangle_edges(nb) if sym else np.arange(nb + 1))
        for a0 in range(0, na, chunk):
            a1 = min(na, a0 + chunk)
            if a1 - a0 < chunk:  # the last, shorter chunk: fresh zero padding
                AX = np.zeros((px, (a1 - a0) * W), dtype=np.uint64)
                AY = AX if sym else np.zeros((py, (a1 - a0) * W), dtype=np.uint64)
            _core.above_bitsets(X, OX, a0, a1, AX)
            if not sym:
                _core.above_bitsets(Y, OY, a0, a1, AY)
            work = px * py * (a1 - a0) * W * (0.5 if sym else 1.0)
            run_blocks(lambda v0, v1, AX=AX, AY=AY: _core.popcount_gram(
                AX, AY, sym, edges[v0], edges[v1], P), edges.size - 1, work)
    if sym:
        _mirror_upper(P)
    return P[:nx, :ny]


#: memory for the bit matrices of one chunk of alternatives (per side) in the Mallows path
_BITS_CHUNK_BYTES = 64 * 2**20


def _triangle_edges(nb: int) -> np.ndarray:
    """Split the upper triangle of an nb x nb block matrix into parts of about equal area.

    Returns the row-block edges 0 = e_0 < ... = nb (at most 16 parts; a part may be
    empty).
    """
    parts = min(nb, 16)
    f = np.arange(parts + 1) / parts
    e = np.round(nb * (1.0 - np.sqrt(1.0 - f))).astype(np.int64)
    e[-1] = nb
    return np.maximum.accumulate(e)


def _tied_pairs(R: np.ndarray) -> np.ndarray:
    """Count the pairs of alternatives tied in each ranking, from the sorted rows.

    The sum over runs of equal values of c (c - 1) / 2.
    """
    n = R.shape[0]
    S = np.sort(R, axis=1)
    new = np.ones(S.shape, dtype=bool)
    new[:, 1:] = S[:, 1:] != S[:, :-1]
    c = np.bincount(np.cumsum(new.ravel()) - 1)  # length of every run
    row = np.repeat(np.arange(n), new.sum(axis=1))
    return np.bincount(row, weights=c * (c - 1) // 2, minlength=n).astype(np.int64)


def _rbf_gram(X: np.ndarray, Y: np.ndarray, gamma: float) -> np.ndarray:
    """RBF matrix ``exp(-gamma ||x - y||^2)`` (NumPy when small; numba on row blocks)."""
    sym = Y is X
    nx, ny, na = X.shape[0], Y.shape[0], X.shape[1]
    d2 = _integer_sq_dists(X, Y)
    if d2 is not None:
        np.multiply(d2, -gamma, out=d2)
        return np.exp(d2, out=d2)
    if float(nx) * ny * na <= config.ROUTES.rbf_numpy_max:
        out = np.empty((nx, ny))
        rows = max(1, _NUMPY_BLOCK_BYTES // (8 * max(1, ny * na)))
        for r0 in range(0, nx, rows):
            d = X[r0 : r0 + rows, None, :] - Y[None, :, :]
            out[r0 : r0 + rows] = np.einsum("ija,ija->ij", d, d)
        np.multiply(out, -gamma, out=out)
        return np.exp(out, out=out)
    from .._numba import compile_note, run_blocks
    from .._numba import core as _core

    out = np.empty((X.shape[0], Y.shape[0]))
    work = X.shape[0] * Y.shape[0] * X.shape[1] * (0.5 if sym else 1.0)
    with compile_note(_core.rbf_rows):
        run_blocks(lambda r0, r1: _core.rbf_rows(X, Y, gamma, sym, r0, r1, out), X.shape[0],
                   work)
    if sym:
        _mirror_upper(out)
    return out


def _integer_sq_dists(X: np.ndarray, Y: np.ndarray) -> np.ndarray | None:
    """Compute ``||x - y||^2`` as ``|x|^2 + |y|^2 - 2 x.y`` when that is exact.

    One BLAS product, when X and Y hold integers small enough that every product and sum
    is exact in float64 (integer scores: counts, points, ranks): then the very numbers of
    the direct differences, at a fraction of their cost. None for other values (the usual
    floating-point scores), which lose digits that way and take the differences.
    """
    Xf = np.asarray(X, dtype=np.float64)
    Yf = Xf if Y is X else np.asarray(Y, dtype=np.float64)
    if Xf.size == 0 or Yf.size == 0:
        return None
    big = max(float(np.abs(Xf).max()), float(np.abs(Yf).max()))
    if not 4.0 * Xf.shape[1] * big * big < 2.0**53:  # also False for inf and NaN
        return None
    for A, R in ((X, Xf), (Y, Yf)):
        if np.asarray(A).dtype.kind not in "iub" and not np.array_equal(R, np.round(R)):
            return None
    sx = np.einsum("ia,ia->i", Xf, Xf)
    sy = sx if Y is X else np.einsum("ia,ia->i", Yf, Yf)
    d2 = Xf @ Yf.T
    np.multiply(d2, -2.0, out=d2)
    d2 += sx[:, None]
    d2 += sy[None, :]
    return d2


def _mirror_upper(out: np.ndarray) -> None:
    """Copy the upper triangle of a square matrix onto its lower triangle, in place.

    In row blocks (a transposed copy per block, the triangle indices of the diagonal block
    only): the same numbers as indexing the whole triangle at once, without its two index
    arrays of 8 m^2 bytes (5,000 rows: 2.5 s and 200 MB against 0.2 s).
    """
    n = out.shape[0]
    b = 512
    for i0 in range(0, n, b):
        i1 = min(n, i0 + b)
        out[i0:i1, :i0] = out[:i0, i0:i1].T
        blk = out[i0:i1, i0:i1]
        il = np.tril_indices(i1 - i0, -1)
        blk[il] = blk.T[il]
