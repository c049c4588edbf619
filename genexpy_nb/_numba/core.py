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
                    sx = 1 if dx > 0 else (-1 if dx < 0 else 0)
                    sy = 1 if dy > 0 else (-1 if dy < 0 else 0)
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
def count_differences(inv, IX, IY, m):
    """Count-vector differences ``cx - cy`` on the support for every pair of samples.

    Parameters
    ----------
    inv : (N,) int64, support index of each observed result
    IX, IY : (rep, n) int64, indices into the N results of the two samples of each pair
    m : support size

    Returns
    -------
    (rep, m) float64; ``MMD^2 = c' K c / n^2`` for each row c (paper Sec. 4.3).
    """
    rep, n = IX.shape
    out = np.zeros((rep, m), dtype=np.float64)
    for r in range(rep):
        for t in range(n):
            out[r, inv[IX[r, t]]] += 1.0
        for t in range(IY.shape[1]):
            out[r, inv[IY[r, t]]] -= 1.0
    return out
