"""Numba kernel of the trimmed Kolmogorov-Smirnov distance and alpha-hat.

Robust-KS paper, Sections III-C and IV-A.

Arrays and scalars only, no validation: :mod:`genexpy_nb.variability` checks and converts
the input once, then calls this.

The distance (robust-KS paper, Section III-C) needs, on the pooled sorted sample
``z_1 <= ... <= z_P``, the candidate eCDF ``Fn_i`` and the linearly interpolated reference
eCDF ``F0_i``. Both are functions of the *value* ``z_i``, so they are computed in one merge
of the two sorted samples (O(P)); each alpha then costs two O(P) scans: a backward pass for
the suffix maxima ``up`` and a forward pass that carries the prefix minimum ``lo``, the
clipped ``h`` and both maxima of step 7. One sort serves every alpha.

Everything is one function on purpose: numba compiles each jitted function separately, so
four functions took several times as long to compile on first use (a fresh installation)
as one function with the scan written once (``benchmarks/README.md``). The trimmed-KS distances of
:func:`genexpy_nb.variability.trimmed_ks` use the same kernel (one bootstrap draw holding
every test point once, every level evaluated).
"""

from __future__ import annotations

import numpy as np

from . import jit_exact

# flags: jit_exact (the one place of numba flags: genexpy_nb._numba)
# serial and nogil: the callers run row blocks on threads (genexpy_nb._numba.run_blocks),
# which compiles in a fraction of the time of a ``parallel=True`` region. No fastmath, unlike
# the other kernels: strict IEEE arithmetic does the very operations of the NumPy route that
# small inputs take (genexpy_nb.variability._trimmed_numpy), so both routes give the same
# bits and no result depends on the route a call took (measured: not slower here).


@jit_exact
def trimmed_ks_kernel(rs, cnts, cands, order, mult, grid, tau, amax, exact, xtol, full,
                      t0, t1, x, f0, fn, up, a_grid, a_exact, d0, d_grid):
    """Compute trimmed KS distances and alpha-hat per draw and candidate.

    Robust-KS paper Sec. III-C, IV-A.

    Parameters
    ----------
    rs, cnts : (B, m) sorted reference samples and their upper counts
        (``cnt[j] = #{i : r[i] <= r[j]}``).
    cands : (C, T) candidate values; order : (C, T) their row-wise argsort.
    mult : (B, T) int32, multiplicity of each test point in the candidate sample of draw b
        (the first half I1 of the bootstrap); the sample, of n = ``x.shape[0]`` values, is
        built already sorted by walking ``order[c]`` (O(T), no sort).
    grid : (G,) trimming levels, ascending for alpha-hat; tau : threshold; amax : value when
        no level passes.
    exact : also bisect for the exact level; xtol : bisection tolerance.
    full : the distance at every level; when False, stop at the first level that passes
        (the rest of ``d_grid`` is NaN; alpha-hat is the same).
    t0, t1 : the tasks ``t = b * C + c`` to do (a block, so that threads can share them).
    x, f0, fn, up : work buffers of n, m + n, m + n and m + n + 1 values (one per thread).

    Writes
    ------
    a_grid, a_exact, d0 : (B, C) arrays; d_grid : (B, C, G) distances at the levels.
    ``a_exact`` is NaN when ``exact`` is False.
    """
    m = rs.shape[1]
    C = cands.shape[0]
    T = cands.shape[1]
    G = grid.shape[0]
    n = x.shape[0]
    P = m + n
    inv_m = 1.0 / m
    inv_n = 1.0 / n
    for t in range(t0, t1):
        b = t // C
        c = t % C
        # the candidate sample of draw b, in ascending order
        q = 0
        for j in range(T):
            tj = order[c, j]
            v = cands[c, tj]
            for _ in range(mult[b, tj]):
                x[q] = v
                q += 1
        # F0 and Fn along the pooled sorted sample, in one merge; at a value v:
        # i = #{r <= v}, k = #{x <= v}; F0 is interpolated linearly between the knots
        # (r[i-1], i/m) and (r[i], cnt[i]/m), 0 below the smallest r, 1 from the largest
        i = 0
        k = 0
        p = 0
        while i < m or k < n:
            if k >= n or (i < m and rs[b, i] <= x[k]):
                v = rs[b, i]
            else:
                v = x[k]
            i0 = i
            k0 = k
            while i < m and rs[b, i] == v:
                i += 1
            while k < n and x[k] == v:
                k += 1
            fnv = k * inv_n
            if i == 0:
                f0v = 0.0
            elif i == m:
                f0v = 1.0
            elif rs[b, i - 1] == v:
                f0v = i * inv_m
            else:
                lo = i * inv_m
                hi = cnts[b, i] * inv_m
                f0v = lo + (hi - lo) * (v - rs[b, i - 1]) / (rs[b, i] - rs[b, i - 1])
            for qq in range(p, p + (i - i0) + (k - k0)):
                f0[qq] = f0v
                fn[qq] = fnv
            p += (i - i0) + (k - k0)
        # the levels to evaluate, one distance each. stage 0: the grid, in order (after the
        # first passing level only if ``full``); 1: level 0 when the grid lacks it; 2: the
        # exact level's bracket; 3: amax, when no grid level passed; 4: bisection
        a_grid[b, c] = amax
        passed = False
        a = 0
        stage = 0
        lo_b = 0.0
        hi_b = amax
        alpha = 0.0
        while True:
            if stage == 0:
                if a >= G or (passed and not full):
                    for a2 in range(a, G):
                        d_grid[b, c, a2] = np.nan
                    if G > 0 and grid[0] == 0.0:
                        d0[b, c] = d_grid[b, c, 0]
                        stage = 2
                    else:
                        stage = 1
                    continue
                alpha = grid[a]
            elif stage == 1:
                alpha = 0.0
            elif stage == 2:
                if not exact:
                    a_exact[b, c] = np.nan
                    break
                if d0[b, c] <= tau:
                    a_exact[b, c] = 0.0
                    break
                # bracket from the grid: the last failing level below the first passing one
                for a2 in range(G):
                    if grid[a2] <= a_grid[b, c] and d_grid[b, c, a2] > tau:
                        lo_b = grid[a2]
                    if grid[a2] == a_grid[b, c] and passed:
                        hi_b = grid[a2]
                stage = 4 if passed else 3
                continue
            elif stage == 3:
                alpha = amax
            else:
                if hi_b - lo_b <= xtol:
                    a_exact[b, c] = hi_b
                    break
                alpha = 0.5 * (lo_b + hi_b)
            # d_alpha from F0, Fn (Sec. III-C, steps 5-7): backward, the suffix maxima
            # up[j] = max(U_{j+1..P}) of U_i = F0_i - s Fn_{i-1} (1-based i), up[P] = -alpha s
            s = 1.0 / (1.0 - alpha)
            low = -alpha * s
            up[P] = low
            run = -np.inf
            for j in range(P - 1, -1, -1):
                prev = fn[j - 1] if j >= 1 else 0.0
                u = f0[j] - s * prev
                if u > run:
                    run = u
                up[j] = run
            # forward: lo = min(D_1..D_j), D_i = F0_i - s Fn_i; h[j] = clip((up + lo) / 2,
            # low, 0); d = max(max_j U_j - h[j-1], max_j h[j] - D_j)
            h_prev = 0.5 * up[0]
            if h_prev > 0.0:
                h_prev = 0.0
            if h_prev < low:
                h_prev = low
            lo = np.inf
            d = -np.inf
            for j in range(1, P + 1):
                prev = fn[j - 2] if j >= 2 else 0.0
                u = f0[j - 1] - s * prev
                dj = f0[j - 1] - s * fn[j - 1]
                if dj < lo:
                    lo = dj
                h = 0.5 * (up[j] + lo)
                if h > 0.0:
                    h = 0.0
                if h < low:
                    h = low
                if u - h_prev > d:
                    d = u - h_prev
                if h - dj > d:
                    d = h - dj
                h_prev = h
            # use it
            if stage == 0:
                d_grid[b, c, a] = d
                if not passed and d <= tau:
                    a_grid[b, c] = grid[a]
                    passed = True
                a += 1
            elif stage == 1:
                d0[b, c] = d
                stage = 2
            elif stage == 3:
                if d > tau:
                    a_exact[b, c] = amax
                    break
                stage = 4
            elif d <= tau:
                hi_b = alpha
            else:
                lo_b = alpha
