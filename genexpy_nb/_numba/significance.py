"""Numba kernels of :mod:`genexpy_nb.significance`: within-condition ranks, Skillings–Mack sums.

Arrays and scalars only; the public layer validates and converts.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import config


@njit(cache=config.NUMBA_CACHE, fastmath=config.FASTMATH)
def _rank_rows(x):
    """Midranks (1 = smallest) of the observed entries of every row of ``x``.

    Parameters
    ----------
    x : float64 array, shape (n, k)
        NaN marks a missing entry; it gets rank NaN.

    Returns
    -------
    ranks : float64 array, shape (n, k)
        Average ranks 1..s_i among the s_i observed entries of row i (ties share the mean
        of the ranks they occupy).
    counts : int64 array, shape (n,)
        s_i, the number of observed entries of row i.
    ties : float64 array, shape (n,)
        sum over tie groups of row i of (t^3 - t), t the size of the group.
    """
    n, k = x.shape
    ranks = np.full((n, k), np.nan)
    counts = np.zeros(n, dtype=np.int64)
    ties = np.zeros(n)
    idx = np.empty(k, dtype=np.int64)
    vals = np.empty(k)
    for i in range(n):
        s = 0
        for j in range(k):
            v = x[i, j]
            if not math.isnan(v):
                idx[s] = j
                vals[s] = v
                s += 1
        counts[i] = s
        if s == 0:
            continue
        order = np.argsort(vals[:s])
        start = 0
        while start < s:
            stop = start + 1
            while stop < s and vals[order[stop]] == vals[order[start]]:
                stop += 1
            # positions start..stop-1 hold ranks start+1..stop -> mean (start+1+stop)/2
            r = 0.5 * (start + 1 + stop)
            for p in range(start, stop):
                ranks[i, idx[order[p]]] = r
            t = stop - start
            if t > 1:
                ties[i] += t * t * t - t
            start = stop
    return ranks, counts, ties


@njit(cache=config.NUMBA_CACHE, fastmath=config.FASTMATH)
def _skillings_mack_parts(ranks, counts):
    """Adjusted rank sums A and their null covariance matrix (Skillings & Mack 1981).

    Parameters
    ----------
    ranks : float64 array, shape (n, k)
        Within-block midranks of the observed entries (NaN where missing).
    counts : int64 array, shape (n,)
        Number of observed entries per block.

    Returns
    -------
    a : float64 array, shape (k,)
        ``A_j = sum_i sqrt(12 / (s_i + 1)) * (r_ij - (s_i + 1) / 2)`` over blocks with
        ``s_i >= 2`` where j is observed (a missing entry gets rank (s_i + 1)/2, i.e. adds 0).
    sigma : float64 array, shape (k, k)
        ``sigma_jl = -lambda_jl`` (j != l), ``sigma_jj = sum_{l != j} lambda_jl``, with
        ``lambda_jl`` the number of blocks (s_i >= 2) where both j and l are observed.
    n_used : int
        Number of blocks with at least two observed entries.
    """
    n, k = ranks.shape
    a = np.zeros(k)
    lam = np.zeros((k, k))
    obs = np.empty(k, dtype=np.int64)
    n_used = 0
    for i in range(n):
        s = counts[i]
        if s < 2:
            continue
        n_used += 1
        w = math.sqrt(12.0 / (s + 1.0))
        centre = 0.5 * (s + 1.0)
        m = 0
        for j in range(k):
            r = ranks[i, j]
            if not math.isnan(r):
                a[j] += w * (r - centre)
                obs[m] = j
                m += 1
        for p in range(m):
            for q in range(m):
                if p != q:
                    lam[obs[p], obs[q]] += 1.0
    sigma = -lam
    for j in range(k):
        tot = 0.0
        for l in range(k):
            if l != j:
                tot += lam[j, l]
        sigma[j, j] = tot
    return a, sigma, n_used
