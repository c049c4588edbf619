"""Wilcoxon signed-rank p-values of many paired samples at once, equal to scipy's.

One row of ``d`` (shape ``(pairs, n)``, NaN = left out) is one test; each row's p-value is the
one ``scipy.stats.wilcoxon(d_row[~isnan], zero_method="wilcox", correction=False,
alternative="two-sided", method="auto")`` returns (scipy 1.13 and later), computed the way
scipy computes it so that the bits agree:

* n > 50 (n counts the zero differences too), or ties / zeros with 13 < n <= 50: the normal
  approximation with the tie correction, ``z = (R+ - m(m+1)/4) / sqrt((m(m+1)(2m+1) -
  sum(t^3 - t)/2) / 24)`` over the m non-zero differences, ``p = 2 Phi(-|z|)``;
* n <= 50 without ties or zeros: the exact null distribution of R+ (scipy's tables, summed
  as scipy sums them);
* n <= 13 with ties or zeros: scipy's exact permutation test (all 2^n sign flips), here as
  counts of subset sums of the doubled ranks, which are integers.

Rows whose non-zero differences are all zero are not tests: the caller decides (NaN here).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .._codes import run_ends

__all__ = ["signed_rank_pvalues", "signed_rank_tests"]


def _tie_groups(s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the first and last sorted place of each entry's tie group, and the group starts.

    ``s`` holds rows sorted ascending, NaN last; the starts are those of the non-NaN entries.
    """
    start, end = run_ends(s, starts=True)
    pos = np.arange(s.shape[1])
    return start, end, (start == pos) & (pos < np.isfinite(s).sum(axis=1, keepdims=True))


@lru_cache(maxsize=64)
def _exact_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return scipy's ``WilcoxonDistribution(n)`` cdf and sf at every k = 0 .. n(n+1)/2."""
    from scipy.stats._hypotests import _get_wilcoxon_distr

    pmf = _get_wilcoxon_distr(n)
    mean = n * (n + 1) / 4
    top = n * (n + 1) // 2
    cdf = np.empty(top + 1)
    sf = np.empty(top + 1)
    for k in range(top + 1):  # the very slices scipy sums, so the very same floats
        cdf[k] = pmf[:k + 1].sum() if k <= mean else 1 - pmf[k + 1:].sum()
        sf[k] = pmf[k:].sum() if k <= mean else 1 - pmf[:k].sum()
    return cdf, sf


@lru_cache(maxsize=4096)
def _subset_sums(ranks2: tuple[int, ...]) -> np.ndarray:
    """Count the subsets of the doubled ranks with each sum 0 .. sum(ranks2)."""
    counts = np.zeros(sum(ranks2) + 1, dtype=np.int64)
    counts[0] = 1
    for r in ranks2:
        counts[r:] = counts[r:] + counts[:counts.size - r].copy()
    return counts


def _permutation_p(ranks2: np.ndarray, obs2: np.ndarray, first: np.ndarray,
                   m: np.ndarray) -> np.ndarray:
    """Return scipy's exact permutation p-value of R+ (two-sided), rows with n <= 13.

    Over the 2^n sign flips (a zero's flip leaves R+ as it is, so each of the 2^m subsets of
    the m non-zero ranks counts 2^(n - m) times, which cancels): ``p = 2 min(#{R+ <= r},
    #{R+ >= r}) / 2^m``, capped at 1; the null distribution depends only on the tie pattern,
    so it is counted once per distinct pattern.
    """
    out = np.empty(obs2.size)
    # the tie pattern as one integer: m, and which of the m sorted places start a tie group
    code = m.astype(np.int64) << 16
    code += (first[:, :16].astype(np.int64) << np.arange(min(first.shape[1], 16))).sum(axis=1)
    keys, where, inverse = np.unique(code, return_index=True, return_inverse=True)
    width = int(m.max()) * (int(m.max()) + 1) + 1  # doubled ranks sum to m (m + 1)
    cum = np.zeros((keys.size, width), dtype=np.int64)
    total = np.empty(keys.size)
    for u in range(keys.size):
        key = ranks2[where[u]]
        c = np.cumsum(_subset_sums(tuple(int(x) for x in key[key >= 0])))
        cum[u, :c.size] = c
        cum[u, c.size:] = c[-1]
        total[u] = float(c[-1])  # 2^m
    r = obs2
    le = cum[inverse, r]
    ge = cum[inverse, -1] - np.where(r > 0, cum[inverse, np.maximum(r - 1, 0)], 0)
    t = total[inverse]
    out[:] = np.minimum(np.minimum(le / t, ge / t) * 2, 1.0)
    return out


def signed_rank_pvalues(d: np.ndarray) -> np.ndarray:
    """Two-sided Wilcoxon signed-rank p-values of each row of ``d`` (see :func:`signed_rank_tests`).

    Parameters
    ----------
    d : numpy.ndarray, shape (pairs, n)
        Paired differences, one test per row (NaN: left out).

    Returns
    -------
    numpy.ndarray, shape (pairs,)
        The p-values; NaN for rows without a non-zero difference.
    """
    return signed_rank_tests(d)[1]


def signed_rank_tests(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided Wilcoxon signed-rank p-values of each row of ``d``, as scipy gives them.

    Parameters
    ----------
    d : numpy.ndarray, shape (pairs, n)
        Paired differences, one test per row; NaN marks a difference left out (a missing
        score), zeros are dropped as ``zero_method="wilcox"`` does.

    Returns
    -------
    statistic : numpy.ndarray, shape (pairs,)
        ``min(R+, R-)``, scipy's two-sided statistic (the sums of the signed ranks).
    pvalue : numpy.ndarray, shape (pairs,)
        The p-values; NaN for rows without a non-zero difference.

    References
    ----------
    Wilcoxon, F. (1945). Individual comparisons by ranking methods. Biometrics Bulletin 1(6).
    """
    from scipy import special

    d = np.asarray(d, dtype=np.float64)
    p_rows = d.shape[0]
    n = (~np.isnan(d)).sum(axis=1)
    n_zero = (d == 0).sum(axis=1)
    a = np.where(d == 0, np.nan, np.abs(d))
    order = np.argsort(a, axis=1, kind="stable")  # NaN last
    s = np.take_along_axis(a, order, axis=1)
    pos_sorted = np.take_along_axis(d, order, axis=1) > 0
    m = n - n_zero
    valid = np.arange(d.shape[1]) < m[:, None]
    start, end, first = _tie_groups(s)
    ranks2 = np.where(valid, start + end + 2, -1)  # doubled average ranks, integers
    t = end - start + 1
    obs2 = np.where(valid & pos_sorted, ranks2, 0).sum(axis=1)
    has_ties = (valid & (t > 1)).any(axis=1)
    out = np.full(p_rows, np.nan)
    test = m > 0
    # the normal approximation (scipy's arithmetic, in its order)
    approx = test & ((n > 50) | ((has_ties | (n_zero > 0)) & (n > 13)))
    if approx.any():
        cnt = m[approx].astype(np.float64)
        tie = np.where(valid[approx], t[approx] ** 2 - 1, 0).sum(axis=1).astype(np.float64)
        mn = cnt * (cnt + 1.) * 0.25
        se = cnt * (cnt + 1.) * (2. * cnt + 1.)
        se = np.sqrt((se - tie / 2) / 24)
        z = (obs2[approx] / 2 - mn) / se
        out[approx] = 2 * special.ndtr(-np.abs(z))
    exact = test & (n <= 50) & ~has_ties & (n_zero == 0)
    for k in np.unique(n[exact]):
        rows = exact & (n == k)
        cdf, sf = _exact_tables(int(k))
        r = obs2[rows] // 2  # an integer without ties
        out[rows] = np.clip(2 * np.minimum(sf[r], cdf[r]), 0, 1)
    perm = test & (n <= 13) & (has_ties | (n_zero > 0))
    if perm.any():
        out[perm] = _permutation_p(ranks2[perm], obs2[perm], first[perm], m[perm])
    r_plus = obs2 / 2.0
    r_minus = (m * (m + 1)) / 2.0 - r_plus
    return np.minimum(r_plus, r_minus), out
