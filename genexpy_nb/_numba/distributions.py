"""Numba kernels of :mod:`genexpy_nb.generalizability.distributions`: weak orders.

Rankings with ties.

A ranking is an int64 vector ``r`` of length ``na``; ``r[a]`` is the tier of alternative
``a``, 0 = best, tiers dense (0, 1, 2, ... without gaps).
"""

from __future__ import annotations

import math

import numpy as np

from . import jit_fast


@jit_fast(nogil=False)
def _enumerate_weak_orders(na, count):
    """All ``count`` (= Fubini(na)) rankings with ties of ``na`` alternatives, lexicographic.

    Walks the odometer over {0..na-1}^na and keeps the dense vectors (the set of values is
    {0, ..., m-1} for some m).

    Returns
    -------
    out : int64 array, shape (count, na)
    """
    out = np.empty((count, na), dtype=np.int64)
    r = np.zeros(na, dtype=np.int64)
    seen = np.zeros(na, dtype=np.bool_)
    row = 0
    while True:
        # is r dense?
        for v in range(na):
            seen[v] = False
        mx = 0
        for a in range(na):
            seen[r[a]] = True
            if r[a] > mx:
                mx = r[a]
        dense = True
        for v in range(mx + 1):
            if not seen[v]:
                dense = False
                break
        if dense:
            if row < count:
                out[row, :] = r
            row += 1
        # next vector of the odometer (last position varies fastest)
        pos = na - 1
        while pos >= 0 and r[pos] == na - 1:
            r[pos] = 0
            pos -= 1
        if pos < 0:
            break
        r[pos] += 1
    if row != count:
        # the caller passes Fubini(na); a mismatch is a bug, signalled by an empty result
        return np.empty((0, na), dtype=np.int64)
    return out


@jit_fast(nogil=False)
def _sample_weak_orders(log_fubini, u, perm):
    """Exactly uniform rankings with ties, without enumerating them.

    An ordered set partition of m alternatives is drawn by choosing the size j of its top
    tier with probability ``C(m, j) * F(m - j) / F(m)`` (F = Fubini numbers, which satisfy
    ``F(m) = sum_j C(m, j) F(m - j)``), putting j alternatives in that tier and recursing on
    the other m - j. The alternatives of each tier are consecutive entries of a uniform
    random permutation, so every ordered set partition has probability 1 / F(na).

    Parameters
    ----------
    log_fubini : float64 array, shape (na + 1,)
        ``log F(m)`` for m = 0..na (computed exactly from Python integers by the caller).
    u : float64 array, shape (n, na)
        Uniforms in [0, 1); ``u[s, t]`` picks the size of tier t of sample s.
    perm : int64 array, shape (n, na)
        A uniform random permutation of 0..na-1 per sample.

    Returns
    -------
    out : int64 array, shape (n, na)
    """
    n, na = u.shape
    out = np.empty((n, na), dtype=np.int64)
    # cum[m, j] = P(top tier size <= j | m items left) for j <= w, normalised by the total
    # over all j so that rounding never leaves a gap at the top. The probabilities decay
    # like (log 2)^j / j!, so w = 64 columns carry all the mass a double can see; memory
    # O(na * w), set-up O(na^2), then O(size) per tier. The tail j > w is computed on the
    # fly if a uniform ever lands there.
    w = min(na, 64)
    cum = np.zeros((na + 1, w + 1))
    total = np.ones(na + 1)
    for m in range(1, na + 1):
        lg_m = math.lgamma(m + 1.0)
        acc = 0.0
        for j in range(1, m + 1):
            acc += math.exp(lg_m - math.lgamma(j + 1.0) - math.lgamma(m - j + 1.0)
                            + log_fubini[m - j] - log_fubini[m])
            if j <= w:
                cum[m, j] = acc
        total[m] = acc
        for j in range(1, min(m, w) + 1):
            cum[m, j] /= acc
    for s in range(n):
        m = na
        pos = 0
        tier = 0
        while m > 0:
            target = u[s, tier]
            size = m
            found = False
            for j in range(1, min(m, w) + 1):
                if target < cum[m, j]:
                    size = j
                    found = True
                    break
            if not found and m > w:
                lg_m = math.lgamma(m + 1.0)
                c = cum[m, w]
                for j in range(w + 1, m + 1):
                    c += math.exp(lg_m - math.lgamma(j + 1.0) - math.lgamma(m - j + 1.0)
                                  + log_fubini[m - j] - log_fubini[m]) / total[m]
                    if target < c:
                        size = j
                        break
            for p in range(pos, pos + size):
                out[s, perm[s, p]] = tier
            pos += size
            m -= size
            tier += 1
    return out
