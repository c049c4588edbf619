"""The large-study path of the n* analysis: a thinned grid and one batched kernel.

Above ``config.ROUTES.large_study_min_N`` conditions (default 1,000) a configuration
analysed with the default grid and the paper's "realistic" resampling mode (Sec. 4.5: two
disjoint samples without replacement) is resampled

- on a thinned grid of sample sizes (:func:`large_grid`): :data:`LARGE_GRID_SIZES` sizes,
  every even n up from 2 and then geometric, up to a top size :func:`large_top` that is
  ``N // 2`` at the bound and grows as ``sqrt(N)`` beyond it (the cost of MMD_n grows as
  n^2: the whole analysis then grows about linearly in N);
- with independent draws per (size, pair), each from its own seeded stream: the same bits
  at any thread count, and independent quantile errors across sizes (what the fit part of
  the interval of n* assumes);
- by one batched numba kernel per configuration and kernel, with the kernel values read
  from the matrix on the support when the support has at most
  ``config.ROUTES.large_support_m`` distinct results, computed on the fly from the
  support's rows beyond (memory linear in N);
- and, beyond that support size, the closed-form parts (the ``approx`` estimators, the
  sampling part of the interval of n* and of the baseline's band, the RBF degeneracy check)
  read a seeded subsample of ``large_support_m`` conditions, each weighted so that the
  weights add up to N (the resampling of the N conditions is then mimicked on the
  subsample's distribution).

At or below the bound nothing changes: the full grid of the paper, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import config
from .._validation import GenexpyInputError
from .kernels import Kernel

__all__ = ["LARGE_GRID_SIZES", "LargeSupport", "applies", "grid_note", "large_grid",
           "large_pairs", "large_support", "large_top", "mmd_grid", "subsample_support",
           "work_progress"]

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


def work_progress(ns: np.ndarray, rep: int, runs: int):
    """Return a progress bar with a time estimate over ``runs`` batched kernels on ``ns``.

    It advances by the work of each block (``n^2`` per pair: what a pair costs), so its
    estimate holds while the sizes grow; it is drawn only once the run has lasted 2 s.

    Parameters
    ----------
    ns : numpy.ndarray of int
        The thinned grid of one configuration.
    rep : int
        Pairs per size.
    runs : int
        Batched kernels of the configuration (kernels, twice with the baseline).

    Returns
    -------
    tqdm.tqdm
        The bar (``update(work)``, ``close()``).
    """
    from .._progress import tqdm

    total = float(runs) * rep * float(np.sum(ns.astype(np.float64) ** 2))
    return tqdm(total=total, desc="MMD distributions (thinned grid)", unit="work",
                unit_scale=True, leave=False, delay=2.0,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]")


def grid_note(ns: np.ndarray) -> str:
    """Return the sentence that says a configuration's grid was thinned."""
    return f"thinned grid: {ns.size} sizes up to {int(ns[-1])}" if ns.size else "thinned grid"


@dataclass(frozen=True)
class LargeSupport:
    """A kernel's support prepared for the batched kernel.

    ``kind`` says where the values come from (0: the matrix ``K``; 1: Mallows bitsets ``B``,
    tied pairs ``T``, value table ``table`` indexed by twice the discordance, ``c2`` =
    na (na - 1); 2: RBF rows ``X`` and ``gamma``); ``inv`` (N,) is each result's support
    point, ``m`` the support's size.
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


def large_support(kernel: Kernel, data: np.ndarray) -> LargeSupport:
    """Prepare a resolved kernel's support of one configuration's results ``data`` (N, na).

    The matrix on the support when it has at most ``config.ROUTES.large_support_m`` points
    (``large_rbf_matrix_m`` for RBF; always for a kernel other than Mallows and RBF); the
    rows to compute values from beyond.
    """
    from ._gram import _tied_pairs

    data = np.asarray(data)
    first, inv, _ = kernel.support(data)
    inv = np.ascontiguousarray(inv, dtype=np.int64)
    m = int(first.size)
    e1, e2 = np.zeros((1, 1)), np.zeros((1, 1), dtype=np.uint64)
    none = dict(B=e2, T=np.zeros(1, dtype=np.int64), table=np.zeros(1), c2=0, X=e1, gamma=0.0)
    u = data[first]
    if m > config.ROUTES.large_support_m and kernel.name == "mallows":
        na = u.shape[1]
        c2 = na * (na - 1)
        table = np.exp(-float(kernel.nu) * 0.5 * np.arange(c2 + 1, dtype=np.float64))
        T = np.asarray(_tied_pairs(u)).astype(np.int64)
        return LargeSupport(1, inv, m, e1, _mallows_bits(u), np.ascontiguousarray(T), table,
                            c2, e1, 0.0)
    if m > config.ROUTES.large_rbf_matrix_m and kernel.name == "rbf":
        return LargeSupport(2, inv, m, e1, e2, none["T"], none["table"], 0,
                            np.ascontiguousarray(u, dtype=np.float64), float(kernel.gamma))
    K = np.ascontiguousarray(kernel.gram(u), dtype=np.float64)
    return LargeSupport(0, inv, m, K, **none)


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
    _large.draw_units(np.uint64(seed), N, ns, rep, 0, ns.size * rep, IX, IY)
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
    r = config.ROUTES
    dense = float(r.mmd_dense_fraction_small if sup.m <= r.mmd_cache_m
                  else r.mmd_dense_fraction_large)
    pos = (np.arange(ns.size, dtype=np.int64) if positions is None
           else np.ascontiguousarray(positions, dtype=np.int64))

    def block(u0: int, u1: int) -> None:
        _large.mmd_units(sup.kind, sup.K, sup.B, sup.T, sup.table, sup.c2, sup.X, sup.gamma,
                         sup.inv, N, ns, pos, rep, seed64, dense, u0, u1, out)
        if on_work is not None:
            on_work(float(cost[u0:u1].sum()))

    with compile_note(_large.mmd_units):
        run_blocks(block, units, 2.0 * float(cost.sum()) * rep,
                   block_rows=_UNITS_PER_BLOCK)
    return out.reshape(ns.size, rep)


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
