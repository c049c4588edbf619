"""The trimmed KS distance and alpha-hat in NumPy, for small inputs.

The same computation as the numba kernel (:mod:`genexpy_nb._numba.variability`), vectorised
over (draw, candidate) rows: one merge of each row's two sorted samples into the cdfs F0 and
Fn, then per trimming level the scans of the robust-KS paper, Section III-C, as cumulative
maxima and minima. Each level costs about a dozen passes over the rows, where the kernel
makes two, so this is the faster route only while compiling the kernel (about 2 s, once
per installation) would cost more than the extra passes: the callers choose it below a
bound on the work. Every value is computed by the same IEEE operations, in the same order,
as in the kernel (compiled without fastmath for this), so the two routes give the same
bits: tested.
"""

from __future__ import annotations

import numpy as np

from .._codes import run_ends

#: (rows x pooled points) per block: the arrays of one block stay in the core's cache
_BLOCK = 1 << 18


def pooled_cdfs(r: np.ndarray, cnt: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """F0 and Fn along each row's pooled sorted sample: (R, m + n) each.

    ``r`` (R, m) sorted reference samples with upper counts ``cnt``; ``x`` (R, n) sorted
    candidate samples. At a value v, ``i = #{r <= v}`` and ``k = #{x <= v}`` (every member of
    a run of equal values gets the counts at its end); ``Fn = k / n``; F0 is 0 below the
    smallest r, 1 from the largest, ``i / m`` at a reference value, and linear between the
    knots ``(r[i-1], i / m)`` and ``(r[i], cnt[i] / m)`` elsewhere.
    """
    m = r.shape[1]
    n = x.shape[1]
    z = np.concatenate((r, x), axis=1)
    order = np.argsort(z, axis=1, kind="stable")
    v = np.take_along_axis(z, order, axis=1)
    ci = np.cumsum(order < m, axis=1)
    end = run_ends(v)  # the end of each run of equal values, for every position of the run
    i = np.take_along_axis(ci, end, axis=1)
    k = (end + 1) - i
    fn = k * (1.0 / n)
    lo = i * (1.0 / m)
    prev = np.take_along_axis(r, np.clip(i - 1, 0, m - 1), axis=1)
    nxt = np.take_along_axis(r, np.clip(i, 0, m - 1), axis=1)
    hi = np.take_along_axis(cnt, np.clip(i, 0, m - 1), axis=1) * (1.0 / m)
    with np.errstate(divide="ignore", invalid="ignore"):
        f0 = lo + (hi - lo) * (v - prev) / (nxt - prev)
    f0 = np.where(prev == v, lo, f0)
    f0 = np.where(i == m, 1.0, f0)
    f0 = np.where(i == 0, 0.0, f0)
    return f0, fn


def d_alpha(f0: np.ndarray, fn: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Trimmed KS distance of every row at its level ``alpha`` (R,) (Sec. III-C, steps 5-7).

    ``U_i = F0_i - s Fn_{i-1}``, ``D_i = F0_i - s Fn_i``, ``s = 1 / (1 - alpha)``;
    ``up[j] = max(U_{j+1..P})`` (``up[P] = -alpha s``), ``lo[j] = min(D_1..j)``,
    ``h[j] = clip((up[j] + lo[j]) / 2, -alpha s, 0)`` (``h[0]`` from ``up[0]`` alone);
    ``d = max(max_j U_j - h[j-1], max_j h[j] - D_j)``.
    """
    R, P = f0.shape
    s = (1.0 / (1.0 - alpha))[:, None]
    low = -alpha[:, None] * s
    fprev = np.empty_like(fn)
    fprev[:, 0] = 0.0
    fprev[:, 1:] = fn[:, :-1]
    U = f0 - s * fprev
    D = f0 - s * fn
    up = np.empty((R, P + 1))
    up[:, :P] = np.maximum.accumulate(U[:, ::-1], axis=1)[:, ::-1]
    up[:, P:] = low
    lo = np.minimum.accumulate(D, axis=1)
    h = np.empty((R, P + 1))
    h[:, :1] = 0.5 * up[:, :1]
    h[:, 1:] = 0.5 * (up[:, 1:] + lo)
    np.minimum(h, 0.0, out=h)
    np.maximum(h, low, out=h)
    return np.maximum((U - h[:, :-1]).max(axis=1), (h[:, 1:] - D).max(axis=1))


def trimmed_ks_rows(r: np.ndarray, cnt: np.ndarray, ref_row: np.ndarray, x: np.ndarray,
                    grid: np.ndarray, tau: float, amax: float, exact: bool, xtol: float,
                    full: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Grid distances, alpha-hat on the grid, d0 and the exact level of every row.

    Row q compares the sorted candidate sample ``x[q]`` with the sorted reference sample
    ``r[ref_row[q]]`` (upper counts ``cnt[ref_row[q]]``).

    The same rules as the numba kernel: the grid is evaluated in order and, unless
    ``full``, not after a row's first passing level (NaN there); ``amax`` when none passes;
    the exact level by bisection (to ``xtol``) between the last failing and the first
    passing grid level, 0 when ``d0 <= tau`` and ``amax`` when even ``amax`` fails.

    Returns a_grid (R,), a_exact (R,) (NaN unless ``exact``), d0 (R,), d_grid (R, G).
    """
    R = x.shape[0]
    G = grid.size
    a_grid = np.full(R, amax)
    a_exact = np.full(R, np.nan)
    d0 = np.empty(R)
    d_grid = np.full((R, G), np.nan)
    step = max(1, _BLOCK // (r.shape[1] + x.shape[1]))
    for r0 in range(0, R, step):
        sl = slice(r0, min(R, r0 + step))
        f0, fn = pooled_cdfs(r[ref_row[sl]], cnt[ref_row[sl]], x[sl])
        nr = f0.shape[0]
        ag, dg = a_grid[sl], d_grid[sl]
        passed = np.zeros(nr, dtype=bool)
        for a in range(G):
            rows = np.arange(nr) if full else np.flatnonzero(~passed)
            if rows.size == 0:
                break
            d = d_alpha(f0[rows], fn[rows], np.full(rows.size, grid[a]))
            dg[rows, a] = d
            new = rows[(d <= tau) & ~passed[rows]]
            ag[new] = grid[a]
            passed[new] = True
        if G > 0 and grid[0] == 0.0:
            d0[sl] = dg[:, 0]
        else:
            d0[sl] = d_alpha(f0, fn, np.zeros(nr))
        if not exact:
            continue
        ae = np.full(nr, np.nan)
        ae[d0[sl] <= tau] = 0.0
        todo = np.flatnonzero(d0[sl] > tau)
        # bracket from the grid: the last failing level below the first passing one
        lo_b = np.zeros(nr)
        hi_b = np.full(nr, amax)
        for a in range(G):
            lo_b = np.where((grid[a] <= ag) & (dg[:, a] > tau), grid[a], lo_b)
            hi_b = np.where((grid[a] == ag) & passed, grid[a], hi_b)
        check = todo[~passed[todo]]
        if check.size:
            fails = d_alpha(f0[check], fn[check], np.full(check.size, amax)) > tau
            ae[check[fails]] = amax
            todo = np.setdiff1d(todo, check[fails])
        while todo.size:
            width = hi_b[todo] - lo_b[todo]
            done = width <= xtol
            ae[todo[done]] = hi_b[todo[done]]
            todo = todo[~done]
            if not todo.size:
                break
            mid = 0.5 * (lo_b[todo] + hi_b[todo])
            ok = d_alpha(f0[todo], fn[todo], mid) <= tau
            hi_b[todo[ok]] = mid[ok]
            lo_b[todo[~ok]] = mid[~ok]
        a_exact[sl] = ae
    return a_grid, a_exact, d0, d_grid
