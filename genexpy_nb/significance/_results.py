"""Result objects of :mod:`genexpy_nb.significance`, and the warning for degenerate tests.

Every test returns a frozen dataclass with ``statistic`` and ``pvalue`` that unpacks like
scipy's results (``stat, p = res``) and prints on one readable line.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, fields
from typing import ClassVar, NamedTuple

from .._validation import check_probability

__all__ = [
    "DegenerateTestWarning",
    "SignificanceResult",
    "FriedmanResult",
    "SkillingsMackResult",
    "ConfidenceInterval",
    "CorrectedTTestResult",
    "FiveByTwoCVResult",
    "McNemarResult",
    "BootstrapResult",
    "EffectSizeResult",
]


class DegenerateTestWarning(RuntimeWarning):
    """A test met data without the variation it needs (all ties, all differences zero, ...).

    The result then holds a documented degenerate value (e.g. ``statistic = 0, pvalue = 1``
    when there is no difference at all) and its ``note`` says why.
    """


def _degenerate(test: str, why: str, result: str) -> str:
    """Warn that ``test`` is degenerate and return the note stored on the result."""
    note = f"{why}; {result}"
    warnings.warn(f"{test}: {note}.", DegenerateTestWarning, stacklevel=3)
    return note


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, tuple):
        return "(" + ", ".join(_fmt(x) for x in v) + ")"
    return repr(v)


class _UnpacksAsPair:
    """Unpacks like scipy's results (``a, b = res``, ``res[0]``): the pair ``_pair()``."""

    def _pair(self) -> tuple:
        raise NotImplementedError

    def __iter__(self):
        return iter(self._pair())

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i):
        return self._pair()[i]


#: what every test's result holds (the fields of SignificanceResult), as its subclasses'
#: docstrings list them
_INHERITED = ("statistic", "pvalue", "test", "df", "n", "k", "alternative", "note")


@dataclass(frozen=True, eq=False, kw_only=True)
class SignificanceResult(_UnpacksAsPair):
    """The result of a test: ``statistic`` and ``pvalue``, unpackable like scipy's results.

    The tests make it; its fields (the parameters below) are its attributes.

    Parameters
    ----------
    statistic, pvalue : float
        The test statistic and its p-value (NaN only when the input had missing values and
        ``nan_policy="propagate"``).
    test : str
        Name of the test.
    df : float or tuple of float or None
        Degrees of freedom of the reference distribution (None for exact/normal tests).
    n : int or None
        Number of conditions (blocks), pairs or observations used.
    k : int or None
        Number of alternatives (groups) compared.
    alternative : str
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    note : str or None
        Why the result is degenerate (no variation in the data), else None; a
        :class:`DegenerateTestWarning` said the same when the result was made.

    Examples
    --------
    >>> from genexpy_nb.significance import friedman
    >>> res = friedman([[1, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3]], higher_is_better=False)
    >>> stat, p = res
    >>> (stat, p) == (res.statistic, res.pvalue)
    True
    """

    statistic: float
    pvalue: float
    test: str
    df: float | tuple[float, float] | None = None
    n: int | None = None
    k: int | None = None
    alternative: str = "two-sided"
    note: str | None = None

    #: fields shown by repr after test, statistic, pvalue (subclasses extend it)
    _show: ClassVar[tuple[str, ...]] = ("df", "n", "k")

    def __init_subclass__(cls, **kwargs):
        """Add the fields every result has to a test's result's docstring (Other Parameters).

        Those its own Parameters section does not name, before its Examples.
        """
        super().__init_subclass__(**kwargs)
        doc = cls.__doc__ or ""
        own = re.findall(r"^    ([\w, ]+) :", doc.partition("Parameters\n")[2], re.M)
        named = {n.strip() for line in own for n in line.split(",")}
        rest = ", ".join(n for n in _INHERITED if n not in named)
        head, examples, tail = doc.partition("\n    Examples\n")
        cls.__doc__ = (f"{head}\n    Other Parameters\n    ----------------\n    {rest}\n"
                       "        As in :class:`SignificanceResult`; they and the parameters "
                       f"above\n        are the result's attributes.\n{examples}{tail}")

    def _pair(self) -> tuple:
        return (self.statistic, self.pvalue)

    def __repr__(self) -> str:
        names = {f.name for f in fields(self)}
        parts = [f"test={self.test!r}", f"statistic={_fmt(self.statistic)}",
                 f"pvalue={_fmt(self.pvalue)}"]
        for name in self._show:
            if name in names and getattr(self, name) is not None:
                parts.append(f"{name}={_fmt(getattr(self, name))}")
        if self.alternative != "two-sided":
            parts.append(f"alternative={self.alternative!r}")
        if self.note:
            parts.append(f"note={self.note!r}")
        return f"{type(self).__name__}({', '.join(parts)})"


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class FriedmanResult(SignificanceResult):
    """Friedman's test, with Iman–Davenport's F version and Kendall's W.

    Made by :func:`~genexpy_nb.significance.friedman`.

    Parameters
    ----------
    alternatives : tuple of str
        Names of the alternatives, in the order of the columns.
    mean_ranks : tuple of float
        Mean within-condition rank of each alternative (1 = best).
    n_dropped : int
        Conditions dropped for missing values (``nan_policy="omit"``).
    iman_davenport_statistic, iman_davenport_pvalue : float
        ``F = (n - 1) chi2 / (n (k - 1) - chi2)`` on ``((k-1), (k-1)(n-1))`` degrees of
        freedom (Iman & Davenport 1980; less conservative, recommended by Demšar 2006).
    iman_davenport_df : tuple of float
        The F statistic's degrees of freedom, ``(k - 1, (k - 1)(n - 1))``.
    kendall_w : float
        Kendall's coefficient of concordance ``W = chi2 / (n (k - 1))`` in [0, 1]: 1 = every
        condition ranks the alternatives the same way.

    Examples
    --------
    >>> from genexpy_nb.significance import friedman
    >>> res = friedman([[1, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3]], higher_is_better=False)
    >>> res.ranks_frame().rows(), round(res.kendall_w, 4)
    ([('0', 1.25), ('1', 2.0), ('2', 2.75)], 0.5625)
    """

    alternatives: tuple[str, ...] = ()
    mean_ranks: tuple[float, ...] = ()
    n_dropped: int = 0
    iman_davenport_statistic: float = math.nan
    iman_davenport_pvalue: float = math.nan
    iman_davenport_df: tuple[float, float] = (math.nan, math.nan)
    kendall_w: float = math.nan
    _show: ClassVar[tuple[str, ...]] = ("df", "n", "k", "kendall_w")

    def ranks_frame(self):
        """Tidy polars frame: one row per alternative with its mean rank (1 = best)."""
        import polars as pl

        return pl.DataFrame(
            {"alternative": list(self.alternatives), "mean_rank": list(self.mean_ranks)},
            schema={"alternative": pl.String, "mean_rank": pl.Float64},
        )


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class SkillingsMackResult(SignificanceResult):
    """Skillings–Mack test (Friedman's test with missing values).

    Made by :func:`~genexpy_nb.significance.skillings_mack`.

    Parameters
    ----------
    alternatives : tuple of str
        Names of the alternatives, in the order of the columns.
    adjusted_sums : tuple of float
        ``A_j`` of Skillings & Mack (1981), one per alternative; negative = ranked better
        than average (rank 1 = best).
    n_missing : int
        Missing (alternative, condition) entries in the conditions used.
    n_dropped : int
        Conditions with fewer than two observed alternatives (they carry no information).
    """

    alternatives: tuple[str, ...] = ()
    adjusted_sums: tuple[float, ...] = ()
    n_missing: int = 0
    n_dropped: int = 0
    _show: ClassVar[tuple[str, ...]] = ("df", "n", "k", "n_missing")


class ConfidenceInterval(NamedTuple):
    """A confidence interval ``(low, high)``.

    Parameters
    ----------
    low, high : float
        The lower and upper bounds, in the units of the estimate (``-inf`` or ``inf`` for a
        one-sided interval).

    Examples
    --------
    >>> lo, hi = ConfidenceInterval(0.01, 0.05)
    >>> hi - lo > 0
    True
    """

    low: float
    high: float


def _t_interval(mean: float, se: float, df: float, alternative: str,
                confidence_level: float) -> ConfidenceInterval:
    from scipy import stats  # heavy import, only when an interval is asked for

    c = check_probability("confidence_level", confidence_level)
    if alternative == "two-sided":
        q = stats.t.ppf(0.5 + c / 2.0, df)
        return ConfidenceInterval(mean - q * se, mean + q * se)
    q = stats.t.ppf(c, df)
    if alternative == "greater":
        return ConfidenceInterval(mean - q * se, math.inf)
    return ConfidenceInterval(-math.inf, mean + q * se)


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class CorrectedTTestResult(SignificanceResult):
    """Nadeau–Bengio corrected resampled t-test.

    Made by :func:`~genexpy_nb.significance.corrected_ttest`.

    Parameters
    ----------
    mean : float
        Mean of the paired differences ``d_j`` (J of them).
    sample_variance : float
        ``s^2``, the sample variance of the d_j (ddof = 1).
    variance : float
        The corrected variance of the mean, ``(1/J + n_test/n_train) * s^2``.
    uncorrected_variance : float
        ``s^2 / J``, what the plain paired t-test uses (too small under CV: the training
        sets overlap).
    std_error : float
        ``sqrt(variance)``: the *corrected standard error*; say so on any error bar drawn
        with it.
    n_train, n_test : float
        Training and test set sizes of one split (n1, n2).

    Examples
    --------
    >>> from genexpy_nb.significance import corrected_ttest
    >>> res = corrected_ttest([0.1, 0.3, 0.2, 0.4], n_train=90, n_test=10)
    >>> low, high = res.confidence_interval(0.95)
    >>> round(res.std_error, 4), round(float(low), 4), round(float(high), 4)
    (0.0776, 0.0031, 0.4969)
    """

    mean: float = math.nan
    sample_variance: float = math.nan
    variance: float = math.nan
    uncorrected_variance: float = math.nan
    std_error: float = math.nan
    n_train: float = math.nan
    n_test: float = math.nan
    _show: ClassVar[tuple[str, ...]] = ("df", "n", "mean", "std_error")

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Confidence interval for the mean difference, from the corrected standard error.

        ``mean ± t_{J-1, 1 - (1-c)/2} * std_error`` (two-sided); one-sided bounds for
        ``alternative="greater"`` (``(low, inf)``) and ``"less"`` (``(-inf, high)``).
        """
        return _t_interval(self.mean, self.std_error, float(self.df),  # type: ignore[arg-type]
                           self.alternative, confidence_level)


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class FiveByTwoCVResult(SignificanceResult):
    """Dietterich's 5×2cv paired t-test or Alpaydin's combined 5×2cv F test.

    Made by :func:`~genexpy_nb.significance.paired_ttest_5x2cv` and
    :func:`~genexpy_nb.significance.combined_ftest_5x2cv`.

    Parameters
    ----------
    differences : tuple of tuple of float
        The 5 × 2 paired differences ``p_i^(j)`` (repetition i, fold j), a - b.
    variances : tuple of float
        ``s_i^2 = (p_i^(1) - pbar_i)^2 + (p_i^(2) - pbar_i)^2`` per repetition.
    mean : float
        Mean of the 10 differences (an estimate of the difference, not the test's numerator).

    Examples
    --------
    >>> from genexpy_nb.significance import paired_ttest_5x2cv
    >>> d = [[0.01, 0.03], [0.02, 0.0], [0.02, 0.04], [-0.01, 0.01], [0.03, 0.02]]
    >>> res = paired_ttest_5x2cv(d)
    >>> round(res.mean, 4), res.df
    (0.017, 5.0)
    """

    differences: tuple[tuple[float, float], ...] = ()
    variances: tuple[float, ...] = ()
    mean: float = math.nan
    _show: ClassVar[tuple[str, ...]] = ("df", "mean")


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class McNemarResult(SignificanceResult):
    """McNemar's test of two classifiers on one test set.

    Made by :func:`~genexpy_nb.significance.mcnemar`.

    Parameters
    ----------
    b, c : int
        Discordant counts: b = A right and B wrong, c = A wrong and B right.
    method : str
        ``"exact"``, ``"mid-p"`` or ``"asymptotic"`` (the one ``pvalue`` comes from).
    pvalue_exact, pvalue_midp : float
        The exact binomial and mid-p p-values, whatever ``method`` is.
    correction : bool
        Whether the asymptotic statistic has the continuity correction.
    n : int
        Number of test points (a + b + c + d).

    Examples
    --------
    >>> from genexpy_nb.significance import mcnemar
    >>> res = mcnemar(table=[[50, 9], [2, 39]])
    >>> res.b, res.c, res.n, round(res.pvalue_exact, 4)
    (9, 2, 100, 0.0654)
    """

    b: int = 0
    c: int = 0
    method: str = "exact"
    pvalue_exact: float = math.nan
    pvalue_midp: float = math.nan
    correction: bool = True
    _show: ClassVar[tuple[str, ...]] = ("method", "b", "c", "n")


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class BootstrapResult(_UnpacksAsPair):
    """A bootstrap confidence interval of a paired score difference.

    Unpacks as ``statistic, (low, high) = res``. Made by
    :func:`~genexpy_nb.significance.bootstrap_ci`; its fields (the parameters below) are its
    attributes.

    Parameters
    ----------
    statistic : float
        The statistic (e.g. the mean difference) on the observed data.
    confidence_interval : ConfidenceInterval
        The interval ``(low, high)`` of the statistic, in its units.
    standard_error : float
        Bootstrap standard error of the statistic.
    confidence_level : float
        The interval's confidence level (e.g. 0.95).
    method : str
        ``"BCa"``, ``"percentile"`` or ``"basic"`` (``scipy.stats.bootstrap``).
    n_resamples : int
        Number of bootstrap resamples.
    n : int
        Number of pairs.
    note : str or None
        Why the interval is degenerate (all differences equal), else None.

    Examples
    --------
    >>> from genexpy_nb.significance import bootstrap_ci
    >>> res = bootstrap_ci([0.02, 0.03, 0.01, 0.04, 0.02, 0.03], n_resamples=1000, seed=0)
    >>> res.method, res.n, res.confidence_level
    ('BCa', 6, 0.95)
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    confidence_level: float
    method: str
    n_resamples: int
    n: int
    note: str | None = None

    def _pair(self) -> tuple:
        return (self.statistic, self.confidence_interval)

    def __repr__(self) -> str:
        lo, hi = self.confidence_interval
        s = (f"BootstrapResult(statistic={_fmt(self.statistic)}, "
             f"confidence_interval=({_fmt(lo)}, {_fmt(hi)}), "
             f"standard_error={_fmt(self.standard_error)}, "
             f"confidence_level={self.confidence_level:g}, method={self.method!r}, n={self.n}")
        if self.note:
            s += f", note={self.note!r}"
        return s + ")"


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class EffectSizeResult(SignificanceResult):
    """An effect size (``statistic``) with the p-value of its matching test.

    ``effect_size`` is the same number as ``statistic``; ``magnitude`` is the conventional
    label (Cohen 1988 for d; Romano et al. 2006 for Cliff's delta and the rank-biserial
    correlation: ``|r| < 0.147`` negligible, ``< 0.33`` small, ``< 0.474`` medium, else
    large).
    Made by :func:`~genexpy_nb.significance.cohens_dz`,
    :func:`~genexpy_nb.significance.rank_biserial` and
    :func:`~genexpy_nb.significance.cliffs_delta`.

    Parameters
    ----------
    magnitude : str
        ``"negligible"``, ``"small"``, ``"medium"`` or ``"large"``.

    Examples
    --------
    >>> from genexpy_nb.significance import cliffs_delta
    >>> res = cliffs_delta([0.9, 0.8, 0.85], [0.7, 0.75, 0.8])
    >>> round(res.effect_size, 3), res.magnitude
    (0.889, 'large')
    """

    magnitude: str = ""
    _show: ClassVar[tuple[str, ...]] = ("n", "magnitude")

    @property
    def effect_size(self) -> float:
        """The effect size (same as ``statistic``)."""
        return self.statistic
