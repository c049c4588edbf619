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
def rank_row(scores, higher_is_better=True):
    """Dense tiers of one row, 0 = best; NaN -> one tier below all observed."""
    obs = sorted({float(v) for v in scores if not math.isnan(v)}, reverse=higher_is_better)
    out = []
    for v in scores:
        out.append(len(obs) if math.isnan(v) else obs.index(float(v)))
    return out


def borda(r, s, a_star, nu):
    b_r = sum(1 for a in range(len(r)) if r[a] >= r[a_star])
    b_s = sum(1 for a in range(len(s)) if s[a] >= s[a_star])
    return math.exp(-nu * abs(b_r - b_s))


def jaccard(r, s, k):
    tr = {a for a in range(len(r)) if r[a] < k}
    ts = {a for a in range(len(s)) if s[a] < k}
    return len(tr & ts) / len(tr | ts)


def _sign(x):
    return (x > 0) - (x < 0)


def mallows(r, s, nu):
    nd = 0.0
    for i, j in itertools.combinations(range(len(r)), 2):
        nd += abs(_sign(r[i] - r[j]) - _sign(s[i] - s[j])) / 2
    return math.exp(-nu * nd)


def rbf(x, y, gamma):
    return math.exp(-gamma * sum((a - b) ** 2 for a, b in zip(x, y)))


def gram(kfun, X, Y):
    return np.array([[kfun(x, y) for y in Y] for x in X])


def mmd(kfun, x, y):
    """Biased MMD from its definition (SPEC A4)."""
    n, m = len(x), len(y)
    kxx = sum(kfun(a, b) for a in x for b in x) / n**2
    kyy = sum(kfun(a, b) for a in y for b in y) / m**2
    kxy = sum(kfun(a, b) for a in x for b in y) / (n * m)
    return math.sqrt(max(kxx + kyy - 2 * kxy, 0.0))


def approx_eigenvalues(sample, kfun, centring="uniform"):
    """Eigenvalues of H diag(p), computed with a general (non-symmetric) solver."""
    rows = [tuple(r) for r in np.asarray(sample).tolist()]
    sup = sorted(set(rows))
    p = np.array([rows.count(u) for u in sup], dtype=float) / len(rows)
    m = len(sup)
    K = gram(kfun, sup, sup)
    if centring == "uniform":
        C = np.eye(m) - np.ones((m, m)) / m
        H = C @ K @ C
    else:
        C = np.eye(m) - np.outer(np.ones(m), p)
        H = C @ K @ C.T
    return np.sort(np.linalg.eigvals(H @ np.diag(p)).real)




# =====================================================================================
# Part B: seed variability (trimmed KS, alpha-hat)
# =====================================================================================



# =====================================================================================
# Part C: significance and distributions over rankings
# =====================================================================================
