"""Numba kernels of the trimmed Kolmogorov-Smirnov distance and alpha-hat
(robust-KS paper, Sections III-C and IV-A).

Arrays and scalars only, no validation: :mod:`genexpy_nb.variability` checks and converts
the input once, then calls these.

The distance (robust-KS paper, Section III-C) needs, on the pooled sorted sample
``z_1 <= ... <= z_P``, the
candidate eCDF ``Fn_i`` and the linearly interpolated reference eCDF ``F0_i``. Both are
functions of the *value* ``z_i``, so they are computed in one merge of the two sorted
samples (``_pooled_cdfs``, O(P)); each alpha then costs two O(P) scans (``_d_alpha_scan``):
a backward pass for the suffix maxima ``up`` and a forward pass that carries the prefix
minimum ``lo``, the clipped ``h`` and both maxima of step 7. One sort serves every alpha.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import config

# serial and nogil: the callers run row blocks on threads (genexpy_nb._numba.run_blocks),
# which compiles in a fraction of the time of a ``parallel=True`` region
_JIT = {"cache": config.NUMBA_CACHE, "fastmath": config.FASTMATH, "nogil": True}


@njit(**_JIT)
def _upper_counts(r):
    """``cnt[j] = #{i : r[i] <= r[j]}`` for a sorted array ``r`` (ties share the count)."""
    m = r.shape[0]
    cnt = np.empty(m, dtype=np.int64)
    j = 0
    while j < m:
        k = j + 1
        while k < m and r[k] == r[j]:
            k += 1
        for q in range(j, k):
            cnt[q] = k
        j = k
    return cnt


@njit(**_JIT)
def _pooled_cdfs(r, cnt, x, f0, fn):
    """Fill ``f0``/``fn`` (length m + n) along the pooled sorted sample.

    ``r`` sorted reference sample (m), ``cnt`` its upper counts (``_upper_counts``),
    ``x`` sorted candidate sample (n). ``fn[p]`` = candidate eCDF at ``z_p``;
    ``f0[p]`` = reference eCDF interpolated linearly between its distinct order statistics
    (value ``#{r <= v}/m`` at a reference value v; 0 below the smallest, 1 at and above the
    largest), at ``z_p``.
    """
    m = r.shape[0]
    n = x.shape[0]
    inv_m = 1.0 / m
    inv_n = 1.0 / n
    i = 0
    k = 0
    p = 0
    while i < m or k < n:
        if k >= n or (i < m and r[i] <= x[k]):
            v = r[i]
        else:
            v = x[k]
        i0 = i
        k0 = k
        while i < m and r[i] == v:
            i += 1
        while k < n and x[k] == v:
            k += 1
        # i = #{r <= v}, k = #{x <= v}
        fnv = k * inv_n
        if i == 0:
            f0v = 0.0
        elif i == m:
            f0v = 1.0
        elif r[i - 1] == v:
            f0v = i * inv_m
        else:
            # r[i-1] < v < r[i]: interpolate between the knots (r[i-1], i/m), (r[i], cnt[i]/m)
            lo = i * inv_m
            hi = cnt[i] * inv_m
            f0v = lo + (hi - lo) * (v - r[i - 1]) / (r[i] - r[i - 1])
        for q in range(p, p + (i - i0) + (k - k0)):
            f0[q] = f0v
            fn[q] = fnv
        p += (i - i0) + (k - k0)


@njit(**_JIT)
def _d_alpha_scan(f0, fn, alpha, up):
    """Trimmed KS distance (robust-KS paper, Section III-C) from the pooled cdfs; ``up``: a
    buffer (P+1)."""
    P = f0.shape[0]
    s = 1.0 / (1.0 - alpha)
    low = -alpha * s
    # step 5, suffix maxima of U_i = F0_i - s Fn_{i-1} (1-based i): up[j] = max(U_{j+1..P})
    up[P] = low
    run = -np.inf
    for j in range(P - 1, -1, -1):
        prev = fn[j - 1] if j >= 1 else 0.0
        u = f0[j] - s * prev  # U_{j+1}
        if u > run:
            run = u
        up[j] = run
    # steps 5-7, forward: lo[0] = 0, lo[j] = min(D_1..D_j); h[j] = clip((up+lo)/2, low, 0)
    h_prev = 0.5 * up[0]
    if h_prev > 0.0:
        h_prev = 0.0
    if h_prev < low:
        h_prev = low
    lo = np.inf
    best = -np.inf
    for j in range(1, P + 1):
        prev = fn[j - 2] if j >= 2 else 0.0
        u = f0[j - 1] - s * prev  # U_j
        d = f0[j - 1] - s * fn[j - 1]  # D_j
        if d < lo:
            lo = d
        h = 0.5 * (up[j] + lo)
        if h > 0.0:
            h = 0.0
        if h < low:
            h = low
        a = u - h_prev
        if a > best:
            best = a
        b = h - d
        if b > best:
            best = b
        h_prev = h
    return best


@njit(**_JIT)
def _d_alpha_sorted(r, cnt, x, alphas, out, f0, fn, up):
    """Distances for every alpha in ``alphas`` (one merge), written into ``out``."""
    _pooled_cdfs(r, cnt, x, f0, fn)
    for a in range(alphas.shape[0]):
        out[a] = _d_alpha_scan(f0, fn, alphas[a], up)


@njit(**_JIT)
def trimmed_ks_rows_kernel(r, cnt, cands, alphas, r0, r1, out):
    """``d_alpha`` of rows r0..r1 of ``cands`` (C, n) against one reference sample.

    ``r`` is the sorted reference sample, ``cnt`` its upper counts, and every row of
    ``cands`` is sorted (NumPy sorts outside: a sort compiled in here would multiply the
    compile time); writes ``out[c]`` (C, A) for c in r0..r1.
    """
    n = cands.shape[1]
    P = r.shape[0] + n
    f0 = np.empty(P)
    fn = np.empty(P)
    up = np.empty(P + 1)
    for c in range(r0, r1):
        _d_alpha_sorted(r, cnt, cands[c], alphas, out[c], f0, fn, up)


@njit(**_JIT)
def _bisect_alpha(f0, fn, up, tau, lo, hi, xtol):
    """Smallest alpha in (lo, hi] with d_alpha <= tau, by bisection (d_alpha monotone).

    Requires ``d_lo > tau >= d_hi``; returns the upper end of the final bracket (a level
    known to pass), at most ``xtol`` above the crossing.
    """
    while hi - lo > xtol:
        mid = 0.5 * (lo + hi)
        if _d_alpha_scan(f0, fn, mid, up) <= tau:
            hi = mid
        else:
            lo = mid
    return hi


@njit(**_JIT)
def alpha_hat_kernel(rs, cnts, cands, order, mult, grid, tau, amax, exact, xtol, full,
                     t0, t1, a_grid, a_exact, d0, d_grid):
    """Per-bootstrap results of alpha-hat (robust-KS paper Sec. III-C, IV-A) for every candidate.

    Parameters
    ----------
    rs, cnts : (B, h) sorted reference samples and upper counts (``reference_samples_kernel``).
    cands : (C, T) candidate gaps; order : (C, T) their row-wise argsort.
    mult : (B, T) multiplicity of each test point in the first half I1 of bootstrap b
        (``first_half_counts_kernel``); the candidate sample of bootstrap b is
        ``cands[c, I1]``, built already sorted by walking ``order[c]`` (O(T), no sort).
    grid : (G,) ascending trimming levels; tau : DKW threshold; amax : value when none passes.
    exact : also bisect for the exact level; xtol : bisection tolerance.
    full : compute the distance at every grid level; when False, stop at the first level
        that passes (the rest of ``d_grid`` is NaN; alpha-hat is the same).

    t0, t1 : the tasks ``t = b * C + c`` to do (a block, so that threads can share them).

    Writes
    ------
    a_grid, a_exact, d0 : (B, C) arrays; d_grid : (B, C, G) distances at the grid levels.
    ``a_exact`` is NaN when ``exact`` is False.
    """
    h = rs.shape[1]
    C = cands.shape[0]
    T = cands.shape[1]
    G = grid.shape[0]
    P = 2 * h
    x = np.empty(h)
    f0 = np.empty(P)
    fn = np.empty(P)
    up = np.empty(P + 1)
    for t in range(t0, t1):
        b = t // C
        c = t % C
        q = 0
        for j in range(T):
            t_ = order[c, j]
            v = cands[c, t_]
            for _ in range(mult[b, t_]):
                x[q] = v
                q += 1
        _pooled_cdfs(rs[b], cnts[b], x, f0, fn)
        a_grid[b, c] = amax
        passed = False
        for a in range(G):
            if passed and not full:
                d_grid[b, c, a] = np.nan
                continue
            d_grid[b, c, a] = _d_alpha_scan(f0, fn, grid[a], up)
            if not passed and d_grid[b, c, a] <= tau:
                a_grid[b, c] = grid[a]
                passed = True
        if G > 0 and grid[0] == 0.0:
            d0[b, c] = d_grid[b, c, 0]
        else:
            d0[b, c] = _d_alpha_scan(f0, fn, 0.0, up)
        if not exact:
            a_exact[b, c] = np.nan
        elif d0[b, c] <= tau:
            a_exact[b, c] = 0.0
        else:
            # bracket from the grid: the last failing level below the first passing one
            lo = 0.0
            hi = amax
            for a in range(G):
                if grid[a] <= a_grid[b, c] and d_grid[b, c, a] > tau:
                    lo = grid[a]
                if grid[a] == a_grid[b, c] and passed:
                    hi = grid[a]
            if not passed and _d_alpha_scan(f0, fn, amax, up) > tau:
                a_exact[b, c] = amax
            else:
                a_exact[b, c] = _bisect_alpha(f0, fn, up, tau, lo, hi, xtol)
