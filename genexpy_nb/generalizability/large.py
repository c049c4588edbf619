"""The large-study path of the n* analysis: a grid chosen by its cost, one stream per pair.

A configuration analysed with the default grid and the paper's "realistic" resampling mode
(Sec. 4.5: two disjoint samples without replacement) keeps the paper's full grid while its
estimated cost (:func:`full_grid_seconds`, from the shape only: the cost model of
``config.COSTS``) is at most ``config.ROUTES.grid_budget_s`` and it has at most
``config.ROUTES.large_study_min_N`` conditions (default 1,000). Otherwise
(:func:`plan_grid`) it is resampled

- on a thinned grid of sample sizes (:func:`large_grid`): as many sizes as the budget
  allows (:func:`thinned_grid_seconds`), never fewer than :data:`LARGE_GRID_SIZES`, every
  even n up from 2 and then geometric, up to a top size :func:`large_top` that is
  ``N // 2`` up to the bound and grows as ``sqrt(N)`` beyond it; so the time is smooth in
  N: where the full grid would cost more than the budget it is thinned, not run;
- with independent draws per (size, pair), each from its own seeded stream: the same bits
  at any thread count, and independent quantile errors across sizes (what the fit part of
  the interval of n* assumes);
- with the kernel values read from the matrix on the support when the support has at most
  ``config.ROUTES.large_matrix_m`` distinct results (the MMD of each size's pairs as the
  full grid computes it: BLAS products where a pair touches much of the support), and
  computed on the fly from the support's results beyond (the matrix in row blocks for
  those sizes, one numba loop over the touched points for the others: memory linear in
  N); Jaccard's values (and Mallows' on rankings of two tie levels, as 0/1 item
  correctness) beyond ``config.ROUTES.large_support_m`` distinct results always on the
  fly, from one word of bits per result and a table of the values (:func:`sets_support`):
  no matrix of hundreds of megabytes to build, the same values;
- and, beyond ``config.ROUTES.large_support_m`` distinct results, the closed-form parts
  (the ``approx`` estimators, the sampling part of the interval of n* and of the
  baseline's band, the RBF degeneracy check) read a seeded subsample of that many
  conditions, each weighted so that the weights add up to N (the resampling of the N
  conditions is then mimicked on the subsample's distribution).

On the full grid nothing changes: the paper's grid, bit for bit. The path depends on the
shape only (never on the machine or its load): the same study takes the same path, and
gives the same numbers, everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import config
from .._validation import GenexpyInputError
from .kernels import Kernel

__all__ = ["LARGE_GRID_SIZES", "GridPlan", "KernelShape", "LargeSupport", "applies",
           "full_grid_seconds", "grid_note", "large_grid", "large_pairs", "large_support",
           "large_top", "mmd_grid", "plan_grid", "sets_support", "subsample_support",
           "thinned_grid_seconds"]

#: sample sizes of the thinned grid
LARGE_GRID_SIZES: int = 50
#: key of the stream of the closed forms' subsample: ``SeedSequence([seed, config_id,
#: LARGE_KEY])``, apart from every other stream
LARGE_KEY: int = 0x6C617267  # "larg"
#: units (size, pair) per block of the batched kernel (fixed: the bits never depend on it)
_UNITS_PER_BLOCK: int = 16


def applies(N: int, grid, disjoint: bool, replace: bool) -> bool:
    """Whether a configuration of N conditions takes the large-study path.

    Only the default grid (``grid=None``) in the "realistic" mode, above
    ``config.ROUTES.large_study_min_N`` conditions.
    """
    return (grid is None and disjoint and not replace
            and N > config.ROUTES.large_study_min_N)


def large_top(N: int) -> int:
    """Return the largest sample size of the thinned grid for N conditions (even).

    ``N // 2`` (less one step, as the full grid) up to the bound B =
    ``config.ROUTES.large_study_min_N``; beyond, ``(B / 2) sqrt(N / B)``, so that the work
    of MMD_n at the top size, ``rep (2 n)^2``, grows linearly in N.
    """
    B = max(float(config.ROUTES.large_study_min_N), 6.0)
    full = 2 * ((N // 2 - 1) // 2)
    cap = 2 * int(0.25 * B * math.sqrt(max(N, B) / B))
    return max(2, min(full, cap))


def large_grid(N: int, sizes: int = LARGE_GRID_SIZES) -> np.ndarray:
    """Return the thinned grid: ``sizes`` distinct even sample sizes from 2 to :func:`large_top`.

    Geometric spacing from 2, each size at least the previous one + 2 (so the small sizes
    are every even n, as in the full grid); fewer sizes when the top is small.

    Parameters
    ----------
    N : int
        The number of conditions.
    sizes : int
        The number of sample sizes wanted.

    Returns
    -------
    numpy.ndarray of int64
        Increasing even sizes, all at most ``N // 2``.
    """
    top = large_top(N)
    g = np.geomspace(2.0, float(top), sizes)
    out: list[int] = []
    for v in g:
        e = 2 * int(round(v / 2.0))
        if out and e <= out[-1]:
            e = out[-1] + 2
        if e > top:
            break
        out.append(e)
    # the last size is the top itself
    if out[-1] != top:
        out[-1] = top
    return np.asarray(sorted(set(out)), dtype=np.int64)


def grid_note(ns: np.ndarray) -> str:
    """Return the sentence that says a configuration's grid was thinned."""
    return f"thinned grid: {ns.size} sizes up to {int(ns[-1])}" if ns.size else "thinned grid"


@dataclass(frozen=True)
class LargeSupport:
    """A kernel's support prepared for the batched kernel.

    ``kind`` says where the values of the sizes read one pair at a time come from (0: the
    matrix ``K``; 1: Mallows bitsets ``B``, tied pairs ``T``, value table ``table``
    indexed by twice the discordance, ``c2`` = na (na - 1); 2: RBF rows ``X`` and
    ``gamma``; 3: sets of alternatives ``B`` (m, 1), one word each, their sizes ``T``,
    the value table ``table`` of :func:`sets_support` and its stride ``c2`` = na + 1);
    ``inv`` (N,) is each result's support point, ``m`` the support's size.
    """

    kind: int
    inv: np.ndarray
    m: int
    K: np.ndarray
    B: np.ndarray
    T: np.ndarray
    table: np.ndarray
    c2: int
    X: np.ndarray
    gamma: float
    #: on the fly: the support's distinct results and the kernel, whose matrix the sizes
    #: where a pair touches much of the support compute in row blocks (:func:`_dense_blocks`)
    rows: np.ndarray | None = None
    kernel: Kernel | None = None
    #: ``K`` is the matrix on the support (else computed in blocks from ``rows``)
    has_matrix: bool = True


def _mallows_bits(R: np.ndarray) -> np.ndarray:
    """Packed "a above b" bits of each ranking: (m, ceil(na^2 / 64)) uint64."""
    m, na = R.shape
    W = (na * na + 63) // 64
    out = np.zeros((m, W * 8), dtype=np.uint8)
    step = max(1, (1 << 24) // max(1, na * na))
    for r0 in range(0, m, step):
        r = R[r0:r0 + step]
        above = (r[:, :, None] < r[:, None, :]).reshape(r.shape[0], na * na)
        pad = np.zeros((r.shape[0], W * 64), dtype=bool)
        pad[:, :na * na] = above
        out[r0:r0 + step] = np.packbits(pad, axis=1, bitorder="little")
    return np.ascontiguousarray(out.view(np.uint64))


def large_support(kernel: Kernel, data: np.ndarray,
                  support: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                  sets: bool = True) -> LargeSupport:
    """Prepare a resolved kernel's support of one configuration's results ``data`` (N, na).

    Two routes, by size of support, for the two kinds of sample sizes:

    - the sizes whose pairs touch much of the support read the matrix on the support in
      row blocks (:func:`_dense_blocks`): the matrix itself up to
      ``config.ROUTES.large_matrix_m`` points (always for a kernel other than Mallows and
      RBF), computed in blocks from the support's results beyond;
    - the other sizes, one pair at a time over the points it touches: from the matrix up to
      ``config.ROUTES.large_support_m`` points, where look-ups stay in cache; Mallows and
      RBF values on the fly beyond (from packed bitsets or the score vectors: a look-up in
      a matrix of hundreds of megabytes misses every cache, a few words of bits do not).

    Beyond ``config.ROUTES.large_support_m`` points, Jaccard, and Mallows on rankings of two
    tie levels (0/1 item correctness), take neither route's matrix: both read their values
    from one word of bits per result and a table (:func:`sets_support`), the row blocks
    too.

    ``support``: the kernel's ``(K, inv, counts)`` on ``data`` when already computed
    (:func:`genexpy_nb.generalizability.mmd.kernel_support`), not computed again.
    ``sets=False`` keeps the routes of other kernels (a check of the values, a benchmark).
    """
    from ._gram import _tied_pairs

    data = np.asarray(data)
    if support is not None:
        K, inv, _ = support
        inv = np.ascontiguousarray(inv, dtype=np.int64)
        return LargeSupport(0, inv, int(K.shape[0]), np.ascontiguousarray(K, dtype=np.float64),
                            **_NO_ROWS)
    first, inv, _ = kernel.support(data)
    inv = np.ascontiguousarray(inv, dtype=np.int64)
    m = int(first.size)
    u = data[first]
    bits = sets_support(kernel, u) if sets and m > config.ROUTES.large_support_m else None
    if bits is not None:  # values from one word of bits per result and a table, no matrix
        M, C, table, L = bits
        return LargeSupport(3, inv, m, np.zeros((1, 1)), np.ascontiguousarray(M[:, None]), C,
                            table, L, np.zeros((1, 1)), 0.0, rows=u, kernel=kernel,
                            has_matrix=False)
    has_matrix = not (kernel.name in ("mallows", "rbf")
                      and m > config.ROUTES.large_matrix_m)
    fly = kernel.name in ("mallows", "rbf") and (m > config.ROUTES.large_support_m
                                                  or not has_matrix)
    K = (np.ascontiguousarray(kernel.gram(u), dtype=np.float64) if has_matrix
         else np.zeros((1, 1)))
    if fly and kernel.name == "mallows":
        na = u.shape[1]
        c2 = na * (na - 1)
        table = np.exp(-float(kernel.nu) * 0.5 * np.arange(c2 + 1, dtype=np.float64))
        T = np.asarray(_tied_pairs(u)).astype(np.int64)
        return LargeSupport(1, inv, m, K, _mallows_bits(u), np.ascontiguousarray(T), table,
                            c2, np.zeros((1, 1)), 0.0, rows=u, kernel=kernel,
                            has_matrix=has_matrix)
    if fly:
        return LargeSupport(2, inv, m, K, _NO_ROWS["B"], _NO_ROWS["T"], _NO_ROWS["table"], 0,
                            np.ascontiguousarray(u, dtype=np.float64), float(kernel.gamma),
                            rows=u, kernel=kernel, has_matrix=has_matrix)
    return LargeSupport(0, inv, m, K, **_NO_ROWS)


def sets_support(kernel: Kernel, rankings: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | None:
    """Each ranking as one word of bits, with the table of the kernel's values, where exact.

    Jaccard's value depends on the top-k sets only, and Mallows' on rankings of two tie
    levels 0 and 1 (0/1 item correctness) on the sets at level 0: for two sets S and S' of
    a and b alternatives that share t, Jaccard is ``t / (a + b - t)`` and Mallows
    ``exp(-nu n_d)`` with ``2 n_d = n0 h + 2 (a - t)(b - t)``, ``h = a + b - 2 t`` the
    alternatives in one set only, ``n0 = na - h`` the others (twice the discordance: a
    pair with one alternative in S only and the other in S' only is reversed and counts
    2; a pair of one alternative in one set only and one of the others is tied in one
    ranking only and counts 1; every other pair 0). Each value is computed as the
    kernel's matrix computes it (the same division; the same exponentials of twice the
    discordance), so the table holds the very numbers of ``kernel.gram``.

    Parameters
    ----------
    kernel : Kernel
        A resolved kernel.
    rankings : numpy.ndarray
        (m, na) integer rankings (tiers, 0 = best).

    Returns
    -------
    tuple or None
        ``(M, C, table, L)``: the sets (m,) uint64 (bit i: alternative i), their sizes (m,)
        int64, the values (L^3,) at ``(a L + b) L + t`` and L = na + 1; None for another
        kernel, more than 64 alternatives, or Mallows on rankings with other levels.
    """
    R = np.asarray(rankings)
    na = R.shape[1]
    if na > 64 or kernel.name not in ("jaccard", "mallows"):
        return None
    if kernel.name == "jaccard":
        S = R < kernel.k
    elif R.size and (R.min() < 0 or R.max() > 1):
        return None
    else:
        S = R == 0
    M = (S.astype(np.uint64) << np.arange(na, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
    C = S.sum(axis=1, dtype=np.int64)
    L = na + 1
    a, b, t = np.meshgrid(np.arange(L), np.arange(L), np.arange(L), indexing="ij")
    valid = (t <= np.minimum(a, b)) & (a + b - t <= na)
    if kernel.name == "jaccard":
        union = a + b - t
        with np.errstate(invalid="ignore", divide="ignore"):
            table = np.where(union > 0, t / np.where(union > 0, union, 1), 1.0)
    else:
        h = a + b - 2 * t
        nd2 = (na - h) * h + 2 * (a - t) * (b - t)
        c2 = na * (na - 1)
        exp = np.exp(-float(kernel.nu) * 0.5 * np.arange(c2 + 1, dtype=np.float64))
        table = exp[np.where(valid, np.clip(nd2, 0, c2), 0)]
    table = np.where(valid, table, 0.0)
    return (np.ascontiguousarray(M), np.ascontiguousarray(C),
            np.ascontiguousarray(table.ravel(), dtype=np.float64), L)


#: the unused arrays of a support read from its matrix
_NO_ROWS = dict(B=np.zeros((1, 1), dtype=np.uint64), T=np.zeros(1, dtype=np.int64),
                table=np.zeros(1), c2=0, X=np.zeros((1, 1)), gamma=0.0)


def large_pairs(N: int, ns: np.ndarray, rep: int, seed: int
                ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Return the pairs the batched kernel draws: per size of ``ns``, (IX, IY) (rep, n).

    For checks and the naive twin of :func:`mmd_grid` (same ``seed``, same pairs).
    """
    from .._numba import large as _large

    ns = np.ascontiguousarray(ns, dtype=np.int64)
    nmax = int(ns.max()) if ns.size else 0
    IX = np.zeros((ns.size * rep, nmax), dtype=np.int64)
    IY = np.zeros_like(IX)
    _large.draw_units(np.uint64(seed), N, ns, np.arange(ns.size, dtype=np.int64), rep, 0,
                      ns.size * rep, IX, IY)
    return [(IX[j * rep:(j + 1) * rep, :n], IY[j * rep:(j + 1) * rep, :n])
            for j, n in enumerate(ns)]


def mmd_grid(sup: LargeSupport, N: int, ns: np.ndarray, rep: int, seed: int,
             on_work: Callable[[float], object] | None = None,
             positions: np.ndarray | None = None) -> np.ndarray:
    """``rep`` resampled values of MMD_n at every size of ``ns``: (len(ns), rep).

    One batched numba kernel over all (size, pair) units, in blocks of a fixed number of
    units on the numba threads; unit u draws its pair from its own stream (``seed``, u), so
    the bits depend neither on the threads nor on the blocks. ``on_work(w)`` is called
    after each block with its share of the work (a progress bar). ``positions``: where the
    sizes of ``ns`` stand in the grid whose pairs are wanted (default ``0, 1, ...``): the
    no-signal baseline, on every other size, draws the study's own pairs there.
    """
    from .._numba import compile_note, run_blocks
    from .._numba import large as _large

    ns = np.ascontiguousarray(ns, dtype=np.int64)
    if ns.size and 2 * int(ns.max()) > N:
        raise GenexpyInputError(f"grid sizes up to {int(ns.max())} need 2n <= N = {N}.")
    units = ns.size * rep
    out = np.empty(units)
    if not units:
        return out.reshape(ns.size, rep)
    cost = np.repeat(ns.astype(np.float64) ** 2, rep)
    seed64 = np.uint64(seed)
    pos = (np.arange(ns.size, dtype=np.int64) if positions is None
           else np.ascontiguousarray(positions, dtype=np.int64))
    r = config.ROUTES
    dense = float(r.mmd_dense_fraction_small if sup.m <= r.mmd_cache_m
                  else r.mmd_dense_fraction_large)
    # the sizes whose pairs touch much of a large support (beyond large_support_m points: a
    # matrix larger than the caches) by products with its row blocks; on a smaller one every
    # size as the full grid computes it, one product per size (the matrix stays in cache)
    wide = np.array([(sup.m > r.large_support_m or not sup.has_matrix)
                     and min(2 * int(n), sup.m) >= dense * sup.m for n in ns])
    res = out.reshape(ns.size, rep)
    if wide.any():
        # the sizes whose pairs touch much of the support: BLAS products with the matrix in
        # row blocks, each block read once for many pairs (_dense_blocks)
        res[wide] = _dense_blocks(sup, N, ns[wide], pos[wide], rep, seed64, on_work)
    if wide.all():
        return res
    narrow = np.flatnonzero(~wide)
    if sup.kind == 0 or (sup.kind == 3 and sup.kernel is not None
                         and sup.kernel.name == "jaccard"):
        # the others as the full grid computes them (BLAS where a pair touches much of the
        # support, the touched points only elsewhere); Jaccard's sets as its matrix would
        from .mmd import mmd_from_pairs

        for j in narrow:
            IX, IY = _unit_pairs(N, int(ns[j]), int(pos[j]), rep, seed64)
            res[j] = (mmd_from_pairs(sup.K, sup.inv, IX, IY) if sup.kind == 0
                      else _sets_from_pairs(sup, IX, IY))
            if on_work is not None:
                on_work(float(cost[j * rep:(j + 1) * rep].sum()))
        return res
    # the others one pair at a time on the batched kernel, values on the fly
    ns_n, pos_n = ns[narrow], pos[narrow]
    out_n = np.empty(ns_n.size * rep)
    cost_n = np.repeat(ns_n.astype(np.float64) ** 2, rep)

    def block(u0: int, u1: int) -> None:
        _large.mmd_units(sup.kind, sup.B, sup.T, sup.table, sup.c2, sup.X, sup.gamma,
                         sup.inv, N, ns_n, pos_n, rep, seed64, u0, u1, out_n)
        if on_work is not None:
            on_work(float(cost_n[u0:u1].sum()))

    with compile_note(_large.mmd_units):
        run_blocks(block, out_n.size, 2.0 * float(cost_n.sum()) * rep,
                   block_rows=_UNITS_PER_BLOCK)
    res[narrow] = out_n.reshape(ns_n.size, rep)
    return res


#: on-the-fly supports: the pairs' count differences and their products with the matrix,
#: at most this many bytes at once (the matrix itself is never held: it is computed in row
#: blocks of _DENSE_BLOCK_ROWS results, once per group of pairs)
_DENSE_BYTES: int = 128 * 2**20
_DENSE_BLOCK_ROWS: int = 512
#: rows of each matrix product (fixed: a BLAS product may sum a row in another order in a
#: product of another height, and the bits must not depend on the threads)
_DENSE_PAIRS: int = 100


def _dense_blocks(sup: LargeSupport, N: int, ns: np.ndarray, pos: np.ndarray, rep: int,
                  seed: np.uint64, on_work: Callable[[float], object] | None
                  ) -> np.ndarray:
    """MMD_n of sizes whose pairs touch much of the support: (len(ns), rep).

    ``MMD^2 = c' K c / n^2`` with ``c`` a pair's count differences on the m support points:
    the pairs go in groups (at most ``_DENSE_BYTES`` of ``c`` and ``K c``); for each group
    the matrix is read in row blocks of ``_DENSE_BLOCK_ROWS`` from the diagonal on (from
    the support's matrix, or computed on the fly from the support's results,
    ``sup.kernel.gram``: the same values) and each block multiplies its rows of ``c`` for
    every pair of the group (BLAS, in products of ``_DENSE_PAIRS`` pairs: the same bits at
    any thread count); K being symmetric, ``c' K c`` is the diagonal blocks' terms plus
    twice those right of them: half the multiply-adds of whole rows (the same values to
    about 1e-14, summed in another order). Each block is read once for many pairs, so the
    products run at the processor's rate where one product per 100 pairs over the whole
    matrix waited on memory; on the fly, the upper part of the matrix is computed once per
    group, and memory stays linear in m.
    """
    from .._numba import run_blocks

    m = sup.m
    units = [(j, r) for j in range(ns.size) for r in range(rep)]
    out = np.empty((ns.size, rep))
    group = max(_DENSE_PAIRS, (_DENSE_BYTES // (16 * m)) // _DENSE_PAIRS * _DENSE_PAIRS)
    rows = sup.rows
    for g0 in range(0, len(units), group):
        part = units[g0:g0 + group]
        C = np.empty((len(part), m))
        sizes = sorted({j for j, _ in part})
        at = 0
        for j in sizes:
            n = int(ns[j])
            take = [r for jj, r in part if jj == j]
            IX, IY = _unit_pairs(N, n, int(pos[j]), rep, seed)
            ix, iy = sup.inv[IX[take]], sup.inv[IY[take]]
            k = len(take)
            idx = np.concatenate((ix, iy), axis=1) + (np.arange(k) * m)[:, None]
            signs = np.concatenate((np.ones(n), -np.ones(n)))
            C[at:at + k] = np.bincount(idx.ravel(), weights=np.tile(signs, k),
                                       minlength=k * m).reshape(k, m)
            at += k
        v = np.zeros(len(part))
        for b0 in range(0, m, _DENSE_BLOCK_ROWS):
            b1 = min(m, b0 + _DENSE_BLOCK_ROWS)
            # the block's rows from the diagonal on: c' K c = the diagonal blocks' terms +
            # twice those above them (K symmetric), half the products of the whole rows
            Kb = (sup.K[b0:b1, b0:] if sup.has_matrix else _sets_rows(sup, b0, b1)
                  if sup.kind == 3 else np.ascontiguousarray(
                      sup.kernel.gram(rows[b0:b1], rows[b0:]), dtype=np.float64))

            def product(r0: int, r1: int, Kb=Kb, b0=b0, b1=b1, v=v, C=C) -> None:
                Z = C[r0:r1, b0:b1] @ Kb
                d = np.einsum("rm,rm->r", Z[:, :b1 - b0], C[r0:r1, b0:b1])
                d += 2.0 * np.einsum("rm,rm->r", Z[:, b1 - b0:], C[r0:r1, b1:])
                v[r0:r1] += d

            run_blocks(product, len(part), 1.0 * len(part) * (b1 - b0) * (2 * m - b0 - b1),
                       block_rows=_DENSE_PAIRS)
        at = 0
        for j in sizes:
            take = [r for jj, r in part if jj == j]
            n = float(ns[j])
            w = v[at:at + len(take)] / (n * n)
            out[j, take] = np.sqrt(np.maximum(w, 0.0))
            at += len(take)
            if on_work is not None:
                on_work(float(len(take)) * n * n)
    return out


def _sets_from_pairs(sup: LargeSupport, IX: np.ndarray, IY: np.ndarray) -> np.ndarray:
    """MMD of pairs touching little of a support of sets, as from its matrix: (rep,).

    The computations of :func:`genexpy_nb.generalizability.mmd.mmd_from_pairs` (the
    touched points' blocks gathered with NumPy for moderate work, a numba loop beyond; the
    matrix itself on a small support, or where the pairs touch much of it), with the
    matrix's values read from the sets: the numbers the matrix would give, bit for bit.
    """
    from .._numba import compile_note, run_blocks
    from .._numba import large as _large
    from .mmd import mmd_from_pairs, mmd_touched

    rep, n = IX.shape
    k = min(2 * n, sup.m)
    r = config.ROUTES
    if sup.m <= r.mmd_small_m or k >= sup.m * (r.mmd_dense_fraction_small
                                               if sup.m <= r.mmd_cache_m
                                               else r.mmd_dense_fraction_large):
        # a small support, or pairs that touch much of it: its matrix and BLAS products
        return mmd_from_pairs(_sets_rows(sup, 0, sup.m), sup.inv, IX, IY)
    out = np.empty(rep)
    M = sup.B.ravel()
    if rep * k * k <= r.mmd_gather_max_work:
        def values(P: np.ndarray) -> np.ndarray:
            Q = np.empty((P.shape[0], P.shape[1], P.shape[1]))
            _large.sets_gather(M, sup.T, sup.table, sup.c2, P, Q)
            return Q

        with compile_note(_large.sets_gather):
            mmd_touched(None, sup.inv, IX, IY, out, values=values)
        return out
    with compile_note(_large.mmd_rows_sets):
        run_blocks(lambda r0, r1: _large.mmd_rows_sets(M, sup.T, sup.table, sup.c2, sup.inv,
                                                       IX, IY, r0, r1, out),
                   rep, rep * k * k / 2.0)
    return out


def _sets_rows(sup: LargeSupport, b0: int, b1: int) -> np.ndarray:
    """Rows b0..b1 of the matrix on a support of sets (kind 3), from column b0 on."""
    from .._numba import compile_note, run_blocks
    from .._numba import large as _large

    out = np.empty((b1 - b0, sup.m - b0))
    M = sup.B.ravel()

    def rows(r0: int, r1: int) -> None:  # each value from the table: the same at any split
        _large.sets_block(M, sup.T, b0 + r0, b0 + r1, b0, sup.table, sup.c2, out[r0:r1])

    with compile_note(_large.sets_block):
        run_blocks(rows, b1 - b0, float(b1 - b0) * (sup.m - b0))
    return out


def _unit_pairs(N: int, n: int, position: int, rep: int, seed: np.uint64
                ) -> tuple[np.ndarray, np.ndarray]:
    """Return the ``rep`` pairs of size n the batched kernel draws at a grid position (IX, IY)."""
    from .._numba import compile_note
    from .._numba import large as _large

    IX = np.empty((rep, n), dtype=np.int64)
    IY = np.empty((rep, n), dtype=np.int64)
    with compile_note(_large.draw_units):
        _large.draw_units(seed, N, np.array([n], dtype=np.int64),
                          np.array([position], dtype=np.int64), rep, 0, rep, IX, IY)
    return IX, IY


def subsample_support(kernel: Kernel, data: np.ndarray, rng: np.random.Generator
                      ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """Return the support and the results the closed-form parts read for a large configuration.

    M = ``config.ROUTES.large_support_m`` conditions are drawn without replacement from
    ``rng``, each weighted ``N // M`` or ``N // M + 1`` so that the weights add up to N.
    The support (the sampling part of the interval, the baseline's band, the RBF check):
    the kernel's own support ``(K, inv, counts)`` when it has at most M points (as the full
    path), else the subsample's, with ``inv`` (N,) a virtual assignment whose counts are
    those weights. The results (the closed-form estimators, which work on the distinct
    results): ``data`` when it has at most M distinct rows, else the subsample's rows.
    """
    from .mmd import kernel_support

    data = np.asarray(data)
    N = data.shape[0]
    M = int(config.ROUTES.large_support_m)
    first, _, _ = kernel.support(data)
    pick = np.sort(rng.choice(N, size=M, replace=False)) if N > M else np.arange(N)
    rows = data[pick]
    distinct = np.unique(data, axis=0).shape[0] if N > M else N
    if first.size <= M:
        return kernel_support(kernel, data), (data if distinct <= M else rows)
    K, inv_s, _ = kernel_support(kernel, rows)
    wts = np.full(M, N // M, dtype=np.int64)
    wts[:N % M] += 1
    counts = np.bincount(inv_s, weights=wts, minlength=K.shape[0]).astype(np.int64)
    inv = np.repeat(np.arange(K.shape[0], dtype=np.int64), counts)
    return (K, inv, counts), rows


# ---- the cost model: which grid, and how long ----------------------------------------------
@dataclass(frozen=True)
class KernelShape:
    """What the cost of one kernel's MMD values depends on: its support and its rows.

    ``m``: distinct results as the kernel sees them; ``na``: alternatives; ``name``: the
    kernel's (Mallows and RBF values can be computed on the fly).
    """

    name: str
    m: int
    na: int


@dataclass(frozen=True)
class GridPlan:
    """The sample sizes of one configuration, the path that resamples them, and its cost.

    ``thinned``: the large-study path (the batched kernel's draws; a thinned grid where
    the full one costs too much); ``seconds``: the estimated cost on one core of the
    reference machine (:data:`genexpy_nb.config.COSTS`).
    """

    ns: np.ndarray
    thinned: bool
    seconds: float


def _mmd_ns(n: int, shape: KernelShape, rep: int, fly: bool) -> float:
    """Estimated nanoseconds of ``rep`` MMD values of size n for one kernel (no draws).

    ``fly``: the sizes read one pair at a time compute Mallows or RBF values on the fly
    (the large path beyond ``config.ROUTES.large_support_m`` points).
    """
    c, r = config.COSTS, config.ROUTES
    m = shape.m
    k = min(2 * n, m)
    dense_from = (r.mmd_dense_fraction_small if m <= r.mmd_cache_m
                  else r.mmd_dense_fraction_large)
    if m <= r.mmd_small_m or k >= m * dense_from:  # BLAS products with the matrix
        return rep * (m * m * c.blas_ns + (m + 2 * n) * c.cell_ns)
    if not fly:  # over the touched points, from the matrix
        if rep * k * k <= r.mmd_gather_max_work:
            return rep * k * k * c.gather_ns
        return rep * 0.5 * k * k * (c.loop_ns if m <= r.mmd_cache_m else c.loop_far_ns)
    if shape.name == "mallows":
        words = (shape.na * shape.na + 63) // 64
        return rep * 0.5 * k * k * (c.mallows_pair_ns + words * c.mallows_word_ns)
    return rep * 0.5 * k * k * (shape.na * c.rbf_value_ns + c.rbf_exp_ns)


def _setup_ns(shape: KernelShape, matrix: bool, closed_m: int) -> float:
    """Estimated nanoseconds of a kernel's matrix on its support and its closed forms."""
    c = config.COSTS
    m2 = float(shape.m) ** 2 if matrix else 0.0
    gram = m2 * (shape.na ** 2 * c.gram_mallows_ns if shape.name == "mallows"
                 else shape.na * c.gram_ns)
    return gram + float(closed_m) ** 2 * c.closed_ns


def full_grid_seconds(N: int, ns: np.ndarray, shapes: list[KernelShape], rep: int,
                      null: bool) -> float:
    """Estimate the MMD distributions of one configuration on the full grid (seconds).

    The draws of every size (``rep`` x N uniforms ordered), each kernel's values from its
    matrix (:func:`genexpy_nb.generalizability.mmd.mmd_from_pairs`), the no-signal
    baseline on every other size, the matrices and the closed forms: one core of the
    reference machine (:data:`genexpy_nb.config.COSTS`).
    """
    from .baseline import NULL_DENSE_MAX, null_sizes

    c = config.COSTS
    runs = 2 if null else 1
    total = sum(runs * _setup_ns(s, True, s.m) for s in shapes)
    keep = set(null_sizes(len(ns)).tolist()) if null else set()
    draw = (c.bucket_draw_ns if float(rep) * N * len(ns) >= config.ROUTES.grid_bucket_min_work
            else c.draw_ns)
    for j, n in enumerate(ns):
        n = int(n)
        total += rep * N * draw
        total += sum(_mmd_ns(n, s, rep, False) for s in shapes)
        if j in keep:
            if N <= NULL_DENSE_MAX:
                total += len(shapes) * rep * (N * N * c.blas_ns + (N + 2 * n) * c.cell_ns)
            else:
                total += sum(_mmd_ns(n, s, rep, False) for s in shapes)
    return float(total * 1e-9 + runs * len(shapes) * len(ns) * c.size_s)


def thinned_grid_seconds(N: int, ns: np.ndarray, shapes: list[KernelShape], rep: int,
                         null: bool) -> float:
    """Estimate the MMD distributions of one configuration on the large-study path (seconds).

    As :func:`full_grid_seconds`, with the batched kernel's draws (2n per pair), values
    from the matrix up to ``config.ROUTES.large_matrix_m`` points and on the fly beyond,
    and the closed forms on at most ``config.ROUTES.large_support_m`` points.
    """
    from .baseline import null_sizes

    c = config.COSTS
    runs = 2 if null else 1
    closed_max = int(config.ROUTES.large_support_m)
    total = 0.0
    per_size = np.zeros(len(ns))
    for s in shapes:
        matrix = s.m <= config.ROUTES.large_matrix_m or s.name not in ("mallows", "rbf")
        fly = s.name in ("mallows", "rbf") and s.m > closed_max
        total += runs * _setup_ns(s, matrix, min(s.m, closed_max))
        per_size += [2 * int(n) * rep * c.unit_draw_ns + _mmd_ns(int(n), s, rep, fly)
                     for n in ns]
        if not matrix:  # the matrix once per group of the pairs that read it in blocks
            r = config.ROUTES
            dense_from = (r.mmd_dense_fraction_small if s.m <= r.mmd_cache_m
                          else r.mmd_dense_fraction_large)
            wide = sum(min(2 * int(n), s.m) >= dense_from * s.m for n in ns)
            group = max(_DENSE_PAIRS, (_DENSE_BYTES // (16 * s.m)) // _DENSE_PAIRS
                        * _DENSE_PAIRS)
            groups = math.ceil(wide * rep / group) * (1.5 if null else 1.0)
            total += groups * (_setup_ns(s, True, 0))
    total += per_size.sum()
    if null:
        total += per_size[null_sizes(len(ns))].sum()
    return float(total * 1e-9 + runs * len(shapes) * len(ns) * c.size_s)


def plan_grid(N: int, shapes: list[KernelShape], rep: int, null: bool, grid, disjoint: bool,
              replace: bool) -> GridPlan:
    """Choose the sample sizes of one configuration and the path that resamples them.

    The paper's full grid when it costs at most ``config.ROUTES.grid_budget_s`` (estimated
    from the shape, :func:`full_grid_seconds`) and N is at most
    ``config.ROUTES.large_study_min_N``; else, in the default mode, the large-study path
    with as many sizes up to :func:`large_top` as the budget allows
    (:func:`thinned_grid_seconds`), never fewer than :data:`LARGE_GRID_SIZES`: the time is
    then smooth in N (a full grid that costs more than the budget is thinned, not run). A
    grid of one's own or another resampling mode is never thinned.

    Parameters
    ----------
    N : int
        The configuration's conditions.
    shapes : list of KernelShape
        Its kernels' supports.
    rep : int
        Pairs per size.
    null : bool
        With the no-signal baseline.
    grid, disjoint, replace
        As for :class:`~genexpy_nb.GeneralizabilityAnalysis`.

    Returns
    -------
    GridPlan
    """
    from .ngen import resolve_grid

    if grid is not None or not disjoint or replace:
        ns = resolve_grid(grid, N, disjoint, replace)
        return GridPlan(ns, False, full_grid_seconds(N, ns, shapes, rep, null))
    budget = float(config.ROUTES.grid_budget_s)
    if N <= config.ROUTES.large_study_min_N:
        ns = resolve_grid(None, N, disjoint, replace)
        cost = full_grid_seconds(N, ns, shapes, rep, null)
        if cost <= budget or ns.size < LARGE_GRID_SIZES:
            return GridPlan(ns, False, cost)
    top = large_top(N)
    lo, hi = LARGE_GRID_SIZES, max(LARGE_GRID_SIZES, top // 2)

    def cost_of(sizes: int) -> tuple[np.ndarray, float]:
        g = large_grid(N, sizes)
        return g, thinned_grid_seconds(N, g, shapes, rep, null)

    best = cost_of(lo)
    if best[1] < budget:  # the most sizes that fit (the cost grows with the sizes)
        top_try = cost_of(hi)
        if top_try[1] <= budget:
            best = top_try
        else:
            while hi - lo > 1:
                mid = (lo + hi) // 2
                cand = cost_of(mid)
                if cand[1] <= budget:
                    lo, best = mid, cand
                else:
                    hi = mid
    return GridPlan(best[0], True, best[1])
