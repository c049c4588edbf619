"""Post-hoc comparisons of all pairs of alternatives over shared conditions.

* :func:`posthoc_conover` (Conover–Iman after Friedman) and :func:`posthoc_nemenyi`
  (Nemenyi after Friedman): computed here from the within-condition ranks, because neither
  scipy nor statsmodels has them (scikit-posthocs has, and is the tests' oracle); the
  studentized range distribution is one integral for all pairs at once (the same
  p-values as ``scipy.stats.studentized_range.sf`` to 1e-12);
* :func:`pairwise_wilcoxon` (scipy's signed-rank test) and :func:`pairwise_corrected_ttest`
  (Nadeau–Bengio) for every pair.

Each returns a tidy polars frame, one row per pair ``(alternative_1, alternative_2)`` in the
order of the alternatives, with raw and adjusted p-values (``p_adjust`` takes statsmodels'
method names).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .._validation import REQUIRED, check_probability
from .._validation import check_direction as _direction
from ._input import (
    _NAN_POLICIES,
    _check_choice,
    _complete_rows,
    _orient,
    _to_matrix,
)
from ._pvalues import t_sf
from ._studentized import studentized_range_sf
from .corrections import _check_p_adjust, _pairwise_frame
from .paired import _check_sizes, corrected_ttest
from .rank_tests import _friedman_core, wilcoxon

__all__ = ["posthoc_conover", "posthoc_nemenyi", "pairwise_wilcoxon",
           "pairwise_corrected_ttest"]


def posthoc_conover(
    data: Any,
    *,
    p_adjust: str | None = None,
    alpha: float = 0.05,
    higher_is_better: bool = REQUIRED,
    nan_policy: str = "propagate",
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
) -> pl.DataFrame:
    """Conover–Iman post-hoc test after Friedman's test, for all pairs of alternatives.

    Parameters
    ----------
    data : wide or long table, or 2-d array, shape (n conditions, k alternatives)
        Scores, errors or ranks of the k alternatives (models) on n shared conditions
        (datasets); see :func:`~genexpy_nb.significance.friedman`.
    p_adjust : str or None
        Multiple-testing correction (:data:`P_ADJUST_METHODS`); None = raw p-values.
    alpha : float
        Level for the ``significant`` column.
    higher_is_better : bool, required
        True for scores (accuracy), False for errors, losses or ranks; orients the mean
        ranks (1 = best), not the p-values.
    nan_policy, y_col, block_col, group_col, alternatives
        See :func:`~genexpy_nb.significance.friedman`.

    Returns
    -------
    polars.DataFrame
        One row per pair: ``test, alternative_1, alternative_2, mean_rank_1, mean_rank_2,
        n, statistic, pvalue_raw, pvalue, p_adjust, alpha, significant``.

    Notes
    -----
    Conover (1999, p. 371), the Friedman version (as scikit-posthocs'
    ``posthoc_conover_friedman``): with rank sums R_j and ``A1 = sum_ij r_ij^2``, ::

        t_jl = |R_j - R_l| / sqrt(2 (n A1 - sum_j R_j^2) / ((n - 1)(k - 1))),

    two-sided p-value from Student's t with (n-1)(k-1) dof. When every condition ranks the
    alternatives identically the denominator is 0: pairs with different rank sums get
    t = inf (p = 0), tied pairs p = 1.

    Examples
    --------
    >>> scores = [[0.81, 0.78, 0.70], [0.85, 0.80, 0.74], [0.79, 0.80, 0.71],
    ...           [0.90, 0.86, 0.80], [0.83, 0.79, 0.75], [0.88, 0.84, 0.77]]
    >>> res = posthoc_conover(scores, higher_is_better=True, p_adjust="holm")
    >>> res.select("alternative_1", "alternative_2", pl.col("pvalue").round(4)).rows()
    [('0', '1', 0.0179), ('0', '2', 0.0), ('1', '2', 0.0012)]
    """
    p_adjust = _check_p_adjust(p_adjust)
    alpha = check_probability("alpha", alpha)
    hib = _direction(higher_is_better, "posthoc_conover")
    m = _to_matrix(data, y_col=y_col, block_col=block_col, group_col=group_col,
                   alternatives=alternatives)
    values, _, propagate = _complete_rows(m.values, nan_policy, "data")
    n, k = values.shape
    i, j = np.triu_indices(k, 1)
    if propagate:
        nanv = np.full(i.size, np.nan)
        return _pairwise_frame("Conover-Iman (Friedman)", m.alternatives, nanv, nanv, p_adjust,
                               alpha, {"mean_rank_1": nanv, "mean_rank_2": nanv,
                                       "n": [n] * i.size})
    _, mean_ranks, rank_sums, a1, _ = _friedman_core(_orient(values, hib))
    diff = np.abs(rank_sums[i] - rank_sums[j])
    denom = 2.0 * (n * a1 - float(np.sum(rank_sums**2))) / ((n - 1.0) * (k - 1.0))
    tiny = 1e-12 * max(n * a1, 1.0)
    if denom <= tiny:
        tval = np.where(diff > 1e-9, np.inf, 0.0)
    else:
        tval = diff / math.sqrt(denom)
    pval = np.minimum(2.0 * t_sf(tval, (n - 1.0) * (k - 1.0)), 1.0)
    return _pairwise_frame(
        "Conover-Iman (Friedman)", m.alternatives, tval, pval, p_adjust, alpha,
        {"mean_rank_1": mean_ranks[i], "mean_rank_2": mean_ranks[j], "n": [n] * i.size},
    )


def posthoc_nemenyi(
    data: Any,
    *,
    alpha: float = 0.05,
    higher_is_better: bool = REQUIRED,
    nan_policy: str = "propagate",
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
) -> pl.DataFrame:
    """Nemenyi post-hoc test after Friedman's test, for all pairs of alternatives.

    Controls the family-wise error by itself (no ``p_adjust``).

    Parameters
    ----------
    data : wide or long table, or 2-d array, shape (n conditions, k alternatives)
        Scores, errors or ranks of the k alternatives (models) on n shared conditions
        (datasets); see :func:`~genexpy_nb.significance.friedman`.
    alpha : float, default 0.05
        Level for the ``significant`` column.
    higher_is_better : bool, required
        True for scores (accuracy), False for errors, losses or ranks; orients the mean
        ranks (1 = best), not the p-values.
    nan_policy : {"propagate", "raise", "omit"}, default "propagate"
        "omit" drops the conditions with a missing value; "propagate" gives NaN p-values.
    y_col, block_col, group_col : str, optional
        Long input: the value, condition and alternative columns (see
        :func:`~genexpy_nb.significance.friedman`).
    alternatives : sequence, optional
        The alternatives to compare, in this order (default: all).

    Returns
    -------
    polars.DataFrame
        One row per pair: ``test, alternative_1, alternative_2, mean_rank_1, mean_rank_2,
        n, statistic, pvalue_raw, pvalue, p_adjust, alpha, significant``; ``statistic`` is
        the studentized range ``|Rbar_j - Rbar_l| / sqrt(k (k + 1) / (12 n))``.

    Notes
    -----
    p-value = survival function of the studentized range distribution (k groups, infinite
    dof), as scikit-posthocs' ``posthoc_nemenyi_friedman``. Assumes no ties (with ties it
    is conservative). Equivalent to comparing mean-rank differences with
    :func:`nemenyi_cd`.

    Examples
    --------
    >>> scores = [[0.81, 0.78, 0.70], [0.85, 0.80, 0.74], [0.79, 0.80, 0.71],
    ...           [0.90, 0.86, 0.80], [0.83, 0.79, 0.75], [0.88, 0.84, 0.77]]
    >>> res = posthoc_nemenyi(scores, higher_is_better=True)
    >>> res.select("alternative_1", "alternative_2", pl.col("pvalue").round(4)).rows()
    [('0', '1', 0.4804), ('0', '2', 0.0043), ('1', '2', 0.1072)]
    """
    alpha = check_probability("alpha", alpha)
    hib = _direction(higher_is_better, "posthoc_nemenyi")
    m = _to_matrix(data, y_col=y_col, block_col=block_col, group_col=group_col,
                   alternatives=alternatives)
    values, _, propagate = _complete_rows(m.values, nan_policy, "data")
    n, k = values.shape
    i, j = np.triu_indices(k, 1)
    if propagate:
        nanv = np.full(i.size, np.nan)
        return _pairwise_frame("Nemenyi (Friedman)", m.alternatives, nanv, nanv, None, alpha,
                               {"mean_rank_1": nanv, "mean_rank_2": nanv, "n": [n] * i.size})
    _, mean_ranks, _, _, _ = _friedman_core(_orient(values, hib))
    q = np.abs(mean_ranks[i] - mean_ranks[j]) / math.sqrt(k * (k + 1.0) / (12.0 * n))
    pval = studentized_range_sf(q, k)
    return _pairwise_frame(
        "Nemenyi (Friedman)", m.alternatives, q, pval, None, alpha,
        {"mean_rank_1": mean_ranks[i], "mean_rank_2": mean_ranks[j], "n": [n] * i.size},
    )


def pairwise_wilcoxon(
    data: Any,
    *,
    p_adjust: str | None = None,
    alpha: float = 0.05,
    zero_method: str = "wilcox",
    correction: bool = False,
    method: str = "auto",
    nan_policy: str = "propagate",
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
) -> pl.DataFrame:
    """Wilcoxon signed-rank tests for all pairs of alternatives over shared conditions.

    Parameters
    ----------
    data : wide or long table, or 2-d array, shape (n conditions, k alternatives)
        The alternatives' scores on shared conditions (datasets); each pair is tested on
        the conditions they share.
    p_adjust : str or None, default None
        Multiple-testing correction over the pairs (:data:`P_ADJUST_METHODS`, statsmodels'
        names such as ``"holm"``); None = raw p-values.
    alpha : float, default 0.05
        Level for the ``significant`` column.
    zero_method, correction, method
        Passed to :func:`~genexpy_nb.significance.wilcoxon` for every pair.
    nan_policy : {"propagate", "raise", "omit"}, default "propagate"
        "omit" drops, for each pair, the conditions where either value is missing.
    y_col, block_col, group_col : str, optional
        Long input: the value, condition and alternative columns (see
        :func:`~genexpy_nb.significance.friedman`).
    alternatives : sequence, optional
        The alternatives to compare, in this order (default: all).

    Returns
    -------
    polars.DataFrame
        One row per pair: ``test, alternative_1, alternative_2, mean_difference (1 - 2),
        n, statistic, pvalue_raw, pvalue, p_adjust, alpha, significant``.

    Examples
    --------
    >>> scores = [[0.81, 0.78, 0.70], [0.85, 0.80, 0.74], [0.79, 0.80, 0.71],
    ...           [0.90, 0.86, 0.80], [0.83, 0.79, 0.75], [0.88, 0.84, 0.77]]
    >>> res = pairwise_wilcoxon(scores, p_adjust="holm")
    >>> res.select("alternative_1", "alternative_2", pl.col("pvalue").round(4)).rows()
    [('0', '1', 0.0938), ('0', '2', 0.0938), ('1', '2', 0.0938)]
    """
    p_adjust = _check_p_adjust(p_adjust)
    alpha = check_probability("alpha", alpha)
    _check_choice("nan_policy", nan_policy, _NAN_POLICIES)
    m = _to_matrix(data, y_col=y_col, block_col=block_col, group_col=group_col,
                   alternatives=alternatives)
    if nan_policy == "raise":
        _complete_rows(m.values, "raise", "data")
    stat, pval, mdiff, ns = [], [], [], []
    for i, j in itertools.combinations(range(m.values.shape[1]), 2):
        res = wilcoxon(m.values[:, i], m.values[:, j], zero_method=zero_method,
                       correction=correction, method=method, nan_policy=nan_policy)
        a, b = m.values[:, i], m.values[:, j]
        keep = ~(np.isnan(a) | np.isnan(b)) if nan_policy == "omit" else slice(None)
        stat.append(res.statistic)
        pval.append(res.pvalue)
        mdiff.append(float(np.mean(a[keep] - b[keep])) if res.n else math.nan)
        ns.append(res.n)
    return _pairwise_frame("Wilcoxon signed-rank", m.alternatives, np.array(stat),
                           np.array(pval), p_adjust, alpha,
                           {"mean_difference": mdiff, "n": ns})


def pairwise_corrected_ttest(
    data: Any,
    *,
    n_train: float,
    n_test: float,
    p_adjust: str | None = None,
    alpha: float = 0.05,
    nan_policy: str = "propagate",
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
) -> pl.DataFrame:
    """Corrected resampled t-tests for all pairs of alternatives on shared CV splits.

    ``data``: one row per split (the same r * k splits for every alternative), one column
    per alternative (or long with ``block_col`` = the split id). See
    :func:`corrected_ttest`.

    Parameters
    ----------
    data : wide or long table, or 2-d array, shape (r * k splits, alternatives)
        The alternatives' scores on the same cross-validation splits.
    n_train, n_test : float
        Training and test set sizes of one split (n1 and n2 of Nadeau & Bengio 2003); the
        correction of the variance is ``n_test / n_train``.
    p_adjust : str or None, default None
        Multiple-testing correction over the pairs (:data:`P_ADJUST_METHODS`); None = raw
        p-values.
    alpha : float, default 0.05
        Level for the ``significant`` column.
    nan_policy : {"propagate", "raise", "omit"}, default "propagate"
        "omit" drops, for each pair, the splits where either value is missing.
    y_col, block_col, group_col : str, optional
        Long input: the value, split and alternative columns.
    alternatives : sequence, optional
        The alternatives to compare, in this order (default: all).

    Returns
    -------
    polars.DataFrame
        One row per pair: ``test, alternative_1, alternative_2, mean_difference (1 - 2),
        std_error (corrected), n, statistic, pvalue_raw, pvalue, p_adjust, alpha,
        significant``.

    Examples
    --------
    >>> splits = [[0.81, 0.78], [0.85, 0.80], [0.79, 0.80], [0.90, 0.86], [0.83, 0.79]]
    >>> res = pairwise_corrected_ttest(splits, n_train=800, n_test=200)
    >>> res.select("mean_difference", "std_error", "pvalue").with_columns(pl.all().round(4)).rows()
    [(0.03, 0.0157, 0.1292)]
    """
    p_adjust = _check_p_adjust(p_adjust)
    alpha = check_probability("alpha", alpha)
    n1, n2 = _check_sizes(n_train, n_test)
    _check_choice("nan_policy", nan_policy, _NAN_POLICIES)
    m = _to_matrix(data, y_col=y_col, block_col=block_col, group_col=group_col,
                   alternatives=alternatives)
    if nan_policy == "raise":
        _complete_rows(m.values, "raise", "data")
    stat, pval, mdiff, ses, ns = [], [], [], [], []
    for i, j in itertools.combinations(range(m.values.shape[1]), 2):
        res = corrected_ttest(m.values[:, i], m.values[:, j], n_train=n1, n_test=n2,
                              nan_policy=nan_policy)
        stat.append(res.statistic)
        pval.append(res.pvalue)
        mdiff.append(res.mean)
        ses.append(res.std_error)
        ns.append(res.n)
    return _pairwise_frame("corrected resampled t (Nadeau-Bengio)", m.alternatives,
                           np.array(stat), np.array(pval), p_adjust, alpha,
                           {"mean_difference": mdiff, "std_error": ses, "n": ns})


