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

Missing values: ``nan_policy`` defaults to ``"propagate"`` in this family, as in the rank
tests (NaN p-values for the pairs concerned); ``"raise"`` and ``"omit"`` are the other
choices. The tests of mean ranks with missing results (:func:`posthoc_siegel_castellan`,
:func:`posthoc_nemenyi_missing`) take missing results by design and have no
``nan_policy``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np
import polars as pl

from .._validation import REQUIRED, GenexpyInputError, check_choice, check_probability
from .._validation import check_direction as _direction
from ._input import (
    _NAN_POLICIES,
    TableRoles,
    _complete_rows,
    _Matrix,
    _orient,
    table_matrix,
    takes_table_roles,
)
from ._input import check_sizes as _check_sizes
from ._pairs import check_p_adjust as _check_p_adjust
from ._pairs import pairs_frame
from ._pvalues import norm_sf, t_sf
from ._ranks import friedman_core as _friedman_core
from ._ranks import mean_rank_diff_var, mean_ranks_available
from ._studentized import studentized_range_sf
from .paired import corrected_ttest
from .rank_tests import wilcoxon

__all__ = ["posthoc_conover", "posthoc_nemenyi", "posthoc_siegel_castellan",
           "posthoc_nemenyi_missing", "pairwise_wilcoxon", "pairwise_corrected_ttest"]


@takes_table_roles()
def posthoc_conover(
    data: Any,
    *,
    p_adjust: str | None = None,
    alpha: float = 0.05,
    higher_is_better: bool = REQUIRED,
    nan_policy: str = "propagate",
    control: Any = None,
    **roles: Unpack[TableRoles],
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
    nan_policy : {"propagate", "raise", "omit"}, default "propagate"
        "omit" drops the conditions with a missing value; "propagate" gives NaN p-values.
    control : optional
        Compare only the k - 1 pairs with this alternative (``alternative_1``), corrected
        as their own family: k - 1 rows instead of k (k - 1) / 2.
    {roles}

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
    hib = _direction(higher_is_better, "posthoc_conover")
    return _after_friedman(table_matrix(data, roles, "posthoc_conover"), hib, alpha, p_adjust,
                           nan_policy, "Conover-Iman (Friedman)", _conover_t, control)


@takes_table_roles()
def posthoc_nemenyi(
    data: Any,
    *,
    alpha: float = 0.05,
    higher_is_better: bool = REQUIRED,
    nan_policy: str = "propagate",
    **roles: Unpack[TableRoles],
) -> pl.DataFrame:
    """Nemenyi post-hoc test after Friedman's test, for all pairs of alternatives.

    Controls the family-wise error by itself (no ``p_adjust``).

    Parameters
    ----------
    data, alpha, higher_is_better, nan_policy
        As in :func:`posthoc_conover`.
    {roles}

    Returns
    -------
    polars.DataFrame
        As :func:`posthoc_conover`'s; ``statistic`` is the studentized range
        ``|Rbar_j - Rbar_l| / sqrt(k (k + 1) / (12 n))``.

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
    hib = _direction(higher_is_better, "posthoc_nemenyi")
    return _after_friedman(table_matrix(data, roles, "posthoc_nemenyi"), hib, alpha, None,
                           nan_policy, "Nemenyi (Friedman)", _nemenyi_q)


@takes_table_roles()
def posthoc_siegel_castellan(
    data: Any,
    *,
    p_adjust: str | None = None,
    alpha: float = 0.05,
    higher_is_better: bool = REQUIRED,
    control: Any = None,
    **roles: Unpack[TableRoles],
) -> pl.DataFrame:
    """Siegel–Castellan z-test of mean ranks for all pairs, with or without missing results.

    On complete conditions this is Demšar's z-test after Friedman's test; where results
    are missing (NaN), each condition ranks the alternatives that have a result there and
    the test compares the mean ranks among the available alternatives (the post-hoc test
    of :func:`~genexpy_nb.significance.compare` when results are missing).

    Parameters
    ----------
    data : wide or long table, or 2-d array, shape (n conditions, k alternatives)
        Scores, errors or ranks of the k alternatives on n conditions; NaN (or an absent
        row of a long table) is a missing result. Conditions with fewer than two results
        rank nothing and are left out.
    p_adjust : str or None, default None
        Correction of the p-values over the k(k - 1)/2 pairs (statsmodels' names,
        :data:`~genexpy_nb.significance.P_ADJUST_METHODS`); None reports them unadjusted.
    alpha : float, default 0.05
        Level for the ``significant`` column.
    higher_is_better : bool, required
        True for scores (accuracy), False for errors, losses or ranks; orients the mean
        ranks (1 = best), not the p-values.
    control : optional
        Compare only the k - 1 pairs with this alternative (``alternative_1``), corrected
        as their own family: k - 1 rows instead of k (k - 1) / 2.
    {roles}

    Returns
    -------
    polars.DataFrame
        One row per pair: ``test, alternative_1, alternative_2, mean_rank_1, mean_rank_2,
        n, statistic, pvalue_raw, pvalue, p_adjust, alpha, significant``; ``n`` counts the
        conditions where both have a result, ``test`` is ``"Siegel-Castellan z
        (Friedman)"`` on complete conditions, else ``"Siegel-Castellan z (ranks among
        available)"``.

    Notes
    -----
    Complete conditions: ``z = |Rbar_j - Rbar_l| / sqrt(k (k + 1) / (6 n))`` with
    ``Rbar`` the mean within-condition ranks (Demšar 2006, Sec. 3.2.2; Siegel and
    Castellan 1988), p-value ``2 (1 - Phi(z))``.

    Missing results: in condition i with s_i results, the rank r among them is put on the
    1..k scale, ``1 + (r - 1)(k - 1)/(s_i - 1)``; the mean rank ``m_j`` averages it over
    the n_j conditions where j has a result. Under the null (the results of a condition
    are exchangeable) the scaled ranks of a condition have variance
    ``c_i^2 (s_i^2 - 1)/12`` and covariance ``-c_i^2 (s_i + 1)/12``,
    ``c_i = (k - 1)/(s_i - 1)``, so

    ``Var(m_j - m_l) = sum_i [(w_ij^2 + w_il^2) v_i - 2 w_ij w_il c_i']``,
    ``w_ij = 1/n_j`` where j has a result in i (else 0),

    and ``z = |m_j - m_l| / sqrt(Var(m_j - m_l))`` (no tie correction: conservative with
    ties). On complete conditions both forms give the same numbers.

    References: Siegel, S. and Castellan, N. J. (1988). Nonparametric Statistics for the
    Behavioral Sciences, 2nd ed., McGraw-Hill. Demšar, J. (2006). Statistical comparisons
    of classifiers over multiple data sets. JMLR 7. Skillings, J. H. and Mack, G. A.
    (1981). Technometrics 23(2), 171-177.

    Examples
    --------
    >>> scores = [[0.81, 0.78, 0.70], [0.85, 0.80, 0.74], [0.79, 0.80, float("nan")],
    ...           [0.90, 0.86, 0.80], [0.83, 0.79, 0.75], [0.88, 0.84, 0.77]]
    >>> res = posthoc_siegel_castellan(scores, higher_is_better=True)
    >>> res.select("alternative_1", "alternative_2", pl.col("pvalue").round(4)).rows()
    [('0', '1', 0.4227), ('0', '2', 0.0058), ('1', '2', 0.0534)]
    """
    hib = _direction(higher_is_better, "posthoc_siegel_castellan")
    return _among_available(table_matrix(data, roles, "posthoc_siegel_castellan"), hib, alpha,
                            p_adjust, _siegel_castellan_z, control)


@takes_table_roles()
def posthoc_nemenyi_missing(
    data: Any,
    *,
    alpha: float = 0.05,
    higher_is_better: bool = REQUIRED,
    **roles: Unpack[TableRoles],
) -> pl.DataFrame:
    """Nemenyi's test of mean ranks among the available alternatives (results missing).

    Each condition ranks the alternatives that have a result there; all pairs of mean
    ranks are compared with the studentized range distribution, which controls the
    family-wise error by itself (no ``p_adjust``). The form of Nemenyi's test that
    :func:`~genexpy_nb.significance.compare` uses when results are missing; on complete
    conditions it gives the numbers of :func:`posthoc_nemenyi`.

    Parameters
    ----------
    data, alpha, higher_is_better
        As in :func:`posthoc_siegel_castellan`.
    {roles}

    Returns
    -------
    polars.DataFrame
        As :func:`posthoc_siegel_castellan`'s, ``test`` = ``"Nemenyi (ranks among
        available)"``.

    Notes
    -----
    ``q = sqrt(2) |m_j - m_l| / sqrt(Var(m_j - m_l))`` with the mean ranks among the
    available alternatives ``m`` and the exact null variance of their difference (see
    :func:`posthoc_siegel_castellan`); p-value = survival function of the studentized
    range distribution (k groups, infinite dof). On complete conditions
    ``Var(m_j - m_l) = k (k + 1) / (6 n)`` and q is Nemenyi's statistic
    ``|Rbar_j - Rbar_l| / sqrt(k (k + 1) / (12 n))`` (Demšar 2006, Sec. 3.2.2).

    References: Nemenyi, P. B. (1963). Distribution-free multiple comparisons. PhD
    thesis, Princeton University. Demšar, J. (2006). JMLR 7. Skillings, J. H. and Mack,
    G. A. (1981). Technometrics 23(2), 171-177.

    Examples
    --------
    >>> scores = [[0.81, 0.78, 0.70], [0.85, 0.80, 0.74], [0.79, 0.80, float("nan")],
    ...           [0.90, 0.86, 0.80], [0.83, 0.79, 0.75], [0.88, 0.84, 0.77]]
    >>> res = posthoc_nemenyi_missing(scores, higher_is_better=True)
    >>> res.select("alternative_1", "alternative_2", "n", pl.col("pvalue").round(4)).rows()
    [('0', '1', 6, 0.7019), ('0', '2', 5, 0.016), ('1', '2', 5, 0.1298)]
    """
    hib = _direction(higher_is_better, "posthoc_nemenyi_missing")
    return _among_available(table_matrix(data, roles, "posthoc_nemenyi_missing"), hib, alpha,
                            None, _nemenyi_available_q)


def _ranked_blocks(values: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """Leave out the conditions with fewer than two results; refuse empty alternatives."""
    values = values[(~np.isnan(values)).sum(axis=1) >= 2]
    empty = [a for a, e in zip(names, np.isnan(values).all(axis=0)) if e]
    if values.shape[0] < 2 or empty:
        raise GenexpyInputError(
            f"data: {values.shape[0]} condition(s) with at least two results"
            + (f"; no result there for {empty[:20]}" if empty else "")
            + ". The mean ranks need at least 2 such conditions and a result for every "
            "alternative.")
    return np.ascontiguousarray(values)


def _rank_columns(values: np.ndarray, mid: np.ndarray, pairs: tuple) -> dict[str, Any]:
    """Return the mean ranks of both alternatives of each pair and their shared conditions."""
    i, j = pairs
    both = (~np.isnan(values)).astype(np.float64)
    if len(i) < values.shape[1] ** 2 // 4:  # a few pairs (against a control): no k x k
        n_both = np.einsum("ni,ni->i", both[:, i], both[:, j]).astype(np.int64)
    else:
        n_both = (both.T @ both)[i, j].astype(np.int64)
    return {"mean_rank_1": mid[i], "mean_rank_2": mid[j], "n": n_both}


def _pairs_of(names: Sequence[Any], control: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return all pairs ``i < j`` (in ``itertools.combinations`` order), or the control's.

    With ``control``: the pairs (control, every other alternative), in order.
    """
    k = len(names)
    if control is None:
        return np.triu_indices(k, 1)
    names = [str(a) for a in names]
    if str(control) not in names:
        raise GenexpyInputError(f"control {control!r} is not among the alternatives "
                                f"{names[:20]}.")
    c = names.index(str(control))
    others = np.array([a for a in range(k) if a != c], dtype=np.int64)
    return np.full(others.size, c, dtype=np.int64), others


def _after_friedman(m: _Matrix, hib: bool, alpha: float, p_adjust: str | None,
                    nan_policy: str, label: str, test, control: Any = None) -> pl.DataFrame:
    """Test the mean ranks of complete conditions, all pairs (NaN with "propagate").

    ``test(friedman_core(oriented), n, k, i, j) -> (statistic, pvalue)`` of the pairs i < j
    (or those with ``control``).
    """
    alpha, p_adjust = check_probability("alpha", alpha), _check_p_adjust(p_adjust)
    values, _, propagate = _complete_rows(m.values, nan_policy, "data")
    n, k = values.shape
    i, j = _pairs_of(m.alternatives, control)
    if propagate:
        stat = pval = np.full(i.size, np.nan)
        mean_ranks = np.full(k, np.nan)
    else:
        core = _friedman_core(_orient(values, hib))
        stat, pval = test(core, n, k, i, j)
        mean_ranks = core[1]
    return pairs_frame(label, m.alternatives, i, j, stat, pval, p_adjust, alpha,
                       {"mean_rank_1": mean_ranks[i], "mean_rank_2": mean_ranks[j],
                        "n": [n] * i.size})


def _conover_t(core, n: int, k: int, i: np.ndarray, j: np.ndarray):
    """Conover's t of the rank sums and its two-sided p-value (Student's t)."""
    _, _, rank_sums, a1, _ = core
    diff = np.abs(rank_sums[i] - rank_sums[j])
    denom = 2.0 * (n * a1 - float(np.sum(rank_sums**2))) / ((n - 1.0) * (k - 1.0))
    tiny = 1e-12 * max(n * a1, 1.0)
    if denom <= tiny:
        tval = np.where(diff > 1e-9, np.inf, 0.0)
    else:
        tval = diff / math.sqrt(denom)
    return tval, np.minimum(2.0 * t_sf(tval, (n - 1.0) * (k - 1.0)), 1.0)


def _nemenyi_q(core, n: int, k: int, i: np.ndarray, j: np.ndarray):
    """Nemenyi's studentized range of the mean ranks and its p-value."""
    mean_ranks = core[1]
    q = np.abs(mean_ranks[i] - mean_ranks[j]) / math.sqrt(k * (k + 1.0) / (12.0 * n))
    return q, studentized_range_sf(q, k)


def _among_available(m: _Matrix, hib: bool, alpha: float, p_adjust: str | None,
                     test, control: Any = None) -> pl.DataFrame:
    """Test the mean ranks among the available results, all pairs (or a control's).

    ``test(values, oriented, pairs) -> (statistic, pvalue, mean ranks, the test's name)``.
    """
    alpha, p_adjust = check_probability("alpha", alpha), _check_p_adjust(p_adjust)
    values = _ranked_blocks(m.values, m.alternatives)
    pairs = _pairs_of(m.alternatives, control)
    stat, p, mid, label = test(values, _orient(values, hib), pairs)
    return pairs_frame(label, m.alternatives, *pairs, stat, p, p_adjust, alpha,
                       _rank_columns(values, mid, pairs))


def _siegel_castellan_z(values: np.ndarray, oriented: np.ndarray,
                        pairs: tuple | None = None):
    """(z, two-sided p, mean ranks, the test's name): all pairs ``i < j``, or those given."""
    n, k = values.shape
    i, j = np.triu_indices(k, 1) if pairs is None else pairs
    if not np.isnan(values).any():  # the z-test of mean ranks (Demsar 2006, Sec. 3.2.2)
        mid = _friedman_core(oriented)[1]
        stat = np.abs(mid[i] - mid[j]) / math.sqrt(k * (k + 1.0) / (6.0 * n))
        label = "Siegel-Castellan z (Friedman)"
    else:
        # the difference of two mean ranks over its exact standard deviation when every
        # block's results are exchangeable (the null of the omnibus test)
        mid = mean_ranks_available(oriented, "average")
        stat = np.abs(mid[i] - mid[j]) / np.sqrt(mean_rank_diff_var(oriented)[i, j])
        label = "Siegel-Castellan z (ranks among available)"
    return stat, np.minimum(2.0 * norm_sf(stat), 1.0), mid, label


def _nemenyi_available_q(values: np.ndarray, oriented: np.ndarray,
                         pairs: tuple | None = None):
    """(q, p, mean ranks among the available alternatives, the test's name), all pairs.

    All pairs ``i < j``, or those given.
    """
    k = values.shape[1]
    i, j = np.triu_indices(k, 1) if pairs is None else pairs
    mid = mean_ranks_available(oriented, "average")
    stat = np.abs(mid[i] - mid[j]) / np.sqrt(mean_rank_diff_var(oriented)[i, j])
    stat = math.sqrt(2.0) * stat  # on complete blocks sqrt(2) z is Nemenyi's q
    return stat, studentized_range_sf(stat, k), mid, "Nemenyi (ranks among available)"


def _each_pair(m: _Matrix, alpha: float, p_adjust: str | None, nan_policy: str, label: str,
               test) -> pl.DataFrame:
    """Run a two-sample test on every pair of columns, pairs i < j row by row.

    ``test(a, b) -> (result with statistic and pvalue, the pair's other columns)``.
    """
    alpha, p_adjust = check_probability("alpha", alpha), _check_p_adjust(p_adjust)
    check_choice("nan_policy", nan_policy, _NAN_POLICIES)
    if nan_policy == "raise":
        _complete_rows(m.values, "raise", "data")
    i, j = np.triu_indices(m.values.shape[1], 1)  # the order of itertools.combinations
    tested = [test(m.values[:, a], m.values[:, b]) for a, b in zip(i, j)]
    return pairs_frame(label, m.alternatives, i, j, np.array([res.statistic for res, _ in tested]),
                       np.array([res.pvalue for res, _ in tested]), p_adjust, alpha,
                       {c: [cols[c] for _, cols in tested] for c in tested[0][1]})


@takes_table_roles(ties=False)
def pairwise_wilcoxon(
    data: Any,
    *,
    p_adjust: str | None = None,
    alpha: float = 0.05,
    zero_method: str = "wilcox",
    correction: bool = False,
    method: str = "auto",
    nan_policy: str = "propagate",
    **roles: Unpack[TableRoles],
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
    {roles}

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
    m = table_matrix(data, roles, "pairwise_wilcoxon", ties=False)
    # every pair at once where that gives scipy's numbers; the others one by one
    fast = iter(_wilcoxon_rows(m.values, zero_method, correction, method, nan_policy) or [])

    def test(a: np.ndarray, b: np.ndarray) -> tuple[Any, dict[str, Any]]:
        res = next(fast, None)  # the pairs come in the same order (i < j, row by row)
        if res is None:
            res = wilcoxon(a, b, zero_method=zero_method, correction=correction,
                           method=method, nan_policy=nan_policy)
        keep = ~(np.isnan(a) | np.isnan(b)) if nan_policy == "omit" else slice(None)
        mdiff = float(np.mean(a[keep] - b[keep])) if res.n else math.nan
        return res, {"mean_difference": mdiff, "n": res.n}

    return _each_pair(m, alpha, p_adjust, nan_policy, "Wilcoxon signed-rank", test)


def _wilcoxon_rows(values: np.ndarray, zero_method: str, correction: bool, method: str,
                   nan_policy: str) -> list | None:
    """Every pair's Wilcoxon test at once, where it equals ``wilcoxon`` (scipy's defaults).

    With ``zero_method="wilcox"``, no continuity correction and ``method="auto"``: the
    statistic and p-value of each pair without a missing value (or with them left out,
    ``nan_policy="omit"``) from one vectorised pass, the very numbers
    ``scipy.stats.wilcoxon`` gives (:func:`._signed_rank.signed_rank_tests`); None for the
    pairs (or all) that go through :func:`wilcoxon` one by one.
    """
    from ._results import SignificanceResult
    from ._signed_rank import signed_rank_tests

    if zero_method != "wilcox" or correction or method != "auto":
        return None
    k = values.shape[1]
    iu, ju = np.triu_indices(k, 1)
    d = values[:, iu].T - values[:, ju].T  # (pairs, conditions)
    missing = np.isnan(d).any(axis=1)
    if nan_policy != "omit" and missing.all():
        return None
    statistic, pvalue = signed_rank_tests(np.where(missing[:, None] & (nan_policy != "omit"),
                                                   0.0, d))
    n = (~np.isnan(d)).sum(axis=1) if nan_policy == "omit" else np.full(iu.size, d.shape[1])
    out: list = []
    for q in range(iu.size):
        if (missing[q] and nan_policy != "omit") or n[q] == 0 or np.isnan(pvalue[q]):
            out.append(None)  # a missing value, no pair at all, or no difference
            continue
        out.append(SignificanceResult(statistic=float(statistic[q]), pvalue=float(pvalue[q]),
                                      test="Wilcoxon signed-rank", n=int(n[q]), k=2,
                                      alternative="two-sided"))
    return out


@takes_table_roles(ties=False)
def pairwise_corrected_ttest(
    data: Any,
    *,
    n_train: float,
    n_test: float,
    p_adjust: str | None = None,
    alpha: float = 0.05,
    nan_policy: str = "propagate",
    **roles: Unpack[TableRoles],
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
    p_adjust, alpha, nan_policy
        As in :func:`pairwise_wilcoxon` ("omit" drops, for each pair, the splits where
        either value is missing).
    {roles}

    Returns
    -------
    polars.DataFrame
        As :func:`pairwise_wilcoxon`'s, with ``std_error`` (corrected) after
        ``mean_difference``.

    Examples
    --------
    >>> splits = [[0.81, 0.78], [0.85, 0.80], [0.79, 0.80], [0.90, 0.86], [0.83, 0.79]]
    >>> res = pairwise_corrected_ttest(splits, n_train=800, n_test=200)
    >>> res.select("mean_difference", "std_error", "pvalue").with_columns(pl.all().round(4)).rows()
    [(0.03, 0.0157, 0.1292)]
    """
    n1, n2 = _check_sizes(n_train, n_test)

    def test(a: np.ndarray, b: np.ndarray) -> tuple[Any, dict[str, Any]]:
        res = corrected_ttest(a, b, n_train=n1, n_test=n2, nan_policy=nan_policy)
        return res, {"mean_difference": res.mean, "std_error": res.std_error, "n": res.n}

    return _each_pair(table_matrix(data, roles, "pairwise_corrected_ttest", ties=False), alpha,
                      p_adjust, nan_policy, "corrected resampled t (Nadeau-Bengio)", test)


