"""Numba kernels of Part A: kernel (Gram) matrices on rankings and scores, MMD samples.

Arrays and scalars only; the public layer (kernels.py, mmd.py) validates the input.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .. import config

_JIT = {"cache": config.NUMBA_CACHE, "fastmath": config.FASTMATH}


@njit(**_JIT)
def borda_counts(R, a_star):
    """b(r) = #{a : r[a] >= r[a*]} for every row of R (N, na)."""
    N, na = R.shape
    out = np.empty(N, dtype=np.float64)
    for i in range(N):
        t = R[i, a_star]
        c = 0
        for a in range(na):
            if R[i, a] >= t:
                c += 1
        out[i] = c
    return out


@njit(**_JIT, parallel=True)
def gram_borda(X, Y, a_star, nu):
    """Borda kernel matrix exp(-nu |b(x_i) - b(y_j)|), shape (len(X), len(Y))."""
    bx = borda_counts(X, a_star)
    by = borda_counts(Y, a_star)
    out = np.empty((X.shape[0], Y.shape[0]), dtype=np.float64)
    for i in prange(X.shape[0]):
        for j in range(Y.shape[0]):
            out[i, j] = np.exp(-nu * abs(bx[i] - by[j]))
    return out


@njit(**_JIT, parallel=True)
def gram_jaccard(X, Y, k):
    """Jaccard kernel matrix on the top-k tiers {a : r[a] < k}."""
    nx, na = X.shape
    ny = Y.shape[0]
    out = np.empty((nx, ny), dtype=np.float64)
    for i in prange(nx):
        for j in range(ny):
            inter = 0
            union = 0
            for a in range(na):
                ta = X[i, a] < k
                tb = Y[j, a] < k
                if ta and tb:
                    inter += 1
                if ta or tb:
                    union += 1
            out[i, j] = inter / union if union > 0 else 1.0
    return out


@njit(**_JIT, parallel=True)
def gram_mallows(X, Y, nu):
    """Mallows kernel matrix exp(-nu n_d), n_d = sum_{i<j} |sgn(x_i-x_j) - sgn(y_i-y_j)| / 2."""
    nx, na = X.shape
    ny = Y.shape[0]
    out = np.empty((nx, ny), dtype=np.float64)
    for i in prange(nx):
        for j in range(ny):
            nd2 = 0  # twice the number of discordant pairs
            for a in range(na):
                for b in range(a + 1, na):
                    dx = X[i, a] - X[i, b]
                    dy = Y[j, a] - Y[j, b]
                    sx = (dx > 0) - (dx < 0)
                    sy = (dy > 0) - (dy < 0)
                    nd2 += abs(sx - sy)
            out[i, j] = np.exp(-nu * 0.5 * nd2)
    return out


@njit(**_JIT, parallel=True)
def gram_rbf(X, Y, gamma):
    """RBF kernel matrix exp(-gamma ||x_i - y_j||^2) on score vectors."""
    nx, na = X.shape
    ny = Y.shape[0]
    out = np.empty((nx, ny), dtype=np.float64)
    for i in prange(nx):
        for j in range(ny):
            s = 0.0
            for a in range(na):
                d = X[i, a] - Y[j, a]
                s += d * d
            out[i, j] = np.exp(-gamma * s)
    return out


@njit(**_JIT)
def _mmd_one(Ks, inv, ix, iy, c, seen, nz, out, r):
    """MMD of one pair of samples (equal size n) for every kernel in Ks.

    Uses the support form MMD^2 = w' K w with w = (cx - cy) / n (SPEC A4). ``c`` (m,) int64
    and ``seen`` (m,) bool are zeroed scratch buffers owned by the caller; left zeroed.
    """
    n = ix.shape[0]
    cnt = 0
    for t in range(n):
        s = inv[ix[t]]
        if not seen[s]:
            seen[s] = True
            nz[cnt] = s
            cnt += 1
        c[s] += 1
    for t in range(n):
        s = inv[iy[t]]
        if not seen[s]:
            seen[s] = True
            nz[cnt] = s
            cnt += 1
        c[s] -= 1
    inv_n2 = 1.0 / (n * n)
    for q in range(Ks.shape[0]):
        acc = 0.0
        for a in range(cnt):
            sa = nz[a]
            ca = c[sa]
            if ca == 0:
                continue
            row = 0.0
            for b in range(cnt):
                cb = c[nz[b]]
                if cb != 0:
                    row += Ks[q, sa, nz[b]] * cb
            acc += ca * row
        acc *= inv_n2
        out[q, r] = np.sqrt(acc) if acc > 0.0 else 0.0
    for a in range(cnt):
        c[nz[a]] = 0
        seen[nz[a]] = False


@njit(**_JIT, parallel=True)
def mmd_samples(Ks, inv, IX, IY):
    """MMD of rep pairs of equal-size samples for every kernel.

    Parameters
    ----------
    Ks : (nk, m, m) float64, kernel matrices on the support
    inv : (N,) int64, support index of each observed result
    IX, IY : (rep, n) int64, indices into the N results of the two samples of each pair

    Returns
    -------
    (nk, rep) float64
    """
    nk, m, _ = Ks.shape
    rep, n = IX.shape
    out = np.empty((nk, rep), dtype=np.float64)
    for r in prange(rep):
        # every iteration owns its scratch buffers: race-free by construction
        c = np.zeros(m, dtype=np.int64)
        seen = np.zeros(m, dtype=np.bool_)
        nz = np.empty(2 * n, dtype=np.int64)
        _mmd_one(Ks, inv, IX[r], IY[r], c, seen, nz, out, r)
    return out
