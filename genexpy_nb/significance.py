"""Classical significance tests for comparing ML alternatives (Demšar 2006; the
paper's Appendix A).

Tests over many conditions (datasets, subtasks, CV folds) and alternatives (models, encoders):

* :func:`friedman` (with Iman–Davenport's F and Kendall's W), :func:`skillings_mack`
  (Friedman's test when some alternatives are missing on some conditions);
* post-hoc comparisons of all pairs: :func:`posthoc_conover` (Conover–Iman, Friedman
  version), :func:`posthoc_nemenyi`, :func:`pairwise_wilcoxon`,
  :func:`pairwise_corrected_ttest`; the critical difference of Nemenyi's test
  (:func:`nemenyi_cd`, :func:`critical_difference`) and the cliques of alternatives that are
  not significantly different (:func:`cliques`), drawn by
  :func:`genexpy_nb.charts.significance.cd_diagram`;
* two-sample and k-sample tests with scipy's conventions: :func:`wilcoxon`,
  :func:`mannwhitneyu`, :func:`kruskal`;
* the Nadeau–Bengio corrected resampled t-test (:func:`corrected_ttest`) on paired
  differences from repeated k-fold cross-validation with shared splits
  (:func:`repeated_kfold_splits`).

Conventions
-----------
* **Inputs.** Tests over conditions take a *wide* table (one row per condition, one column
  per alternative: a polars/pandas frame, a 2-d NumPy array or a list of rows) or a *long*
  tidy table with ``y_col`` (the value), ``block_col`` (the condition) and ``group_col``
  (the alternative). In a wide frame ``block_col`` names the column that labels the
  conditions; ``alternatives`` selects and orders the alternatives (or names the columns of
  an array). Values can be scores, errors or ranks: every rank-based test re-ranks them
  within each condition, **rank 1 = best**, lower values better unless
  ``higher_is_better=True`` (the direction changes mean ranks, never p-values of two-sided
  tests).
* **Results** follow scipy: an object with ``statistic`` and ``pvalue`` that also unpacks as
  ``statistic, pvalue = result``, plus the test's name, degrees of freedom ``df``, sizes and
  test-specific fields. Comparisons of many pairs are tidy polars frames, one row per pair
  ``(alternative_1, alternative_2)`` in the order of the alternatives.
* **Missing values** (NaN / null), ``nan_policy`` as in scipy: ``"propagate"`` gives NaN
  results, ``"raise"`` raises :class:`~genexpy_nb.GenexpyInputError`, ``"omit"`` drops the
  conditions with a missing value (pairwise tests: the pairs with one). To use incomplete
  conditions instead of dropping them, use :func:`skillings_mack`.
* **Undefined results** (no variation at all: every condition ties all alternatives, all
  paired differences are zero) are NaN, without a warning — as in scipy and R, but silent.
* ``p_adjust`` takes statsmodels' method names (:data:`P_ADJUST_METHODS`); ``None`` (the
  default, as in scikit-posthocs) reports unadjusted p-values.

References
----------
Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. JMLR 7.
Conover, W. J. (1999). Practical Nonparametric Statistics, 3rd ed., Wiley (pp. 369-373).
Skillings, J. H. and Mack, G. A. (1981). On the use of a Friedman-type statistic in balanced
and unbalanced block designs. Technometrics 23(2), 171-177.
Nadeau, C. and Bengio, Y. (2003). Inference for the generalization error. Machine Learning
52, 239-281; Bouckaert, R. and Frank, E. (2004). Evaluating the replicability of
significance tests for comparing learning algorithms. PAKDD.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import polars as pl
from scipy import stats

from ._numba.significance import _rank_rows, _skillings_mack_parts
from ._validation import (
    GenexpyInputError,
    check_positive_int,
    check_probability,
    require_columns,
    rng_from_seed,
    to_polars,
)

__all__ = [
    "P_ADJUST_METHODS",
    "SignificanceResult",
    "FriedmanResult",
    "SkillingsMackResult",
    "CorrectedTTestResult",
    "ConfidenceInterval",
    "friedman",
    "skillings_mack",
    "posthoc_conover",
    "posthoc_nemenyi",
    "pairwise_wilcoxon",
    "pairwise_corrected_ttest",
    "nemenyi_cd",
    "critical_difference",
    "cliques",
    "wilcoxon",
    "mannwhitneyu",
    "kruskal",
    "corrected_ttest",
    "repeated_kfold_splits",
    "adjust_pvalues",
    "rank_within_conditions",
]

#: multiple-testing corrections accepted by ``p_adjust`` (statsmodels' ``multipletests``)
P_ADJUST_METHODS: tuple[str, ...] = (
    "bonferroni", "sidak", "holm-sidak", "holm", "simes-hochberg", "hommel",
    "fdr_bh", "fdr_by", "fdr_tsbh", "fdr_tsbky",
)

_ALTERNATIVES = ("two-sided", "greater", "less")
_NAN_POLICIES = ("propagate", "raise", "omit")


# =====================================================================================
# Result objects
# =====================================================================================


@dataclass(frozen=True, eq=False, kw_only=True)
class SignificanceResult:
    """The result of a test: ``statistic`` and ``pvalue``, unpackable like scipy's results.

    Attributes
    ----------
    statistic, pvalue : float
        The test statistic and its p-value (NaN when undefined).
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

    Examples
    --------
    >>> res = friedman([[1, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3]])
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

    def __iter__(self):
        return iter((self.statistic, self.pvalue))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i):
        return (self.statistic, self.pvalue)[i]

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(test={self.test!r}, statistic={self.statistic!r}, "
            f"pvalue={self.pvalue!r}, df={self.df!r}, n={self.n!r}, k={self.k!r})"
        )


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class FriedmanResult(SignificanceResult):
    """Friedman's test, with Iman–Davenport's F version and Kendall's W.

    Attributes
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
    kendall_w : float
        Kendall's coefficient of concordance ``W = chi2 / (n (k - 1))`` in [0, 1]: 1 = every
        condition ranks the alternatives the same way.
    """

    alternatives: tuple[str, ...] = ()
    mean_ranks: tuple[float, ...] = ()
    n_dropped: int = 0
    iman_davenport_statistic: float = math.nan
    iman_davenport_pvalue: float = math.nan
    iman_davenport_df: tuple[float, float] = (math.nan, math.nan)
    kendall_w: float = math.nan

    def ranks_frame(self) -> pl.DataFrame:
        """Tidy frame: one row per alternative with its mean rank (1 = best)."""
        return pl.DataFrame(
            {"alternative": list(self.alternatives), "mean_rank": list(self.mean_ranks)},
            schema={"alternative": pl.String, "mean_rank": pl.Float64},
        )


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class SkillingsMackResult(SignificanceResult):
    """Skillings–Mack test (Friedman's test with missing values).

    Attributes
    ----------
    alternatives : tuple of str
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


class ConfidenceInterval(NamedTuple):
    """A confidence interval ``(low, high)``."""

    low: float
    high: float


@dataclass(frozen=True, eq=False, kw_only=True, repr=False)
class CorrectedTTestResult(SignificanceResult):
    """Nadeau–Bengio corrected resampled t-test.

    Attributes
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
    """

    mean: float = math.nan
    sample_variance: float = math.nan
    variance: float = math.nan
    uncorrected_variance: float = math.nan
    std_error: float = math.nan
    n_train: float = math.nan
    n_test: float = math.nan

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Confidence interval for the mean difference, from the corrected standard error.

        ``mean ± t_{J-1, 1 - (1-c)/2} * std_error`` (two-sided); one-sided bounds for
        ``alternative="greater"`` (``(low, inf)``) and ``"less"`` (``(-inf, high)``).
        """
        c = check_probability("confidence_level", confidence_level)
        df = float(self.df)  # type: ignore[arg-type]
        if self.alternative == "two-sided":
            q = stats.t.ppf(0.5 + c / 2.0, df)
            return ConfidenceInterval(self.mean - q * self.std_error,
                                      self.mean + q * self.std_error)
        q = stats.t.ppf(c, df)
        if self.alternative == "greater":
            return ConfidenceInterval(self.mean - q * self.std_error, math.inf)
        return ConfidenceInterval(-math.inf, self.mean + q * self.std_error)


# =====================================================================================
# Input handling (one place)
# =====================================================================================


@dataclass(frozen=True)
class _Matrix:
    values: np.ndarray  # (n, k) float64, NaN = missing
    alternatives: tuple[str, ...]
    conditions: tuple[Any, ...] | None = field(default=None)


def _check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    if value not in choices:
        raise GenexpyInputError(
            f"{name} must be one of {', '.join(repr(c) for c in choices)}, got {value!r}."
        )
    return value


def _check_p_adjust(p_adjust: str | None) -> str | None:
    if p_adjust is None:
        return None
    if not isinstance(p_adjust, str) or p_adjust not in P_ADJUST_METHODS:
        raise GenexpyInputError(
            f"p_adjust={p_adjust!r} is not a known correction. Use None (no correction) or "
            f"one of statsmodels' names: {', '.join(P_ADJUST_METHODS)}."
        )
    return p_adjust


def _names(alternatives: Sequence[Any] | None, name: str = "alternatives") -> list[str] | None:
    if alternatives is None:
        return None
    if isinstance(alternatives, str):
        raise GenexpyInputError(f"{name} must be a list of names, not one string.")
    out = [str(a) for a in alternatives]
    if len(set(out)) != len(out):
        raise GenexpyInputError(f"{name} contains duplicates: {out}.")
    return out


def _long_matrix(df: pl.DataFrame, y_col, block_col, group_col, alternatives, name) -> _Matrix:
    if y_col is None or block_col is None or group_col is None:
        raise GenexpyInputError(
            f"{name}: long (tidy) input needs all of y_col (the value), block_col (the "
            "condition) and group_col (the alternative); got "
            f"y_col={y_col!r}, block_col={block_col!r}, group_col={group_col!r}."
        )
    require_columns(df, [y_col, block_col, group_col], name)
    if not df.schema[y_col].is_numeric():
        raise GenexpyInputError(
            f"{name}: y_col={y_col!r} has dtype {df.schema[y_col]}, expected numbers. "
            "Cast it, e.g. pl.col(y_col).cast(pl.Float64)."
        )
    d = df.select(
        pl.col(block_col).alias("_block"),
        pl.col(group_col).cast(pl.String).alias("_group"),
        pl.col(y_col).cast(pl.Float64).fill_null(float("nan")).alias("_y"),
    )
    roles = (("_block", f"block_col={block_col!r}"), ("_group", f"group_col={group_col!r}"))
    for col, role in roles:
        if d[col].null_count():
            raise GenexpyInputError(
                f"{name}: {role} has null values; drop those rows or give them a label."
            )
    dup = d.group_by("_block", "_group").len().filter(pl.col("len") > 1)
    if dup.height:
        b, g = dup.row(0)[:2]
        raise GenexpyInputError(
            f"{name}: {dup.height} (condition, alternative) pair(s) have several rows, e.g. "
            f"{block_col}={b!r}, {group_col}={g!r}. Average the repetitions first, e.g. "
            f"df.group_by([{block_col!r}, {group_col!r}]).agg(pl.col({y_col!r}).mean()), or "
            "add the repeated factor to the condition."
        )
    groups = d["_group"].unique(maintain_order=True).to_list()
    if alternatives is not None:
        unknown = [a for a in alternatives if a not in set(groups)]
        if unknown:
            raise GenexpyInputError(
                f"alternatives: {unknown} not found in group_col={group_col!r}; "
                f"available: {groups}."
            )
        groups = list(alternatives)
        d = d.filter(pl.col("_group").is_in(groups))
    blocks = d["_block"].unique(maintain_order=True)
    bidx = pl.DataFrame({"_block": blocks, "_bi": np.arange(blocks.len(), dtype=np.int64)})
    gidx = pl.DataFrame({"_group": groups, "_gi": np.arange(len(groups), dtype=np.int64)},
                        schema={"_group": pl.String, "_gi": pl.Int64})
    d = d.join(bidx, on="_block", how="left").join(gidx, on="_group", how="left")
    values = np.full((blocks.len(), len(groups)), np.nan)
    values[d["_bi"].to_numpy(), d["_gi"].to_numpy()] = d["_y"].to_numpy()
    return _Matrix(values, tuple(groups), tuple(blocks.to_list()))


def _wide_frame_matrix(df: pl.DataFrame, block_col, alternatives, name) -> _Matrix:
    conditions = None
    cols = list(df.columns)
    if block_col is not None:
        require_columns(df, [block_col], name)
        conditions = tuple(df[block_col].to_list())
        cols = [c for c in cols if c != block_col]
    if alternatives is not None:
        require_columns(df, alternatives, name)
        cols = list(alternatives)
    bad = [c for c in cols if not df.schema[c].is_numeric()]
    if bad:
        raise GenexpyInputError(
            f"{name}: column(s) {bad} are not numeric. In a wide table every column is an "
            "alternative; name the column that labels the conditions with block_col=..., "
            "select the alternatives with alternatives=[...], or pass a long table with "
            "y_col, block_col and group_col."
        )
    values = (
        df.select([pl.col(c).cast(pl.Float64).fill_null(float("nan")) for c in cols])
        .to_numpy()
        .astype(np.float64, copy=False)
    )
    return _Matrix(np.ascontiguousarray(values), tuple(str(c) for c in cols), conditions)


def _array_matrix(data, alternatives, name) -> _Matrix:
    try:
        values = np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError):
        raise GenexpyInputError(
            f"{name}: could not read it as a numeric matrix; rows of different lengths "
            "(a ragged list) or non-numeric entries. Give one row per condition with one "
            "value per alternative (NaN where missing)."
        ) from None
    if values.ndim != 2:
        raise GenexpyInputError(
            f"{name}: expected a 2-d matrix (conditions x alternatives), got {values.ndim} "
            f"dimension(s) with shape {values.shape}."
        )
    k = values.shape[1]
    if alternatives is not None:
        if len(alternatives) != k:
            raise GenexpyInputError(
                f"alternatives: {len(alternatives)} names for a matrix with {k} columns."
            )
        names = tuple(alternatives)
    else:
        names = tuple(str(j) for j in range(k))
    return _Matrix(np.ascontiguousarray(values), names, None)


def _is_frame(data: Any) -> bool:
    if isinstance(data, (pl.DataFrame, pl.LazyFrame, dict)):
        return True
    return type(data).__module__.split(".")[0] in ("pandas", "pyarrow") and hasattr(
        data, "columns"
    )


def _to_matrix(
    data: Any,
    *,
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
    name: str = "data",
    min_alternatives: int = 2,
    min_conditions: int = 2,
) -> _Matrix:
    """Wide or long input -> (n, k) float64 matrix with NaN for missing; checks sizes."""
    alts = _names(alternatives)
    if y_col is not None or group_col is not None:
        m = _long_matrix(to_polars(data, name), y_col, block_col, group_col, alts, name)
    elif _is_frame(data):
        m = _wide_frame_matrix(to_polars(data, name), block_col, alts, name)
    else:
        if block_col is not None:
            raise GenexpyInputError(
                f"{name}: block_col={block_col!r} names a column, but the data is an array. "
                "Pass a polars/pandas frame, or leave block_col out."
            )
        m = _array_matrix(data, alts, name)
    n, k = m.values.shape
    if k < min_alternatives:
        raise GenexpyInputError(
            f"{name}: {k} alternative(s); at least {min_alternatives} are needed to compare "
            "(one column per alternative, one row per condition)."
        )
    if n < min_conditions:
        raise GenexpyInputError(
            f"{name}: {n} condition(s); at least {min_conditions} are needed (one row per "
            "condition, one column per alternative)."
        )
    if np.isinf(m.values).any():
        raise GenexpyInputError(
            f"{name}: contains infinite values; replace them (e.g. by NaN for missing)."
        )
    return m


def _orient(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Values such that smaller = better (rank 1 = best)."""
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise GenexpyInputError(
            f"higher_is_better must be True or False, got {higher_is_better!r}."
        )
    return np.ascontiguousarray(-values if higher_is_better else values)


def _complete_rows(values: np.ndarray, nan_policy: str, name: str, min_rows: int = 2):
    """Apply nan_policy to a matrix: returns (values, n_dropped, propagate_nan)."""
    _check_choice("nan_policy", nan_policy, _NAN_POLICIES)
    missing = np.isnan(values)
    if not missing.any():
        return values, 0, False
    if nan_policy == "raise":
        i, j = np.argwhere(missing)[0]
        raise GenexpyInputError(
            f"{name}: {int(missing.sum())} missing value(s) (NaN/null), first in row {i}, "
            f"column {j}. Use nan_policy='omit' to drop incomplete conditions, or "
            "skillings_mack(...) to use them."
        )
    if nan_policy == "propagate":
        return values, 0, True
    keep = ~missing.any(axis=1)
    out = np.ascontiguousarray(values[keep])
    if out.shape[0] < min_rows:
        raise GenexpyInputError(
            f"{name}: only {out.shape[0]} condition(s) have no missing value (need "
            f"{min_rows}). Use skillings_mack(...), which uses incomplete conditions."
        )
    return out, int((~keep).sum()), False


def _as_1d(x: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise GenexpyInputError(f"{name}: expected a sequence of numbers.") from None
    if arr.ndim != 1:
        raise GenexpyInputError(f"{name}: expected a 1-d sequence, got shape {arr.shape}.")
    if np.isinf(arr).any():
        raise GenexpyInputError(f"{name}: contains infinite values.")
    return arr


def _nan_1d(arrays: list[np.ndarray], names: list[str], nan_policy: str, paired: bool):
    """nan_policy for 1-d samples: returns (arrays, propagate_nan)."""
    _check_choice("nan_policy", nan_policy, _NAN_POLICIES)
    has = [bool(np.isnan(a).any()) for a in arrays]
    if not any(has):
        return arrays, False
    if nan_policy == "raise":
        raise GenexpyInputError(
            f"{names[has.index(True)]}: contains NaN. Use nan_policy='omit' to drop "
            f"{'the pairs with' if paired else ''} missing values."
        )
    if nan_policy == "propagate":
        return arrays, True
    if paired:
        keep = ~np.any(np.isnan(np.vstack(arrays)), axis=0)
        return [a[keep] for a in arrays], False
    return [a[~np.isnan(a)] for a in arrays], False


# =====================================================================================
# Multiple testing
# =====================================================================================


def _adjust(p: np.ndarray, method: str | None, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """(adjusted p-values, reject) for finite entries; NaN stays NaN and is not rejected."""
    p = np.asarray(p, dtype=np.float64)
    out = p.copy()
    reject = np.zeros(p.shape, dtype=bool)
    ok = np.isfinite(p)
    if method is None:
        reject[ok] = p[ok] < alpha
        return out, reject
    if ok.any() and method == "holm":
        # Holm's step-down, here because statsmodels' branch calls gc.collect() (0.1-0.3 s
        # per call); equal to multipletests(..., method="holm") (tested)
        q = p[ok]
        m = q.size
        order = np.argsort(q, kind="stable")
        adj = np.minimum(np.maximum.accumulate(q[order] * np.arange(m, 0, -1)), 1.0)
        padj = np.empty(m)
        padj[order] = adj
        out[ok] = padj
        reject[ok] = padj <= alpha
    elif ok.any():
        from statsmodels.stats.multitest import multipletests  # heavy import, only if needed

        rej, padj, _, _ = multipletests(p[ok], alpha=alpha, method=method)
        out[ok] = padj
        reject[ok] = rej
    return out, reject


def adjust_pvalues(
    pvalues: Sequence[float] | np.ndarray, method: str = "holm", *, alpha: float = 0.05
) -> np.ndarray:
    """Adjust p-values for multiple comparisons (statsmodels' ``multipletests``).

    Parameters
    ----------
    pvalues : array-like of float, shape (m,)
        Raw p-values; NaN entries are left out of the correction and stay NaN.
    method : str
        One of :data:`P_ADJUST_METHODS` ("holm", "bonferroni", "fdr_bh", ...).
    alpha : float
        Family-wise error rate or FDR; only the two-stage FDR methods use it.

    Returns
    -------
    numpy.ndarray of float64, shape (m,)
    """
    method = _check_p_adjust(method)
    alpha = check_probability("alpha", alpha)
    p = _as_1d(pvalues, "pvalues")
    if np.any((p[np.isfinite(p)] < 0) | (p[np.isfinite(p)] > 1)):
        raise GenexpyInputError("pvalues must lie in [0, 1].")
    return _adjust(p, method, alpha)[0]


def _pairwise_frame(
    test: str,
    names: Sequence[str],
    statistic: np.ndarray,
    pvalue: np.ndarray,
    p_adjust: str | None,
    alpha: float,
    extra: dict[str, Any],
) -> pl.DataFrame:
    pairs = list(itertools.combinations(range(len(names)), 2))
    padj, reject = _adjust(pvalue, p_adjust, alpha)
    significant = [None if not math.isfinite(p) else bool(r) for p, r in zip(padj, reject)]
    cols: dict[str, Any] = {
        "test": [test] * len(pairs),
        "alternative_1": [names[i] for i, _ in pairs],
        "alternative_2": [names[j] for _, j in pairs],
        **extra,
        "statistic": np.asarray(statistic, dtype=np.float64),
        "pvalue_raw": np.asarray(pvalue, dtype=np.float64),
        "pvalue": padj,
        "p_adjust": [p_adjust or "none"] * len(pairs),
        "alpha": [alpha] * len(pairs),
        "significant": pl.Series(significant, dtype=pl.Boolean),
    }
    return pl.DataFrame(cols)


# =====================================================================================
# Ranks, Friedman, Skillings–Mack
# =====================================================================================


def rank_within_conditions(
    data: Any,
    *,
    higher_is_better: bool = False,
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
) -> pl.DataFrame:
    """Midranks of the alternatives within each condition (1 = best; ties share the mean).

    Parameters
    ----------
    data : wide or long table, or 2-d array (conditions x alternatives)
        See the module's Conventions. Missing values get rank null and do not count.
    higher_is_better : bool
        True for scores (accuracy), False for errors or tiers (0/1 = best).

    Returns
    -------
    polars.DataFrame
        One column per alternative, one row per condition (plus ``block_col`` if given).
    """
    m = _to_matrix(data, y_col=y_col, block_col=block_col, group_col=group_col,
                   alternatives=alternatives, min_conditions=1)
    ranks, _, _ = _rank_rows(_orient(m.values, higher_is_better))
    out = pl.DataFrame({a: ranks[:, j] for j, a in enumerate(m.alternatives)}).fill_nan(None)
    if block_col is not None and m.conditions is not None:
        out = out.with_columns(pl.Series(block_col, list(m.conditions))).select(
            block_col, *m.alternatives
        )
    return out


def _friedman_core(values: np.ndarray):
    """(chi2, mean_ranks, rank_sums, sum_r2, ties_total) on complete oriented values."""
    ranks, _, ties = _rank_rows(values)
    n, k = ranks.shape
    rank_sums = ranks.sum(axis=0)
    centred = rank_sums - n * (k + 1) / 2.0
    c = 1.0 - ties.sum() / (n * k * (k * k - 1.0))
    if c <= 1e-12:
        chi2 = math.nan  # every condition ties all alternatives: undefined
    else:
        chi2 = 12.0 / (n * k * (k + 1.0)) * float(np.sum(centred**2)) / c
    return chi2, rank_sums / n, rank_sums, float(np.sum(ranks**2)), ranks


def friedman(
    data: Any,
    *,
    higher_is_better: bool = False,
    nan_policy: str = "propagate",
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
) -> FriedmanResult:
    """Friedman's test: do the alternatives have the same distribution of ranks?

    Parameters
    ----------
    data : wide or long table, or 2-d array, shape (n conditions, k alternatives)
        Scores, errors or ranks (ranked again within each condition).
    higher_is_better : bool
        Orientation for ``mean_ranks`` (1 = best); the test itself does not depend on it.
    nan_policy : {"propagate", "raise", "omit"}
        "omit" drops conditions with a missing value (see :func:`skillings_mack`).
    y_col, block_col, group_col, alternatives
        Long input / labels / selection, see the module's Conventions.

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
    Undefined (NaN) when every condition ties all alternatives.

    Examples
    --------
    >>> res = friedman([[1, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3]])
    >>> round(res.statistic, 3), res.mean_ranks
    (4.5, (1.25, 2.0, 2.75))
    """
    m = _to_matrix(data, y_col=y_col, block_col=block_col, group_col=group_col,
                   alternatives=alternatives)
    values, n_dropped, propagate = _complete_rows(m.values, nan_policy, "data")
    n, k = values.shape
    nan = math.nan
    if propagate:
        return FriedmanResult(
            statistic=nan, pvalue=nan, test="Friedman", df=float(k - 1), n=n, k=k,
            alternatives=m.alternatives, mean_ranks=(nan,) * k,
        )
    chi2, mean_ranks, _, _, _ = _friedman_core(_orient(values, higher_is_better))
    df = float(k - 1)
    p = float(stats.chi2.sf(chi2, df)) if math.isfinite(chi2) else nan
    # Iman–Davenport F and Kendall's W
    denom = n * (k - 1.0) - chi2
    id_df = (float(k - 1), float((k - 1) * (n - 1)))
    if not math.isfinite(chi2):
        f_stat = f_p = w = nan
    else:
        w = chi2 / (n * (k - 1.0))
        if denom <= 1e-12 * n * (k - 1.0):
            f_stat, f_p = math.inf, 0.0
        else:
            f_stat = (n - 1.0) * chi2 / denom
            f_p = float(stats.f.sf(f_stat, *id_df))
    return FriedmanResult(
        statistic=float(chi2), pvalue=p, test="Friedman", df=df, n=n, k=k,
        alternatives=m.alternatives, mean_ranks=tuple(float(r) for r in mean_ranks),
        n_dropped=n_dropped, iman_davenport_statistic=float(f_stat),
        iman_davenport_pvalue=float(f_p), iman_davenport_df=id_df, kendall_w=float(w),
    )


def skillings_mack(
    data: Any,
    *,
    higher_is_better: bool = False,
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
) -> SkillingsMackResult:
    """Skillings–Mack test: Friedman's test when alternatives are missing on some conditions.

    Parameters
    ----------
    data : wide or long table, or 2-d array, shape (n conditions, k alternatives)
        NaN / null (wide) or absent rows (long) = the alternative was not evaluated there.
    higher_is_better : bool
        Orientation of ``adjusted_sums`` (negative = better); the statistic does not depend
        on it.
    y_col, block_col, group_col, alternatives
        See the module's Conventions.

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
    """
    m = _to_matrix(data, y_col=y_col, block_col=block_col, group_col=group_col,
                   alternatives=alternatives)
    ranks, counts, _ = _rank_rows(_orient(m.values, higher_is_better))
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
        statistic=sm, pvalue=float(stats.chi2.sf(sm, df)), test="Skillings-Mack", df=df,
        n=int(n_used), k=k, alternatives=m.alternatives,
        adjusted_sums=tuple(float(v) for v in a), n_missing=n_missing,
        n_dropped=int(m.values.shape[0] - n_used),
    )


# =====================================================================================
# Post-hoc tests over conditions
# =====================================================================================


def posthoc_conover(
    data: Any,
    *,
    p_adjust: str | None = None,
    alpha: float = 0.05,
    higher_is_better: bool = False,
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
    p_adjust : str or None
        Multiple-testing correction (:data:`P_ADJUST_METHODS`); None = raw p-values.
    alpha : float
        Level for the ``significant`` column.
    higher_is_better, nan_policy, y_col, block_col, group_col, alternatives
        See :func:`friedman`.

    Returns
    -------
    polars.DataFrame
        One row per pair: ``test, alternative_1, alternative_2, mean_rank_1, mean_rank_2,
        n, statistic, pvalue_raw, pvalue, p_adjust, alpha, significant``.

    Notes
    -----
    Conover (1999, p. 371), the Friedman version (as scikit-posthocs'
    ``posthoc_conover_friedman``): with rank sums R_j and ``A1 = sum_ij r_ij^2``,

        t_jl = |R_j - R_l| / sqrt(2 (n A1 - sum_j R_j^2) / ((n - 1)(k - 1))),

    two-sided p-value from Student's t with (n-1)(k-1) dof. When every condition ranks the
    alternatives identically the denominator is 0: pairs with different rank sums get
    t = inf (p = 0), tied pairs p = 1.
    """
    p_adjust = _check_p_adjust(p_adjust)
    alpha = check_probability("alpha", alpha)
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
    _, mean_ranks, rank_sums, a1, _ = _friedman_core(_orient(values, higher_is_better))
    diff = np.abs(rank_sums[i] - rank_sums[j])
    denom = 2.0 * (n * a1 - float(np.sum(rank_sums**2))) / ((n - 1.0) * (k - 1.0))
    tiny = 1e-12 * max(n * a1, 1.0)
    if denom <= tiny:
        tval = np.where(diff > 1e-9, np.inf, 0.0)
    else:
        tval = diff / math.sqrt(denom)
    pval = np.minimum(2.0 * stats.t.sf(tval, (n - 1.0) * (k - 1.0)), 1.0)
    return _pairwise_frame(
        "Conover-Iman (Friedman)", m.alternatives, tval, pval, p_adjust, alpha,
        {"mean_rank_1": mean_ranks[i], "mean_rank_2": mean_ranks[j], "n": [n] * i.size},
    )


def _studentized_range_q(k: int, alpha: float) -> float:
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf))


def nemenyi_cd(k: int, n: int, alpha: float = 0.05) -> float:
    """Critical difference of mean ranks of Nemenyi's test (Demšar 2006).

    ``CD = q_alpha / sqrt(2) * sqrt(k (k + 1) / (6 n))`` with ``q_alpha`` the upper-alpha
    quantile of the studentized range for k groups and infinite dof. Two alternatives whose
    mean ranks differ by more than CD are significantly different at level alpha.

    Examples
    --------
    >>> round(nemenyi_cd(5, 30, 0.05), 4)  # q_0.05 / sqrt(2) = 2.728 for k = 5
    1.1136
    """
    k = check_positive_int("k", k, minimum=2)
    n = check_positive_int("n", n, minimum=1)
    alpha = check_probability("alpha", alpha)
    return _studentized_range_q(k, alpha) / math.sqrt(2.0) * math.sqrt(k * (k + 1.0) / (6.0 * n))


def posthoc_nemenyi(
    data: Any,
    *,
    alpha: float = 0.05,
    higher_is_better: bool = False,
    nan_policy: str = "propagate",
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
) -> pl.DataFrame:
    """Nemenyi post-hoc test after Friedman's test, for all pairs of alternatives.

    Controls the family-wise error by itself (no ``p_adjust``).

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
    """
    alpha = check_probability("alpha", alpha)
    m = _to_matrix(data, y_col=y_col, block_col=block_col, group_col=group_col,
                   alternatives=alternatives)
    values, _, propagate = _complete_rows(m.values, nan_policy, "data")
    n, k = values.shape
    i, j = np.triu_indices(k, 1)
    if propagate:
        nanv = np.full(i.size, np.nan)
        return _pairwise_frame("Nemenyi (Friedman)", m.alternatives, nanv, nanv, None, alpha,
                               {"mean_rank_1": nanv, "mean_rank_2": nanv, "n": [n] * i.size})
    _, mean_ranks, _, _, _ = _friedman_core(_orient(values, higher_is_better))
    q = np.abs(mean_ranks[i] - mean_ranks[j]) / math.sqrt(k * (k + 1.0) / (12.0 * n))
    pval = np.clip(stats.studentized_range.sf(q, k, np.inf), 0.0, 1.0)
    return _pairwise_frame(
        "Nemenyi (Friedman)", m.alternatives, q, pval, None, alpha,
        {"mean_rank_1": mean_ranks[i], "mean_rank_2": mean_ranks[j], "n": [n] * i.size},
    )


def critical_difference(
    data: Any,
    *,
    alpha: float = 0.05,
    higher_is_better: bool = False,
    nan_policy: str = "raise",
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
) -> pl.DataFrame:
    """Mean ranks and Nemenyi's critical difference: the data of a CD diagram.

    Parameters
    ----------
    data : wide or long table, or 2-d array, shape (n conditions, k alternatives)
    alpha : float
        Level of the critical difference.
    higher_is_better : bool
        True for scores (accuracy); rank 1 = best either way.
    nan_policy : {"raise", "omit", "propagate"}
        Default "raise" (a diagram of NaN ranks is useless); "omit" drops incomplete
        conditions.

    Returns
    -------
    polars.DataFrame
        One row per alternative, sorted by mean rank (best first): ``alternative,
        mean_rank, cd, alpha, n_conditions, n_alternatives``. Draw it with
        :func:`genexpy_nb.charts.significance.cd_diagram`; cliques with :func:`cliques`.
    """
    alpha = check_probability("alpha", alpha)
    m = _to_matrix(data, y_col=y_col, block_col=block_col, group_col=group_col,
                   alternatives=alternatives)
    values, _, propagate = _complete_rows(m.values, nan_policy, "data")
    n, k = values.shape
    if propagate:
        mean_ranks = np.full(k, np.nan)
    else:
        _, mean_ranks, _, _, _ = _friedman_core(_orient(values, higher_is_better))
    cd = nemenyi_cd(k, n, alpha)
    return pl.DataFrame(
        {
            "alternative": list(m.alternatives),
            "mean_rank": mean_ranks,
            "cd": [cd] * k,
            "alpha": [alpha] * k,
            "n_conditions": [n] * k,
            "n_alternatives": [k] * k,
        },
        schema_overrides={"alternative": pl.String},
    ).sort("mean_rank", maintain_order=True)


def cliques(
    ranks: pl.DataFrame,
    *,
    cd: float | None = None,
    pairwise: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Maximal groups of consecutive alternatives (by mean rank) not significantly different.

    Parameters
    ----------
    ranks : polars.DataFrame
        Columns ``alternative`` and ``mean_rank`` (e.g. from :func:`critical_difference`,
        whose ``cd`` column is used when ``cd`` is None and ``pairwise`` is None).
    cd : float, optional
        Critical difference: i and j are not significantly different when
        ``|mean_rank_i - mean_rank_j| <= cd``.
    pairwise : polars.DataFrame, optional
        A post-hoc frame (``alternative_1, alternative_2, significant``), e.g. from
        :func:`posthoc_conover` with ``p_adjust="holm"``: a group qualifies when none of its
        pairs is significant. Takes precedence over ``cd``.

    Returns
    -------
    polars.DataFrame
        One row per clique (of at least two alternatives), left to right: ``clique, rank_low,
        rank_high, size, members`` (a list of names, best first).
    """
    ranks = to_polars(ranks, "ranks")
    require_columns(ranks, ["alternative", "mean_rank"], "ranks")
    r = ranks.select(pl.col("alternative").cast(pl.String), pl.col("mean_rank").cast(pl.Float64))
    r = r.sort("mean_rank", maintain_order=True)
    names = r["alternative"].to_list()
    mr = r["mean_rank"].to_numpy()
    if np.isnan(mr).any():
        raise GenexpyInputError("ranks: mean_rank has NaN values; no cliques can be drawn.")
    k = len(names)
    if pairwise is not None:
        pw = to_polars(pairwise, "pairwise")
        require_columns(pw, ["alternative_1", "alternative_2", "significant"], "pairwise")
        pos = {a: t for t, a in enumerate(names)}
        sig = np.zeros((k, k), dtype=bool)
        for a1, a2, s in pw.select("alternative_1", "alternative_2", "significant").iter_rows():
            if a1 in pos and a2 in pos and s:
                sig[pos[a1], pos[a2]] = sig[pos[a2], pos[a1]] = True

        def together(lo: int, hi: int) -> bool:
            return not sig[lo:hi + 1, lo:hi + 1].any()
    else:
        if cd is None:
            if "cd" not in ranks.columns:
                raise GenexpyInputError(
                    "cliques: give cd=..., a ranks frame with a 'cd' column "
                    "(critical_difference(...)), or pairwise=... (a post-hoc frame)."
                )
            cd = float(ranks["cd"][0])
        cd = float(cd)
        if not math.isfinite(cd) or cd < 0:
            raise GenexpyInputError(f"cd must be a finite number >= 0, got {cd!r}.")

        def together(lo: int, hi: int) -> bool:
            return mr[hi] - mr[lo] <= cd  # type: ignore[operator]

    rows = []
    last_hi = 0
    for lo in range(k):
        hi = lo
        while hi + 1 < k and together(lo, hi + 1):
            hi += 1
        if hi > lo and hi > last_hi:
            rows.append((len(rows), float(mr[lo]), float(mr[hi]), hi - lo + 1, names[lo:hi + 1]))
            last_hi = hi
    return pl.DataFrame(
        rows,
        schema={"clique": pl.Int64, "rank_low": pl.Float64, "rank_high": pl.Float64,
                "size": pl.Int64, "members": pl.List(pl.String)},
        orient="row",
    )


# =====================================================================================
# Two-sample and k-sample tests (scipy)
# =====================================================================================


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
    drops the pairs with a missing value. Undefined (NaN) when all differences are zero.
    ``alternative="greater"``: x tends to be larger than y.
    """
    _check_choice("alternative", alternative, _ALTERNATIVES)
    _check_choice("zero_method", zero_method, ("wilcox", "pratt", "zsplit"))
    xa = _as_1d(x, "x")
    arrays, names = [xa], ["x"]
    if y is not None:
        ya = _as_1d(y, "y")
        if ya.shape != xa.shape:
            raise GenexpyInputError(
                f"x and y must be paired (same length), got {xa.size} and {ya.size}."
            )
        arrays.append(ya)
        names.append("y")
    arrays, propagate = _nan_1d(arrays, names, nan_policy, paired=True)
    d = arrays[0] - arrays[1] if len(arrays) == 2 else arrays[0]
    n = int(d.size)
    if propagate or n == 0 or not np.any(d != 0):
        return SignificanceResult(statistic=math.nan, pvalue=math.nan,
                                  test="Wilcoxon signed-rank", n=n, k=2, alternative=alternative)
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

    ``statistic`` is U of ``x``; ``n`` = total number of observations used.
    """
    _check_choice("alternative", alternative, _ALTERNATIVES)
    arrays, propagate = _nan_1d([_as_1d(x, "x"), _as_1d(y, "y")], ["x", "y"], nan_policy,
                                paired=False)
    xa, ya = arrays
    n = int(xa.size + ya.size)
    if propagate:
        return SignificanceResult(statistic=math.nan, pvalue=math.nan, test="Mann-Whitney U",
                                  n=n, k=2, alternative=alternative)
    if xa.size == 0 or ya.size == 0:
        raise GenexpyInputError("x and y must each have at least one (non-missing) value.")
    res = stats.mannwhitneyu(xa, ya, alternative=alternative, use_continuity=use_continuity,
                             method=method)
    return SignificanceResult(statistic=float(res.statistic), pvalue=float(res.pvalue),
                              test="Mann-Whitney U", n=n, k=2, alternative=alternative)


def kruskal(
    *samples: Any,
    data: Any = None,
    y_col: str | None = None,
    group_col: str | None = None,
    alternatives: Sequence[Any] | None = None,
    nan_policy: str = "propagate",
) -> SignificanceResult:
    """Kruskal–Wallis H test on k independent samples (``scipy.stats.kruskal``).

    Give the samples as positional arguments, or ``data``: a long table (``y_col``,
    ``group_col``) or a wide one (one column per group; NaN/null padding is dropped with
    ``nan_policy="omit"``). Undefined (NaN) when all values are equal.
    """
    if data is not None:
        if samples:
            raise GenexpyInputError("kruskal: give either samples or data=..., not both.")
        alts = _names(alternatives)
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
    if propagate or np.all(allv == allv[0]):
        return SignificanceResult(statistic=math.nan, pvalue=math.nan, test="Kruskal-Wallis H",
                                  df=float(k - 1), n=n, k=k)
    res = stats.kruskal(*arrays)
    return SignificanceResult(statistic=float(res.statistic), pvalue=float(res.pvalue),
                              test="Kruskal-Wallis H", df=float(k - 1), n=n, k=k)


# =====================================================================================
# Nadeau–Bengio corrected resampled t-test, shared repeated k-fold splits
# =====================================================================================


def _check_sizes(n_train: float, n_test: float) -> tuple[float, float]:
    try:
        n1, n2 = float(n_train), float(n_test)
    except (TypeError, ValueError):
        raise GenexpyInputError("n_train and n_test must be numbers (set sizes).") from None
    if not (math.isfinite(n1) and n1 > 0):
        raise GenexpyInputError(f"n_train must be a finite number > 0, got {n_train!r}.")
    if not (math.isfinite(n2) and n2 >= 0):
        raise GenexpyInputError(f"n_test must be a finite number >= 0, got {n_test!r}.")
    return n1, n2


def _corrected_t(d: np.ndarray, n1: float, n2: float, alternative: str):
    """(t, p, mean, s2, var, se, df) of the corrected resampled t-test on differences d."""
    J = d.size
    mean = float(d.mean())
    # all d_j equal -> exactly 0 (d.var would leave rounding noise, e.g. 1e-35)
    s2 = 0.0 if np.all(d == d[0]) else float(d.var(ddof=1))
    var = (1.0 / J + n2 / n1) * s2
    se = math.sqrt(var)
    df = float(J - 1)
    if se > 0:
        t = mean / se
    elif mean == 0:
        t = math.nan
    else:
        t = math.copysign(math.inf, mean)
    if math.isnan(t):
        p = math.nan
    elif alternative == "two-sided":
        p = float(min(2.0 * stats.t.sf(abs(t), df), 1.0))
    elif alternative == "greater":
        p = float(stats.t.sf(t, df))
    else:
        p = float(stats.t.cdf(t, df))
    return t, p, mean, s2, var, se, df


def corrected_ttest(
    x: Any,
    y: Any = None,
    *,
    n_train: float,
    n_test: float,
    alternative: str = "two-sided",
    nan_policy: str = "propagate",
) -> CorrectedTTestResult:
    """Nadeau–Bengio corrected resampled t-test on paired results of J shared CV splits.

    Parameters
    ----------
    x, y : array-like of float, shape (J,)
        Scores of two alternatives on the same J = r * k splits (repeated k-fold CV with
        shared splits, :func:`repeated_kfold_splits`); the test is on ``d = x - y``. With
        ``y=None``, ``x`` holds the differences.
    n_train, n_test : float
        Sizes n1 of a training set and n2 of a test set (averages if folds differ by one).
        ``n_test=0`` removes the correction (the plain paired t-test).
    alternative : {"two-sided", "greater", "less"}
        "greater": the mean of x - y is larger than 0.
    nan_policy : {"propagate", "raise", "omit"}
        "omit" drops the splits with a missing value.

    Returns
    -------
    CorrectedTTestResult
        ``statistic`` t, ``pvalue``, ``df = J - 1``, ``mean``, ``variance``, ``std_error``,
        ``confidence_interval()``.

    Notes
    -----
    ``var = (1/J + n2/n1) * s^2`` with ``s^2`` the sample variance (ddof = 1) of the d_j,
    ``t = mean(d) / sqrt(var)``, Student's t with J - 1 dof (Nadeau & Bengio 2003;
    Bouckaert & Frank 2004). The lecture notes' ``t = d / sigma^2`` is a typo: divide by the
    *standard error* ``sqrt(var)``. Undefined (NaN) when all d_j are equal to 0; t = ±inf
    when all d_j equal a nonzero constant.

    Examples
    --------
    >>> res = corrected_ttest([0.1, 0.3, 0.2, 0.4], n_train=90, n_test=10)
    >>> round(res.variance, 6), round(res.statistic, 4)  # var = (1/4 + 10/90) * 0.05/3
    (0.006019, 3.2225)
    """
    _check_choice("alternative", alternative, _ALTERNATIVES)
    n1, n2 = _check_sizes(n_train, n_test)
    xa = _as_1d(x, "x")
    arrays, names = [xa], ["x"]
    if y is not None:
        ya = _as_1d(y, "y")
        if ya.shape != xa.shape:
            raise GenexpyInputError(
                f"x and y must be paired (one value per shared split), got {xa.size} and "
                f"{ya.size} values."
            )
        arrays.append(ya)
        names.append("y")
    arrays, propagate = _nan_1d(arrays, names, nan_policy, paired=True)
    d = arrays[0] - arrays[1] if len(arrays) == 2 else arrays[0]
    J = int(d.size)
    if J < 2:
        raise GenexpyInputError(
            f"corrected_ttest: {J} paired result(s); at least 2 splits are needed (use "
            "repeated k-fold CV, e.g. 10 x 10)."
        )
    nan = math.nan
    if propagate:
        return CorrectedTTestResult(
            statistic=nan, pvalue=nan, test="corrected resampled t (Nadeau-Bengio)",
            df=float(J - 1), n=J, k=2, alternative=alternative, n_train=n1, n_test=n2,
        )
    t, p, mean, s2, var, se, df = _corrected_t(d, n1, n2, alternative)
    return CorrectedTTestResult(
        statistic=float(t), pvalue=p, test="corrected resampled t (Nadeau-Bengio)", df=df,
        n=J, k=2, alternative=alternative, mean=mean, sample_variance=s2, variance=var,
        uncorrected_variance=s2 / J, std_error=se, n_train=n1, n_test=n2,
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

    Returns
    -------
    polars.DataFrame
        One row per pair: ``test, alternative_1, alternative_2, mean_difference (1 - 2),
        n, statistic, pvalue_raw, pvalue, p_adjust, alpha, significant``.
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

    Returns
    -------
    polars.DataFrame
        One row per pair: ``test, alternative_1, alternative_2, mean_difference (1 - 2),
        std_error (corrected), n, statistic, pvalue_raw, pvalue, p_adjust, alpha,
        significant``.
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


def repeated_kfold_splits(
    n_samples: int,
    *,
    n_splits: int = 10,
    n_repeats: int = 10,
    seed: int | np.random.Generator | None = 0,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Shared (paired) repeated k-fold splits: the same train/test indices for every model.

    Parameters
    ----------
    n_samples : int
        Number of data points, ``>= n_splits``.
    n_splits : int
        k, the number of folds (>= 2). 10 is the usual choice.
    n_repeats : int
        r, the number of repetitions (each a fresh shuffle). 5 x 10 or 10 x 10 are
        recommended with :func:`corrected_ttest` (Bouckaert & Frank 2004).
    seed : int, numpy Generator or None
        Fixed by default: call once and evaluate every alternative on the result.

    Returns
    -------
    list of (train, test) pairs of int64 index arrays, length r * k
        Repetition-major (split ``rep * k + fold``). In each repetition the test folds
        partition ``0..n_samples-1`` into k parts whose sizes differ by at most one; test
        indices are sorted, train = the other indices, sorted.
        For :func:`corrected_ttest`: ``n_test = len(test)``, ``n_train = len(train)``
        (their means if ``n_samples`` is not a multiple of k).

    Examples
    --------
    >>> splits = repeated_kfold_splits(100, n_splits=5, n_repeats=2, seed=1)
    >>> len(splits), len(splits[0][0]), len(splits[0][1])
    (10, 80, 20)
    """
    n_samples = check_positive_int("n_samples", n_samples, minimum=2)
    n_splits = check_positive_int("n_splits", n_splits, minimum=2)
    n_repeats = check_positive_int("n_repeats", n_repeats, minimum=1)
    if n_splits > n_samples:
        raise GenexpyInputError(
            f"n_splits={n_splits} is larger than n_samples={n_samples}; every fold needs at "
            "least one test point."
        )
    rng = rng_from_seed(seed)
    out = []
    all_idx = np.arange(n_samples, dtype=np.int64)
    for _ in range(n_repeats):
        perm = rng.permutation(n_samples).astype(np.int64)
        for fold in np.array_split(perm, n_splits):
            test = np.sort(fold)
            mask = np.ones(n_samples, dtype=bool)
            mask[test] = False
            out.append((all_idx[mask], test))
    return out
