"""The comparison of alternatives over blocks, as one workflow: :func:`compare`.

From a tidy results table to the answer a paper reports: the missing-results policy of a
:class:`~genexpy_nb.Study`, the omnibus rank test, a post-hoc test with its correction,
mean ranks, the data of the critical-difference (CD) diagram and a written report
(:class:`Comparison`: Markdown, HTML, LaTeX, files). The command line's ``genexpy-nb
compare`` is this function and :func:`genexpy_nb.charts.save_comparison`.

**Every output summarises the same blocks.** The policy of the Study runs first (the same
tolerances, flags and default for NaN scores as ``genexpy-nb nstar``): blocks missing
more than ``tol_missing_alternatives`` of the alternatives are dropped, then alternatives
missing in more than ``tol_missing_conditions`` of the remaining blocks. What is still
missing is handled by one method, everywhere, chosen by ``missing`` and said at the top of
every output (the failed (block, alternative) pairs are listed by name in
``failed_results``):

* ``"study"`` (default, as n*; paper Sec. 4.1): a missing result is the **worst tier** of
  its block, one below every result there: a failed run loses. The blocks are complete,
  so the tests are Friedman's and Conover–Iman's.
* ``"drop-block"``: blocks with a missing result are left out (complete blocks only).
* ``"available"``: **ranks among the available alternatives** (Skillings & Mack 1981).
  Each block ranks the alternatives that have a result there; the omnibus test is
  Skillings–Mack's; an alternative's mean rank is the mean, over the blocks where it has a
  result, of its rank among the s alternatives present put on the 1..k scale
  (``1 + (r - 1)(k - 1)/(s - 1)``: under the null every alternative then expects
  (k + 1)/2, so a block with fewer alternatives neither favours nor penalises those
  present); the post-hoc tests compare these mean ranks, divided by the exact standard
  deviation of their difference under the omnibus test's null. On complete blocks all of
  this is Friedman's test, the usual mean ranks (bit for bit) and Demšar's z-test (or
  Nemenyi's).

**Near-ties are ties.** The rank tests rank the Study's tiers, not the raw scores: two
scores of a block within the Study's tie tolerance (``tie_rtol`` of the block's score
range, ``tie_atol``, at least 64 float epsilons of its largest score;
:func:`genexpy_nb.study.ranking.rank_scores`) share a rank, so the same results averaged in
another order give the same statistics. ``tie_rtol=0, tie_atol=0`` ranks by exact
equality. Ranks are within a block, so the rank tests are unchanged by any rescaling of a
block's scores.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import polars as pl

from .. import config
from .._validation import (
    REQUIRED,
    GenexpyInputError,
    check_choice,
    check_direction,
    check_probability,
    check_score_range,
    require_role_columns,
    to_polars,
)
from .._words import opt, plural, role_nouns, translate
from ..significance._pairs import correction_words
from ..significance._ranks import mean_ranks_available
from ..significance.corrections import P_ADJUST_METHODS
from ..significance.critical_difference import cliques as _cliques
from ..significance.critical_difference import group_letters
from ..study._missing import MISSING_POLICIES
from ..study._roles import alias
from ..study.ranking import TIE_ATOL, TIE_RTOL, check_tie_tolerances
from . import numbers
from .comparison import Comparison
from .document import Data, Text, as_data

__all__ = ["compare", "Comparison", "MISSING_POLICIES", "NORMALIZE", "POSTHOC_TESTS",
           "SCALE_RATIO", "block_unit", "scale_basis"]

#: post-hoc tests of :func:`compare` ("auto": Conover-Iman on complete blocks, the
#: Siegel-Castellan z-test of mean ranks among the available alternatives when results
#: are missing)
POSTHOC_TESTS: tuple[str, ...] = ("auto", "conover", "nemenyi", "siegel")
#: the scores of the aggregates, the Bayesian rope and the effect sizes: raw, min-max
#: normalised per block, or chosen from the blocks' score ranges ("auto")
NORMALIZE: tuple[str, ...] = ("auto", "none", "minmax")
#: "auto" normalises when the blocks' score ranges (max - min) differ by more than this
SCALE_RATIO: float = 100.0
_TIES = ("average", "min")

#: words in a block column's name that mean a replicate (folds, seeds), not a dataset
_REPLICATE_WORDS = frozenset({
    "fold", "folds", "seed", "seeds", "split", "splits", "repeat", "repeats", "repetition",
    "repetitions", "rep", "reps", "run", "runs", "resample", "resamples", "bootstrap",
    "iteration", "iter", "trial", "trials", "cv", "outer", "inner", "shuffle"})

#: parameters whose ``name=value`` in messages of the functions called is rewritten as a
#: command-line flag (see ``_words.translate``)
_PARAMS = ("alternatives", "target", "blocks", "average_over", "higher_is_better",
           "posthoc", "p_adjust", "alpha", "tol_missing_alternatives",
           "tol_missing_conditions", "invalid_target", "require_complete_replicates", "ties",
           "control", "top", "held_constant", "missing", "tie_rtol", "tie_atol",
           "normalize")


# ---- the workflow ----------------------------------------------------------------------


def _as_columns(name: str, value: Any, *, required: bool) -> tuple[str, ...]:
    if value is None or (not isinstance(value, str) and isinstance(value, Sequence)
                         and len(value) == 0):
        if required:
            raise GenexpyInputError(f"{opt(name, placeholder='COLUMNS')}: name at least "
                                    "one column.")
        return ()
    if isinstance(value, str):
        parts = [value]
    elif isinstance(value, Sequence):
        parts = list(value)
    else:
        raise GenexpyInputError(f"{opt(name)} must be a column name or a list of names, got "
                                f"{type(value).__name__}.")
    for p in parts:
        if not isinstance(p, str) or not p:
            raise GenexpyInputError(f"{opt(name)} must hold column names, got {p!r}.")
    return tuple(parts)


def _check_inputs(df: pl.DataFrame, alternatives: str, target: str, blocks: tuple[str, ...],
                  average_over: tuple[str, ...], invalid_target: str) -> None:
    """Columns, roles, types, NaN scores and repeated rows, in the caller's words."""
    require_role_columns(df, {opt("alternatives"): [alternatives], opt("target"): [target],
                              opt("blocks"): list(blocks),
                              opt("average_over"): list(average_over)})
    given = [alternatives, target, *blocks, *average_over]
    twice = sorted({c for c in given if given.count(c) > 1})
    if twice:
        raise GenexpyInputError(f"column(s) {twice} are given two roles (alternatives, "
                                "target, blocks, average over); give each its own.")
    if not df.schema[target].is_numeric():
        raise GenexpyInputError(
            f"{opt('target')}: column {target!r} is not numeric (dtype {df.schema[target]}); "
            "convert it, or name the numeric result column.")
    check_score_range(df[target], f"{opt('target')}: column {target!r}")
    for c in (alternatives, *blocks, *average_over):
        n_null = df[c].null_count()
        if n_null:
            raise GenexpyInputError(f"column {c!r} has {n_null} empty value(s) (of "
                                    f"{df.height} rows); fill or drop those rows.")
    tgt = pl.col(target).cast(pl.Float64)
    bad = int(df.select((tgt.is_null() | ~tgt.is_finite()).sum()).item())
    if bad and invalid_target == "raise":
        raise GenexpyInputError(
            f"{opt('target')}: column {target!r} has {bad} empty, NaN or infinite value(s) "
            f"(of {df.height} rows), e.g. from failed runs. Pass "
            f"{opt('invalid_target', 'drop')} to drop those rows and count them as missing "
            "results (the missing-results policy then handles them), or fix them.")
    keys = [alternatives, *blocks, *average_over]
    dup = df.select(pl.struct(keys).is_duplicated().sum()).item()
    if dup:
        if average_over:
            hint = ("add the column that tells them apart to "
                    f"{opt('average_over', placeholder='COLUMNS')} or "
                    f"{opt('blocks', placeholder='COLUMNS')}")
        else:
            hint = (f"average them with {opt('average_over', placeholder='COLUMNS')} "
                    "(e.g. seed, fold), or name more block columns with "
                    f"{opt('blocks', placeholder='COLUMNS')}")
        raise GenexpyInputError(f"{dup} rows share their (block, alternative"
                                f"{', replicate' if average_over else ''}) with another row: "
                                f"several results per cell; {hint}.")


def _replicates_of(report: Any) -> pl.DataFrame | None:
    """Return the Study's report of results averaged over fewer replicates than the others.

    That is ``FilterReport.replicates_frame``, or None when the Study does not report them.
    """
    return report.replicates_frame() if report.short_replicates else None


def _held_rows(df: pl.DataFrame, held: Mapping[str, Any] | None,
               roles: Sequence[str]) -> tuple[pl.DataFrame, dict[str, Any]]:
    """Keep the rows at each held-constant level, as :class:`~genexpy_nb.Study` does.

    Returns the kept rows (for the checks before the Study) and the levels as a dict.
    """
    if held is None:
        return df, {}
    if not isinstance(held, Mapping):
        raise GenexpyInputError(f"{opt('held_constant', placeholder='COLUMN=LEVEL')}: give a "
                                "mapping {column: level}, got " f"{type(held).__name__}.")
    held = dict(held)
    for col, level in held.items():
        if col not in df.columns:
            raise GenexpyInputError(f"{opt('held_constant', placeholder='COLUMN=LEVEL')}: "
                                    f"column {col!r} not in the table; its columns are "
                                    f"{df.columns[:20]}.")
        if col in roles:
            raise GenexpyInputError(f"{opt('held_constant', placeholder='COLUMN=LEVEL')}: "
                                    f"column {col!r} has another role already; hold constant "
                                    "a column that is none of the alternatives, target, "
                                    "blocks or replicates.")
        levels = df.get_column(col).unique().to_list()
        if level not in levels:
            raise GenexpyInputError(
                f"{opt('held_constant', placeholder='COLUMN=LEVEL')}: level {level!r} not "
                f"found in column {col!r}; its levels are {levels[:10]}"
                f"{' ...' if len(levels) > 10 else ''}.")
        df = df.filter(pl.col(col) == level)
    return df, held


def _study_matrix(df, alternatives, target, blocks, average_over, hib, tol_alt, tol_cond,
                  invalid_target, require_complete_replicates, held, tie_tols):
    """Apply the Study's missing-results policy and tie tolerances to the table.

    Returns (values with NaN, the Study's tiers, names, block labels, the Study's report).
    """
    from ..study.core import Study

    kwargs: dict[str, Any] = dict(
        alternatives=alternatives, target=target, generalize=list(blocks),
        higher_is_better=hib, average_over=list(average_over) or None,
        tol_missing_alternatives=tol_alt, tol_missing_conditions=tol_cond,
        invalid_target=invalid_target, held_constant=held or None,
        tie_rtol=tie_tols[0], tie_atol=tie_tols[1],
        require_complete_replicates=bool(require_complete_replicates))
    try:
        with role_nouns(condition="block", conditions="blocks"):  # its conditions: our blocks
            study = Study(df, **kwargs)
    except GenexpyInputError as exc:
        raise GenexpyInputError(translate(str(exc), _PARAMS)) from None
    sample = next(study.samples())
    values = np.where(sample.imputed, np.nan, sample.scores)
    return (values, np.asarray(sample.rankings), list(sample.alternatives),
            list(sample.conditions), study.report)


def _failed_pairs(df: pl.DataFrame, alternatives: str, target: str, blocks: Sequence[str],
                  labels: Sequence[str], names: Sequence[str], missing: str) -> pl.DataFrame:
    """Every (block, alternative) without a result, by name, and what the analysis did.

    ``df``: the rows kept (held-constant levels) before averaging; a failed run is a row
    with an empty, NaN or infinite target or an absent row.
    """
    block = (pl.col(blocks[0]).cast(pl.String) if len(blocks) == 1 else
             pl.concat_str([pl.col(c).cast(pl.String) for c in blocks], separator=" | "))
    tgt = pl.col(target).cast(pl.Float64)
    cells = df.select(block.alias("block"), pl.col(alternatives).cast(pl.String)
                      .alias("alternative"), (tgt.is_not_null() & tgt.is_finite()).alias("ok"))
    have = cells.filter(pl.col("ok")).select("block", "alternative").unique()
    grid = cells.select("block").unique().join(cells.select("alternative").unique(),
                                               how="cross")
    failed = grid.join(have, on=["block", "alternative"], how="anti").sort("block",
                                                                           "alternative")
    tested, kept = set(labels), set(names)
    fate = {"study": "counted as the worst tier of its block",
            "drop-block": "its block left out of the tests",
            "available": "ranked among the available alternatives of its block"}[missing]
    out = [("block dropped by the missing-results tolerance" if b not in tested else
            "alternative dropped by the missing-results tolerance" if a not in kept else fate)
           for b, a in failed.iter_rows()]
    return failed.with_columns(pl.Series("handled", out, dtype=pl.String))


def compare(
    data: Any,
    *,
    alternatives: str,
    target: str,
    blocks: str | Sequence[str] | None = None,
    higher_is_better: bool = REQUIRED,
    average_over: str | Sequence[str] | None = None,
    posthoc: str = "auto",
    p_adjust: str | None = "holm",
    alpha: float = 0.05,
    tol_missing_alternatives: float = config.TOL_MISSING_ALTERNATIVES,
    tol_missing_conditions: float = config.TOL_MISSING_CONDITIONS,
    invalid_target: str = "raise",
    require_complete_replicates: bool = False,
    ties: str = "average",
    control: str | None = None,
    top: int | None = None,
    generalize: str | Sequence[str] | None = None,
    held_constant: Mapping[str, Any] | None = None,
    missing: str = "study",
    normalize: str = "auto",
    tie_rtol: float = TIE_RTOL,
    tie_atol: float = TIE_ATOL,
) -> Comparison:
    """Compare alternatives over blocks: omnibus rank test, post-hoc test, mean ranks, CD.

    Parameters
    ----------
    data : polars / pandas DataFrame or pyarrow Table
        Tidy results, one row per (block, alternative[, replicate]); a missing result is
        an absent row. Never modified.
    alternatives : str
        Column of the compared methods.
    target : str
        Numeric result column.
    blocks : str or list of str
        Column(s) whose levels are the blocks (datasets, tasks); several are combined.
        Required (under this name or its alias ``generalize``).
    higher_is_better : bool, required
        True for scores (accuracy), False for errors, losses or run times.
    average_over : str or list of str, optional
        Replicate columns (seed, fold) averaged first; the report says which alternatives
        had fewer replicates than the others.
    posthoc : {"auto", "conover", "nemenyi", "siegel"}
        The post-hoc test: Conover–Iman's t-test on rank sums (complete blocks only),
        Nemenyi's studentized range test, or the Siegel–Castellan z-test of mean ranks
        (Demšar's z). With results missing, Nemenyi's and the z-test compare the mean ranks
        among the available alternatives with the exact null variance of their difference
        (on complete blocks the same numbers).
        "auto": Conover–Iman on complete blocks, else the z-test.
    p_adjust : str or None
        Correction of the post-hoc p-values (statsmodels' names, default Holm's); over
        k(k - 1)/2 pairs, or k - 1 comparisons with a ``control``. Nemenyi's test needs
        none (it controls the family-wise error itself) and ignores it.
    alpha : float
        Significance level of the tests, the groups and the diagram.
    tol_missing_alternatives, tol_missing_conditions : float
        The missing-results policy of :class:`~genexpy_nb.Study` (default 0.2 each): drop
        the blocks missing more than this share of the alternatives, then the alternatives
        missing in more than this share of the remaining blocks. ``tol_missing_alternatives
        =0`` keeps only complete blocks.
    invalid_target : {"raise", "drop"}
        Rows whose target is empty, NaN or infinite (failed runs): refuse the table
        (default, as the Study) or drop them, so that they count as missing results.
    require_complete_replicates : bool
        With ``average_over``: refuse results averaged over fewer replicates than others.
    ties : {"average", "min"}
        Ranks of tied alternatives in the reported and drawn mean ranks: the mean of the
        ranks they occupy (default, as scipy and the tests) or the lowest (as some papers
        publish). The tests always use mid-ranks.
    control : str, optional
        Compare every alternative with this one only (k - 1 tests, corrected as a family
        of k - 1; Demšar's comparison with a control).
    top : int, optional
        The CD diagram shows the ``top`` best alternatives (and the control), the rest
        summarised in one line; the tables keep all.
    generalize : str or list of str, optional
        Alias of ``blocks`` (the name :class:`~genexpy_nb.Study` and
        :func:`~genexpy_nb.report` use).
    held_constant : dict, optional
        ``{column: level}``: keep the rows at this level of each column (e.g.
        ``{"metric": "accuracy"}`` in a table of several metrics), as
        :class:`~genexpy_nb.Study`'s ``held_constant``.
    missing : {"study", "drop-block", "available"}
        A result still missing after the tolerances (a failed run): the worst tier of its
        block (default, the Study's policy, as n*), its block left out, or ranks among the
        available alternatives (Skillings–Mack). See the module's text.
    normalize : {"auto", "none", "minmax"}
        The scores of the aggregates, the Bayesian test's rope and the effect sizes
        (:attr:`Comparison.scores_used`): raw, or min-max normalised per block (0 = the
        block's lowest result, 1 = its highest, as rliable's papers normalise; Agarwal et
        al. 2021). "auto" normalises when the blocks' score ranges (max - min) differ by more
        than ``SCALE_RATIO`` (100): raw scores would let the widest blocks decide. Every
        output says which scores and why. The rank tests use ranks within a block, which no
        rescaling of a block changes.
    tie_rtol, tie_atol : float
        The Study's tie tolerances (defaults 1e-9 of a block's score range, 0): scores
        within them share a rank in every rank test; ``0, 0`` ranks by exact equality.

    Returns
    -------
    Comparison

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"dataset": [f"d{i}" for i in range(8) for _ in range(3)],
    ...                    "model": ["a", "b", "c"] * 8,
    ...                    "acc": [0.9, 0.8, 0.7, 0.8, 0.85, 0.6, 0.9, 0.7, 0.71, 0.95,
    ...                            0.9, 0.8, 0.7, 0.6, 0.5, 0.9, 0.8, 0.82, 0.7, 0.5, 0.6,
    ...                            0.9, 0.85, 0.8]})
    >>> res = compare(df, alternatives="model", target="acc", blocks="dataset",
    ...               higher_is_better=True)
    >>> res.best, res.omnibus.test, res.n_blocks
    (('a',), 'Friedman', 8)
    """
    hib = check_direction(higher_is_better, "compare", unit="block", options=(
        opt("higher_is_better", True), opt("higher_is_better", False)),
        name=opt("higher_is_better"))
    if not isinstance(alternatives, str) or not isinstance(target, str):
        raise GenexpyInputError(f"{opt('alternatives')} and {opt('target')} must each name "
                                "one column.")
    blocks = alias("blocks", blocks, "generalize", generalize, "compare")
    block_cols = _as_columns("blocks", blocks, required=True)
    avg_cols = _as_columns("average_over", average_over, required=False)
    check_choice(opt("posthoc"), posthoc, POSTHOC_TESTS, quote=False, sep=";")
    check_choice(opt("ties"), ties, _TIES, quote=False, sep=";")
    check_choice(opt("invalid_target"), invalid_target, ("raise", "drop"), quote=False, sep=";")
    if p_adjust is not None and p_adjust not in P_ADJUST_METHODS:
        raise GenexpyInputError(f"{opt('p_adjust')} must be one of "
                                f"{', '.join(P_ADJUST_METHODS)} or none; got {p_adjust!r}.")
    try:
        alpha = check_probability("alpha", alpha)
    except GenexpyInputError:
        raise GenexpyInputError(f"{opt('alpha')} must lie strictly between 0 and 1, got "
                                f"{alpha!r}.") from None
    if top is not None and (isinstance(top, bool) or not isinstance(top, (int, np.integer))
                            or top < 1):
        raise GenexpyInputError(f"{opt('top')} must be a positive whole number, got {top!r}.")
    for name, tol in (("tol_missing_alternatives", tol_missing_alternatives),
                      ("tol_missing_conditions", tol_missing_conditions)):
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0 <= tol <= 1:
            raise GenexpyInputError(f"{opt(name)} must be a number in [0, 1], got {tol!r}.")
    check_choice(opt("missing"), missing, MISSING_POLICIES, quote=False, sep=";")
    check_choice(opt("normalize"), normalize, NORMALIZE, quote=False, sep=";")
    try:
        tie_tols = check_tie_tolerances(tie_rtol, tie_atol)
    except GenexpyInputError:
        raise GenexpyInputError(f"{opt('tie_rtol')} must lie in [0, 1) and {opt('tie_atol')} "
                                f"be a finite number >= 0, got {tie_rtol!r} and {tie_atol!r} "
                                "(0 and 0 rank by exact equality).") from None
    df = to_polars(data, "data")
    kept, held = _held_rows(df, held_constant, (alternatives, target, *block_cols, *avg_cols))
    _check_inputs(kept, alternatives, target, block_cols, avg_cols, invalid_target)

    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values, tiers, names, labels, report = _study_matrix(
            df, alternatives, target, block_cols, avg_cols, hib, tol_missing_alternatives,
            tol_missing_conditions, invalid_target, require_complete_replicates, held,
            tie_tols)
        _check_shown_apart(names, alternatives)
        failed = _failed_pairs(kept, alternatives, target, block_cols, labels, names, missing)
        res = _analyse(values, tiers, names, labels, report, notes, hib=hib, posthoc=posthoc,
                       p_adjust=p_adjust, alpha=alpha, ties=ties, control=control, top=top,
                       target=target, alternatives_column=alternatives,
                       block_cols=block_cols, avg_cols=avg_cols,
                       tols=(tol_missing_alternatives, tol_missing_conditions),
                       missing=missing, held=held, failed=failed, tie_tols=tie_tols)
    from ..significance._results import DegenerateTestWarning

    seen: dict[str, None] = {}
    for w in caught:  # said in the notes, and passed on to the caller
        msg = " ".join(str(w.message).split())
        if msg not in seen:
            warnings.warn(w.message, w.category, stacklevel=2)
            if not issubclass(w.category, DegenerateTestWarning):  # in the test's note
                seen[msg] = None
    extra = tuple(m for m in seen if m not in res.notes)
    res = replace(res, notes=res.notes + extra) if extra else res
    return replace(res, **_scales(res.values, normalize, res.unit))


def _scales(values: np.ndarray, normalize: str, unit: str = "block") -> dict[str, str]:
    """Choose the scores of the aggregates, the rope and the effect sizes, and say why.

    Returns the Comparison's ``normalize`` ("none" or "minmax") and ``normalize_reason``.
    """
    chosen, reason = scale_basis([values], normalize, unit=unit)
    return {"normalize": chosen, "normalize_reason": reason}


def scale_basis(values: Sequence[np.ndarray], normalize: str = "auto", *,
                unit: str = "block", option: bool = True) -> tuple[str, str]:
    """Choose, once, the scale of every cross-condition quantity, and say why.

    The one policy for the scores of the aggregates, the Bayesian rope, the effect sizes
    and the runs-against-conditions ratio: raw scores, or min-max normalised per condition
    where the conditions' score ranges (max - min) differ by more than
    :data:`SCALE_RATIO` (raw scores would let the widest conditions decide).

    Parameters
    ----------
    values : sequence of numpy.ndarray, shape (conditions, alternatives) each
        The results (NaN where missing), one matrix per configuration: the ranges of all
        of them decide together.
    normalize : {"auto", "none", "minmax"}
        "auto" decides from the ranges; the others are kept, and said as asked.
    unit : str, default "block"
        What a condition is called in the reason ("dataset").
    option : bool, default True
        Name the option that changes the choice (``--normalize`` / ``normalize=``).

    Returns
    -------
    normalize : {"none", "minmax"}
    reason : str
        The ratio of the widest range to the narrowest, and the choice, in words.
    """
    spreads = []
    for v in values:
        obs = ~np.isnan(v)
        hi = np.where(obs, v, -np.inf).max(axis=1)
        lo = np.where(obs, v, np.inf).min(axis=1)
        spreads.append((hi - lo)[obs.sum(axis=1) >= 2])
    spread = np.concatenate(spreads) if spreads else np.zeros(0)
    pos = spread[spread > 0]
    ratio = float(pos.max() / pos.min()) if pos.size else 1.0
    said = (f"the {unit}s' score ranges (max - min) differ by a factor of "
            f"{numbers.number(ratio)}")

    def flag(value: str, words: str) -> str:
        return f" ({opt('normalize', value)} {words})" if option else ""
    if normalize != "auto":
        return normalize, f"as asked ({opt('normalize', normalize)}); {said}"
    if ratio > SCALE_RATIO:
        return "minmax", (f"{said}, more than {numbers.setting(SCALE_RATIO)}: raw scores "
                          f"would let the widest {unit}s decide"
                          + flag("none", "keeps them"))
    return "none", (f"{said}, at most {numbers.setting(SCALE_RATIO)}"
                    + flag("minmax", "normalises them"))


# ---- the analysis ----------------------------------------------------------------------


def _policy_matrices(values, tiers, missing):
    """Apply ``missing`` to the tested matrix.

    Returns (values, tiers as floats, NaN where a result stays missing; kept blocks).
    The tiers are the Study's (its tie tolerance: scores within it share a tier), so the
    rank tests rank near-ties as ties; a missing result is the Study's worst tier.
    """
    obs = ~np.isnan(values)
    ranked = tiers.astype(np.float64)
    if missing == "study":
        return values, ranked, np.ones(values.shape[0], dtype=bool)
    if missing == "drop-block":
        keep = obs.all(axis=1)
        return values[keep], ranked[keep], keep
    return values, np.where(obs, ranked, np.nan), np.ones(values.shape[0], dtype=bool)


def _usable(values, tiers, labels, names, missing, notes, unit="block"):
    """Apply ``missing``, then leave out blocks ranking nothing and alternatives without result.

    Returns (values, tiers as floats with NaN where still missing, block labels, names).
    """
    values, ranked, keep = _policy_matrices(values, tiers, missing)
    if not keep.all():
        notes.append(f"{plural(int((~keep).sum()), unit)} with a missing result left out "
                     f"({opt('missing', 'drop-block')}).")
        labels = [b for b, k in zip(labels, keep) if k]
    # blocks where fewer than two alternatives have a result carry no information
    obs = ~np.isnan(ranked)
    thin = obs.sum(axis=1) < 2
    if thin.any():
        notes.append(f"{plural(int(thin.sum()), unit)} with fewer than two results left out "
                     "(they rank nothing).")
        values, ranked = values[~thin], ranked[~thin]
        labels = [b for b, t in zip(labels, thin) if not t]
    empty = ~(~np.isnan(ranked)).any(axis=0)
    if empty.any():
        gone = [a for a, e in zip(names, empty) if e]
        notes.append(Text(f"no result in the tested {unit}s, left out: ", _listed(gone), "."))
        values, ranked = values[:, ~empty], ranked[:, ~empty]
        names = [a for a, e in zip(names, empty) if not e]
    return values, ranked, labels, names


def _analyse(values, tiers, names, labels, report, notes, *, hib, posthoc, p_adjust, alpha,
             ties, control, top, target, alternatives_column, block_cols, avg_cols,
             tols, missing, held, failed, tie_tols) -> Comparison:
    from ..significance.rank_tests import friedman, skillings_mack

    values, ranked, labels, names = _usable(values, tiers, labels, names, missing, notes,
                                            block_unit(block_cols))
    n, k = values.shape
    if k < 2 or n < 2:
        raise GenexpyInputError(
            f"after the missing-results policy {n} block(s) and {k} alternative(s) remain; "
            "comparing needs at least 2 of each. Raise "
            f"{opt('tol_missing_alternatives')} or {opt('tol_missing_conditions')}.")
    if control is not None:
        control = str(control)
        if control not in names:
            dropped = report.alternatives_dropped
            why = (" (dropped by the missing-results policy: raise "
                   f"{opt('tol_missing_conditions')} to keep it)") if control in dropped else ""
            raise GenexpyInputError(f"{opt('control', control)}: not among the compared "
                                    f"alternatives{why}; they are {names[:20]}.")
    if control is None and k * (k - 1) // 2 > MAX_PAIRS:
        raise GenexpyInputError(
            f"{k:,} alternatives make {k * (k - 1) // 2:,} pairs for the all-pairs post-hoc "
            f"test, more than {MAX_PAIRS:,} (the tables alone would take several GB). "
            f"Compare against one alternative with {opt('control')}=NAME "
            f"({k - 1:,} comparisons), or keep fewer alternatives (at most "
            f"{_most_alternatives():,}).")
    _check_posthoc_memory(k, control)
    from .._progress import check_cost

    pairs = k - 1 if control is not None else k * (k - 1) // 2
    check_cost(f"the rank tests of {k:,} alternatives on {n:,} blocks", (
        n * k * config.COSTS.compare_cell_ns + pairs * config.COSTS.compare_pair_ns) * 1e-9,
        lift=f"Compare against one alternative ({opt('control')}=NAME) for fewer pairs.")
    complete = not np.isnan(ranked).any()
    if posthoc == "auto":
        posthoc = "conover" if complete else "siegel"
    if posthoc == "conover" and not complete:
        raise GenexpyInputError(
            f"Conover's test needs complete blocks, and {int(np.isnan(ranked).sum())} "
            "results are missing after the missing-results policy. Use "
            f"{opt('posthoc', 'siegel')} or {opt('posthoc', 'nemenyi')} (their forms for missing "
            "results use every block), count a missing result as a loss with "
            f"{opt('missing', 'study')}, or keep only complete blocks with "
            f"{opt('missing', 'drop-block')}.")
    if posthoc == "nemenyi" and control is not None:
        raise GenexpyInputError(
            f"Nemenyi's test compares all pairs; against one control use "
            f"{opt('posthoc', 'siegel')} (Demšar's z-test; with {opt('p_adjust', 'bonferroni')} "
            f"it is the Bonferroni–Dunn test) or {opt('posthoc', 'conover')}.")

    # the tests rank the Study's tiers (0 = best; equal within the tie tolerance), not the
    # raw scores: the same ranks, with float noise a tie
    oriented = ranked
    if complete:
        omni = friedman(ranked, higher_is_better=False, order=names)
        mid = np.asarray(omni.mean_ranks)
    else:
        omni = skillings_mack(ranked, higher_is_better=False, order=names)
        mid = mean_ranks_available(oriented, "average")
    mean_rank = mid if ties == "average" else mean_ranks_available(oriented, "min")
    n_obs = (~np.isnan(ranked)).sum(axis=0)

    post, cd, label = _posthoc(ranked, names, mid, complete, posthoc=posthoc,
                               p_adjust=p_adjust, alpha=alpha, hib=False, control=control)
    frame = pl.DataFrame({"alternative": names, "mean_rank": mean_rank,
                          "n_blocks": n_obs.astype(np.int64)},
                         schema={"alternative": pl.String, "mean_rank": pl.Float64,
                                 "n_blocks": pl.Int64}).sort("mean_rank", maintain_order=True)
    order = frame["alternative"].to_list()
    if control is not None:
        cl, vs = _control_group(frame, post, control)
        frame = frame.join(vs, on="alternative", how="left", maintain_order="left")
        group_col = None
    elif cd is not None:
        cl = _cliques(frame, cd=cd)
        group_col = group_letters(order, cl)
    else:
        cl = _cliques(frame, pairwise=post)
        group_col = group_letters(order, cl)
    if group_col is not None:
        frame = frame.with_columns(pl.Series("group", group_col, dtype=pl.String))
    test_words = f"{label}, {correction_words(None if posthoc == 'nemenyi' else p_adjust)}"
    frame = frame.with_columns(
        pl.lit(cd, dtype=pl.Float64).alias("cd"), pl.lit(test_words).alias("test"),
        pl.lit(None if posthoc == "nemenyi" else p_adjust, dtype=pl.String).alias("p_adjust"),
        pl.lit(alpha).alias("alpha"), pl.lit(ties).alias("ties"))

    mr = frame["mean_rank"].to_numpy()
    best = tuple(a for a, r in zip(order, mr) if r == mr[0])
    ref = control if control is not None else best[0]
    pairs = post.filter((pl.col("alternative_1") == ref) | (pl.col("alternative_2") == ref))
    not_sig = {b if a == ref else a for a, b, s in pairs.select(
        "alternative_1", "alternative_2", "significant").iter_rows() if not s}
    indist = tuple(a for a in order if a in not_sig)

    unit = block_unit(block_cols)
    _notes(notes, report, ranked, names, block_cols, avg_cols, ties, complete, omni, tols, n,
           unit)
    n_imputed = int((np.isnan(values) & ~np.isnan(ranked)).sum())
    if n_imputed:
        notes.insert(0, f"{plural(n_imputed, 'missing result')}, each counted as the "
                        f"worst tier of its {unit} (a failed run loses to every result of the "
                        f"{unit}; the missing-results policy of nstar, "
                        f"{opt('missing', 'study')}).")
    return Comparison(
        omnibus=omni, posthoc=post, mean_ranks=frame, cliques=cl, cd=cd, best=best,
        indistinguishable=indist, control=control, posthoc_test=posthoc, posthoc_label=label,
        p_adjust=p_adjust, alpha=alpha, ties=ties, top=int(top) if top is not None else None,
        target=target, alternatives_column=alternatives_column,
        blocks_columns=tuple(block_cols), average_over=tuple(avg_cols),
        higher_is_better=hib, alternatives=tuple(names), blocks=tuple(labels),
        values=values, policy=report, replicates=_replicates_of(report), notes=tuple(notes),
        missing=missing, held_constant=held, failed=failed,
        tie_tolerance=tie_tols, unit=unit)


#: pairs above which the post-hoc step draws a bar (about a second per 1,000,000 pairs)
_POSTHOC_BAR_PAIRS = 200_000
#: memory per pair of the post-hoc step and the tables written from it: its arrays, the
#: pairs' frame (two names each), the corrected p-values' order, the CSV copy (measured:
#: 230-500 bytes of resident memory per pair at 1,000-3,000 alternatives, more address
#: space); and per alternative pair of the k x k matrices (shared results, variances)
_BYTES_PER_PAIR = 600.0
_BYTES_PER_CELL = 24.0
#: seconds per pair of the post-hoc tests and of writing their table (2,000-3,000
#: alternatives on one core: about 2 us to test, 4 us to write)
_SECONDS_PER_PAIR = 6e-6


def _posthoc_need(k: int, control: str | None) -> float:
    pairs = (k - 1) if control is not None else k * (k - 1) // 2
    return pairs * _BYTES_PER_PAIR + k * k * _BYTES_PER_CELL


def _check_posthoc_memory(k: int, control: str | None) -> None:
    """Refuse, before any test runs, a post-hoc step that would not fit in memory.

    The estimate grows with the pairs (k (k - 1) / 2, or k - 1 against a control); the
    error gives it, the memory available, and what fits: the comparisons against one
    control, or the most alternatives.
    """
    from .._validation import MEMORY_SHARE, available_memory, first_true, size_text

    need = _posthoc_need(k, control)
    if need <= 256 * 2**20:
        return
    avail = available_memory()
    budget = MEMORY_SHARE * avail
    if need <= budget:
        return
    most = 2
    while _posthoc_need(most * 2, None) <= budget:
        most *= 2
    lo = first_true(lambda m: _posthoc_need(m, None) > budget, most, most * 2) - 1
    pairs = (k - 1) if control is not None else k * (k - 1) // 2
    fix = (f"keep at most {lo:,} alternatives" if control is not None else
           f"compare against one alternative with {opt('control')}=NAME ({k - 1:,} "
           f"comparisons, about {size_text(_posthoc_need(k, 'c'))}), or keep at most "
           f"{lo:,} alternatives")
    raise GenexpyInputError(
        f"{k:,} alternatives make {pairs:,} pairs: the post-hoc tests and their tables need "
        f"about {size_text(need)} of memory, and {size_text(avail)} is available; {fix} "
        "(or run on a machine with more memory).")


def _posthoc(values, names, mid, complete, **kw):
    """(pairwise frame, Nemenyi's CD or None, the test's name), with a bar when long.

    The post-hoc tests are vectorised over all pairs; at 5,000 alternatives (12,497,500
    pairs) they take about 15 s, so a bar shows the step is under way.
    """
    k = values.shape[1]
    pairs = (k - 1) if kw.get("control") is not None else k * (k - 1) // 2
    if pairs <= _POSTHOC_BAR_PAIRS:
        return _posthoc_tests(values, names, mid, complete, **kw)
    from .._progress import tqdm
    from .numbers import seconds

    with tqdm(total=1, desc=f"post-hoc tests of {pairs:,} pairs (about "
              f"{seconds(pairs * _SECONDS_PER_PAIR)} with their tables)", unit="step") as bar:
        out = _posthoc_tests(values, names, mid, complete, **kw)
        bar.update(1)
    return out


def _posthoc_tests(values, names, mid, complete, *, posthoc, p_adjust, alpha, hib, control):
    """(pairwise frame, Nemenyi's CD or None, the test's name)."""
    from ..significance.posthoc import (
        posthoc_conover,
        posthoc_nemenyi,
        posthoc_nemenyi_missing,
        posthoc_siegel_castellan,
    )

    n, k = values.shape
    if complete and posthoc == "nemenyi":
        from ..significance.critical_difference import nemenyi_cd

        return (posthoc_nemenyi(values, alpha=alpha, higher_is_better=hib,
                                order=names), nemenyi_cd(k, n, alpha),
                "Nemenyi (Friedman)")
    if posthoc == "nemenyi":  # results missing: mean ranks among the available ones
        return (posthoc_nemenyi_missing(values, alpha=alpha, higher_is_better=hib,
                                        order=names), None,
                "Nemenyi (ranks among available)")
    test = posthoc_conover if posthoc == "conover" else posthoc_siegel_castellan
    # against one control: the k - 1 pairs with it, corrected as their own family
    post = test(values, p_adjust=p_adjust, alpha=alpha, higher_is_better=hib, order=names,
                control=control)
    if control is not None:  # the mean ranks of the omnibus test (ties as it counted them)
        idx = {a: t for t, a in enumerate(names)}
        post = post.with_columns(
            pl.Series("mean_rank_1", mid[[idx[a] for a in post["alternative_1"]]]),
            pl.Series("mean_rank_2", mid[[idx[a] for a in post["alternative_2"]]]))
    return post, None, post["test"][0]


def _control_group(frame: pl.DataFrame, post: pl.DataFrame, control: str):
    """Return the control's bar and, per alternative, its p-value against the control.

    The bar is the run of alternatives around the control, by mean rank, none of which
    differs significantly from it.
    """
    vs = post.select(pl.col("alternative_2").alias("alternative"),
                     pl.col("pvalue").alias("pvalue_vs_control"),
                     pl.col("significant").alias("significant_vs_control"))
    order = frame["alternative"].to_list()
    sig = dict(zip(vs["alternative"].to_list(), vs["significant_vs_control"].to_list()))
    c = order.index(control)
    lo = c
    while lo > 0 and not sig.get(order[lo - 1], True):
        lo -= 1
    hi = c
    while hi + 1 < len(order) and not sig.get(order[hi + 1], True):
        hi += 1
    mr = frame["mean_rank"].to_list()
    rows = [(0, float(mr[lo]), float(mr[hi]), hi - lo + 1, order[lo:hi + 1])] if hi > lo else []
    cl = pl.DataFrame(rows, schema={"clique": pl.Int64, "rank_low": pl.Float64,
                                    "rank_high": pl.Float64, "size": pl.Int64,
                                    "members": pl.List(pl.String)}, orient="row")
    return cl, vs


#: the most pairs an all-pairs post-hoc test compares (k = 6,325 alternatives); 12.5
#: million (k = 5,000) take about 25 s and 3 GB
MAX_PAIRS = 20_000_000


def _most_alternatives() -> int:
    """Return the most alternatives whose pairs stay within MAX_PAIRS."""
    return int((1 + math.isqrt(1 + 8 * MAX_PAIRS)) // 2)


def _check_shown_apart(names: Sequence[str], column: str) -> None:
    """Refuse alternatives whose names every report and figure would show alike."""
    from .._escape import display_clashes

    clash = display_clashes(names)
    if clash:
        a, b = clash[0]
        raise GenexpyInputError(
            f"alternatives {a!r} and {b!r} of column {column!r} differ only by control "
            "characters, line breaks or white space, so every table, report and figure "
            f"would show them alike ({len(clash)} such pair(s)); rename them in the "
            "table first.")


def _listed(names: Sequence[str], *, quote: bool = False) -> list:
    """Names from the data as runs, comma-separated (quoted with ``quote``)."""
    out: list = []
    for a in names:
        out += [", "] if out else []
        out += ["'", Data(a), "'"] if quote else [Data(a)]
    return out


def _name_words(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return [w.lower() for w in re.split(r"[^A-Za-z]+", spaced) if w]


def block_unit(block_cols: Sequence[str]) -> str:
    """Name a block as the table does: "dataset" for a column ``dataset``, else "block".

    Parameters
    ----------
    block_cols : sequence of str
        The columns whose levels are the blocks.

    Returns
    -------
    str
        The column's word (as :func:`~genexpy_nb.answers.conclusions.condition_word`
        reads it) for one plain lowercase column of three letters or more, "block"
        otherwise.
    """
    from types import SimpleNamespace

    from .conclusions import condition_word

    if list(block_cols) == ["condition"]:  # the study page's conditions
        return "condition"
    word = condition_word(SimpleNamespace(generalize=list(block_cols)))
    # a letter or two ("d") names no kind of thing
    return "block" if word == "condition" or len(word) < 3 else word


def _notes(notes, report, values, names, block_cols, avg_cols, ties, complete, omni, tols,
           n, unit="block") -> None:
    units = unit + "s"
    reps = [c for c in block_cols if set(_name_words(c)) & _REPLICATE_WORDS]
    if reps:
        notes.append(Text(
            "the blocks include ", _listed(reps, quote=True), ": folds or seeds of one "
            "dataset are not independent datasets, so the tests overstate the evidence; "
            "average them first (", Data(opt('average_over', reps)), ") to test over "
            "datasets."))
    rep = _replicates_of(report)
    if rep is not None:
        parts: list = []
        for a, r, lo, hi in rep.select("alternative", "results", "fewest_replicates",
                                       "most_replicates").head(6).iter_rows():
            parts += ["; "] if parts else []
            parts += [Data(a), f" ({r} result{'s' if r != 1 else ''} over "
                      f"{lo if lo == hi else f'{lo}-{hi}'})"]
        more = rep.height - 6
        notes.append(Text(
            f"averaged over fewer than {int(rep['of'][0])} replicates of ", _listed(avg_cols),
            ": ", *parts, f"; and {more} more" if more > 0 else "",
            f" ({opt('require_complete_replicates', True)} refuses such a table)."))
    if not complete:
        notes.append(
            f"{plural(int(np.isnan(values).sum()), 'missing result')} in "
            f"{int(np.isnan(values).any(axis=1).sum())} of {n} {units}: each {unit} ranks the "
            "alternatives that have a result there "
            f"(Skillings–Mack); mean ranks are over the {units} where an alternative has a "
            "result, its rank among the s present put on the 1..k scale. Skillings–Mack's "
            "statistic has no tie correction (conservative with many ties).")
    counts = (~np.isnan(values)).sum(axis=0)
    few = sorted(((int(c), a) for a, c in zip(names, counts) if c < 0.8 * n))
    if few:
        shown: list = []
        for c, a in few[:6]:
            shown += [", "] if shown else []
            shown += [Data(a), f" {c}"]
        notes.append(Text(
            f"some mean ranks cover far fewer of the {n} {units} than others (", *shown,
            " ..." if len(few) > 6 else "", "): each "
            f"is ranked on the {units} where it has a result, which may be easier or harder "
            "than the rest; the missing-results tolerances (default 0.2) leave such "
            "alternatives out."))
    if ties == "min":
        notes.append("mean ranks give tied alternatives the lowest rank of their group "
                     f"({opt('ties', 'min')}); the tests use mid-ranks, which their null "
                     "distributions assume.")
    if n < 10:
        notes.append(f"only {n} {units}: the chi-square p-value of {omni.test} is a rough "
                     "approximation below about 10.")
    if omni.note:
        notes.append(Text(f"{omni.test}: ", as_data(omni.note), "."))
