"""Rank tests over conditions and two- or k-sample rank tests.

* :func:`rank_within_conditions`: midranks of the alternatives within each condition;
* :func:`friedman` (with Iman–Davenport's F and Kendall's W) and :func:`skillings_mack`
  (Friedman's test when some alternatives are missing on some conditions);
* scipy's tests with this package's inputs and results: :func:`wilcoxon` (signed-rank,
  paired), :func:`mannwhitneyu`, :func:`kruskal`.

Friedman's statistic is computed here from our midranks (NumPy), not by
``scipy.stats.friedmanchisquare``: scipy needs k >= 3 alternatives (here k >= 2), and ours
has less overhead per call (``benchmarks/bench_significance.py`` times both), which matters
in the loops of the simulations; the tests check it equals scipy's.

Missing values: ``nan_policy`` defaults to ``"propagate"`` in this family, as in scipy (a
NaN result with a ``note``); ``"raise"`` and ``"omit"`` are the other choices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np
import polars as pl

from .._validation import REQUIRED, GenexpyInputError, check_choice, require_columns, to_polars
from .._validation import check_direction as _direction
from ._input import (
    _ALTERNATIVES,
    TableRoles,
    _as_1d,
    _complete_rows,
    _names,
    _nan_1d,
    _orient,
    _paired_differences,
    _roles,
    _to_matrix,
    table_matrix,
    takes_table_roles,
)
from ._pvalues import chi2_sf, f_sf
from ._ranks import friedman_core as _friedman_core
from ._ranks import rank_rows as _rank_rows
from ._ranks import skillings_mack_parts as _skillings_mack_parts
from ._results import FriedmanResult, SignificanceResult, SkillingsMackResult, _degenerate

__all__ = ["rank_within_conditions", "friedman", "skillings_mack", "wilcoxon", "mannwhitneyu",
           "kruskal"]

_NO_DIFFERENCE = "reported as statistic = 0, pvalue = 1 (no evidence of any difference)"


@takes_table_roles()
def rank_within_conditions(
    data: Any,
    *,
    higher_is_better: bool = REQUIRED,
    **roles: Unpack[TableRoles],
) -> pl.DataFrame:
    """Midranks of the alternatives within each condition (1 = best; ties share the mean).

    Parameters
    ----------
    data : wide or long table, or 2-d array (conditions x alternatives)
        See the module's Conventions. Missing values get rank null and do not count.
    higher_is_better : bool, required
        True for scores (accuracy), False for errors, losses or tiers (0/1 = best).
    {roles}

    Returns
    -------
    polars.DataFrame
        One Float64 column of ranks per alternative, one row per condition (plus the
        ``blocks`` column first, if given).

    Examples
    --------
    >>> rank_within_conditions([[0.9, 0.8, 0.8], [0.7, 0.9, 0.6]], higher_is_better=True)
    shape: (2, 3)
    ┌─────┬─────┬─────┐
    │ 0   ┆ 1   ┆ 2   │
    │ --- ┆ --- ┆ --- │
    │ f64 ┆ f64 ┆ f64 │
    ╞═════╪═════╪═════╡
    │ 1.0 ┆ 2.5 ┆ 2.5 │
    │ 2.0 ┆ 1.0 ┆ 3.0 │
    └─────┴─────┴─────┘
    """
    hib = _direction(higher_is_better, "rank_within_conditions")
    m = table_matrix(data, roles, "rank_within_conditions", min_conditions=1)
    ranks, _, _ = _rank_rows(_orient(m.values, hib))
    out = pl.DataFrame({a: ranks[:, j] for j, a in enumerate(m.alternatives)}).fill_nan(None)
    if m.block_col is not None and m.conditions is not None:
        out = out.with_columns(pl.Series(m.block_col, list(m.conditions))).select(
            m.block_col, *m.alternatives
        )
    return out


@takes_table_roles()
def friedman(
    data: Any,
    *,
    higher_is_better: bool = REQUIRED,
    nan_policy: str = "propagate",
    **roles: Unpack[TableRoles],
) -> FriedmanResult:
    """Run Friedman's test of whether the alternatives have the same distribution of ranks.

    Parameters
    ----------
    data : wide or long table, or 2-d array, shape (n conditions, k alternatives)
        Scores, errors or ranks (ranked again within each condition).
    higher_is_better : bool, required
        True for scores (accuracy), False for errors, losses or ranks. It orients
        ``mean_ranks`` (1 = best); the test itself does not depend on it.
    nan_policy : {"propagate", "raise", "omit"}
        "omit" drops conditions with a missing value (see :func:`skillings_mack`).
    {roles}

    Returns
    -------
    FriedmanResult
        ``statistic`` (chi-square, tie-corrected), ``pvalue`` (chi-square, k-1 dof),
        ``mean_ranks``, Iman–Davenport F and Kendall's W.

    Notes
    -----
    With ``R_j`` the rank sum of alternative j over n conditions (midranks for ties),

        chi2 = 12 / (n k (k+1)) * sum_j (R_j - n (k+1) / 2)^2 / C,
        C = 1 - sum over tie groups (t^3 - t) / (n k (k^2 - 1)),

    which equals ``scipy.stats.friedmanchisquare`` (that one needs k >= 3; here k >= 2).
    When every condition ties all alternatives the statistic is 0/0 (scipy: NaN); the
    result is then ``statistic = 0, pvalue = 1`` with a :class:`DegenerateTestWarning`
    and a ``note``: there is no evidence of any difference.

    Examples
    --------
    >>> res = friedman([[1, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3]], higher_is_better=False)
    >>> round(res.statistic, 3), res.mean_ranks
    (4.5, (1.25, 2.0, 2.75))
    """
    hib = _direction(higher_is_better, "friedman")
    m = table_matrix(data, roles, "friedman")
    values, n_dropped, propagate = _complete_rows(m.values, nan_policy, "data")
    n, k = values.shape
    nan = math.nan
    same = dict(test="Friedman", df=float(k - 1), n=n, k=k, alternatives=m.alternatives)
    if propagate:
        return FriedmanResult(statistic=nan, pvalue=nan, mean_ranks=(nan,) * k,
                              note="missing values with nan_policy='propagate'", **same)
    chi2, mean_ranks, _, _, _ = _friedman_core(_orient(values, hib))
    id_df = (float(k - 1), float((k - 1) * (n - 1)))
    same |= dict(mean_ranks=tuple(float(r) for r in mean_ranks), n_dropped=n_dropped,
                 iman_davenport_df=id_df)
    if not math.isfinite(chi2):
        note = _degenerate("friedman", "every condition ties all alternatives",
                           _NO_DIFFERENCE)
        return FriedmanResult(statistic=0.0, pvalue=1.0, iman_davenport_statistic=0.0,
                              iman_davenport_pvalue=1.0, kendall_w=0.0, note=note, **same)
    p = float(chi2_sf(chi2, same["df"]))
    # Iman–Davenport F and Kendall's W
    denom = n * (k - 1.0) - chi2
    w = chi2 / (n * (k - 1.0))
    if denom <= 1e-12 * n * (k - 1.0):
        f_stat, f_p = math.inf, 0.0  # perfect agreement (W = 1): the F statistic's limit
    else:
        f_stat = (n - 1.0) * chi2 / denom
        f_p = float(f_sf(f_stat, *id_df))
    return FriedmanResult(statistic=float(chi2), pvalue=p, iman_davenport_statistic=float(f_stat),
                          iman_davenport_pvalue=float(f_p), kendall_w=float(w), **same)


@takes_table_roles()
def skillings_mack(
    data: Any,
    *,
    higher_is_better: bool = REQUIRED,
    **roles: Unpack[TableRoles],
) -> SkillingsMackResult:
    """Skillings–Mack test: Friedman's test when alternatives are missing on some conditions.

    Parameters
    ----------
    data : wide or long table, or 2-d array, shape (n conditions, k alternatives)
        NaN / null (wide) or absent rows (long) = the alternative was not evaluated there.
    higher_is_better : bool, required
        True for scores, False for errors or ranks. It orients ``adjusted_sums`` (negative =
        better); the statistic does not depend on it.
    {roles}

    Returns
    -------
    SkillingsMackResult
        ``statistic`` SM, ``pvalue`` from the chi-square distribution with k-1 dof.

    Notes
    -----
    Skillings & Mack (1981). In condition i with s_i observed alternatives, rank them
    1..s_i (midranks for ties); a missing alternative gets (s_i + 1)/2. Conditions with
    s_i < 2 are dropped. Adjusted rank sums
    ``A_j = sum_i sqrt(12 / (s_i + 1)) * (r_ij - (s_i + 1)/2)``; their null covariance
    matrix ``Sigma`` has ``Sigma_jl = -lambda_jl`` and ``Sigma_jj = sum_{l != j} lambda_jl``,
    ``lambda_jl`` = number of conditions where both j and l are observed. Then
    ``SM = A' Sigma^- A`` (Moore–Penrose inverse), approximately chi-square with k-1 dof
    (the approximation is rough for few conditions or many ties; ties get no correction,
    which makes the test conservative). On complete data without ties SM equals
    Friedman's statistic. The design must be connected (every pair of alternatives linked
    through conditions where they are observed together), else the alternatives cannot
    be compared and an error is raised.

    Examples
    --------
    >>> import numpy as np
    >>> scores = [[0.81, 0.78, 0.70], [0.85, np.nan, 0.74], [0.79, 0.80, 0.71],
    ...           [0.90, 0.86, np.nan], [0.83, 0.79, 0.75], [0.88, 0.84, 0.77]]
    >>> res = skillings_mack(scores, higher_is_better=True)
    >>> round(res.statistic, 3), round(res.pvalue, 4), res.n_missing
    (8.063, 0.0177, 2)
    """
    hib = _direction(higher_is_better, "skillings_mack")
    m = table_matrix(data, roles, "skillings_mack")
    ranks, counts, _ = _rank_rows(_orient(m.values, hib))
    a, sigma, n_used = _skillings_mack_parts(ranks, counts)
    k = m.values.shape[1]
    used = counts >= 2
    if n_used < 2:
        raise GenexpyInputError(
            f"data: only {n_used} condition(s) have at least two observed alternatives; "
            "the Skillings–Mack test needs at least 2."
        )
    # connectedness: the co-occurrence graph (a weighted Laplacian) must have rank k - 1
    lam = sigma < 0
    reach = np.zeros(k, dtype=bool)
    reach[0] = True
    frontier = [0]
    while frontier:
        j = frontier.pop()
        for l_ in np.flatnonzero(lam[j] & ~reach):
            reach[l_] = True
            frontier.append(int(l_))
    if not reach.all():
        cut = [m.alternatives[j] for j in np.flatnonzero(~reach)]
        raise GenexpyInputError(
            f"data: alternatives {cut} are never observed together (directly or through "
            f"others) with {m.alternatives[0]!r}; the design is disconnected and they "
            "cannot be compared. Test the connected groups separately."
        )
    sm = float(a @ np.linalg.pinv(sigma, hermitian=True) @ a)
    sm = max(sm, 0.0)
    df = float(k - 1)
    n_missing = int(np.isnan(m.values[used]).sum())
    return SkillingsMackResult(
        statistic=sm, pvalue=float(chi2_sf(sm, df)), test="Skillings-Mack", df=df,
        n=int(n_used), k=k, alternatives=m.alternatives,
        adjusted_sums=tuple(float(v) for v in a), n_missing=n_missing,
        n_dropped=int(m.values.shape[0] - n_used),
    )


def wilcoxon(
    x: Any,
    y: Any = None,
    *,
    alternative: str = "two-sided",
    zero_method: str = "wilcox",
    correction: bool = False,
    method: str = "auto",
    nan_policy: str = "propagate",
) -> SignificanceResult:
    """Wilcoxon signed-rank test on paired samples (or on differences ``x`` if ``y`` is None).

    A wrapper of ``scipy.stats.wilcoxon`` with the same parameters; ``nan_policy="omit"``
    drops the pairs with a missing value. When all differences are zero the result is
    ``statistic = 0, pvalue = 1`` (what scipy returns) with a :class:`DegenerateTestWarning`
    and a ``note``. Over datasets: x and y hold the two models' scores on the same datasets
    (Demšar 2006 recommends it over the paired t-test for comparing two classifiers over
    several data sets).

    Parameters
    ----------
    x : array_like, 1-d
        The first model's scores (one per dataset, fold or test point), or the paired
        differences x - y when ``y`` is None.
    y : array_like, 1-d, optional
        The second model's scores, paired with ``x`` (same length, same order).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``"greater"``: x tends to be larger than y; ``"less"``: smaller.
    zero_method : {"wilcox", "pratt", "zsplit"}, default "wilcox"
        How zero differences are treated (``scipy.stats.wilcoxon``): "wilcox" drops them,
        "pratt" ranks them and then drops them, "zsplit" splits their ranks between the
        positive and negative sums.
    correction : bool, default False
        Continuity correction of the normal approximation (only used when it is).
    method : {"auto", "exact", "approx"}, default "auto"
        How the p-value is computed (scipy's choice: exact for small samples without ties
        or zeros, the normal approximation otherwise).
    nan_policy : {"propagate", "raise", "omit"}, default "propagate"
        "propagate": a missing value gives a NaN result; "raise": an error; "omit": the
        pairs with a missing value are dropped.

    Returns
    -------
    SignificanceResult
        ``statistic`` (scipy's: the smaller of the signed-rank sums for a two-sided test,
        the sum of positive ranks otherwise), ``pvalue``, ``n`` = number of pairs used.

    Examples
    --------
    >>> res = wilcoxon([0.81, 0.75, 0.90, 0.66, 0.72, 0.85], [0.78, 0.76, 0.84, 0.60, 0.70, 0.80])
    >>> res.statistic, round(res.pvalue, 4)
    (1.0, 0.0625)
    """
    check_choice("alternative", alternative, _ALTERNATIVES)
    check_choice("zero_method", zero_method, ("wilcox", "pratt", "zsplit"))
    d, propagate = _paired_differences(
        x, y, nan_policy, mismatch="x and y must be paired (same length), got {nx} and {ny}.")
    n = int(d.size)
    if propagate:
        return SignificanceResult(statistic=math.nan, pvalue=math.nan,
                                  test="Wilcoxon signed-rank", n=n, k=2, alternative=alternative,
                                  note="missing values with nan_policy='propagate'")
    if n == 0:
        raise GenexpyInputError("wilcoxon: no (non-missing) pair of values to compare.")
    if not np.any(d != 0):
        note = _degenerate("wilcoxon", f"all {n} paired differences are zero", _NO_DIFFERENCE)
        return SignificanceResult(statistic=0.0, pvalue=1.0, test="Wilcoxon signed-rank", n=n,
                                  k=2, alternative=alternative, note=note)
    from scipy import stats  # heavy import (~1 s), only when needed

    res = stats.wilcoxon(d, zero_method=zero_method, correction=correction,
                         alternative=alternative, method=method)
    return SignificanceResult(statistic=float(res.statistic), pvalue=float(res.pvalue),
                              test="Wilcoxon signed-rank", n=n, k=2, alternative=alternative)


def mannwhitneyu(
    x: Any,
    y: Any,
    *,
    alternative: str = "two-sided",
    use_continuity: bool = True,
    method: str = "auto",
    nan_policy: str = "propagate",
) -> SignificanceResult:
    """Mann–Whitney U test on two independent samples (``scipy.stats.mannwhitneyu``).

    Parameters
    ----------
    x, y : array_like, 1-d
        The two independent samples (e.g. the scores of two models on different datasets
        or seeds); they may differ in length.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``"greater"``: values of x tend to be larger than values of y.
    use_continuity : bool, default True
        Continuity correction of the normal approximation (when it is used).
    method : {"auto", "exact", "asymptotic"}, default "auto"
        How the p-value is computed (``scipy.stats.mannwhitneyu``).
    nan_policy : {"propagate", "raise", "omit"}, default "propagate"
        "propagate": a missing value gives a NaN result; "raise": an error; "omit": missing
        values are dropped.

    Returns
    -------
    SignificanceResult
        ``statistic`` is U of ``x``, ``pvalue``; ``n`` = total number of observations used.

    Examples
    --------
    >>> res = mannwhitneyu([0.81, 0.83, 0.90, 0.86], [0.70, 0.76, 0.74])
    >>> res.statistic, round(res.pvalue, 4)
    (12.0, 0.0571)
    """
    check_choice("alternative", alternative, _ALTERNATIVES)
    arrays, propagate = _nan_1d([_as_1d(x, "x"), _as_1d(y, "y")], ["x", "y"], nan_policy,
                                paired=False)
    xa, ya = arrays
    n = int(xa.size + ya.size)
    if propagate:
        return SignificanceResult(statistic=math.nan, pvalue=math.nan, test="Mann-Whitney U",
                                  n=n, k=2, alternative=alternative,
                                  note="missing values with nan_policy='propagate'")
    if xa.size == 0 or ya.size == 0:
        raise GenexpyInputError("x and y must each have at least one (non-missing) value.")
    from scipy import stats

    res = stats.mannwhitneyu(xa, ya, alternative=alternative, use_continuity=use_continuity,
                             method=method)
    return SignificanceResult(statistic=float(res.statistic), pvalue=float(res.pvalue),
                              test="Mann-Whitney U", n=n, k=2, alternative=alternative)


def kruskal(
    *samples: Any,
    data: Any = None,
    target: str | None = None,
    alternatives: str | Sequence[Any] | None = None,
    order: Sequence[Any] | None = None,
    y_col: str | None = None,
    group_col: str | None = None,
    nan_policy: str = "propagate",
) -> SignificanceResult:
    """Kruskal–Wallis H test on k independent samples (``scipy.stats.kruskal``).

    Give the samples as positional arguments, or ``data``: a long table (``target``,
    ``alternatives``) or a wide one (one column per group; NaN/null padding is dropped with
    ``nan_policy="omit"``). When all values are equal H is 0/0 (scipy: NaN); the result is
    then ``statistic = 0, pvalue = 1`` with a :class:`DegenerateTestWarning` and a ``note``.

    Parameters
    ----------
    *samples : array_like, 1-d
        The k >= 2 independent samples, one per group (model), of any lengths.
    data : table, optional
        Instead of ``samples``: a long table (with ``target`` and ``alternatives``) or a
        wide one (one column per group).
    target, alternatives : str, optional
        Long ``data``: the column of the values and the column naming the group.
    order : sequence, optional
        With ``data``: the groups to compare, in this order (default: all).
    y_col, group_col : str, optional
        Aliases of ``target`` and ``alternatives`` (scikit-posthocs' names).
    nan_policy : {"propagate", "raise", "omit"}, default "propagate"
        As in :func:`mannwhitneyu`.

    Returns
    -------
    SignificanceResult
        ``statistic`` H (tie-corrected), ``pvalue`` from the chi-square distribution with
        k - 1 degrees of freedom (``df``), ``n`` observations, ``k`` groups.

    Examples
    --------
    >>> res = kruskal([0.81, 0.83, 0.90], [0.70, 0.76, 0.74], [0.80, 0.72, 0.79])
    >>> round(res.statistic, 3), round(res.pvalue, 4), res.df
    (5.956, 0.0509, 2.0)
    """
    if data is not None:
        if samples:
            raise GenexpyInputError("kruskal: give either samples or data=..., not both.")
        y_col, _, group_col, order = _roles("kruskal", target, None, alternatives, order,
                                            y_col, None, group_col)
        alts = _names(order, "order")
        if y_col is not None or group_col is not None:
            if y_col is None or group_col is None:
                raise GenexpyInputError("kruskal: long input needs both y_col and group_col.")
            df = to_polars(data, "data")
            require_columns(df, [y_col, group_col], "data")
            if not df.schema[y_col].is_numeric():
                raise GenexpyInputError(f"data: y_col={y_col!r} is not numeric.")
            d = df.select(pl.col(group_col).cast(pl.String).alias("g"),
                          pl.col(y_col).cast(pl.Float64).fill_null(float("nan")).alias("y"))
            groups = alts or d["g"].unique(maintain_order=True).drop_nulls().to_list()
            arrays = [d.filter(pl.col("g") == g)["y"].to_numpy() for g in groups]
        else:
            m = _to_matrix(data, alternatives=alts, min_conditions=1)
            groups = list(m.alternatives)
            arrays = [m.values[:, j] for j in range(m.values.shape[1])]
    else:
        arrays = [_as_1d(s, f"samples[{t}]") for t, s in enumerate(samples)]
        groups = [str(t) for t in range(len(arrays))]
    if len(arrays) < 2:
        raise GenexpyInputError(f"kruskal: {len(arrays)} group(s); at least 2 are needed.")
    arrays = [_as_1d(a, f"group {g!r}") for a, g in zip(arrays, groups)]
    arrays, propagate = _nan_1d(arrays, [f"group {g!r}" for g in groups], nan_policy,
                                paired=False)
    k = len(arrays)
    n = int(sum(a.size for a in arrays))
    if any(a.size == 0 for a in arrays):
        raise GenexpyInputError("kruskal: every group needs at least one (non-missing) value.")
    allv = np.concatenate(arrays)
    if propagate:
        return SignificanceResult(statistic=math.nan, pvalue=math.nan, test="Kruskal-Wallis H",
                                  df=float(k - 1), n=n, k=k,
                                  note="missing values with nan_policy='propagate'")
    if np.all(allv == allv[0]):
        note = _degenerate("kruskal", f"all {n} values are equal", _NO_DIFFERENCE)
        return SignificanceResult(statistic=0.0, pvalue=1.0, test="Kruskal-Wallis H",
                                  df=float(k - 1), n=n, k=k, note=note)
    from scipy import stats

    res = stats.kruskal(*arrays)
    return SignificanceResult(statistic=float(res.statistic), pvalue=float(res.pvalue),
                              test="Kruskal-Wallis H", df=float(k - 1), n=n, k=k)


