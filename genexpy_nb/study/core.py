"""A study: a tidy results table plus the role of every factor (paper Sec. 3.1; Sec. 4.1).

From the table, the Study builds, for every configuration (combination of design-factor
levels), the sample of observed results: one ranking with ties per experimental condition
(0 = best tier, dense tiers) and the matching raw scores.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from .. import config
from .._validation import (
    GenexpyInputError,
    check_probability,
    check_reserved_names,
    check_score_range,
    fill_doc,
    finite_mean,
    require_columns,
    to_polars,
)
from .._words import noun
from ._roles import alias
from .ranking import (
    TIE_ATOL,
    TIE_RTOL,
    check_tie_tolerances,
    first_rows,
    lex_codes,
    rank_scores,
    sorted_codes,
    tie_tolerance,
)
from .samples import ConfigurationSample, FilterReport


def _check_shown_apart(names: Sequence[Any], column: str) -> None:
    """Refuse alternatives whose names every table and figure would show alike."""
    from .._escape import display_clashes

    clash = display_clashes([str(a) for a in names])
    if clash:
        a, b = clash[0]
        raise GenexpyInputError(
            f"alternatives {a!r} and {b!r} of column {column!r} differ only by control "
            "characters, line breaks or white space, so every table and figure would show "
            f"them alike ({len(clash)} such pair(s)); rename them in the table first.")


__all__ = ["Study", "ConfigurationSample", "FilterReport", "rank_scores", "tie_tolerance",
           "DirectionWarning"]

_COND = "__condition__"
_CONF = "__config_id__"
_ALT = "__alternative__"


class DirectionWarning(UserWarning):
    """The target's name suggests the other direction.

    An error, a loss or a time given with ``higher_is_better=True``: a hint, the study is
    built as asked.
    """


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


def _varying_columns(df: pl.DataFrame, keys: list[str], others: list[str], target: str
                     ) -> str:
    """Name, in a sentence, the columns that vary within the repeated rows of ``keys``."""
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
    """Find the results averaged over fewer replicates than the others.

    From the averaged table's ``__replicates__`` column: (most replicates of a result,
    per alternative with fewer: (alternative, results, fewest, most among them)).
    """
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


#: the entry of a method of one configuration
_fill_key_doc = fill_doc(key="""\
key : int, mapping or sequence
    The configuration, as :meth:`config_id` takes it.
""")


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
        Required (under this name or its alias ``blocks``).
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
    blocks : str or list of str, optional
        Alias of ``generalize`` (the name :func:`~genexpy_nb.significance.compare`, the tests
        and the aggregates use: the conditions are the blocks results are ranked within).
    imputed : str, optional
        A boolean column marking the rows whose target the table's source imputed (a failed
        run it filled in, as some public benchmarks do). Those rows count as failed runs:
        their target is taken as missing, whatever ``invalid_target`` says, and the
        missing-results policy then treats them as any missing result (a run among
        replicates is left out of its result's mean; a result with no run left is missing).
        Counted in ``study.report.rows_marked_imputed`` and listed by name in
        ``marked_imputed``.

    Attributes
    ----------
    runs : polars.DataFrame or None
        With ``average_over``: the runs behind the averaged results (design, condition,
        alternative and replicate columns, the target; after the held-constant filter,
        without the invalid and the imputed rows), so that the spread over runs can be
        read from the study itself; None without replicates.
    marked_imputed : polars.DataFrame
        The rows the ``imputed`` column marks, by name (their design, condition,
        alternative and replicate columns); empty without ``imputed``.

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
        generalize: str | Sequence[str] | None = None,
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
        blocks: str | Sequence[str] | None = None,
        imputed: str | None = None,
    ) -> None:
        generalize = alias("generalize", generalize, "blocks", blocks, "Study")
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
        if imputed is not None and not isinstance(imputed, str):
            raise GenexpyInputError(f"imputed must be one column name (str), got {imputed!r}.")
        for role, cols in (("alternatives", [alternatives]), ("target", [target]),
                           ("generalize", gen), ("design", des), ("average_over", avg),
                           ("held_constant", list(held)),
                           ("imputed", [imputed] if imputed else [])):
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
        # ranks within a condition need the order only: huge floats are fine, integers
        # beyond 2**53 are not (neighbours become ties)
        check_score_range(df[target], f"target column {target!r}", overflow=False)
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
        self.imputed = imputed
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
        """Return the columns that identify one run: design, condition, alternative, stochastic."""
        return [*self.design, *self.generalize, self.alternatives_col, *self.average_over]

    def _held_constant_rows(self, df: pl.DataFrame) -> pl.DataFrame:
        """Keep the rows at the level of each held-constant factor (an absent level is refused)."""
        for col, level in self.held_constant.items():
            levels = df.get_column(col).unique().to_list()
            if level not in levels:
                raise GenexpyInputError(
                    f"held_constant: level {level!r} not found in column {col!r}; "
                    f"its levels are {levels[:10]}{' ...' if len(levels) > 10 else ''}."
                )
            df = df.filter(pl.col(col) == level)
        return df

    def _imputed_rows(self, df: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
        """Take the rows the ``imputed`` column marks as failed runs (their target missing).

        Returns the table without those rows and the marked rows by name (the key
        columns). A column that is not boolean (or 0/1) is refused, naming it.
        """
        keys = self._keys()
        if self.imputed is None:
            return df, pl.DataFrame(schema={k: df.schema[k] for k in keys})
        col = df.schema[self.imputed]
        mark = pl.col(self.imputed)
        if col != pl.Boolean:
            values = set(df.get_column(self.imputed).drop_nulls().unique().to_list())
            if not col.is_numeric() or not values <= {0, 1}:
                raise GenexpyInputError(
                    f"imputed column {self.imputed!r} must be boolean (or 0/1), marking the "
                    f"rows whose {self.target!r} the source imputed; it holds "
                    f"{sorted(map(str, values))[:5]}.")
            mark = mark.cast(pl.Boolean)
        mark = mark.fill_null(False)
        marked = df.filter(mark).select(keys)
        return df.filter(~mark), marked

    def _valid_rows(self, df: pl.DataFrame) -> tuple[pl.DataFrame, int]:
        """Check the factor and target columns and refuse duplicate runs.

        Returns the table (without the rows of an invalid target when
        ``invalid_target="drop"``) and the number of rows so dropped.
        """
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
                f"(design, {noun('condition')}, alternative{stoch})"
                f" = {keys}. {_varying_columns(df, keys, others, self.target)} Give the "
                "remaining factors "
                "a role: average_over=[...] for seeds or folds, design=[...] or "
                f"held_constant={{...}}. Columns without a role: {others}."
            )
        return df, rows_invalid

    def _averaged_rows(self, df: pl.DataFrame) -> tuple[pl.DataFrame, int, tuple]:
        """Average the results over the stochastic factors (paper Sec. 4.1).

        Returns the averaged table and, as :func:`_short_replicates`, the most replicates
        of a result and the alternatives averaged over fewer (``0, ()`` without stochastic
        factors).
        """
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
        return df, rep_expected, short

    def _build(self, df: pl.DataFrame) -> None:
        """Build the samples of every configuration, the configurations and the report."""
        rows_input = df.height
        if df.height == 0:
            raise GenexpyInputError("data: the table is empty (0 rows); nothing to analyse.")
        df = self._held_constant_rows(df)
        rows_held = df.height
        df, self.marked_imputed = self._imputed_rows(df)
        df, rows_invalid = self._valid_rows(df)
        self.runs = (df.select(*self._keys(), pl.col(self.target).cast(pl.Float64))
                     if self.average_over else None)
        df, rep_expected, short = self._averaged_rows(df)
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
        # the conditions in the order they first appear in the table (the order they were
        # added: gx.conclusions' sequential mode reads them in it)
        self.condition_order = tuple(enc.get_column(_COND).unique(maintain_order=True)
                                     .to_list())
        # codes of (design levels...) in lexicographic order of the levels: the order of
        # ``unique().sort(design)``; then (configuration, condition text)
        conf_code = lex_codes([enc.get_column(f"__d{i}__").to_numpy().astype(np.int64) - 1
                                for i in range(len(self.design))], n_results)
        cond_levels, cond_code = sorted_codes(enc.get_column(_COND))
        col_code = lex_codes([conf_code, cond_code], n_results)
        alts, a_i = sorted_codes(enc.get_column(_ALT))
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
                f"distinct levels collapse to the same ({noun('condition')}, alternative) once "
                "written "
                f"as text (generalize={list(self.generalize)}, joined with ' | ', "
                f"alternatives={self.alternatives_col!r}); rename the levels so that their "
                "text forms differ (e.g. no ' | ' inside a level)."
            )
        # one row of the table per configuration and per (configuration, condition)
        conf_first = first_rows(conf_code)
        col_first = first_rows(col_code)
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
                f"every {noun('condition')} misses more than tol_missing_alternatives="
                f"{self.tol_missing_alternatives} of the alternatives; raise the tolerance or "
                "check the alternatives column."
            )
        miss_alt = np.isnan(Mk).mean(axis=0)
        keep_alts = miss_alt <= self.tol_missing_conditions
        if keep_alts.sum() < 2:
            raise GenexpyInputError(
                f"only {int(keep_alts.sum())} alternative(s) left after dropping those missing "
                f"in more than tol_missing_conditions={self.tol_missing_conditions} of the "
                f"{noun('conditions')}; raise the tolerance."
            )
        Mk = Mk[:, keep_alts]
        row_ok = ~np.isnan(Mk).all(axis=1)
        Mk = Mk[row_ok]
        kept = np.flatnonzero(keep_rows)[row_ok]
        self.alternatives = tuple(a for a, k in zip(alts, keep_alts, strict=True) if k)
        _check_shown_apart(self.alternatives, self.alternatives_col)
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
            rows_marked_imputed=self.marked_imputed.height,
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
        """Build a one-configuration Study from some results of ``sample``, without the table.

        The Study has id 0 and no design factors and is made of the results ``idx``
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
        alternatives = tuple(a for a, k in zip(sample.alternatives, keep_alts, strict=True)
                             if k)
        ranks = np.asarray(sample.rankings)[idx][:, keep_alts]
        imp = imputed[:, keep_alts]
        samples = {0: ConfigurationSample(
            config_id=0, levels={}, alternatives=alternatives,
            conditions=tuple(sample.conditions[i] for i in idx),
            rankings=np.ascontiguousarray(ranks),
            scores=np.ascontiguousarray(np.asarray(sample.scores)[idx][:, keep_alts]),
            imputed=imp,
        )}
        n_imp = int(imp.sum())
        configurations = pl.DataFrame([
            pl.Series("config_id", [0], dtype=pl.UInt32),
            pl.Series("N", [int(idx.size)], dtype=pl.Int64),
            pl.Series("na", [len(alternatives)], dtype=pl.Int64),
            pl.Series("n_imputed", [n_imp], dtype=pl.Int64)])
        n_obs = int(idx.size * len(alternatives) - n_imp)
        report = FilterReport(
            rows_input=n_obs, rows_after_held_constant=n_obs, rows_invalid_target=0,
            results_after_averaging=n_obs, conditions_total=int(idx.size),
            conditions_dropped=0, alternatives_total=len(alternatives),
            alternatives_dropped=(), cells_total=int(idx.size * len(alternatives)),
            cells_imputed=n_imp, tol_missing_alternatives=1.0, tol_missing_conditions=1.0,
        )
        # every setting of this study (the tie tolerances, the direction, ...), except the
        # roles of a table of one configuration and the tolerances that keep every result
        settings = {**self.settings(), "alternatives_col": "alternative", "target": "score",
                    "generalize": ("condition",), "design": (), "average_over": (),
                    "held_constant": {}, "tol_missing_alternatives": 1.0,
                    "tol_missing_conditions": 1.0, "invalid_target": "raise",
                    "require_complete_replicates": False, "imputed": None}
        return Study._assemble(settings, alternatives=alternatives, samples=samples,
                               configurations=configurations, report=report)

    #: the settings of a Study: its roles and its policies, as given to (and checked by)
    #: ``Study(...)``; :meth:`settings` returns them, ``_assemble`` needs every one
    SETTINGS = ("alternatives_col", "target", "generalize", "design", "average_over",
                "held_constant", "higher_is_better", "tol_missing_alternatives",
                "tol_missing_conditions", "invalid_target", "tie_rtol", "tie_atol",
                "require_complete_replicates", "imputed")

    def settings(self) -> dict[str, Any]:
        """Return the study's roles and policies (:data:`SETTINGS`) as a dict."""
        return {k: getattr(self, k) for k in self.SETTINGS}

    @classmethod
    def _assemble(cls, settings: Mapping[str, Any], *, alternatives: tuple,
                  samples: dict[int, ConfigurationSample], configurations: pl.DataFrame,
                  report: FilterReport) -> Study:
        """Assemble a Study from checked parts, without the table.

        ``settings`` must name every one of :data:`SETTINGS` (a missing one is an error,
        not a silent default).
        """
        missing = set(cls.SETTINGS) - set(settings)
        extra = set(settings) - set(cls.SETTINGS)
        if missing or extra:
            raise TypeError(f"Study settings: missing {sorted(missing)}, unknown "
                            f"{sorted(extra)}.")
        study = cls.__new__(cls)
        for k in cls.SETTINGS:
            setattr(study, k, settings[k])
        study.alternatives = alternatives
        study._samples = samples
        study.configurations = configurations
        study.report = report
        study.runs = None  # the runs stay with the study built from the table
        study.marked_imputed = pl.DataFrame()
        # the conditions in the order the samples hold them (no table to read it from)
        study.condition_order = tuple(dict.fromkeys(
            c for s in samples.values() for c in s.conditions))
        return study

    # ------------------------------------------------------------------------------------
    @property
    def na(self) -> int:
        """Number of alternatives kept."""
        return len(self.alternatives)

    def __len__(self) -> int:
        """Return the number of configurations."""
        return len(self._samples)

    def __repr__(self) -> str:
        """Summarise the study: configurations, alternatives, roles and direction."""
        return (
            f"Study({len(self)} configurations x {self.na} alternatives; "
            f"generalize={list(self.generalize)}, design={list(self.design)}, "
            f"target={self.target!r} ({'higher' if self.higher_is_better else 'lower'} "
            "is better))"
        )

    def config_id(self, key: int | Mapping[str, Any] | Sequence[Any]) -> int:
        """Return the id of a configuration given by id, ``{factor: level}`` or a tuple of levels.

        Parameters
        ----------
        key : int, mapping or sequence
            The configuration's id, its design-factor levels as ``{factor: level}``, or the
            tuple of its levels in the order of the design factors.

        Returns
        -------
        int
            The configuration's id (an unknown one is an error).
        """
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

    @_fill_key_doc
    def sample(self, key: int | Mapping[str, Any] | Sequence[Any]) -> ConfigurationSample:
        """Return the observed results of one configuration.

        Parameters
        ----------
        {key}

        Returns
        -------
        ConfigurationSample
            Its rankings, scores and imputed flags (conditions x alternatives).
        """
        return self._samples[self.config_id(key)]

    def samples(self) -> Iterator[ConfigurationSample]:
        """All configurations, in id order."""
        for cid in sorted(self._samples):
            yield self._samples[cid]

    @_fill_key_doc
    def rankings_frame(self, key: int | Mapping[str, Any] | Sequence[Any]) -> pl.DataFrame:
        """Return the rankings of one configuration as a tidy frame.

        Parameters
        ----------
        {key}

        Returns
        -------
        polars.DataFrame
            One row per condition x alternative: condition, alternative, rank (0 = best
            tier), score (missing ones imputed) and imputed.
        """
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
