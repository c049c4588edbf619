"""Slow, obviously correct twins of every numba kernel (STYLE.md practice 3).

Each function is written as literally as possible from SPEC.md, with Python loops, so that
the fast kernels can be compared against it with ``assert_allclose``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

# =====================================================================================
# Part A: rankings, kernels, MMD (core)
# =====================================================================================



# =====================================================================================
# Part B: seed variability (trimmed KS, alpha-hat)
# =====================================================================================



# =====================================================================================
# Part C: significance and distributions over rankings
# =====================================================================================


def rank_rows(x):
    """Midranks (1 = smallest) of the non-NaN entries of each row, with scipy, row by row.

    Returns (ranks with NaN where missing, counts, sum over tie groups of t^3 - t).
    """
    from scipy.stats import rankdata

    x = np.asarray(x, dtype=float)
    n, k = x.shape
    ranks = np.full((n, k), np.nan)
    counts = np.zeros(n, dtype=np.int64)
    ties = np.zeros(n)
    for i in range(n):
        obs = [j for j in range(k) if not math.isnan(x[i, j])]
        counts[i] = len(obs)
        if not obs:
            continue
        r = rankdata([x[i, j] for j in obs], method="average")
        for j, rj in zip(obs, r):
            ranks[i, j] = rj
        values = [x[i, j] for j in obs]
        for v in set(values):
            t = values.count(v)
            ties[i] += t**3 - t
    return ranks, counts, ties


def friedman_statistic(x):
    """Friedman's chi-square with the tie correction, written from Conover (1999) p. 370.

    T1 = (k - 1) * sum_j (R_j - n (k+1)/2)^2 / (A1 - C1), A1 = sum r_ij^2,
    C1 = n k (k+1)^2 / 4 (complete rows, ranks 1..k per row, midranks for ties).
    """
    ranks, _, _ = rank_rows(x)
    n, k = ranks.shape
    a1 = sum(ranks[i, j] ** 2 for i in range(n) for j in range(k))
    c1 = n * k * (k + 1) ** 2 / 4
    total = 0.0
    for j in range(k):
        rj = sum(ranks[i, j] for i in range(n))
        total += (rj - n * (k + 1) / 2) ** 2
    return (k - 1) * total / (a1 - c1)


def skillings_mack_statistic(x):
    """Skillings & Mack (1981), literally: ranks, adjusted sums A, covariance, A' Sigma^- A.

    x: (n blocks, k treatments) with NaN for missing. Blocks with < 2 observations dropped.
    """
    x = np.asarray(x, dtype=float)
    n, k = x.shape
    a = [0.0] * k
    lam = [[0] * k for _ in range(k)]
    ranks, counts, _ = rank_rows(x)
    for i in range(n):
        s = int(counts[i])
        if s < 2:
            continue
        for j in range(k):
            r = ranks[i, j] if not math.isnan(x[i, j]) else (s + 1) / 2  # missing: (s+1)/2
            a[j] += math.sqrt(12.0 / (s + 1)) * (r - (s + 1) / 2)
        for j in range(k):
            for m in range(k):
                if j != m and not math.isnan(x[i, j]) and not math.isnan(x[i, m]):
                    lam[j][m] += 1
    sigma = np.zeros((k, k))
    for j in range(k):
        for m in range(k):
            sigma[j, m] = -lam[j][m] if j != m else sum(lam[j][q] for q in range(k) if q != j)
    av = np.array(a)
    return float(av @ np.linalg.pinv(sigma) @ av)


def corrected_ttest(d, n_train, n_test):
    """Nadeau–Bengio corrected resampled t on differences d: (t, variance), term by term."""
    J = len(d)
    mean = sum(d) / J
    s2 = sum((v - mean) ** 2 for v in d) / (J - 1)
    var = (1 / J + n_test / n_train) * s2
    return mean / math.sqrt(var), var


def enumerate_weak_orders(na):
    """All rankings with ties of na alternatives (dense tiers), lexicographic, by brute force."""
    out = []
    for r in itertools.product(range(na), repeat=na):
        if set(r) == set(range(max(r) + 1)):
            out.append(r)
    return np.array(out, dtype=np.int64).reshape(-1, na)


def stirling2(n, m):
    """Stirling number of the second kind S(n, m), by inclusion-exclusion."""
    total = sum((-1) ** (m - j) * math.comb(m, j) * j**n for j in range(m + 1))
    return total // math.factorial(m)


def fubini_exact(n):
    """Ordered Bell numbers by the explicit sum F(n) = sum_m m! S(n, m)."""
    return sum(math.factorial(m) * stirling2(n, m) for m in range(n + 1))


def sample_weak_orders(na, u, perm):
    """The recursive sampler with exact rational probabilities C(m,j) F(m-j) / F(m).

    Same random inputs as the kernel: u[s, t] chooses the size of tier t, perm[s] orders the
    alternatives. Returns (n, na) int64.
    """
    from fractions import Fraction

    n = u.shape[0]
    out = np.empty((n, na), dtype=np.int64)
    for s in range(n):
        m, pos, tier = na, 0, 0
        while m > 0:
            cum = Fraction(0)
            target = Fraction(float(u[s, tier]))
            size = m
            for j in range(1, m + 1):
                cum += Fraction(math.comb(m, j) * fubini_exact(m - j), fubini_exact(m))
                if target < cum:
                    size = j
                    break
            for p in range(pos, pos + size):
                out[s, perm[s, p]] = tier
            pos += size
            m -= size
            tier += 1
    return out
