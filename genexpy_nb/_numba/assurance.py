"""Numba kernels of the plan (gx.conclusions' "needs k more", SPEC A15).

Arrays and scalars only.

* :func:`holm_rows`: for each row of ``abs_t`` (the absolute paired t statistics of every pair
  of one simulated study at N + k conditions), which pairs Holm's procedure rejects, given
  the critical values ``crit`` (``crit[i]`` for the (i + 1)-th smallest p-value, decreasing).
  Only the statistics between the unadjusted and the Bonferroni critical values need
  ordering: those above the Bonferroni value are rejected in any order, those below the
  unadjusted one never. The NumPy route sorts every row (``_holm_sorted``).
* :func:`fixed_events`: the fixed mode's simulated tables at N + k (the t statistics of every
  pair from the posterior draws) judged by the verdict rule in one pass per draw, with no
  (draws x pairs) temporaries and Holm's procedure without a sort (:func:`holm_count`)
  (``benchmarks/bench_conclusions.py`` times it against the NumPy route,
  ``PredictiveModel.at`` then ``fixed_event``, its twin).
* :func:`sequential_paths`: the sequential mode's simulated futures, one condition at a time:
  the betting e-processes of every pair (:mod:`genexpy_nb.generalizability.sequential`)
  advanced along each draw's path, Holm's step-down on their anytime-valid p-values at the
  values of k of the grid, and whether each claim holds there. A path is sequential by
  nature (each bet depends on the conditions before it); NumPy would loop in Python over
  draws x steps. Its naive twin is ``tests/naive.py``'s ``sequential_paths``.
"""

from __future__ import annotations

import math

import numpy as np

from . import jit_exact

# flags: jit_exact (comparisons against critical values: the same rejections as the NumPy
# and naive forms; log1p as NumPy's)


@jit_exact
def _split_band(v, top, bottom, band):
    """Count the statistics above ``top`` and copy those in (bottom, top] to ``band``.

    Returns (the count above, the number copied): those above the Bonferroni value are
    rejected in any order, those at or below the unadjusted one never.
    """
    sure = 0
    nb = 0
    for q in range(v.size):
        x = v[q]
        if x > top:
            sure += 1
        elif x > bottom:
            band[nb] = x
            nb += 1
    return sure, nb


@jit_exact
def holm_one(v, crit, band, out):
    """Holm's step-down on one family's statistics ``v`` (larger = smaller p-value).

    Parameters
    ----------
    v : float64 array, shape (P,)
        The statistics (NaN: never rejected).
    crit : float64 array, shape (P,)
        Critical values for the sorted p-values, decreasing.
    band : float64 array, shape (P,)
        Work space.
    out : bool array, shape (P,)
        Written: the rejections.
    """
    P = v.size
    top = crit[0]
    bottom = crit[P - 1]
    sure, nb = _split_band(v, top, bottom, band)
    cut = top
    idx = sure
    if nb > 0:
        srt = np.sort(band[:nb])
        for b in range(nb - 1, -1, -1):
            x = srt[b]
            if x > crit[idx]:
                idx += 1
                cut = x
            else:
                break
    if idx == sure:
        for q in range(P):
            out[q] = v[q] > top
    else:
        for q in range(P):
            out[q] = v[q] >= cut


@jit_exact
def holm_rows(abs_t, crit, out):
    """Write into ``out[r, q]`` whether Holm's procedure rejects pair q in row r.

    Parameters
    ----------
    abs_t : float64 array, shape (rows, P)
        Absolute t statistics (inf: a difference with no spread; NaN: never rejected).
    crit : float64 array, shape (P,)
        Critical values of |t| for the sorted p-values, decreasing.
    out : bool array, shape (rows, P)
        Written: the rejections.
    """
    rows, P = abs_t.shape
    if P == 0:
        return out
    band = np.empty(P)
    for r in range(rows):
        holm_one(abs_t[r], crit, band, out[r])
    return out


@jit_exact
def sequential_paths(pool, pi, pj, scale, state, n0, active, idx, grid, crit, ptr, cq,
                     csign, allow, cap, prior_var, min_var, out):
    """Advance every pair's e-processes along each draw's path; write the claims' events.

    Parameters
    ----------
    pool : float64 array, shape (M, na)
        Midranks of the conditions a path may draw (observed ones, then permuted ones).
    pi, pj : int64 arrays, shape (P,)
        The pairs.
    scale : float
        1 / (na - 1): the midrank difference scaled into [-1, 1].
    state : float64 array, shape (6, P)
        The e-processes after the observed conditions: sums of x and x^2, log capitals of
        the bets on positive and negative differences, their running maxima.
    n0 : int
        Conditions observed.
    active : bool array, shape (P,)
        Pairs to advance (the others are rejected for good: their state stays).
    idx : int64 array, shape (draws, kmax)
        The pool row of each future condition of each draw.
    grid : int64 array, shape (G,)
        Increasing values of k (<= kmax) at which the claims are judged.
    crit : float64 array, shape (P,)
        Holm's critical values of the log e-value score, decreasing.
    ptr, cq, csign, allow : int64 arrays
        The claims (compressed rows: claim c rests on pairs ``cq[ptr[c]:ptr[c+1]]`` with the
        promised signs ``csign``; it holds when at most ``allow[c]`` of them fail).
    cap, prior_var, min_var : float
        The bets' cap and the running variance's prior and floor.
    out : bool array, shape (draws, G, C)
        Written: whether each claim holds at each k of the grid in each draw.
    """
    draws, kmax = idx.shape
    P = pi.size
    G = grid.size
    C = allow.size
    s1 = np.empty(P)
    s2 = np.empty(P)
    lp = np.empty(P)
    lm = np.empty(P)
    mp = np.empty(P)
    mm = np.empty(P)
    score = np.empty(P)
    band = np.empty(P)
    rej = np.zeros(P, dtype=np.bool_)
    for r in range(draws):
        for q in range(P):
            s1[q] = state[0, q]
            s2[q] = state[1, q]
            lp[q] = state[2, q]
            lm[q] = state[3, q]
            mp[q] = state[4, q]
            mm[q] = state[5, q]
        n = n0
        g = 0
        for step in range(kmax):
            row = idx[r, step]
            for q in range(P):
                if not active[q]:
                    continue
                x = (pool[row, pi[q]] - pool[row, pj[q]]) * scale
                m = s1[q] / (n + 1.0)
                v = (prior_var + s2[q]) / (n + 1.0) - m * m
                if v < min_var:
                    v = min_var
                gg = m / (v + m * m)
                if gg > 0.0:
                    lam = gg if gg < cap else cap
                    lp[q] += math.log1p(lam * x)
                    if lp[q] > mp[q]:
                        mp[q] = lp[q]
                elif gg < 0.0:
                    lam = -gg if -gg < cap else cap
                    lm[q] += math.log1p(-lam * x)
                    if lm[q] > mm[q]:
                        mm[q] = lm[q]
                s1[q] += x
                s2[q] += x * x
            n += 1
            if g < G and step + 1 == grid[g]:
                for q in range(P):
                    score[q] = mp[q] if mp[q] > mm[q] else mm[q]
                holm_one(score, crit, band, rej)
                for c in range(C):
                    bad = 0
                    for e in range(ptr[c], ptr[c + 1]):
                        q = cq[e]
                        s = 1 if mp[q] > mm[q] else (-1 if mm[q] > mp[q] else 0)
                        if not (rej[q] and s == csign[e]):
                            bad += 1
                    out[r, g, c] = bad <= allow[c]
                g += 1
                if g == G:
                    break
    return out


#: candidate cells a draw looks at value by value before it sorts its whole band into cells
_HOLM_LOOKS = 4


@jit_exact
def holm_count(at, crit, ilo, ihi, inv_h, cell, cnt, start, sval, band):
    """Count Holm's rejections m of one family: it rejects the ``at`` above crit[m-1].

    The same rejections as :func:`holm_one` without sorting the band (the statistics between
    the unadjusted and the Bonferroni values). The (i + 1)-th largest statistic is rejected
    with all before it while it exceeds ``crit[i]``; with ``F(i)`` the number of statistics
    above ``crit[i]``, m is the first i with ``F(i) <= i``. The statistics above the
    Bonferroni value are only counted and those of the band copied out (one pass); the band
    is counted in cells of ``|t|`` (``cell(x) = int((x - crit[-1]) inv_h)``, monotone in x,
    the same formula for the critical values, so a statistic in a cell above crit[i]'s
    exceeds it). Walking the cells from the top, only a cell holding a crit[i] with ``F(i)``
    not already above i is looked at value by value: its values gathered from the band and
    sorted in place (exact comparisons; a cell holds a few values). Beyond
    ``_HOLM_LOOKS`` such cells, the rest of the band is sorted into its cells at once (a
    counting sort), so a draw never costs more than one pass over the band per cell.

    Parameters
    ----------
    at : float64 array, shape (P,)
        The statistics (no NaN).
    crit : float64 array, shape (P,)
        Critical values, decreasing.
    ilo, ihi : int64 arrays, shape (C + 1,)
        The indices i of the critical values in each cell: ``ilo[c] <= i < ihi[c]``.
    inv_h : float
        Cells per unit of ``|t|`` (0 when the critical values are all equal).
    cell, cnt, start, sval, band : arrays
        Work space: (P,) int64, (C + 1,) int64 **all zero** (left all zero), (C + 2,)
        int64, (P,) float64, (P,) float64.

    Returns
    -------
    int
        m, from 0 to P.
    """
    P = at.size
    C1 = cnt.size
    bottom = crit[P - 1]
    S, nb = _split_band(at, crit[0], bottom, band)
    for b in range(nb):
        c = int((band[b] - bottom) * inv_h)
        c = c if c < C1 else C1 - 1
        cell[b] = c
        cnt[c] += 1
    m = _holm_walk(crit, ilo, ihi, cell, cnt, start, sval, band, nb, S, P)
    for b in range(nb):
        cnt[cell[b]] = 0
    return m


@jit_exact
def _holm_walk(crit, ilo, ihi, cell, cnt, start, sval, band, nb, S, P):
    """Walk :func:`holm_count`'s cells of the band down from the top (``cnt``: their counts)."""
    C1 = cnt.size
    above = S  # statistics in the cells above the current one
    looks = 0
    for c in range(C1 - 1, -1, -1):
        n_c = cnt[c]
        lo = ilo[c]
        hi = ihi[c]
        if lo < hi and above < hi:  # some crit[i] of this cell may stop the procedure
            looks += 1
            if looks > _HOLM_LOOKS:
                return _holm_sorted_walk(crit, ilo, ihi, cell, cnt, start, sval, band, nb,
                                         above, c, P)
            s = 0
            for b in range(nb):
                if cell[b] == c:
                    sval[s] = band[b]
                    s += 1
            m = _cell_stop(crit, sval, 0, s, lo, hi, above)
            if m >= 0:
                return m
        above += n_c
    return P


@jit_exact
def _holm_sorted_walk(crit, ilo, ihi, cell, cnt, start, sval, band, nb, above, c0, P):
    """Walk from cell ``c0`` down, the band's values there sorted into their cells first."""
    tot = 0
    for c in range(c0 + 1):
        start[c] = tot
        tot += cnt[c]
    start[c0 + 1] = tot
    for c in range(c0 + 1):  # cnt as each cell's write position
        cnt[c] = start[c]
    for b in range(nb):
        c = cell[b]
        if c <= c0:
            sval[cnt[c]] = band[b]
            cnt[c] += 1
    for c in range(c0 + 1):  # all zero again below c0 (holm_count resets those above)
        cnt[c] = 0
    for c in range(c0, -1, -1):
        s0 = start[c]
        n_c = start[c + 1] - s0
        lo = ilo[c]
        hi = ihi[c]
        if lo < hi and above < hi:
            m = _cell_stop(crit, sval, s0, n_c, lo, hi, above)
            if m >= 0:
                return m
        above += n_c
    return P


@jit_exact
def _cell_stop(crit, sval, s0, n_c, lo, hi, above):
    """Return the first crit index of a cell where Holm stops (-1: none), its values sorted.

    ``sval[s0:s0 + n_c]``: the cell's statistics (sorted here, in place); ``lo, hi``: the
    indices of its critical values; ``above``: the statistics in the cells above it.
    """
    _sort_small(sval, s0, s0 + n_c)
    p = n_c  # the cell's statistics above crit[i]: sval[s0 + p: s0 + n_c]
    for i in range(lo, hi):
        cr = crit[i]
        while p > 0 and sval[s0 + p - 1] > cr:
            p -= 1
        if above + n_c - p <= i:
            return i
    return -1


@jit_exact
def _sort_small(v, a, b):
    """Sort ``v[a:b]`` in place: insertion sort for a few values (no allocation), else NumPy's."""
    if b - a > 16:
        v[a:b].sort()
        return
    for u in range(a + 1, b):
        x = v[u]
        w = u - 1
        while w >= a and v[w] > x:
            v[w + 1] = v[w]
            w -= 1
        v[w + 1] = x


@jit_exact(error_model="numpy")
def fixed_events(post, e2, sk, pi, pj, dm, dv, chi, N, k, crit, raw_crit, ilo, ihi, inv_h,
                 ptr, cq, csign, allow, family, out):
    """Judge the fixed mode's simulated tables at N + k: whether each claim holds per draw.

    The arithmetic of ``PredictiveModel.at`` and ``fixed_event`` (the NumPy route, the
    kernel's twin) in the same order, fused: no (draws x pairs) temporaries; the pairs'
    statistics in a loop without branches (vectorised), Holm's procedure by
    :func:`holm_count`, the claims on one pair read directly.

    Parameters
    ----------
    post, e2 : float64 arrays, shape (draws, na)
        The posterior draws of the mean midranks and the future conditions' noise.
    sk : float
        sqrt(k).
    pi, pj : int64 arrays, shape (P,)
        The pairs.
    dm, dv : float64 arrays, shape (P,)
        The observed mean and variance (ddof 1) of each pair's midrank difference.
    chi : float64 array, shape (draws,)
        chi^2_{k-1} / (k - 1) per draw (0 at k = 1).
    N, k : int
        Conditions observed and added.
    crit : float64 array, shape (P,)
        Holm's critical values of |t| at N + k - 1 degrees of freedom, decreasing.
    raw_crit : float
        The unadjusted critical value of |t|.
    ilo, ihi, inv_h
        The cells of the critical values (:func:`holm_count`).
    ptr, cq, csign, allow : int64 arrays
        The claims (compressed rows, as :func:`sequential_paths` takes them).
    family : bool array, shape (C,)
        Whether each claim's pairs are judged by Holm (else one by one).
    out : bool array, shape (draws, C)
        Written: whether each claim holds in each draw.
    """
    D, na = post.shape
    P = pi.size
    C = allow.size
    n = N + k
    c_between = N * k / n
    sqn = math.sqrt(n)
    f = np.empty(na)
    fd = np.empty(P)
    at = np.empty(P)
    sg = np.empty(P, dtype=np.int8)
    a1 = np.empty(P)
    for q in range(P):
        a1[q] = (N - 1) * dv[q]
    C1 = ilo.size
    cell = np.empty(P, dtype=np.int64)
    cnt = np.zeros(C1, dtype=np.int64)
    start = np.empty(C1 + 1, dtype=np.int64)
    sval = np.empty(P)
    band = np.empty(P)
    one = np.full(C, -1, dtype=np.int64)  # a claim on one pair, none allowed to fail
    one_sign = np.zeros(C, dtype=np.int8)
    for c in range(C):
        if ptr[c + 1] - ptr[c] == 1 and allow[c] == 0:
            one[c] = cq[ptr[c]]
            one_sign[c] = csign[ptr[c]]
    for r in range(D):
        for a in range(na):
            f[a] = post[r, a] + e2[r, a] / sk
        ch = chi[r]
        for q in range(P):
            fd[q] = f[pi[q]] - f[pj[q]]
        for q in range(P):  # no branch: the compiler vectorises it
            diff = (N * dm[q] + k * fd[q]) / n
            b = dm[q] - fd[q]
            var = (a1[q] + (k - 1) * dv[q] * ch + c_between * (b * b)) / (n - 1)
            var = 0.0 if var < 0.0 else var
            sd = math.sqrt(var)
            sg[q] = (diff > 0.0) - (diff < 0.0)
            t = abs(sqn * diff / sd)
            at[q] = t if sd > 0.0 else (math.inf if diff != 0.0 else 0.0)
        thr = math.inf  # Holm rejects the statistics above it
        if P > 0:
            m = holm_count(at, crit, ilo, ihi, inv_h, cell, cnt, start, sval, band)
            if m > 0:
                thr = crit[m - 1]
        for c in range(C):
            q = one[c]
            if q >= 0:
                out[r, c] = at[q] > (thr if family[c] else raw_crit) and sg[q] == one_sign[c]
                continue
            bad = 0
            for e in range(ptr[c], ptr[c + 1]):
                q = cq[e]
                ok = at[q] > thr if family[c] else at[q] > raw_crit
                if not (ok and sg[q] == csign[e]):
                    bad += 1
            out[r, c] = bad <= allow[c]
    return out


@jit_exact
def tally_events(ev, k, first, hits):
    """Count the holding draws of each claim and keep each draw's first k of holding.

    Parameters
    ----------
    ev : bool array, shape (draws, C)
        Whether each claim holds in each draw at N + k.
    k : int
        Conditions added.
    first : int64 array, shape (draws, C)
        Updated in place: ``min(first, k)`` where ``ev``.
    hits : int64 array, shape (C,)
        Updated in place: plus the number of draws where each claim holds.
    """
    D, C = ev.shape
    for r in range(D):
        for c in range(C):
            if ev[r, c]:
                hits[c] += 1
                if k < first[r, c]:
                    first[r, c] = k


def holm_cells(crit: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Return the cells of :func:`holm_count` for one family's critical values (~4 a cell).

    Returns
    -------
    ilo, ihi : numpy.ndarray
        (C + 1,) int64: the indices of the critical values in each cell.
    inv_h : float
        Cells per unit of |t|.
    """
    P = crit.size
    C = max(64, P // 4)
    span = float(crit[0] - crit[-1]) if P else 0.0
    inv_h = C / span if span > 0.0 else 0.0
    cells = ((crit - crit[-1]) * inv_h).astype(np.int64) if P else np.zeros(0, np.int64)
    neg = -cells  # increasing
    want = -np.arange(C + 1)
    return (np.searchsorted(neg, want, side="left").astype(np.int64),
            np.searchsorted(neg, want, side="right").astype(np.int64), inv_h)


def signatures() -> list:
    """Compile the kernels' signatures (for ``genexpy-nb precompile``)."""
    holm_rows(np.zeros((2, 3)), np.array([3.0, 2.5, 2.0]), np.zeros((2, 3), dtype=np.bool_))
    i64 = np.int64
    sequential_paths(np.zeros((2, 3)), np.array([0], i64), np.array([1], i64), 0.5,
                     np.zeros((6, 1)), 2, np.ones(1, np.bool_), np.zeros((1, 2), i64),
                     np.array([1, 2], i64), np.array([3.0]), np.array([0, 1], i64),
                     np.array([0], i64), np.array([1], i64), np.array([0], i64), 0.5, 0.25,
                     1e-6, np.zeros((1, 2, 1), np.bool_))
    crit = np.array([2.0])
    fixed_events(np.zeros((1, 2)), np.zeros((1, 2)), 1.0, np.array([0], i64),
                 np.array([1], i64), np.zeros(1), np.ones(1), np.zeros(1), 5, 1,
                 crit, 2.0, *holm_cells(crit), np.array([0, 1], i64), np.array([0], i64),
                 np.array([1], i64), np.array([0], i64), np.ones(1, np.bool_),
                 np.zeros((1, 1), np.bool_))
    tally_events(np.zeros((1, 1), np.bool_), 1, np.zeros((1, 1), i64), np.zeros(1, i64))
    return [holm_rows, sequential_paths, fixed_events, tally_events]
