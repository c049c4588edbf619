"""Effect sizes of a difference between two models: how large, not only whether.

* :func:`cohens_dz`: paired Cohen's d (d_z = mean(d) / sd(d)), with the paired t-test;
* :func:`rank_biserial`: the matched-pairs rank-biserial correlation, with Wilcoxon's
  signed-rank test;
* :func:`cliffs_delta`: Cliff's delta for two independent samples, with Mann–Whitney's U.

Each returns an :class:`EffectSizeResult` whose ``statistic`` is the effect size and whose
``pvalue`` is that of the matching scipy test, so ``es, p = cliffs_delta(a, b)`` works.
The p-values and U come from scipy; the effect sizes are one line each on top.

Missing values: ``nan_policy`` defaults to ``"raise"`` in this family; ``"omit"`` is the
other choice (there is no ``"propagate"``: unlike the tests they go with,
:func:`~genexpy_nb.significance.wilcoxon` and
:func:`~genexpy_nb.significance.mannwhitneyu`, whose default is ``"propagate"``).

References
----------
Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed.
Kerby, D. S. (2014). The simple difference formula: an approach to teaching nonparametric
correlation. Comprehensive Psychology 3. Cliff, N. (1993). Dominance statistics: ordinal
analyses to answer ordinal questions. Psychological Bulletin 114(3). Romano, J. et al.
(2006). Appropriate statistics for ordinal level data. Annual meeting of the FAIR.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from .._validation import GenexpyInputError, check_choice
from ._input import _ALTERNATIVES, _as_1d, _nan_1d, _paired_differences
from ._magnitude import romano_label
from ._pvalues import t_pvalue
from ._results import EffectSizeResult, _degenerate

__all__ = ["cohens_dz", "rank_biserial", "cliffs_delta"]


def _cohen_label(d: float) -> str:
    a = abs(d)
    return "negligible" if a < 0.2 else "small" if a < 0.5 else "medium" if a < 0.8 else "large"


#: Romano et al. (2006), shared with the paper table (significance.paper_table)
_romano_label = romano_label


def _paired(x: Any, y: Any, nan_policy: str, func: str) -> np.ndarray:
    d, _ = _paired_differences(
        x, y, nan_policy,
        mismatch=func + ": x and y must be paired (same length), got {nx} and {ny}.",
        no_propagate=f"{func}: nan_policy must be 'raise' or 'omit'.")
    if d.size < 2:
        raise GenexpyInputError(f"{func}: {d.size} pair(s); at least 2 are needed.")
    return d


def _equal_to_rounding(d: np.ndarray, x: Any, y: Any) -> bool:
    """All differences equal, up to the rounding of ``x - y`` (and of the inputs).

    ``cohens_dz(x, x + 0.01)``: the differences are -0.01 give or take 1e-18 of rounding,
    so their sd is rounding noise and mean / sd = -3e15 says nothing about the data. A
    spread within a few units in the last place of the largest input counts as none.
    """
    scale = float(np.max(np.abs(d)))
    for v in (x, y):
        if v is not None:
            a = np.abs(np.asarray(v, dtype=np.float64))
            if a.size and np.isfinite(a).any():
                scale = max(scale, float(np.nanmax(np.where(np.isfinite(a), a, np.nan))))
    return float(d.max() - d.min()) <= 16.0 * np.finfo(np.float64).eps * scale


def cohens_dz(
    x: Any, y: Any = None, *, alternative: str = "two-sided", nan_policy: str = "raise"
) -> EffectSizeResult:
    """Paired Cohen's d: ``d_z = mean(d) / sd(d)`` of the differences d = x - y.

    ``pvalue`` is the paired t-test's (as ``scipy.stats.ttest_1samp`` on d); note
    ``t = d_z * sqrt(n)``. Over CV splits d_z shares the plain t-test's flaw (the splits are
    not independent); over datasets or seeds it is the usual paired effect size. Zero
    variance gives d_z = 0 (all d zero) or ±inf, with a :class:`DegenerateTestWarning`;
    differences that differ only by rounding (``x`` and ``x + 0.01``) count as equal.

    Parameters
    ----------
    x : array_like, 1-d
        The first model's scores (one per dataset, seed or split), or the differences
        x - y when ``y`` is None.
    y : array_like, 1-d, optional
        The second model's scores, paired with ``x``.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The alternative of the paired t-test behind ``pvalue`` (``"greater"``: x is larger).
    nan_policy : {"raise", "omit"}, default "raise"
        "raise": a missing value is an error; "omit": the pairs with a missing value are
        dropped ("propagate" is refused: an effect size of NaN says nothing).

    Returns
    -------
    EffectSizeResult
        ``statistic`` = ``effect_size`` = d_z (in standard deviations of the differences),
        ``pvalue`` of the paired t-test, ``df`` = n - 1, ``magnitude`` after Cohen (1988):
        ``|d| < 0.2`` negligible, ``< 0.5`` small, ``< 0.8`` medium, else large.

    Examples
    --------
    >>> round(cohens_dz([0.81, 0.83, 0.80, 0.86], [0.80, 0.80, 0.79, 0.82]).statistic, 3)
    1.5
    """
    check_choice("alternative", alternative, _ALTERNATIVES)
    d = _paired(x, y, nan_policy, "cohens_dz")
    n = int(d.size)
    mean = float(d.mean())
    if _equal_to_rounding(d, x, y):
        if mean == 0:
            dz, p = 0.0, 1.0 if alternative == "two-sided" else 0.5
            note = _degenerate("cohens_dz", f"all {n} differences are zero",
                               "reported as d_z = 0")
        else:
            dz = math.copysign(math.inf, mean)
            p = 0.0 if alternative == "two-sided" or (alternative == "greater") == (
                mean > 0) else 1.0
            note = _degenerate("cohens_dz", f"all {n} differences equal {mean:.6g} (up to "
                               "rounding)", "reported as d_z = +-inf")
        return EffectSizeResult(statistic=dz, pvalue=p, test="Cohen's d_z (paired)",
                                df=float(n - 1), n=n, k=2, alternative=alternative,
                                magnitude=_cohen_label(dz), note=note)
    dz = mean / float(d.std(ddof=1))
    # the paired t-test's p-value: t = d_z sqrt(n) on n - 1 dof (as scipy.stats.ttest_1samp,
    # tested; scipy.special directly, ~100x cheaper per call)
    p = t_pvalue(dz * math.sqrt(n), float(n - 1), alternative)
    return EffectSizeResult(statistic=dz, pvalue=p, test="Cohen's d_z (paired)",
                            df=float(n - 1), n=n, k=2, alternative=alternative,
                            magnitude=_cohen_label(dz))


def rank_biserial(
    x: Any, y: Any = None, *, alternative: str = "two-sided", nan_policy: str = "raise"
) -> EffectSizeResult:
    """Matched-pairs rank-biserial correlation of the differences d = x - y.

    ``r = (T+ - T-) / (T+ + T-)`` with T+ (T-) the sum of the ranks of ``|d|`` over the positive
    (negative) differences, zeros dropped (Kerby 2014): +1 when x wins every pair, -1 when
    y does. ``pvalue`` is Wilcoxon's signed-rank test (``scipy.stats.wilcoxon``). All
    differences zero gives r = 0, p = 1 with a :class:`DegenerateTestWarning`.

    Parameters
    ----------
    x : array_like, 1-d
        The first model's scores, or the differences x - y when ``y`` is None.
    y : array_like, 1-d, optional
        The second model's scores, paired with ``x``.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The alternative of Wilcoxon's test behind ``pvalue`` (``"greater"``: x is larger).
    nan_policy : {"raise", "omit"}, default "raise"
        As in :func:`cohens_dz`.

    Returns
    -------
    EffectSizeResult
        ``statistic`` = r in [-1, 1], ``pvalue`` of Wilcoxon's signed-rank test,
        ``magnitude`` after Romano et al. (2006).

    Examples
    --------
    >>> rank_biserial([3.0, 5.0, 4.0, 8.0], [1.0, 2.0, 6.0, 2.0]).statistic
    0.7
    """
    check_choice("alternative", alternative, _ALTERNATIVES)
    d = _paired(x, y, nan_policy, "rank_biserial")
    nz = d[d != 0]
    n = int(d.size)
    if nz.size == 0:
        note = _degenerate("rank_biserial", f"all {n} differences are zero",
                           "reported as r = 0, pvalue = 1")
        return EffectSizeResult(statistic=0.0, pvalue=1.0, test="rank-biserial (paired)",
                                n=n, k=2, alternative=alternative, magnitude="negligible",
                                note=note)
    ranks = stats.rankdata(np.abs(nz))
    t_plus, t_minus = float(ranks[nz > 0].sum()), float(ranks[nz < 0].sum())
    r = (t_plus - t_minus) / (t_plus + t_minus)
    p = float(stats.wilcoxon(d, alternative=alternative).pvalue)
    return EffectSizeResult(statistic=r, pvalue=p, test="rank-biserial (paired)", n=n, k=2,
                            alternative=alternative, magnitude=_romano_label(r))


def cliffs_delta(
    x: Any, y: Any, *, alternative: str = "two-sided", nan_policy: str = "raise"
) -> EffectSizeResult:
    """Cliff's delta of two independent samples: ``P(X > Y) - P(X < Y)``.

    ``delta = (#{x_i > y_j} - #{x_i < y_j}) / (n m)`` in [-1, 1], computed as
    ``2 U / (n m) - 1`` from Mann–Whitney's U of x (``scipy.stats.mannwhitneyu``, which also
    gives ``pvalue``). Use it for results that are not paired (different test sets or
    datasets per model); for paired results use :func:`rank_biserial`.

    Parameters
    ----------
    x, y : array_like, 1-d
        The two independent samples (their lengths n and m may differ).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The alternative of the Mann–Whitney test behind ``pvalue`` (``"greater"``: values of
        x tend to be larger).
    nan_policy : {"raise", "omit"}, default "raise"
        "raise": a missing value is an error; "omit": missing values are dropped.

    Returns
    -------
    EffectSizeResult
        ``statistic`` = delta in [-1, 1] (+1: every x beats every y), ``pvalue`` of the
        Mann–Whitney U test, ``n`` = n + m, ``magnitude`` after Romano et al. (2006).

    Examples
    --------
    >>> round(cliffs_delta([1.0, 2.0, 3.0], [1.0, 1.0, 0.0]).statistic, 4)
    0.7778
    """
    check_choice("alternative", alternative, _ALTERNATIVES)
    if nan_policy == "propagate":
        raise GenexpyInputError("cliffs_delta: nan_policy must be 'raise' or 'omit'.")
    arrays, _ = _nan_1d([_as_1d(x, "x"), _as_1d(y, "y")], ["x", "y"], nan_policy,
                        paired=False)
    xa, ya = arrays
    if xa.size == 0 or ya.size == 0:
        raise GenexpyInputError("cliffs_delta: x and y need at least one value each.")
    res = stats.mannwhitneyu(xa, ya, alternative=alternative)
    delta = 2.0 * float(res.statistic) / (xa.size * ya.size) - 1.0
    return EffectSizeResult(statistic=delta, pvalue=float(res.pvalue), test="Cliff's delta",
                            n=int(xa.size + ya.size), k=2, alternative=alternative,
                            magnitude=_romano_label(delta))
