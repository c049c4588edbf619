"""Midranks within rows and the Skillings-Mack sums, in NumPy.

These used to be numba kernels, which took 6.5 s to compile on their first use in a new
installation. NumPy compiles nothing and costs little more where it shows: the midranks of
a 20 x 5 table take 74 against 9 us, a Friedman test 0.31 against 0.22 ms, and the
1000-sample loop of the paper's Appendix A 1.05 against 0.93 s
(benchmarks/bench_significance.py). Both give the same bits: midranks are halves and the
tie counts integers.
"""

from __future__ import annotations

import math

import numpy as np

from .._codes import run_ends


def rank_rows(x: np.ndarray, method: str = "average"
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ranks (1 = smallest) of the observed entries of every row of ``x``.

    Parameters
    ----------
    x : float64 array, shape (n, k)
        NaN marks a missing entry; it gets rank NaN.
    method : {"average", "min"}
        Ranks of tied entries: the mean of the ranks they occupy (midranks), or the lowest
        rank of their group (as ``scipy.stats.rankdata(method="min")``; tested).

    Returns
    -------
    ranks : float64 array, shape (n, k)
        Ranks 1..s_i among the s_i observed entries of row i.
    counts : int64 array, shape (n,)
        s_i, the number of observed entries of row i.
    ties : float64 array, shape (n,)
        sum over tie groups of row i of (t^3 - t), t the size of the group.
    """
    x = np.asarray(x, dtype=np.float64)
    n, k = x.shape
    counts = np.count_nonzero(~np.isnan(x), axis=1).astype(np.int64)
    order = np.argsort(x, axis=1, kind="stable")  # NaN sorts last
    v = np.take_along_axis(x, order, axis=1)
    observed = np.arange(k) < counts[:, None]
    # each position's run of equal values: its first (start) and last (end) position
    start, end = run_ends(v, starts=True)
    # positions start..end hold ranks start+1..end+1: their mean, or the first
    r = np.where(observed, 0.5 * (start + end + 2) if method == "average" else start + 1.0,
                 np.nan)
    ranks = np.empty((n, k))
    np.put_along_axis(ranks, order, r, axis=1)
    # a group of t tied values adds t^3 - t, i.e. t^2 - 1 for each of its members
    t = end - start + 1
    ties = np.where(observed, t * t - 1, 0).sum(axis=1).astype(np.float64)
    return ranks, counts, ties


def skillings_mack_parts(ranks: np.ndarray, counts: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, int]:
    """Return the adjusted rank sums A and their null covariance matrix (Skillings & Mack 1981).

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
    used = counts >= 2
    r = ranks[used]
    s = counts[used].astype(np.float64)[:, None]
    obs = ~np.isnan(r)
    a = np.where(obs, np.sqrt(12.0 / (s + 1.0)) * (r - 0.5 * (s + 1.0)), 0.0).sum(axis=0)
    o = obs.astype(np.float64)
    lam = o.T @ o  # blocks where both are observed: small integers, exact
    np.fill_diagonal(lam, 0.0)
    sigma = -lam
    np.fill_diagonal(sigma, lam.sum(axis=1))
    return a, sigma, int(used.sum())


def mean_ranks_available(oriented: np.ndarray, method: str = "average") -> np.ndarray:
    """Return the mean rank of each alternative over the blocks where it has a result.

    In each block its rank r among the s alternatives present is put on the 1..k scale as
    ``1 + (r - 1)(k - 1)/(s - 1)``: under the null every alternative then expects
    (k + 1)/2, so a block with fewer alternatives neither favours nor penalises those
    present.

    Parameters
    ----------
    oriented : float64 array, shape (n, k)
        Smaller = better (rank 1), NaN where a result is missing; every block has at
        least two results.
    method : {"average", "min"}
        Ranks of tied alternatives: mid-ranks, or the lowest rank of their group.

    Returns
    -------
    float64 array, shape (k,)
    """
    ranks = rank_rows(oriented, method)[0]
    n, k = oriented.shape
    s = (~np.isnan(oriented)).sum(axis=1).astype(np.float64)[:, None]
    scaled = 1.0 + (ranks - 1.0) * (k - 1.0) / (s - 1.0)
    obs = ~np.isnan(scaled)
    return np.where(obs, scaled, 0.0).sum(axis=0) / obs.sum(axis=0)


def mean_rank_diff_var(oriented: np.ndarray) -> np.ndarray:
    """Null variance of the difference of two mean ranks among the available alternatives.

    In a block with s results, ranks are a uniform permutation of 1..s under the null;
    put on the 1..k scale (times c = (k - 1)/(s - 1)) each has variance c^2 (s^2 - 1)/12
    and two have covariance -c^2 (s + 1)/12. The mean rank of j weighs its blocks by 1/n_j.

    Parameters
    ----------
    oriented : float64 array, shape (n, k)
        NaN where a result is missing; every block has at least two results.

    Returns
    -------
    float64 array, shape (k, k)
        ``Var(m_j - m_l)`` (no tie correction: conservative with ties).
    """
    n, k = oriented.shape
    obs = (~np.isnan(oriented)).astype(np.float64)
    s = obs.sum(axis=1)
    c2 = ((k - 1.0) / (s - 1.0)) ** 2
    var_i = c2 * (s * s - 1.0) / 12.0
    cov_i = -c2 * (s + 1.0) / 12.0
    w = obs / obs.sum(axis=0)
    var = (w * w).T @ var_i
    cov = w.T @ (w * cov_i[:, None])
    return var[:, None] + var[None, :] - 2.0 * cov


def friedman_core(values: np.ndarray):
    """(chi2, mean_ranks, rank_sums, sum_r2, ties_total) on complete oriented values."""
    ranks, _, ties = rank_rows(values)
    n, k = ranks.shape
    rank_sums = ranks.sum(axis=0)
    centred = rank_sums - n * (k + 1) / 2.0
    c = 1.0 - ties.sum() / (n * k * (k * k - 1.0))
    if c <= 1e-12:
        chi2 = math.nan  # every condition ties all alternatives: undefined (caller decides)
    else:
        chi2 = 12.0 / (n * k * (k + 1.0)) * float(np.sum(centred**2)) / c
    return chi2, rank_sums / n, rank_sums, float(np.sum(ranks**2)), ranks


def snap_ties(x: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Make the scores of a row that the Study's tie tolerance ties exactly equal.

    In each row the observed entries are sorted and a new tier starts where the gap to the
    previous one exceeds ``max(rtol * (max - min), atol, 64 eps * max|x|)`` (the tolerance
    of :func:`genexpy_nb.study.ranking.rank_scores`, so the tiers are the Study's); every entry
    becomes the smallest entry of its tier. Order is kept, equal tiers become equal values,
    and no value moves by more than its tier's span (a few tolerances).

    Parameters
    ----------
    x : float64 array, shape (n, k)
        NaN marks a missing entry (kept as NaN).
    rtol, atol : float
        The tie tolerances; ``0, 0`` returns ``x`` unchanged (exact equality).

    Returns
    -------
    float64 array, shape (n, k)
    """
    from ..study.ranking import tie_tolerance

    x = np.asarray(x, dtype=np.float64)
    if (rtol == 0.0 and atol == 0.0) or x.size == 0:
        return x
    n, k = x.shape
    tol = tie_tolerance(x, rtol, atol)
    order = np.argsort(x, axis=1, kind="stable")  # NaN sorts last
    v = np.take_along_axis(x, order, axis=1)
    with np.errstate(invalid="ignore"):
        new = np.ones((n, k), dtype=bool)
        new[:, 1:] = ~(v[:, 1:] - v[:, :-1] <= tol[:, None])
    start = np.maximum.accumulate(np.where(new, np.arange(k), 0), axis=1)
    snapped = np.where(np.isnan(v), np.nan, np.take_along_axis(v, start, axis=1))
    out = np.empty_like(x)
    np.put_along_axis(out, order, snapped, axis=1)
    return out
