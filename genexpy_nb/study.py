"""A study: a tidy results table plus the role of every factor (paper Sec. 3.1; Sec. 4.1).

From the table, the Study builds, for every configuration (combination of design-factor
levels), the sample of observed results: one ranking with ties per experimental condition
(0 = best tier, dense tiers) and the matching raw scores.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from . import config
from ._codes import unique_rows
from ._validation import (
    GenexpyInputError,
    check_probability,
    check_reserved_names,
    finite_mean,
    require_columns,
    to_polars,
)

__all__ = ["Study", "ConfigurationSample", "FilterReport", "rank_scores", "tie_tolerance",
           "DirectionWarning"]

_COND = "__condition__"
_CONF = "__config_id__"
_ALT = "__alternative__"


class DirectionWarning(UserWarning):
    """The target's name suggests the other direction (an error, a loss or a time given
    with ``higher_is_better=True``): a hint, the study is built as asked."""


#: words in a target's name that mean "lower is better" (matched as whole words of the name,
#: split at non-letters and at lower-to-upper case changes)
LOWER_IS_BETTER_WORDS: frozenset[str] = frozenset({
    "error", "errors", "err", "loss", "logloss", "rmse", "mse", "mae", "mape", "smape", "nll",
    "perplexity", "regret", "time", "times", "runtime", "duration", "latency", "seconds",
    "secs", "sec"})


def _name_words(name: str) -> list[str]:
    import re

    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return [w.lower() for w in re.split(r"[^A-Za-z]+", spaced) if w]


#: default relative tie tolerance: a fraction of the condition's score range (see rank_scores)
TIE_RTOL: float = 1e-9
#: default absolute tie tolerance, in target units (see rank_scores)
TIE_ATOL: float = 0.0
#: floating-point floor of the tolerance, in units of the largest |score| of the condition:
#: 64 machine epsilons (about 1.4e-14), i.e. rounding noise of sums and means of scores
TIE_FLOAT_FLOOR: float = 64 * float(np.finfo(np.float64).eps)


def check_tie_tolerances(rtol: float, atol: float) -> tuple[float, float]:
    """Validate the tie tolerances: ``rtol`` in [0, 1), ``atol`` finite and >= 0."""
    out = []
    for nm, v, hi in (("tie rtol", rtol, 1.0), ("tie atol", atol, np.inf)):
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise GenexpyInputError(f"{nm} must be a number >= 0, got {v!r}.") from None
        if not (np.isfinite(f) and 0.0 <= f < hi):
            rng = "[0, 1)" if hi == 1.0 else "a finite number >= 0"
            raise GenexpyInputError(
                f"{nm} must lie in {rng}, got {v!r} (0 for exact equality of scores)."
            )
        out.append(f)
    return out[0], out[1]


def tie_tolerance(scores: np.ndarray, rtol: float = TIE_RTOL,
                  atol: float = TIE_ATOL) -> np.ndarray:
    """The per-condition tie tolerance used by :func:`rank_scores` (one value per row).

    ``tol = max(rtol * (max - min), atol, 64 eps * max|score|)`` over the observed scores
    of the row; exactly 0 when ``rtol == atol == 0``.
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim == 1:
        s = s[None, :]
    obs = ~np.isnan(s)
    if rtol == 0.0 and atol == 0.0:
        return np.zeros(s.shape[0])
    hi = np.where(obs, s, -np.inf).max(axis=1)
    lo = np.where(obs, s, np.inf).min(axis=1)
    empty = ~obs.any(axis=1)
    hi[empty] = 0.0
    lo[empty] = 0.0
    # rtol*hi - rtol*lo rather than rtol*(hi - lo): no overflow near the float limits
    spread = rtol * hi - rtol * lo
    mag = np.maximum(np.abs(hi), np.abs(lo))
    return np.maximum(np.maximum(spread, atol), TIE_FLOAT_FLOOR * mag)


def rank_scores(
    scores: np.ndarray,
    higher_is_better: bool = True,
    *,
    rtol: float = TIE_RTOL,
    atol: float = TIE_ATOL,
) -> np.ndarray:
    """Rankings with ties from a score matrix (conditions, alternatives).

    Row-wise dense ranks, 0 = best tier. Missing scores (NaN) get the worst tier: one below
    every observed tier of that row (paper Sec. 4.1, step 3).

    **Near-ties are ties.** Scores that differ only by floating-point noise (``0.1 + 0.2``
    and ``0.3``; means of seeds summed in another order) share a tier. In each row the
    observed scores are sorted and a new tier starts where the gap to the previous (sorted)
    score exceeds

        ``tol = max(rtol * (max - min), atol, 64 * eps * max|score|)``

    (max, min over the observed scores of the row). So tiers are defined deterministically,
    also for chains of near-ties: ``a ~ b`` and ``b ~ c`` put a, b and c in one tier even if
    ``|a - c| > tol`` (a tier spans at most ``(na - 1) * tol``).

    * ``rtol`` (default 1e-9) is relative to the row's score *range*. The range scales with
      the target and ignores shifts, so this term makes the ranking invariant to any positive
      affine rescaling of the target (``score * 3 + 1``, accuracy in % instead of a
      fraction, error = 1 - accuracy with the direction flipped).
    * ``atol`` (default 0) is in target units, for a known measurement resolution.
    * The last term is a floor at float resolution: differences of a few dozen ulps of the
      scores' magnitude are rounding, not results, and no rescaling can preserve them.

    ``rtol=0, atol=0`` gives exact float equality (the behaviour of the authors'
    genexpy package), with no floor.

    Parameters
    ----------
    scores : (N, na) or (na,) array of float, NaN = missing
    higher_is_better : bool
    rtol, atol : float
        Tie tolerances, see above; ``rtol`` in [0, 1), ``atol`` >= 0.

    Examples
    --------
    >>> rank_scores(np.array([[0.9, 0.7, 0.9]]))
    array([[0, 1, 0]])
    >>> rank_scores([[0.1 + 0.2, 0.3, 0.2]])
    array([[0, 0, 1]])
    >>> rank_scores([[0.1 + 0.2, 0.3, 0.2]], rtol=0, atol=0)
    array([[0, 1, 2]])
    """
    rtol, atol = check_tie_tolerances(rtol, atol)
    try:
        s = np.array(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise GenexpyInputError(
            "scores must be numbers (a float matrix: conditions x alternatives)."
        ) from None
    if s.ndim == 1:
        s = s[None, :]
    if s.ndim != 2:
        raise GenexpyInputError(
            f"scores must be a matrix (conditions, alternatives), got shape {s.shape}."
        )
    if np.isinf(s).any():
        raise GenexpyInputError("scores hold inf values; drop or fix them before ranking.")
    tol = tie_tolerance(s, rtol, atol)
    oriented = -s if higher_is_better else s
    oriented = np.where(np.isnan(oriented), np.inf, oriented)  # missing: tier below observed
    order = np.argsort(oriented, axis=1, kind="stable")
    srt = np.take_along_axis(oriented, order, axis=1)
    with np.errstate(invalid="ignore", over="ignore"):
        gap = srt[:, 1:] - srt[:, :-1]  # inf - inf = NaN: missing after missing, same tier
    new_tier = (gap > tol[:, None]) | (np.isinf(srt[:, 1:]) & ~np.isinf(srt[:, :-1]))
    tiers = np.zeros(srt.shape, dtype=np.int64)
    tiers[:, 1:] = np.cumsum(new_tier, axis=1)  # dense: +1 at each new tier
    ranks = np.empty_like(tiers)
    np.put_along_axis(ranks, order, tiers, axis=1)
    return ranks


def _sorted_codes(col: pl.Series) -> tuple[list[str], np.ndarray]:
    """(sorted distinct levels, dense 0-based code of every row in that order) of a text
    column, through an Enum whose categories are the sorted levels: a hash lookup per row,
    about 7x faster than ranking a million strings."""
    levels = col.unique().sort()
    codes = col.cast(pl.Enum(levels)).to_physical()
    return levels.to_list(), codes.to_numpy().astype(np.int64, copy=False)


def _first_rows(codes: np.ndarray) -> np.ndarray:
    """Row of the first occurrence of each dense code 0..max (linear time, no sort)."""
    n = int(codes.max()) + 1 if codes.size else 0
    first = np.full(n, codes.size, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(codes.size, dtype=np.int64))
    return first


def _lex_codes(codes: list[np.ndarray], n: int) -> np.ndarray:
    """Dense 0-based codes of the rows of several code columns, in lexicographic order.

    ``codes`` are dense 0-based codes (each sorted like its column's levels). Constant
    columns (all 0) do not change the order and are left out; none left gives one code (0)
    for all ``n`` rows, one left is its own answer (no sort).
    """
    codes = [c for c in codes if c.any()]
    if not codes:
        return np.zeros(n, dtype=np.int64)
    if len(codes) == 1:
        return np.asarray(codes[0], dtype=np.int64)
    return unique_rows(np.column_stack(codes))[1]


@dataclass(frozen=True)
class FilterReport:
    """What the missing-results policy of paper Sec. 4.1 did to the study. Never silent."""

    rows_input: int
    rows_after_held_constant: int
    rows_invalid_target: int
    results_after_averaging: int
    conditions_total: int
    conditions_dropped: int
    alternatives_total: int
    alternatives_dropped: tuple[str, ...]
    cells_total: int
    cells_imputed: int
    tol_missing_alternatives: float
    tol_missing_conditions: float
    #: the most replicates (runs of the ``average_over`` factors) a result was averaged
    #: over; 0 without ``average_over``
    replicates_expected: int = 0
    #: alternatives with results averaged over fewer replicates than that:
    #: (alternative, results, fewest replicates, most replicates among them)
    short_replicates: tuple[tuple[str, int, int, int], ...] = ()

    def to_frame(self) -> pl.DataFrame:
        """The report as a two-column (item, value) frame, for display or export."""
        rows = [
            ("rows in the input table", self.rows_input),
            ("rows after fixing held-constant factors", self.rows_after_held_constant),
            ("rows dropped for a null/NaN/inf target", self.rows_invalid_target),
            ("results after averaging stochastic factors", self.results_after_averaging),
            ("conditions (configuration x generalizability level)", self.conditions_total),
            (f"conditions dropped (> {self.tol_missing_alternatives:.0%} alternatives missing)",
             self.conditions_dropped),
            ("alternatives", self.alternatives_total),
            (f"alternatives dropped (missing in > {self.tol_missing_conditions:.0%} "
             "of the remaining conditions)", len(self.alternatives_dropped)),
            ("results kept (conditions x alternatives)", self.cells_total),
            ("missing results imputed as the worst tier", self.cells_imputed),
        ]
        if self.replicates_expected:
            rows.insert(4, (f"results averaged over fewer than {self.replicates_expected} "
                            "replicates", sum(r[1] for r in self.short_replicates)))
        return pl.DataFrame({"item": [r[0] for r in rows], "value": [r[1] for r in rows]})

    def replicates_frame(self) -> pl.DataFrame:
        """Alternatives averaged over fewer replicates than the others: alternative,
        results (how many of its results), fewest and most replicates among them, and
        the full number of replicates."""
        rows = self.short_replicates
        return pl.DataFrame({
            "alternative": [r[0] for r in rows], "results": [r[1] for r in rows],
            "fewest_replicates": [r[2] for r in rows], "most_replicates": [r[3] for r in rows],
            "of": [self.replicates_expected] * len(rows)},
            schema={"alternative": pl.String, "results": pl.Int64,
                    "fewest_replicates": pl.Int64, "most_replicates": pl.Int64,
                    "of": pl.Int64})

    def __str__(self) -> str:
        lines = [f"{k}: {v}" for k, v in self.to_frame().iter_rows()]
        if self.short_replicates:
            shown = []
            for alt, n, lo, hi in self.short_replicates[:8]:
                reps = f"{lo}" if lo == hi else f"{lo}-{hi}"
                shown.append(f"{alt} ({n} result{'s' if n != 1 else ''} over {reps})")
            more = len(self.short_replicates) - len(shown)
            lines.append(f"averaged over fewer than {self.replicates_expected} replicates: "
                         + "; ".join(shown) + (f"; and {more} more alternatives" if more else "")
                         + " (require_complete_replicates=True refuses such a table)")
        if self.alternatives_dropped:
            lines.append(f"dropped alternatives: {', '.join(self.alternatives_dropped)}")
        return "\n".join(lines)


@dataclass(frozen=True)
class ConfigurationSample:
    """The observed results of one configuration: N conditions x na alternatives.

    Attributes
    ----------
    config_id : int
    levels : dict, design-factor levels of the configuration
    alternatives : tuple of str, length na
    conditions : tuple of str, length N (generalizability levels)
    rankings : (N, na) int64, 0 = best tier
    scores : (N, na) float64, raw target with missing results imputed by the worst
        observed score of the condition (for the RBF kernel)
    imputed : (N, na) bool, where a result was missing
    """

    config_id: int
    levels: dict
    alternatives: tuple[str, ...]
    conditions: tuple[str, ...]
    rankings: np.ndarray = field(repr=False)
    scores: np.ndarray = field(repr=False)
    imputed: np.ndarray = field(repr=False)
    #: the scores as each kind of score kernel sees them (:meth:`data_for`), made once
    _prepared: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def N(self) -> int:  # noqa: N802
        return int(self.rankings.shape[0])

    @property
    def na(self) -> int:
        return int(self.rankings.shape[1])

    def data_for(self, kernel) -> np.ndarray:
        """The array a kernel works on: rankings, or scores for score kernels (RBF), as
        the kernel sees them (``kernel.prepare``: RBF divides them by their spread)."""
        if kernel.on != "scores":
            return self.rankings
        key = (type(kernel).__name__, getattr(kernel, "scale", None))
        if key not in self._prepared:
            self._prepared[key] = kernel.prepare(self.scores)
        return self._prepared[key]

    @property
    def label(self) -> str:
        return ", ".join(f"{v}" for v in self.levels.values()) or "(all)"


def _varying_columns(df: pl.DataFrame, keys: list[str], others: list[str], target: str
                     ) -> str:
    """A sentence naming the columns that vary within the repeated rows of ``keys``."""
    rep_rows = df.filter(pl.struct(keys).is_duplicated())
    cols = [*others, target]
    n_unique = rep_rows.group_by(keys).agg(
        *[pl.col(c).n_unique().alias(c) for c in cols]).select(
        *[(pl.col(c) > 1).sum().alias(c) for c in cols]).row(0, named=True)
    varying = sorted((c for c in others if n_unique[c]), key=lambda c: -n_unique[c])
    if not varying:
        if n_unique[target]:
            return ("No other column tells the repeated rows apart, only their results "
                    f"({target!r}) differ: replicates without a column naming them (add one, "
                    "e.g. a seed, and pass it as average_over) or one run recorded twice.")
        return ("The repeated rows are identical in every column: drop the copies, e.g. "
                "df.unique().")
    groups = rep_rows.select(keys).unique().height
    names = ", ".join(repr(c) for c in varying[:5])
    return (f"Within the {groups} repeated key(s), column{'s' if len(varying) > 1 else ''} "
            f"{names} {'vary' if len(varying) > 1 else 'varies'}: probably a factor without "
            "a role.")


def _short_replicates(df: pl.DataFrame, alt_col: str
                      ) -> tuple[int, tuple[tuple[str, int, int, int], ...]]:
    """(most replicates of a result, per alternative with fewer: (alternative, results,
    fewest, most among them)) from the averaged table's ``__replicates__`` column."""
    if df.height == 0:
        return 0, ()
    full = int(df["__replicates__"].max())
    short = (df.filter(pl.col("__replicates__") < full)
             .group_by(pl.col(alt_col).cast(pl.String).alias("__alt__"))
             .agg(pl.len().alias("n"), pl.col("__replicates__").min().alias("lo"),
                  pl.col("__replicates__").max().alias("hi"))
             .sort(["n", "__alt__"], descending=[True, False]))
    return full, tuple((str(a), int(n), int(lo), int(hi)) for a, n, lo, hi in short.iter_rows())


def _as_list(name: str, value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    try:
        out = list(value)
    except TypeError:
        raise GenexpyInputError(f"{name} must be a column name or a list of names.") from None
    for v in out:
        if not isinstance(v, str):
            raise GenexpyInputError(f"{name} must hold column names (str), got {v!r}.")
    return out


class Study:
    """An experimental study: results + the role of every factor.

    Parameters
    ----------
    data : polars / pandas DataFrame or pyarrow Table
        Tidy results: one row per (experimental condition, alternative[, seed, ...]).
        Never modified.
    alternatives : str
        Column naming the compared methods (encoders, models, LLMs).
    target : str
        Numeric column with the result of each run.
    generalize : str or list of str
        Generalizability factor(s): their levels are the experimental conditions whose
        results should transfer to unseen levels (dataset, subtask). Several are combined.
    higher_is_better : bool
        True for a score (accuracy), False for an error or a loss. Required.
    design : list of str, optional
        Design factors: one independent analysis per combination of their levels.
    average_over : list of str, optional
        Stochasticity factors (seed, CV fold): the target is averaged over them first.
    held_constant : dict, optional
        ``{column: level}``: rows are filtered to that level.
    tol_missing_alternatives, tol_missing_conditions : float
        Missing-results tolerances of paper Sec. 4.1 (default 0.2 each).
    invalid_target : {"raise", "drop"}
        What to do with rows whose target is null, NaN or infinite: refuse the table
        (default) or drop those rows, counted in ``study.report.rows_invalid_target``
        (they then count as missing results).
    tie_rtol, tie_atol : float
        Tie tolerances of :func:`rank_scores` (defaults 1e-9 of each condition's score
        range, and 0 in target units): scores closer than that share a tier, so rankings do
        not depend on float noise and are invariant to positive affine rescaling of the
        target. ``tie_rtol=0, tie_atol=0`` ranks by exact float equality.
    require_complete_replicates : bool
        With ``average_over``: refuse a table in which some result has fewer replicates
        (runs of the stochastic factors) than the others, naming the missing ones (default
        False: average what is there, and say in ``study.report`` which alternatives had
        fewer replicates and how many).

    Notes
    -----
    Columns given no role are ignored; if they make (configuration, condition, alternative)
    rows repeat, the study refuses the table and names the columns that vary within the
    repeated rows (the role probably forgotten). A target named like an error, a loss or a
    time (``rmse``, ``log_loss``, ``fit_time``, ...) with ``higher_is_better=True`` gets a
    :class:`DirectionWarning`. Missing results are handled
    over the whole study (paper Sec. 4.1): conditions with more than ``tol_missing_alternatives``
    of the alternatives missing are dropped, then alternatives missing in more than
    ``tol_missing_conditions`` of the remaining conditions, then what is still missing is
    imputed as the worst tier. ``study.report`` says what happened.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"dataset": ["d1", "d1", "d2", "d2"], "model": ["a", "b"] * 2,
    ...                    "acc": [0.9, 0.8, 0.7, 0.75]})
    >>> study = Study(df, alternatives="model", target="acc", generalize="dataset",
    ...               higher_is_better=True)
    >>> study.sample(0).rankings
    array([[0, 1],
           [1, 0]])
    """

    def __init__(
        self,
        data: Any,
        *,
        alternatives: str,
        target: str,
        generalize: str | Sequence[str],
        higher_is_better: bool,
        design: str | Sequence[str] | None = None,
        average_over: str | Sequence[str] | None = None,
        held_constant: Mapping[str, Any] | None = None,
        tol_missing_alternatives: float = config.TOL_MISSING_ALTERNATIVES,
        tol_missing_conditions: float = config.TOL_MISSING_CONDITIONS,
        invalid_target: str = "raise",
        tie_rtol: float = TIE_RTOL,
        tie_atol: float = TIE_ATOL,
        require_complete_replicates: bool = False,
    ) -> None:
        df = to_polars(data, "data")
        if not isinstance(higher_is_better, (bool, np.bool_)):
            raise GenexpyInputError(
                "higher_is_better must be True (a score, e.g. accuracy) or False (an error, "
                f"e.g. RMSE); got {higher_is_better!r}."
            )
        for nm, v in (("alternatives", alternatives), ("target", target)):
            if not isinstance(v, str):
                raise GenexpyInputError(f"{nm} must be one column name (str), got {v!r}.")
        gen = _as_list("generalize", generalize)
        if not gen:
            raise GenexpyInputError("generalize: give at least one generalizability factor "
                                    "(e.g. generalize='dataset').")
        des = _as_list("design", design)
        avg = _as_list("average_over", average_over)
        held = dict(held_constant or {})
        roles: dict[str, list[str]] = {}
        for role, cols in (("alternatives", [alternatives]), ("target", [target]),
                           ("generalize", gen), ("design", des), ("average_over", avg),
                           ("held_constant", list(held))):
            for c in cols:
                roles.setdefault(c, []).append(role)
        clashes = {c: r for c, r in roles.items() if len(r) > 1}
        if clashes:
            c, r = next(iter(clashes.items()))
            raise GenexpyInputError(
                f"column {c!r} is given several roles ({', '.join(r)}); every factor plays "
                "exactly one role: remove it from all but one."
            )
        require_columns(df, list(roles), "data")
        check_reserved_names(roles, "data")
        tol_a = check_probability("tol_missing_alternatives", tol_missing_alternatives,
                                  low_open=False, high_open=False)
        tol_c = check_probability("tol_missing_conditions", tol_missing_conditions,
                                  low_open=False, high_open=False)

        if df.height == 0:
            raise GenexpyInputError("data: the table is empty (0 rows); nothing to analyse.")
        dtype = df.schema[target]
        if not dtype.is_numeric() or dtype == pl.Boolean:
            raise GenexpyInputError(
                f"target column {target!r} must be numeric, got {dtype}. Convert it, e.g. "
                f"df.with_columns(pl.col({target!r}).cast(pl.Float64))."
            )
        self.alternatives_col = alternatives
        self.target = target
        self.generalize = tuple(gen)
        self.design = tuple(des)
        self.average_over = tuple(avg)
        self.held_constant = held
        self.higher_is_better = bool(higher_is_better)
        self.tol_missing_alternatives = tol_a
        self.tol_missing_conditions = tol_c
        if invalid_target not in ("raise", "drop"):
            raise GenexpyInputError(
                f"invalid_target must be 'raise' or 'drop', got {invalid_target!r}."
            )
        self.invalid_target = invalid_target
        self.tie_rtol, self.tie_atol = check_tie_tolerances(tie_rtol, tie_atol)
        if not isinstance(require_complete_replicates, (bool, np.bool_)):
            raise GenexpyInputError("require_complete_replicates must be True or False, got "
                                    f"{require_complete_replicates!r}.")
        self.require_complete_replicates = bool(require_complete_replicates)
        if self.higher_is_better:
            hint = sorted(set(_name_words(target)) & LOWER_IS_BETTER_WORDS)
            if hint:
                import warnings

                warnings.warn(DirectionWarning(
                    f"target {target!r} is named like an error, a loss or a time "
                    f"({', '.join(repr(h) for h in hint)}) but higher_is_better=True: the "
                    "study ranks the largest value first. If lower is better, pass "
                    "higher_is_better=False."), stacklevel=2)
        self._build(df)

    # ------------------------------------------------------------------------------------
    def _check_factor_columns(self, df: pl.DataFrame) -> tuple[int, bool]:
        """Factor columns hold scalar levels and no nulls / NaN (named, with a count).

        Returns the number of rows whose target is null, NaN or infinite and whether rows
        repeat a run's key (:meth:`_keys`), both counted in the same pass over the table.
        """
        roles = [("alternatives", self.alternatives_col)]
        roles += [("generalize", c) for c in self.generalize]
        roles += [("design", c) for c in self.design]
        roles += [("average_over", c) for c in self.average_over]
        exprs = []
        for i, (role, col) in enumerate(roles):
            dtype = df.schema[col]
            if dtype.is_nested() or dtype == pl.Object:
                raise GenexpyInputError(
                    f"{role} column {col!r} has type {dtype}: a factor needs one scalar level "
                    "per row (a string, a number, a category). Convert or explode it first."
                )
            expr = pl.col(col).is_null()
            if dtype.is_float():
                expr = expr | pl.col(col).is_nan()
            exprs.append(expr.sum().alias(f"f{i}"))
        tgt = pl.col(self.target).cast(pl.Float64)
        exprs.append((tgt.is_null() | tgt.is_nan() | tgt.is_infinite()).sum().alias("target"))
        exprs.append(pl.struct(self._keys()).is_duplicated().any().alias("dup"))
        counts = df.select(exprs).row(0)  # one pass over the table for every check
        for (role, col), bad in zip(roles, counts[:-2], strict=True):
            if bad:
                raise GenexpyInputError(
                    f"{role} column {col!r} has {bad} null/NaN value(s) (of {df.height} "
                    "rows): every result needs a level of each factor. Fill them with a "
                    f"level, e.g. df.with_columns(pl.col({col!r}).fill_null('unknown')), or "
                    f"drop those rows, e.g. df.drop_nulls({col!r})."
                )
        return int(counts[-2]), bool(counts[-1])

    def _keys(self) -> list[str]:
        """The columns that identify one run: design, condition, alternative, stochastic."""
        return [*self.design, *self.generalize, self.alternatives_col, *self.average_over]

    def _build(self, df: pl.DataFrame) -> None:
        rows_input = df.height
        if df.height == 0:
            raise GenexpyInputError("data: the table is empty (0 rows); nothing to analyse.")
        for col, level in self.held_constant.items():
            levels = df.get_column(col).unique().to_list()
            if level not in levels:
                raise GenexpyInputError(
                    f"held_constant: level {level!r} not found in column {col!r}; "
                    f"its levels are {levels[:10]}{' ...' if len(levels) > 10 else ''}."
                )
            df = df.filter(pl.col(col) == level)
        rows_held = df.height
        bad, dup = self._check_factor_columns(df)
        tgt = pl.col(self.target).cast(pl.Float64)
        rows_invalid = 0
        if bad and self.invalid_target == "drop":
            df = df.filter(tgt.is_not_null() & tgt.is_finite())
            rows_invalid = int(bad)
            if df.height == 0:
                raise GenexpyInputError(
                    f"target column {self.target!r}: every score was null, NaN or infinite, "
                    f"so invalid_target='drop' dropped all {bad} rows; check the column.")
            dup = (df.select(pl.struct(self._keys()).is_duplicated().any()).item()
                   if df.height else False)
        elif bad:
            raise GenexpyInputError(
                f"target column {self.target!r} has {bad} missing, NaN or infinite values. "
                "Drop those rows (a missing result is an absent row) or fix them, e.g. "
                f"df.filter(pl.col({self.target!r}).is_finite()), or pass "
                "invalid_target='drop'."
            )
        keys = self._keys()
        if dup:
            others = [c for c in df.columns if c not in keys and c != self.target]
            stoch = ", stochastic factors" if self.average_over else ""
            raise GenexpyInputError(
                "duplicate rows: several results share the same "
                f"(design, condition, alternative{stoch})"
                f" = {keys}. {_varying_columns(df, keys, others, self.target)} Give the "
                "remaining factors "
                "a role: average_over=[...] for seeds or folds, design=[...] or "
                f"held_constant={{...}}. Columns without a role: {others}."
            )
        grp = [*self.design, *self.generalize, self.alternatives_col]
        rep_expected, short = 0, ()
        if self.average_over:
            if self.require_complete_replicates:
                self._check_complete_replicates(df, grp)
            df = (df.group_by(grp, maintain_order=True)
                  .agg(finite_mean(pl.col(self.target).cast(pl.Float64)).alias(self.target),
                       pl.len().alias("__replicates__")))
            rep_expected, short = _short_replicates(df, self.alternatives_col)
            df = df.drop("__replicates__")
        n_results = df.height
        if n_results == 0:
            raise GenexpyInputError(
                f"alternatives column {self.alternatives_col!r} has 0 distinct value(s); "
                "comparing needs at least 2 alternatives."
            )
        # Every level as a dense code in its sorted order; the grouping is then done on
        # integer codes in NumPy. (A chain of polars unique / sort / join steps did the same
        # at several times the cost: on small tables the fixed cost of each step dominates,
        # on large ones the sorts of the whole column.)
        cond_expr = (
            pl.col(self.generalize[0]).cast(pl.String)
            if len(self.generalize) == 1
            else pl.concat_str([pl.col(c).cast(pl.String) for c in self.generalize],
                               separator=" | ")
        )
        enc = df.select(
            *[pl.col(c) for c in self.design],
            *[pl.col(c).rank("dense").alias(f"__d{i}__") for i, c in enumerate(self.design)],
            cond_expr.alias(_COND),
            pl.col(self.alternatives_col).cast(pl.String).alias(_ALT),
            pl.col(self.target).cast(pl.Float64),
        )
        # codes of (design levels...) in lexicographic order of the levels: the order of
        # ``unique().sort(design)``; then (configuration, condition text)
        conf_code = _lex_codes([enc.get_column(f"__d{i}__").to_numpy().astype(np.int64) - 1
                                for i in range(len(self.design))], n_results)
        cond_levels, cond_code = _sorted_codes(enc.get_column(_COND))
        col_code = _lex_codes([conf_code, cond_code], n_results)
        alts, a_i = _sorted_codes(enc.get_column(_ALT))
        n_alts = len(alts)
        if n_alts < 2:
            raise GenexpyInputError(
                f"alternatives column {self.alternatives_col!r} has {n_alts} distinct "
                "value(s); comparing needs at least 2 alternatives."
            )
        n_cols = int(col_code.max()) + 1
        M = np.full((n_cols, n_alts), np.nan)
        M[col_code, a_i] = enc.get_column(self.target).to_numpy()
        if np.count_nonzero(~np.isnan(M)) < n_results:  # two results landed in one cell
            raise GenexpyInputError(
                "distinct levels collapse to the same (condition, alternative) once written "
                f"as text (generalize={list(self.generalize)}, joined with ' | ', "
                f"alternatives={self.alternatives_col!r}); rename the levels so that their "
                "text forms differ (e.g. no ' | ' inside a level)."
            )
        # one row of the table per configuration and per (configuration, condition)
        conf_first = _first_rows(conf_code)
        col_first = _first_rows(col_code)
        if self.design:
            # (a gather by expression: indexing a frame with a NumPy array imports numpy.ma)
            confs = enc.select(pl.col(list(self.design)).gather(conf_first.tolist())
                               ).with_row_index(_CONF)
        else:
            confs = pl.DataFrame({_CONF: [0]}, schema={_CONF: pl.UInt32})
        col_conf = conf_code[col_first]
        cond_text = [cond_levels[c] for c in cond_code[col_first].tolist()]

        # paper Sec. 4.1 steps 1-2, over the whole study
        observed = ~np.isnan(M)
        keep_rows = (1.0 - observed.mean(axis=1)) <= self.tol_missing_alternatives
        keep_rows &= observed.any(axis=1)
        Mk = M[keep_rows]
        if Mk.shape[0] == 0:
            raise GenexpyInputError(
                "every condition misses more than tol_missing_alternatives="
                f"{self.tol_missing_alternatives} of the alternatives; raise the tolerance or "
                "check the alternatives column."
            )
        miss_alt = np.isnan(Mk).mean(axis=0)
        keep_alts = miss_alt <= self.tol_missing_conditions
        if keep_alts.sum() < 2:
            raise GenexpyInputError(
                f"only {int(keep_alts.sum())} alternative(s) left after dropping those missing "
                f"in more than tol_missing_conditions={self.tol_missing_conditions} of the "
                "conditions; raise the tolerance."
            )
        Mk = Mk[:, keep_alts]
        row_ok = ~np.isnan(Mk).all(axis=1)
        Mk = Mk[row_ok]
        kept = np.flatnonzero(keep_rows)[row_ok]
        self.alternatives = tuple(a for a, k in zip(alts, keep_alts, strict=True) if k)
        imputed = np.isnan(Mk)
        ranks = rank_scores(Mk, self.higher_is_better, rtol=self.tie_rtol, atol=self.tie_atol)
        worst = np.nanmin(Mk, axis=1) if self.higher_is_better else np.nanmax(Mk, axis=1)
        scores = np.where(imputed, worst[:, None], Mk)

        conf_of_row = col_conf[kept]
        cond_of_row = [cond_text[i] for i in kept]
        self._samples: dict[int, ConfigurationSample] = {}
        conf_rows = confs.to_dicts()
        n_list, imp_list, ids = [], [], []
        for row in conf_rows:
            cid = int(row.pop(_CONF))
            sel = np.flatnonzero(conf_of_row == cid)
            if sel.size == 0:
                continue
            self._samples[cid] = ConfigurationSample(
                config_id=cid,
                levels=row,
                alternatives=self.alternatives,
                conditions=tuple(cond_of_row[i] for i in sel),
                rankings=np.ascontiguousarray(ranks[sel]),
                scores=np.ascontiguousarray(scores[sel]),
                imputed=imputed[sel],
            )
            ids.append(cid)
            n_list.append(int(sel.size))
            imp_list.append(int(imputed[sel].sum()))
        # built from its columns: no query for a frame of one row per configuration
        sel = confs.select(pl.all().gather(ids)) if len(ids) != confs.height else confs
        self.configurations = pl.DataFrame([
            sel.get_column(_CONF).alias("config_id"), *sel.get_columns()[1:],
            pl.Series("N", n_list, dtype=pl.Int64),
            pl.Series("na", [len(self.alternatives)] * len(ids), dtype=pl.Int64),
            pl.Series("n_imputed", imp_list, dtype=pl.Int64),
        ])
        self.report = FilterReport(
            rows_input=rows_input,
            rows_after_held_constant=rows_held,
            rows_invalid_target=rows_invalid,
            results_after_averaging=n_results,
            conditions_total=int(M.shape[0]),
            conditions_dropped=int(M.shape[0] - Mk.shape[0]),
            alternatives_total=len(alts),
            alternatives_dropped=tuple(a for a, k in zip(alts, keep_alts, strict=True)
                                       if not k),
            cells_total=int(Mk.size),
            cells_imputed=int(imputed.sum()),
            tol_missing_alternatives=self.tol_missing_alternatives,
            tol_missing_conditions=self.tol_missing_conditions,
            replicates_expected=rep_expected,
            short_replicates=short,
        )

    def _check_complete_replicates(self, df: pl.DataFrame, grp: list[str]) -> None:
        """Refuse results with fewer replicates than the others, naming what is missing."""
        avg = list(self.average_over)
        counts = df.group_by(grp).agg(pl.len().alias("__n__"))
        full = int(counts["__n__"].max()) if counts.height else 0
        short = counts.filter(pl.col("__n__") < full)
        if short.height == 0:
            return
        levels = df.select(avg).unique()
        first = short.sort(grp).row(0, named=True)
        have = df.filter(*[pl.col(c) == first[c] for c in grp]).select(avg).unique()
        missing = levels.join(have, on=avg, how="anti").sort(avg)
        shown = ", ".join(
            "(" + ", ".join(f"{c}={v!r}" for c, v in r.items()) + ")"
            for r in missing.head(5).iter_rows(named=True))
        if missing.height > 5:
            shown += f", ... ({missing.height} in all)"
        where = ", ".join(f"{c}={first[c]!r}" for c in grp)
        alts = short.get_column(self.alternatives_col).cast(pl.String).unique().sort()
        raise GenexpyInputError(
            f"require_complete_replicates: {short.height} result(s) have fewer than {full} "
            f"replicates of {avg} (alternatives {alts.head(8).to_list()}"
            f"{' ...' if alts.len() > 8 else ''}); e.g. {where} misses {shown}. Run the "
            "missing replicates, drop those results, or pass require_complete_replicates="
            "False to average what is there (study.report then lists them)."
        )

    def _subsample(self, sample: ConfigurationSample, idx: np.ndarray) -> Study:
        """A one-configuration Study (id 0, no design factors) made of the results ``idx``
        (sorted row positions) of ``sample``: what ``Study`` builds from those results'
        rows with both missing-results tolerances at 1, without going through the table.

        Rows keep their rankings and imputed scores (a row's tiers depend on that row
        only); an alternative with no observed result in the chosen rows is dropped, as the
        table would not name it. Used by the preliminary-study simulation, which builds one
        such study per preliminary size: building them from the table took most of its time.
        """
        idx = np.asarray(idx, dtype=np.int64)
        imputed = np.asarray(sample.imputed)[idx]
        keep_alts = ~imputed.all(axis=0)
        if keep_alts.sum() < 2:
            raise GenexpyInputError(
                f"only {int(keep_alts.sum())} alternative(s) have results in the chosen "
                "conditions; comparing needs at least 2."
            )
        sub = object.__new__(Study)
        sub.alternatives_col = "alternative"
        sub.target = "score"
        sub.generalize = ("condition",)
        sub.design = ()
        sub.average_over = ()
        sub.held_constant = {}
        sub.higher_is_better = self.higher_is_better
        sub.tol_missing_alternatives = 1.0
        sub.tol_missing_conditions = 1.0
        sub.invalid_target = "raise"
        sub.tie_rtol, sub.tie_atol = self.tie_rtol, self.tie_atol
        sub.require_complete_replicates = False
        sub.alternatives = tuple(a for a, k in zip(sample.alternatives, keep_alts, strict=True)
                                 if k)
        ranks = np.asarray(sample.rankings)[idx][:, keep_alts]
        imp = imputed[:, keep_alts]
        sub._samples = {0: ConfigurationSample(
            config_id=0, levels={}, alternatives=sub.alternatives,
            conditions=tuple(sample.conditions[i] for i in idx),
            rankings=np.ascontiguousarray(ranks),
            scores=np.ascontiguousarray(np.asarray(sample.scores)[idx][:, keep_alts]),
            imputed=imp,
        )}
        n_imp = int(imp.sum())
        sub.configurations = pl.DataFrame([
            pl.Series("config_id", [0], dtype=pl.UInt32),
            pl.Series("N", [int(idx.size)], dtype=pl.Int64),
            pl.Series("na", [len(sub.alternatives)], dtype=pl.Int64),
            pl.Series("n_imputed", [n_imp], dtype=pl.Int64)])
        n_obs = int(idx.size * len(sub.alternatives) - n_imp)
        sub.report = FilterReport(
            rows_input=n_obs, rows_after_held_constant=n_obs, rows_invalid_target=0,
            results_after_averaging=n_obs, conditions_total=int(idx.size),
            conditions_dropped=0, alternatives_total=len(sub.alternatives),
            alternatives_dropped=(), cells_total=int(idx.size * len(sub.alternatives)),
            cells_imputed=n_imp, tol_missing_alternatives=1.0, tol_missing_conditions=1.0,
        )
        return sub

    # ------------------------------------------------------------------------------------
    @property
    def na(self) -> int:
        """Number of alternatives kept."""
        return len(self.alternatives)

    def __len__(self) -> int:
        return len(self._samples)

    def __repr__(self) -> str:
        return (
            f"Study({len(self)} configurations x {self.na} alternatives; "
            f"generalize={list(self.generalize)}, design={list(self.design)}, "
            f"target={self.target!r} ({'higher' if self.higher_is_better else 'lower'} "
            "is better))"
        )

    def config_id(self, key: int | Mapping[str, Any] | Sequence[Any]) -> int:
        """The id of a configuration given by id, ``{factor: level}`` or a tuple of levels."""
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            if int(key) not in self._samples:
                raise GenexpyInputError(
                    f"no configuration with id {key}; ids are {sorted(self._samples)[:20]}."
                )
            return int(key)
        if isinstance(key, Mapping):
            levels = dict(key)
        else:
            seq = [key] if isinstance(key, (str, bytes)) else list(key)
            if len(seq) != len(self.design):
                raise GenexpyInputError(
                    f"a configuration is a tuple of {len(self.design)} levels of "
                    f"{list(self.design)}, got {key!r}."
                )
            levels = dict(zip(self.design, seq, strict=True))
        unknown = set(levels) - set(self.design)
        if unknown:
            raise GenexpyInputError(
                f"{sorted(unknown)} are not design factors; the design factors are "
                f"{list(self.design)}."
            )
        for s in self._samples.values():
            if all(s.levels.get(k) == v for k, v in levels.items()) and len(levels) == len(
                self.design
            ):
                return s.config_id
        raise GenexpyInputError(
            f"no configuration with levels {levels}; see study.configurations for the "
            "available ones (a configuration may have been emptied by the missing-results "
            "filter)."
        )

    def sample(self, key: int | Mapping[str, Any] | Sequence[Any]) -> ConfigurationSample:
        """The observed results of one configuration."""
        return self._samples[self.config_id(key)]

    def samples(self) -> Iterator[ConfigurationSample]:
        """All configurations, in id order."""
        for cid in sorted(self._samples):
            yield self._samples[cid]

    def rankings_frame(self, key: int | Mapping[str, Any] | Sequence[Any]) -> pl.DataFrame:
        """The rankings of one configuration as a tidy frame (condition, alternative, rank)."""
        s = self.sample(key)
        return pl.DataFrame(
            {
                "condition": np.repeat(np.array(s.conditions, dtype=object), s.na).tolist(),
                "alternative": list(s.alternatives) * s.N,
                "rank": s.rankings.ravel(),
                "score": s.scores.ravel(),
                "imputed": s.imputed.ravel(),
            }
        )
