"""Numba kernels of the leaderboards (gx.rank_sets, gx.tiers, gx.bradley_terry; SPEC A16).

Arrays and scalars only.

``stepdown_rows``: the max-t step-down test of every ordered pair of alternatives (Romano &
Wolf 2005; Mogstad, Romano, Shaikh & Wilhelm 2023), run on many data sets against one set of
bootstrap draws: the plan of :func:`genexpy_nb.tiers` re-runs the family test on each of
thousands of predictive draws. Each pair p = (i, j) carries two one-sided hypotheses:
"j is not ahead of i" (bit 1, rejected when ``Z[r, p] > c``) and "i is not ahead of j"
(bit 2, rejected when ``-Z[r, p] > c``). The critical value ``c`` of a step is the ``kth``
order statistic over the draws b of the largest bootstrap statistic among the hypotheses
still standing (``G[b, p]`` for bit 1, ``-G[b, p]`` for bit 2), floored at 0; the step
repeats until it rejects nothing new. The largest standing statistic of a draw is found
from the draw's hypotheses sorted by ``|G|`` (``order``, its first L): the first whose sign
matches a standing hypothesis is the largest, so a step costs a few entries per draw
instead of all pairs (all pairs are scanned only when none of the L matches). The first
step's critical value is the same for every row, computed once. The naive twin,
``tests/naive.py::stepdown``, scans every hypothesis at every step.

``bt_fit_rows``: the Bradley-Terry maximum-likelihood fit of many replicates of pair counts
(Newton's method with a line search on the concave log-likelihood), warm-started from one
vector; the naive twin is ``tests/naive.py::bt_mle`` (Zermelo's iteration to 1e-13).
"""

from __future__ import annotations

import numpy as np

from . import jit_exact

# flags: jit_exact (the one place of numba flags: genexpy_nb._numba)
# no fastmath: the critical values are order statistics compared with >, bit for bit with the
# NumPy route of the rank sets; rows are independent, so blocks of rows may run on threads


@jit_exact
def _critical(G, order, live, kth, cgrid, cmap, m):
    """Return one step's critical value: the kth of the draws' largest standing statistics."""
    B, P = G.shape
    L = order.shape[1]
    for b in range(B):
        best = -np.inf
        found = False
        for t in range(L):
            p = order[b, t]
            g = G[b, p]
            if g >= 0:
                if live[p] & 1:
                    best = g
                    found = True
                    break
            elif live[p] & 2:
                best = -g
                found = True
                break
        if not found:
            for p in range(P):
                lv = live[p]
                if lv & 1 and G[b, p] > best:
                    best = G[b, p]
                if lv & 2 and -G[b, p] > best:
                    best = -G[b, p]
        m[b] = best
    c = np.partition(m, kth)[kth]
    if c < 0.0:
        c = 0.0
    if cgrid.size > 0:
        c = _interp(c, cgrid, cmap)
    return c


@jit_exact
def stepdown_rows(Z, G, order, kth, cgrid, cmap, live0, out, r0, r1):
    """Write the step-down rejections of rows ``r0:r1`` of ``Z`` into ``out``.

    Parameters
    ----------
    Z : float64 array, shape (D, P)
        Observed statistics of the P pairs in D data sets, on the scale of ``G``
        (positive: the pair's first alternative is behind).
    G : float32 array, shape (B, P)
        Bootstrap draws of the centred, normalised statistics.
    order : int32 array, shape (B, L)
        Per draw, the indices of its L largest ``|G|``, largest first.
    kth : int
        Index (0-based) of the order statistic of the B maxima that is the critical value.
    cgrid, cmap : float64 arrays, shape (M,)
        A monotone map of the critical value onto the scale of ``Z`` (linear interpolation
        of ``cmap`` over the increasing ``cgrid``, the last value beyond); empty: the
        identity.
    live0 : uint8 array, shape (P,)
        Hypotheses standing at the start (bit 1, bit 2); 0 leaves a pair out of the family.
    out : int8 array, shape (D, P)
        Written on rows r0:r1: +1 where "j is ahead of i" is shown, -1 where "i is ahead of
        j" is shown, 0 elsewhere.
    r0, r1 : int
        The rows to process.
    """
    B, P = G.shape
    m = np.empty(B)
    live = np.empty(P, np.uint8)
    nlive0 = 0
    for p in range(P):
        nlive0 += int(live0[p] & 1) + int((live0[p] >> 1) & 1)
    # the first step's critical value is the same for every row: computed once
    c0 = _critical(G, order, live0, kth, cgrid, cmap, m)
    for r in range(r0, r1):
        for p in range(P):
            live[p] = live0[p]
            out[r, p] = 0
        nlive = nlive0
        first = True
        while nlive > 0:
            c = c0 if first else _critical(G, order, live, kth, cgrid, cmap, m)
            first = False
            new = 0
            for p in range(P):
                z = Z[r, p]
                if live[p] & 1 and z > c:
                    live[p] &= np.uint8(2)
                    out[r, p] = 1
                    new += 1
                elif live[p] & 2 and -z > c:
                    live[p] &= np.uint8(1)
                    out[r, p] = -1
                    new += 1
            if new == 0:
                break
            nlive -= new
    return out


@jit_exact
def _interp(c, xs, ys):
    """Linear interpolation of ys over the increasing xs at c (the ends beyond them)."""
    if c >= xs[-1]:
        return c if np.isinf(c) else ys[-1]
    if c <= xs[0]:
        return ys[0]
    k = np.searchsorted(xs, c) - 1
    w = (c - xs[k]) / (xs[k + 1] - xs[k])
    return ys[k] + w * (ys[k + 1] - ys[k])


@jit_exact
def cuts_held(rej, pos_i, pos_j, out, r0, r1):
    """Write which cuts of the board hold in rows ``r0:r1`` of step-down rejections.

    The cut after position q (1 <= q < K, positions 0-based in the observed order) holds
    when every pair with one alternative above it and one below has the one above shown
    ahead; a pair not so shown blocks the cuts between its two positions.

    Parameters
    ----------
    rej : int8 array, shape (D, P)
        Rejections of :func:`stepdown_rows` (+1: the pair's second alternative ahead).
    pos_i, pos_j : int64 arrays, shape (P,)
        Positions of the pair's two alternatives in the observed order.
    out : bool array, shape (D, K - 1)
        Written: element q - 1 for the cut after position q.
    r0, r1 : int
        The rows to process.
    """
    D, P = rej.shape
    K1 = out.shape[1]
    diff = np.empty(K1 + 2, np.int64)
    for r in range(r0, r1):
        diff[:] = 0
        for p in range(P):
            a = pos_i[p]
            b = pos_j[p]
            if a < b:
                shown = rej[r, p] == -1
                lo, hi = a, b
            else:
                shown = rej[r, p] == 1
                lo, hi = b, a
            if not shown:
                diff[lo + 1] += 1
                diff[hi + 1] -= 1
        run = 0
        for q in range(1, K1 + 1):
            run += diff[q]
            out[r, q - 1] = run == 0
    return out


@jit_exact
def _bt_loglik(beta, pi, pj, w, n, ridge, center):
    ll = 0.0
    for q in range(pi.size):
        if n[q] > 0:
            d = beta[pi[q]] - beta[pj[q]]
            # log sigma(d) * w + log sigma(-d) * (n - w), stably
            if d > 0:
                lse = np.log1p(np.exp(-d))
                ll += w[q] * (-lse) + (n[q] - w[q]) * (-d - lse)
            else:
                lse = np.log1p(np.exp(d))
                ll += w[q] * (d - lse) + (n[q] - w[q]) * (-lse)
    for k in range(beta.size):
        ll -= 0.5 * ridge * (beta[k] - center[k]) ** 2
    return ll


@jit_exact
def bt_fit_rows(pi, pj, W, Nn, beta0, ridge, center, tol, max_iter, out, iters, r0, r1):
    """Fit Bradley-Terry log-strengths to rows ``r0:r1`` of pair counts, by Newton's method.

    Parameters
    ----------
    pi, pj : int64 arrays, shape (Q,)
        The two models of each pair (indices into the K models).
    W, Nn : float64 arrays, shape (R, Q)
        Per replicate row: the (weighted, ties as halves) wins of ``pi`` over ``pj`` and the
        battles of the pair.
    beta0 : float64 array, shape (K,)
        Start (the fit of the observed counts).
    ridge : float
        Weight of a Gaussian penalty ``ridge / 2 * |beta - center|^2`` (0: the exact
        maximum likelihood, which needs a strongly connected comparison graph).
    center : float64 array, shape (K,)
        Centre of the penalty.
    tol : float
        Stop when the largest Newton step is below this.
    max_iter : int
        At most this many Newton steps.
    out : float64 array, shape (R, K)
        Written: the fitted log-strengths, mean 0.
    iters : int64 array, shape (R,)
        Written: the Newton steps taken (``max_iter + 1`` when not converged).
    r0, r1 : int
        The rows to fit.
    """
    K = beta0.size
    Q = pi.size
    H = np.empty((K, K))
    g = np.empty(K)
    for r in range(r0, r1):
        beta = beta0.copy()
        w = W[r]
        n = Nn[r]
        ll = _bt_loglik(beta, pi, pj, w, n, ridge, center)
        done = max_iter + 1
        for it in range(max_iter):
            H[:, :] = 0.0
            for k in range(K):
                g[k] = -ridge * (beta[k] - center[k])
                H[k, k] = ridge
            for q in range(Q):
                if n[q] > 0:
                    a = pi[q]
                    b = pj[q]
                    s = 1.0 / (1.0 + np.exp(-(beta[a] - beta[b])))
                    res = w[q] - n[q] * s
                    g[a] += res
                    g[b] -= res
                    h = n[q] * s * (1.0 - s)
                    H[a, a] += h
                    H[b, b] += h
                    H[a, b] -= h
                    H[b, a] -= h
            if ridge == 0.0:  # + J / K: fixes the mean direction (the null space of H)
                for a in range(K):
                    for b in range(K):
                        H[a, b] += 1.0 / K
            for k in range(K):  # a damped step: solvable on any graph, same fixed point
                H[k, k] += 1e-10 * (1.0 + H[k, k])
            step = np.linalg.solve(H, g)
            t = 1.0
            while True:
                trial = beta + t * step
                lt = _bt_loglik(trial, pi, pj, w, n, ridge, center)
                if lt >= ll - 1e-12 * (1.0 + abs(ll)) or t < 1e-8:
                    break
                t *= 0.5
            beta = trial
            ll = lt
            if np.max(np.abs(t * step)) < tol:
                done = it + 1
                break
        if ridge == 0.0:
            beta -= beta.mean()
        out[r, :] = beta
        iters[r] = done
    return out


@jit_exact(error_model="numpy")
def studentised_draws(M2, m1, iu, ju, d, var0, N, out, c0, r0, r1):
    """Write rows ``r0:r1`` of the rank sets' bootstrap draws of a block of pairs.

    The arithmetic of ``genexpy_nb.leaderboards.sets.bootstrap_draws`` (its NumPy route, the
    twin) in the same order, one pass with no temporaries: per replicate r and pair p,
    ``e = m1[r, i] - m1[r, j]``, the variance ``max(M2[r, p] / N - e^2, 0) N / (N - 1)``
    moderated toward ``var0`` with one prior degree of freedom, and
    ``(e - d_p) / sqrt(var / N)`` (±inf or 0 where the variance is 0), as float32. Each
    element depends on its own row and pair only, so blocks of rows may run on threads in
    any split (the same bits). Per row, the differences ``e`` are gathered first and the
    statistics then computed in a loop with no gathers and no branches (selects), with
    NumPy's error model (no zero-division checks: the divisors ``N`` and ``sqrt(var / N)``
    are used only where they are positive, as in the NumPy route), into a contiguous slice
    of a row of ``out`` (its columns from ``c0``): the loop vectorises, where a strided view
    of the block's columns would not. About 4x faster than one loop over both into a view,
    the same IEEE operations in the same order.

    Parameters
    ----------
    M2 : float64 array, shape (b, pb)
        Each replicate's weighted sums of the pairs' squared per-condition differences.
    m1 : float64 array, shape (b, K)
        Each replicate's mean midranks.
    iu, ju : int64 arrays, shape (pb,)
        The block's pairs.
    d : float64 array, shape (pb,)
        Their observed mean differences.
    var0 : float
        The moderation's prior variance.
    N : int
        Conditions.
    out : float32 array, shape (b, P), C-contiguous
        Written on rows ``r0:r1``, columns ``c0:c0 + pb``: the draws.
    c0 : int
        The block's first column in ``out``.
    r0, r1 : int
        The rows (replicates) to process.
    """
    b, pb = M2.shape
    df = N - 1
    scale = N / max(N - 1, 1)
    prior = 1.0 * var0  # NU0 * var0, NU0 = 1
    den = df + 1.0
    fN = float(N)
    e = np.empty(pb)
    for r in range(r0, r1):
        mr = m1[r]
        for p in range(pb):
            e[p] = mr[iu[p]] - mr[ju[p]]
        M2r = M2[r]
        o = out[r, c0:c0 + pb]
        for p in range(pb):
            ep = e[p]
            v = M2r[p] / fN - ep * ep
            v = (v if v >= 0.0 else 0.0) * scale
            v = (df * v + prior) / den
            x = ep - d[p]
            t = x / np.sqrt(v / fN)  # computed everywhere, kept where v > 0
            o[p] = t if v > 0.0 else (np.inf if x > 0 else (-np.inf if x < 0 else 0.0))
    return out


@jit_exact
def top_abs(G, L, order, r0, r1):
    """Write, for rows ``r0:r1`` of G, the columns of the L largest ``|G|``, largest first.

    One pass per row with a buffer of 2L candidates above a running threshold (the L-th
    largest kept so far); equal values in any order (the step-down reads only the values).

    Parameters
    ----------
    G : float32 array, shape (B, P)
    L : int
        At most P.
    order : int32 array, shape (B, L)
        Written.
    r0, r1 : int
        The rows.
    """
    B, P = G.shape
    cap = 2 * L
    val = np.empty(cap, dtype=np.float32)
    idx = np.empty(cap, dtype=np.int32)
    for r in range(r0, r1):
        n = 0
        thr = np.float32(-1.0)
        for p in range(P):
            a = abs(G[r, p])
            if a > thr or n < L:
                val[n] = a
                idx[n] = p
                n += 1
                if n == cap:  # keep the L largest; the threshold is the smallest of them
                    srt = np.argsort(-val[:n], kind="mergesort")
                    v2 = val[srt[:L]].copy()
                    i2 = idx[srt[:L]].copy()
                    val[:L] = v2
                    idx[:L] = i2
                    n = L
                    thr = val[L - 1]
        srt = np.argsort(-val[:n], kind="mergesort")
        for t in range(L):
            order[r, t] = idx[srt[t]]
    return order


def signatures() -> list:
    """Compile the kernels' signatures (for ``genexpy-nb precompile``)."""
    G = np.zeros((4, 3), dtype=np.float32)
    order = np.zeros((4, 2), dtype=np.int32)
    out = np.zeros((1, 3), dtype=np.int8)
    grid = np.array([0.0, 1.0])
    stepdown_rows(np.zeros((1, 3)), G, order, 3, grid, grid, np.full(3, 3, np.uint8), out,
                  0, 1)
    stepdown_rows(np.zeros((1, 3)), G, order, 3, grid[:0], grid[:0],
                  np.full(3, 3, np.uint8), out, 0, 1)
    cuts_held(out, np.array([0, 0, 1]), np.array([1, 2, 2]), np.zeros((1, 2), np.bool_), 0, 1)
    studentised_draws(np.ones((2, 3)), np.ones((2, 3)), np.array([0, 0, 1]),
                      np.array([1, 2, 2]), np.zeros(3), 0.5, 5, G[:2], 0, 0, 2)
    top_abs(G, 2, order, 0, 4)
    pi = np.array([0, 0, 1], dtype=np.int64)
    pj = np.array([1, 2, 2], dtype=np.int64)
    W = np.ones((1, 3))
    bt_fit_rows(pi, pj, W, 2 * W, np.zeros(3), 0.0, np.zeros(3), 1e-10, 50,
                np.zeros((1, 3)), np.zeros(1, dtype=np.int64), 0, 1)
    return []
