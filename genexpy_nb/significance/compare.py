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
missing is handled by one method, everywhere: **ranks among the available alternatives**
(Skillings & Mack 1981). Each block ranks the alternatives that have a result there; the
omnibus test is Skillings–Mack's; an alternative's mean rank is the mean, over the blocks
where it has a result, of its rank among the s alternatives present put on the 1..k scale
(``1 + (r - 1)(k - 1)/(s - 1)``: under the null every alternative then expects
(k + 1)/2, so a block with fewer alternatives neither favours nor penalises those
present); the post-hoc tests compare these mean ranks, divided by the exact standard
deviation of their difference under the omnibus test's null. On complete blocks all of
this is Friedman's test, the usual mean ranks (bit for bit) and Demšar's z-test (or
Nemenyi's). Only complete blocks instead: ``tol_missing_alternatives=0``.
"""

from __future__ import annotations

import inspect
import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from .. import config
from .._validation import GenexpyInputError, check_probability, to_polars
from ._input import REQUIRED, _orient
from ._pvalues import norm_sf
from ._ranks import min_rank_rows, rank_rows
from ._results import SignificanceResult
from ._words import opt, translate
from .corrections import P_ADJUST_METHODS, _check_p_adjust, _pairs_frame
from .critical_difference import cliques as _cliques
from .report import (
    Bullets,
    Data,
    Paragraph,
    Quote,
    ReportSection,
    Strong,
    Table,
    plain,
    render_html,
    render_markdown,
)

__all__ = ["compare", "Comparison", "POSTHOC_TESTS"]

#: post-hoc tests of :func:`compare` ("auto": Conover-Iman on complete blocks, the
#: Siegel-Castellan z-test of mean ranks among the available alternatives when results
#: are missing)
POSTHOC_TESTS: tuple[str, ...] = ("auto", "conover", "nemenyi", "siegel")
_TIES = ("average", "min")
_FORMATS = ("csv", "parquet", "tsv", "json")

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
           "control", "top")

_CORRECTION = {
    None: "no", "bonferroni": "Bonferroni's", "sidak": "Šidák's", "holm-sidak": "Holm–Šidák",
    "holm": "Holm's", "simes-hochberg": "Hochberg's", "hommel": "Hommel's",
    "fdr_bh": "Benjamini–Hochberg", "fdr_by": "Benjamini–Yekutieli",
    "fdr_tsbh": "two-stage Benjamini–Hochberg", "fdr_tsbky": "two-stage BKY",
}


def _correction(p_adjust: str | None) -> str:
    return f"{_CORRECTION.get(p_adjust, p_adjust)} correction"


# ---- the result ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Comparison:
    """The comparison of alternatives over blocks: tests, mean ranks, CD data and report.

    Made by :func:`compare`; displays as its report in a notebook (``_repr_html_``,
    ``_repr_markdown_``). Draw its CD diagram with :func:`genexpy_nb.charts.cd_diagram`
    (``charts.cd_diagram(res)``), write everything with :meth:`save` (tables and report)
    or :func:`genexpy_nb.charts.save_comparison` (also the diagram).

    Attributes
    ----------
    omnibus : SignificanceResult
        Friedman's test (complete blocks) or Skillings–Mack's (results missing), over the
        ``n_blocks`` blocks that everything else summarises too.
    posthoc : polars.DataFrame
        One row per pair tested (all pairs, or the control against each other
        alternative): ``test, alternative_1, alternative_2, mean_rank_1, mean_rank_2, n,
        statistic, pvalue_raw, pvalue, p_adjust, alpha, significant``.
    mean_ranks : polars.DataFrame
        One row per alternative, best first: ``alternative, mean_rank, n_blocks, group``
        (letters: alternatives sharing one are not significantly different), ``cd``
        (Nemenyi's critical difference where the test has one, else null), and the test,
        correction and alpha the groups come from.
    cliques : polars.DataFrame
        The bars of the CD diagram: runs of alternatives (by mean rank) no pair of which
        differs significantly (with ``control``: the control's group).
    cd : float or None
        Nemenyi's critical difference of mean ranks (only for Nemenyi's test on complete
        blocks: the other tests have no single one).
    best : tuple of str
        The alternative(s) with the best mean rank.
    indistinguishable : tuple of str
        Alternatives not significantly different from ``best[0]`` (or from ``control``).
    control : str or None
        The control of a comparison against one control (k - 1 tests).
    posthoc_test, p_adjust, alpha, ties, top : settings used (``posthoc_test`` resolved
        from "auto").
    alternatives, blocks, values : the tested data: names of the alternatives (in column
        order), labels of the blocks, and the (blocks x alternatives) scores with NaN where
        a result is missing, after averaging and the missing-results policy.
    policy : FilterReport
        What the missing-results policy did (``genexpy_nb.study.FilterReport``).
    replicates : polars.DataFrame or None
        Alternatives whose results were averaged over fewer replicates than the others.
    notes : tuple of str
        Everything the reader should know (policy, replicates, folds as blocks, ties, few
        blocks, degenerate data).
    sections : tuple of ReportSection
        Extra report sections (see :meth:`with_section`).
    """

    omnibus: SignificanceResult
    posthoc: pl.DataFrame
    mean_ranks: pl.DataFrame
    cliques: pl.DataFrame
    cd: float | None
    best: tuple[str, ...]
    indistinguishable: tuple[str, ...]
    control: str | None
    posthoc_test: str
    posthoc_label: str
    p_adjust: str | None
    alpha: float
    ties: str
    top: int | None
    target: str
    alternatives_column: str
    blocks_columns: tuple[str, ...]
    average_over: tuple[str, ...]
    higher_is_better: bool
    alternatives: tuple[str, ...]
    blocks: tuple[str, ...]
    values: np.ndarray = field(repr=False)
    policy: Any = field(repr=False)
    replicates: pl.DataFrame | None = field(repr=False)
    notes: tuple[str, ...] = ()
    sections: tuple[ReportSection, ...] = ()

    # ---- sizes --------------------------------------------------------------------------
    @property
    def n_blocks(self) -> int:
        """Blocks tested (after the missing-results policy)."""
        return int(self.values.shape[0])

    @property
    def k(self) -> int:
        """Alternatives compared."""
        return int(self.values.shape[1])

    @property
    def n_missing(self) -> int:
        """Missing results in the tested blocks (ranked among the available alternatives)."""
        return int(np.isnan(self.values).sum())

    @property
    def family_size(self) -> int:
        """Number of comparisons corrected together: k(k - 1)/2, or k - 1 with a control."""
        return self.k - 1 if self.control is not None else self.k * (self.k - 1) // 2

    @property
    def significant(self) -> bool:
        """Whether the omnibus test rejects equal performance at ``alpha``."""
        return bool(self.omnibus.pvalue < self.alpha)

    def __repr__(self) -> str:
        return (f"Comparison({self.k} alternatives x {self.n_blocks} blocks; "
                f"{self.omnibus.test} p = {_p(self.omnibus.pvalue)}; post-hoc "
                f"{self.posthoc_label}, {_correction(self.p_adjust_used)}; best "
                f"{', '.join(self.best)})")

    @property
    def p_adjust_used(self) -> str | None:
        """The correction the post-hoc p-values carry (None for Nemenyi's test)."""
        return None if self.posthoc_test == "nemenyi" else self.p_adjust

    # ---- extending ----------------------------------------------------------------------
    def with_section(self, section: ReportSection) -> Comparison:
        """A copy whose report has ``section`` after the mean ranks (before the notes).

        Parameters
        ----------
        section : ReportSection
            E.g. a Bayesian comparison or robust aggregates over the same blocks
            (``self.values``, ``self.alternatives``); its ``tables`` are written by
            :meth:`save`, its ``latex`` after the mean-rank table.

        Returns
        -------
        Comparison
        """
        if not isinstance(section, ReportSection):
            raise GenexpyInputError("section must be a genexpy_nb.significance.report."
                                    f"ReportSection, got {type(section).__name__}.")
        return replace(self, sections=(*self.sections, section))

    def scores_frame(self) -> pl.DataFrame:
        """The tested scores as a tidy frame: ``block, alternative, score`` (null where a
        result is missing), after averaging and the missing-results policy.

        Returns
        -------
        polars.DataFrame
        """
        n, k = self.values.shape
        return pl.DataFrame({
            "block": [b for b in self.blocks for _ in range(k)],
            "alternative": list(self.alternatives) * n,
            "score": self.values.ravel(),
        }, schema={"block": pl.String, "alternative": pl.String, "score": pl.Float64}
        ).with_columns(pl.col("score").fill_nan(None))

    # ---- text ---------------------------------------------------------------------------
    def report_sections(self) -> tuple[ReportSection, ...]:
        """The report as sections (rendered by :meth:`to_markdown` and :meth:`to_html`).

        Returns
        -------
        tuple of ReportSection
        """
        return _report(self)

    def title(self) -> list:
        """The report's title (runs)."""
        return [f"Comparison of {self.k} alternatives over {self.n_blocks} blocks: ",
                Data(self.target), f" ({_direction_words(self.higher_is_better)})"]

    def to_markdown(self) -> str:
        """The report as Markdown: tests, post-hoc test and correction, the best
        alternative and those not distinguishable from it, a paragraph a paper can quote,
        the mean ranks and notes; every name from the data escaped.

        Returns
        -------
        str
        """
        return render_markdown(self.title(), self.report_sections())

    def to_html(self) -> str:
        """The report as an HTML fragment (names from the data escaped).

        Returns
        -------
        str
        """
        return render_html(self.title(), self.report_sections())

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        return self.to_html()

    def to_latex(self, *, label: str | None = None, caption: str | None = None) -> str:
        """The mean ranks as a LaTeX table (booktabs): mean rank, number of blocks where
        results are missing, and the group letters, the CD, or the p-values against the
        control; the caption names the tests. Needs ``\\usepackage{booktabs}``.

        Parameters
        ----------
        label : str, optional
            ``\\label`` of the table (default ``tab:compare-<target>``).
        caption : str, optional
            LaTeX caption text to use instead of the generated one.

        Returns
        -------
        str
        """
        return _latex(self, label=label, caption=caption)

    def summary(self) -> str:
        """The answer in a few plain lines, as ``genexpy-nb compare`` prints it: the test,
        the post-hoc test and correction, the best alternative and those that cannot be
        told apart from it, the blocks.

        Returns
        -------
        str
        """
        return "\n".join(_summary_lines(self))

    # ---- files --------------------------------------------------------------------------
    def tables(self) -> dict[str, pl.DataFrame]:
        """The tables ``save`` writes, by file name (without suffix).

        Returns
        -------
        dict of str to polars.DataFrame
        """
        om = self.omnibus
        omnibus = pl.DataFrame({
            "test": [om.test], "statistic": [float(om.statistic)],
            "pvalue": [float(om.pvalue)], "df": [float(om.df)],
            "n_blocks": [self.n_blocks], "n_blocks_input": [int(self.policy.conditions_total)],
            "n_alternatives": [self.k],
            "n_alternatives_input": [int(self.policy.alternatives_total)],
            "n_missing": [self.n_missing], "alpha": [self.alpha],
            "significant": [self.significant], "higher_is_better": [self.higher_is_better],
            "posthoc": [self.posthoc_label], "p_adjust": [self.p_adjust_used or "none"],
            "ties": [self.ties], "control": [self.control],
            "note": [om.note],
        }, schema_overrides={"control": pl.String, "note": pl.String})
        out = {"omnibus": omnibus, "posthoc": self.posthoc, "mean_ranks": self.mean_ranks,
               "missing_results": _policy_frame(self)}
        if self.replicates is not None and self.replicates.height:
            out["replicates"] = self.replicates
        for s in self.sections:
            for name, frame in s.tables.items():
                if name in out:
                    raise GenexpyInputError(f"report section {s.title!r}: a table named "
                                            f"{name!r} exists already.")
                out[name] = frame
        return out

    def save(self, folder: str | Path, *, format: str = "csv") -> list[Path]:  # noqa: A002
        """Write the tables, ``report.md`` and ``mean_ranks.tex`` into ``folder``.

        The folder is written atomically (a temporary folder renamed at the end; an
        earlier output of genexpy_nb is replaced, a folder of other files never). Text
        cells of CSV/TSV files that a spreadsheet would run as a formula are written as
        text. For the CD diagram too, use :func:`genexpy_nb.charts.save_comparison`.

        Parameters
        ----------
        folder : str or Path
        format : {"csv", "parquet", "tsv", "json"}
            Format of the tables.

        Returns
        -------
        list of Path
            The files written.
        """
        from .._io import atomic_dir

        with atomic_dir(folder) as tmp:
            self.write_into(tmp, format=format)
            names = sorted(p.name for p in tmp.iterdir())
        return [Path(folder) / n for n in names]

    def write_into(self, folder: Path, *, format: str = "csv") -> list[Path]:  # noqa: A002
        """Write the tables and reports into an existing folder (no atomic swap).

        Parameters
        ----------
        folder : Path
        format : {"csv", "parquet", "tsv", "json"}

        Returns
        -------
        list of Path
        """
        from .._escape import csv_safe
        from .._io import atomic_write, write_frame

        if format not in _FORMATS:
            raise GenexpyInputError(f"{opt('format')} must be one of {', '.join(_FORMATS)}, "
                                    f"got {format!r}.")
        folder = Path(folder)
        paths = []
        for name, frame in self.tables().items():
            if format in ("csv", "tsv"):
                frame = csv_safe(_flat(frame))
            elif format == "json":
                frame = _flat(frame)
            paths.append(write_frame(frame, folder / f"{name}.{format}"))
        for name, text in (("report.md", self.to_markdown()), ("mean_ranks.tex",
                                                               self.to_latex())):
            with atomic_write(folder / name, "w", encoding="utf-8") as fh:
                fh.write(text)
            paths.append(folder / name)
        return paths


def _flat(frame: pl.DataFrame) -> pl.DataFrame:
    """List columns joined as text (CSV cannot hold them)."""
    lists = [c for c, t in frame.schema.items() if isinstance(t, pl.List)]
    if not lists:
        return frame
    return frame.with_columns(pl.col(c).list.join(", ") for c in lists)


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
    roles = {"alternatives": [alternatives], "target": [target], "blocks": list(blocks),
             "average_over": list(average_over)}
    for role, cols in roles.items():
        missing = [c for c in cols if c not in df.columns]
        if missing:
            raise GenexpyInputError(
                f"{opt(role)}: column(s) {missing} not in the table; its columns are "
                f"{df.columns[:20]}{' ...' if df.width > 20 else ''}.")
    given = [alternatives, target, *blocks, *average_over]
    twice = sorted({c for c in given if given.count(c) > 1})
    if twice:
        raise GenexpyInputError(f"column(s) {twice} are given two roles (alternatives, "
                                "target, blocks, average over); give each its own.")
    if not df.schema[target].is_numeric():
        raise GenexpyInputError(
            f"{opt('target')}: column {target!r} is not numeric (dtype {df.schema[target]}); "
            "convert it, or name the numeric result column.")
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
            hint = (f"add the column that tells them apart to {opt('average_over', placeholder='COLUMNS')} "
                    f"or {opt('blocks', placeholder='COLUMNS')}")
        else:
            hint = (f"average them with {opt('average_over', placeholder='COLUMNS')} "
                    "(e.g. seed, fold), or name more block columns with "
                    f"{opt('blocks', placeholder='COLUMNS')}")
        raise GenexpyInputError(f"{dup} rows share their (block, alternative"
                                f"{', replicate' if average_over else ''}) with another row: "
                                f"several results per cell; {hint}.")


def _study_supports(name: str) -> bool:
    """Whether this version's :class:`~genexpy_nb.Study` takes the keyword ``name``."""
    from ..study import Study

    return name in inspect.signature(Study).parameters


def _replicates_of(report: Any) -> pl.DataFrame | None:
    """The Study's report of results averaged over fewer replicates than the others
    (``FilterReport.replicates_frame``), or None when the Study does not report them."""
    frame = getattr(report, "replicates_frame", None)
    if frame is None or not getattr(report, "short_replicates", ()):
        return None
    return frame()


def _study_matrix(df, alternatives, target, blocks, average_over, hib, tol_alt, tol_cond,
                  invalid_target, require_complete_replicates):
    """The Study's missing-results policy on the table: (values with NaN, names, block
    labels, the Study's report)."""
    from ..study import Study

    kwargs: dict[str, Any] = dict(
        alternatives=alternatives, target=target, generalize=list(blocks),
        higher_is_better=hib, average_over=list(average_over) or None,
        tol_missing_alternatives=tol_alt, tol_missing_conditions=tol_cond,
        invalid_target=invalid_target)
    if require_complete_replicates:
        if not _study_supports("require_complete_replicates"):  # pragma: no cover
            raise GenexpyInputError(
                f"{opt('require_complete_replicates', True)}: this version of genexpy_nb "
                "cannot check replicates yet.")
        kwargs["require_complete_replicates"] = True
    try:
        study = Study(df, **kwargs)
    except GenexpyInputError as exc:
        # the Study's words: its conditions are the blocks here
        words = re.sub(r"(?<![\w-])condition(s?)\b", r"block\1", translate(str(exc), _PARAMS))
        raise GenexpyInputError(words) from None
    sample = next(study.samples())
    values = np.where(sample.imputed, np.nan, sample.scores)
    return values, list(sample.alternatives), list(sample.conditions), study.report


def _check_choice(name: str, value: Any, choices: Sequence[Any]) -> Any:
    if value not in choices:
        shown = ", ".join(str(c) for c in choices)
        raise GenexpyInputError(f"{opt(name)} must be one of {shown}; got {value!r}.")
    return value


def compare(
    data: Any,
    *,
    alternatives: str,
    target: str,
    blocks: str | Sequence[str],
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
    if higher_is_better is REQUIRED:
        raise GenexpyInputError(
            f"compare: say which direction of the score is better: "
            f"{opt('higher_is_better', True)} for scores such as accuracy or AUC, "
            f"{opt('higher_is_better', False)} for errors, losses or run times. Ranks "
            "(1 = best) are taken within each block, so the direction decides which "
            "alternative comes out best.")
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise GenexpyInputError(f"{opt('higher_is_better')} must be True or False, got "
                                f"{higher_is_better!r}.")
    hib = bool(higher_is_better)
    if not isinstance(alternatives, str) or not isinstance(target, str):
        raise GenexpyInputError(f"{opt('alternatives')} and {opt('target')} must each name "
                                "one column.")
    block_cols = _as_columns("blocks", blocks, required=True)
    avg_cols = _as_columns("average_over", average_over, required=False)
    _check_choice("posthoc", posthoc, POSTHOC_TESTS)
    _check_choice("ties", ties, _TIES)
    _check_choice("invalid_target", invalid_target, ("raise", "drop"))
    if p_adjust is not None and p_adjust not in P_ADJUST_METHODS:
        raise GenexpyInputError(f"{opt('p_adjust')} must be one of "
                                f"{', '.join(P_ADJUST_METHODS)} or none; got {p_adjust!r}.")
    p_adjust = _check_p_adjust(p_adjust)
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
    df = to_polars(data, "data")
    _check_inputs(df, alternatives, target, block_cols, avg_cols, invalid_target)

    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values, names, labels, report = _study_matrix(
            df, alternatives, target, block_cols, avg_cols, hib, tol_missing_alternatives,
            tol_missing_conditions, invalid_target, require_complete_replicates)
        res = _analyse(values, names, labels, report, notes, hib=hib, posthoc=posthoc,
                       p_adjust=p_adjust, alpha=alpha, ties=ties, control=control, top=top,
                       target=target, alternatives_column=alternatives,
                       block_cols=block_cols, avg_cols=avg_cols,
                       tols=(tol_missing_alternatives, tol_missing_conditions))
    from ._results import DegenerateTestWarning

    seen: dict[str, None] = {}
    for w in caught:  # said in the notes, and passed on to the caller
        msg = " ".join(str(w.message).split())
        if msg not in seen:
            warnings.warn(w.message, w.category, stacklevel=2)
            if not issubclass(w.category, DegenerateTestWarning):  # in the test's note
                seen[msg] = None
    extra = tuple(m for m in seen if m not in res.notes)
    return replace(res, notes=res.notes + extra) if extra else res


# ---- the analysis ----------------------------------------------------------------------


def _analyse(values, names, labels, report, notes, *, hib, posthoc, p_adjust, alpha, ties,
             control, top, target, alternatives_column, block_cols, avg_cols,
             tols) -> Comparison:
    from .rank_tests import friedman, skillings_mack

    # blocks where fewer than two alternatives have a result carry no information
    obs = ~np.isnan(values)
    thin = obs.sum(axis=1) < 2
    if thin.any():
        notes.append(f"{_n(int(thin.sum()), 'block')} with fewer than two results left out "
                     "(they rank nothing).")
        values, labels = values[~thin], [b for b, t in zip(labels, thin) if not t]
    empty = ~(~np.isnan(values)).any(axis=0)
    if empty.any():
        gone = [a for a, e in zip(names, empty) if e]
        notes.append(f"no result in the tested blocks, left out: {', '.join(gone)}.")
        values = values[:, ~empty]
        names = [a for a, e in zip(names, empty) if not e]
    n, k = values.shape
    if k < 2 or n < 2:
        raise GenexpyInputError(
            f"after the missing-results policy {n} block(s) and {k} alternative(s) remain; "
            "comparing needs at least 2 of each. Raise "
            f"{opt('tol_missing_alternatives')} or {opt('tol_missing_conditions')}.")
    if control is not None:
        control = str(control)
        if control not in names:
            dropped = getattr(report, "alternatives_dropped", ())
            why = (" (dropped by the missing-results policy: raise "
                   f"{opt('tol_missing_conditions')} to keep it)") if control in dropped else ""
            raise GenexpyInputError(f"{opt('control', control)}: not among the compared "
                                    f"alternatives{why}; they are {names[:20]}.")
    complete = not np.isnan(values).any()
    if posthoc == "auto":
        posthoc = "conover" if complete else "siegel"
    if posthoc == "conover" and not complete:
        raise GenexpyInputError(
            f"Conover's test needs complete blocks, and {int(np.isnan(values).sum())} "
            "results are missing after the missing-results policy. Use "
            f"{opt('posthoc', 'siegel')} or {opt('posthoc', 'nemenyi')} (their forms for missing "
            "results use every block), or keep only complete blocks with "
            f"{opt('tol_missing_alternatives', 0)}.")
    if posthoc == "nemenyi" and control is not None:
        raise GenexpyInputError(
            f"Nemenyi's test compares all pairs; against one control use "
            f"{opt('posthoc', 'siegel')} (Demšar's z-test; with {opt('p_adjust', 'bonferroni')} "
            f"it is the Bonferroni–Dunn test) or {opt('posthoc', 'conover')}.")

    oriented = _orient(values, hib)
    if complete:
        omni = friedman(values, higher_is_better=hib, alternatives=names)
        mid = np.asarray(omni.mean_ranks)
    else:
        omni = skillings_mack(values, higher_is_better=hib, alternatives=names)
        mid = _mean_ranks_available(oriented, "average")
    mean_rank = mid if ties == "average" else _mean_ranks_available(oriented, "min")
    n_obs = (~np.isnan(values)).sum(axis=0)

    post, cd, label = _posthoc(values, oriented, names, mid, complete, posthoc=posthoc,
                               p_adjust=p_adjust, alpha=alpha, hib=hib, control=control)
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
        group_col = _letters(order, cl)
    else:
        cl = _cliques(frame, pairwise=post)
        group_col = _letters(order, cl)
    if group_col is not None:
        frame = frame.with_columns(pl.Series("group", group_col, dtype=pl.String))
    test_words = f"{label}, {_correction(None if posthoc == 'nemenyi' else p_adjust)}"
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

    _notes(notes, report, values, names, block_cols, avg_cols, ties, complete, omni, tols, n)
    return Comparison(
        omnibus=omni, posthoc=post, mean_ranks=frame, cliques=cl, cd=cd, best=best,
        indistinguishable=indist, control=control, posthoc_test=posthoc, posthoc_label=label,
        p_adjust=p_adjust, alpha=alpha, ties=ties, top=int(top) if top is not None else None,
        target=target, alternatives_column=alternatives_column,
        blocks_columns=tuple(block_cols), average_over=tuple(avg_cols),
        higher_is_better=hib, alternatives=tuple(names), blocks=tuple(labels),
        values=values, policy=report, replicates=_replicates_of(report), notes=tuple(notes))


def _mean_ranks_available(oriented: np.ndarray, method: str) -> np.ndarray:
    """Mean rank of each alternative over the blocks where it has a result: its rank among
    the s alternatives present, put on the 1..k scale as 1 + (r - 1)(k - 1)/(s - 1)."""
    ranks = rank_rows(oriented)[0] if method == "average" else min_rank_rows(oriented)
    n, k = oriented.shape
    s = (~np.isnan(oriented)).sum(axis=1).astype(np.float64)[:, None]
    scaled = 1.0 + (ranks - 1.0) * (k - 1.0) / (s - 1.0)
    obs = ~np.isnan(scaled)
    return np.where(obs, scaled, 0.0).sum(axis=0) / obs.sum(axis=0)


def _mean_rank_diff_var(oriented: np.ndarray) -> np.ndarray:
    """Null variance of the difference of two mean ranks among the available alternatives.

    In a block with s results, ranks are a uniform permutation of 1..s under the null;
    put on the 1..k scale (times c = (k - 1)/(s - 1)) each has variance c^2 (s^2 - 1)/12
    and two have covariance -c^2 (s + 1)/12. The mean rank of j weighs its blocks by 1/n_j.
    Returns the (k, k) matrix Var(m_j - m_l) (no tie correction: conservative with ties).
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


def _posthoc(values, oriented, names, mid, complete, *, posthoc, p_adjust, alpha, hib,
             control):
    """(pairwise frame, Nemenyi's CD or None, the test's name)."""
    from .posthoc import posthoc_conover, posthoc_nemenyi

    n, k = values.shape
    i, j = np.triu_indices(k, 1)
    both = (~np.isnan(values)).astype(np.float64)
    n_both = (both.T @ both)[i, j].astype(np.int64)
    cd = None
    if complete and posthoc == "conover":
        label = "Conover-Iman (Friedman)"
        if control is None:
            return (posthoc_conover(values, p_adjust=p_adjust, alpha=alpha,
                                    higher_is_better=hib, alternatives=names), None, label)
        raw = posthoc_conover(values, p_adjust=None, alpha=alpha, higher_is_better=hib,
                              alternatives=names)
        stat, p = raw["statistic"].to_numpy(), raw["pvalue_raw"].to_numpy()
    elif complete and posthoc == "nemenyi":
        from .critical_difference import nemenyi_cd

        label = "Nemenyi (Friedman)"
        cd = nemenyi_cd(k, n, alpha)
        return (posthoc_nemenyi(values, alpha=alpha, higher_is_better=hib,
                                alternatives=names), cd, label)
    elif complete:  # the z-test of mean ranks (Demsar 2006, Sec. 3.2.2)
        label = "Siegel-Castellan z (Friedman)"
        stat = np.abs(mid[i] - mid[j]) / math.sqrt(k * (k + 1.0) / (6.0 * n))
        p = np.minimum(2.0 * norm_sf(stat), 1.0)
    else:
        # the difference of two mean ranks (each over the blocks where the alternative has
        # a result, ranks among the s present on the 1..k scale) over its exact standard
        # deviation when every block's results are exchangeable (the null of the omnibus
        # test); on complete blocks this is Demsar's z (and sqrt(2) z Nemenyi's q)
        stat = np.abs(mid[i] - mid[j]) / np.sqrt(_mean_rank_diff_var(oriented)[i, j])
        if posthoc == "nemenyi":
            from scipy import stats  # studentized range: only for Nemenyi's test

            label = "Nemenyi (ranks among available)"
            stat = math.sqrt(2.0) * stat
            p = np.clip(stats.studentized_range.sf(stat, k, np.inf), 0.0, 1.0)
            return (_pairs_frame(label, names, i, j, stat, p, None, alpha,
                                 {"mean_rank_1": mid[i], "mean_rank_2": mid[j], "n": n_both}),
                    None, label)
        label = "Siegel-Castellan z (ranks among available)"
        p = np.minimum(2.0 * norm_sf(stat), 1.0)
    if control is None:
        return (_pairs_frame(label, names, i, j, stat, p, p_adjust, alpha,
                             {"mean_rank_1": mid[i], "mean_rank_2": mid[j], "n": n_both}),
                None, label)
    c = names.index(control)
    sel = np.flatnonzero((i == c) | (j == c))
    other = np.where(i[sel] == c, j[sel], i[sel])
    ci = np.full(other.size, c)
    return (_pairs_frame(label, names, ci, other, stat[sel], p[sel], p_adjust, alpha,
                         {"mean_rank_1": mid[ci], "mean_rank_2": mid[other],
                          "n": n_both[sel]}), None, label)


def _control_group(frame: pl.DataFrame, post: pl.DataFrame, control: str):
    """(the control's bar: the run of alternatives around it, by mean rank, none of which
    differs significantly from it; per alternative its p-value against the control)."""
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


def _letters(order: list[str], cl: pl.DataFrame) -> list[str]:
    """Group letters: alternatives sharing a letter are in one clique (no significant
    difference between any two of them); an alternative in no clique gets its own."""
    pos = {a: t for t, a in enumerate(order)}
    spans = [(pos[m[0]], pos[m[-1]]) for m in cl["members"].to_list()]
    covered = {t for lo, hi in spans for t in range(lo, hi + 1)}
    spans += [(t, t) for t in range(len(order)) if t not in covered]
    spans.sort()
    letters: list[list[str]] = [[] for _ in order]
    for g, (lo, hi) in enumerate(spans):
        letter, g2 = "", g
        while g2 >= 0:  # a..z, aa, ab, ...
            letter = chr(ord("a") + g2 % 26) + letter
            g2 = g2 // 26 - 1
        for t in range(lo, hi + 1):
            letters[t].append(letter)
    sep = "" if len(spans) <= 26 else ","
    return [sep.join(ls) for ls in letters]


def _name_words(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return [w.lower() for w in re.split(r"[^A-Za-z]+", spaced) if w]


def _notes(notes, report, values, names, block_cols, avg_cols, ties, complete, omni, tols,
           n) -> None:
    reps = [c for c in block_cols if set(_name_words(c)) & _REPLICATE_WORDS]
    if reps:
        notes.append(
            f"the blocks include {', '.join(repr(c) for c in reps)}: folds or seeds of one "
            "dataset are not independent datasets, so the tests overstate the evidence; "
            f"average them first ({opt('average_over', reps)}) to test over datasets.")
    rep = _replicates_of(report)
    if rep is not None:
        parts = [f"{a} ({r} result{'s' if r != 1 else ''} over {lo if lo == hi else f'{lo}-{hi}'})"
                 for a, r, lo, hi in rep.select("alternative", "results", "fewest_replicates",
                                                "most_replicates").head(6).iter_rows()]
        more = rep.height - len(parts)
        notes.append(
            f"averaged over fewer than {int(rep['of'][0])} replicates of "
            f"{', '.join(avg_cols)}: {'; '.join(parts)}{f'; and {more} more' if more else ''}"
            f" ({opt('require_complete_replicates', True)} refuses such a table).")
    if not complete:
        notes.append(
            f"{_n(int(np.isnan(values).sum()), 'missing result')} in "
            f"{int(np.isnan(values).any(axis=1).sum())} of {n} blocks: each block ranks the alternatives that have a result there "
            "(Skillings–Mack); mean ranks are over the blocks where an alternative has a "
            "result, its rank among the s present put on the 1..k scale. Skillings–Mack's "
            "statistic has no tie correction (conservative with many ties).")
    if ties == "min":
        notes.append("mean ranks give tied alternatives the lowest rank of their group "
                     f"({opt('ties', 'min')}); the tests use mid-ranks, which their null "
                     "distributions assume.")
    if n < 10:
        notes.append(f"only {n} blocks: the chi-square p-value of {omni.test} is a rough "
                     "approximation below about 10.")
    if omni.note:
        notes.append(f"{omni.test}: {omni.note}.")


# ---- text ------------------------------------------------------------------------------


def _n(count: int, word: str, plural: str | None = None) -> str:
    """``1 block``, ``2 blocks``."""
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def _p(p: float) -> str:
    if not math.isfinite(p):
        return "nan"
    if p == 0:
        return "0 (below the smallest float)"
    return f"{p:.3g}" if p >= 1e-3 else f"{p:.2g}"


def _p_paper(p: float) -> str:
    return "p < 0.001" if p < 1e-3 else f"p = {p:.3g}"


def _direction_words(hib: bool) -> str:
    return "higher is better" if hib else "lower is better"


def _omnibus_name(res: Comparison) -> str:
    return "Friedman's test" if res.omnibus.test == "Friedman" else "the Skillings–Mack test"


def _posthoc_words(res: Comparison) -> str:
    label = res.posthoc_label.replace("-", "–")
    base = {"conover": "Conover–Iman t-tests on rank sums",
            "nemenyi": "Nemenyi's test",
            "siegel": "Siegel–Castellan z-tests of mean ranks"}[res.posthoc_test]
    form = " among the available alternatives" if "available" in label else ""
    return base + form


def _family_words(res: Comparison) -> str:
    if res.control is not None:
        return f"the {res.k - 1} comparisons with the control"
    return f"all {res.family_size} pairs"


def _mr(res: Comparison, a: str) -> float:
    return float(res.mean_ranks.filter(pl.col("alternative") == a)["mean_rank"][0])


def _policy_frame(res: Comparison) -> pl.DataFrame:
    rp = res.policy
    rows = [
        ("rows in the table", rp.rows_input),
        ("rows dropped for an empty, NaN or infinite target", rp.rows_invalid_target),
        ("results after averaging replicates", rp.results_after_averaging),
        ("blocks", rp.conditions_total),
        (f"blocks dropped (more than {rp.tol_missing_alternatives:.0%} of the alternatives "
         "missing)", rp.conditions_dropped),
        ("alternatives", rp.alternatives_total),
        (f"alternatives dropped (missing in more than {rp.tol_missing_conditions:.0%} of the "
         "remaining blocks)", len(rp.alternatives_dropped)),
        ("blocks tested", res.n_blocks),
        ("alternatives compared", res.k),
        ("missing results in the tested blocks (ranked among the available alternatives)",
         res.n_missing),
    ]
    return pl.DataFrame({"item": [r[0] for r in rows], "value": [int(r[1]) for r in rows]})


def _policy_runs(res: Comparison) -> list:
    rp = res.policy
    total = rp.conditions_total * rp.alternatives_total
    missing = total - rp.results_after_averaging
    if missing == 0:
        return [f"none of the {total} results missing ({rp.alternatives_total} alternatives x "
                f"{rp.conditions_total} blocks)"]
    out: list = [f"{missing} of {total} results missing ({rp.alternatives_total} alternatives "
                 f"x {rp.conditions_total} blocks)"]
    if rp.rows_invalid_target:
        out.append(f", {rp.rows_invalid_target} of them rows with an empty, NaN or infinite "
                   "target")
    out.append(f"; policy ({opt('tol_missing_alternatives', rp.tol_missing_alternatives)}, "
               f"{opt('tol_missing_conditions', rp.tol_missing_conditions)}): ")
    if rp.conditions_dropped or rp.alternatives_dropped:
        out.append(f"dropped {_n(rp.conditions_dropped, 'block')} missing more than "
                   f"{rp.tol_missing_alternatives:.0%} of the alternatives, then "
                   f"{_n(len(rp.alternatives_dropped), 'alternative')} missing in more than "
                   f"{rp.tol_missing_conditions:.0%} of the remaining blocks")
        if rp.alternatives_dropped:
            out += [" ("] + _names(rp.alternatives_dropped) + [")"]
    else:
        out.append("nothing dropped")
    out.append(f"; {_n(res.n_missing, 'missing result')} "
               f"{'remains' if res.n_missing == 1 else 'remain'} in the {res.n_blocks} tested "
               "blocks" + (": ranked among the available alternatives (Skillings–Mack)"
                           if res.n_missing else ""))
    return out


def _names(names: Sequence[str], ranks: Sequence[float] | None = None) -> list:
    runs: list = []
    for t, a in enumerate(names):
        if t:
            runs.append(", ")
        runs.append(Data(a))
        if ranks is not None:
            runs.append(f" ({ranks[t]:.2f})")
    return runs


def _best_runs(res: Comparison) -> list:
    best = res.best[0]
    runs: list = [Strong(Data(best)), f" has the best mean rank ({_mr(res, best):.2f}"]
    if res.n_missing:
        n_b = int(res.mean_ranks.filter(pl.col("alternative") == best)["n_blocks"][0])
        runs.append(f" over the {n_b} blocks where it has a result")
    runs.append(")")
    if len(res.best) > 1:
        runs += [", tied with "] + _names(res.best[1:])
    if res.control is not None:
        c = res.control
        runs += ["; against the control ", Strong(Data(c)), f" ({_mr(res, c):.2f})"]
        if res.indistinguishable:
            runs += [", not significantly different: "]
            runs += _names(res.indistinguishable, [_mr(res, a) for a in res.indistinguishable])
            sig = [a for a in res.mean_ranks["alternative"].to_list()
                   if a != c and a not in res.indistinguishable]
            if sig:
                runs += ["; significantly different: "] + _names(sig, [_mr(res, a) for a in sig])
        else:
            runs.append(": every other alternative differs significantly from it")
        return runs + ["."]
    if res.indistinguishable:
        runs += ["; not significantly different from it: "]
        runs += _names(res.indistinguishable, [_mr(res, a) for a in res.indistinguishable])
    else:
        runs.append("; it is significantly better than every other alternative")
    return runs + ["."]


def _paragraph(res: Comparison) -> list:
    om = res.omnibus
    blocks = ", ".join(res.blocks_columns)
    runs: list = [f"We compared {res.k} alternatives on {res.n_blocks} blocks (levels of "]
    runs += _names(res.blocks_columns) if blocks else ["blocks"]
    runs += [") by their "] + [Data(res.target)] + [f" ({_direction_words(res.higher_is_better)}"]
    if res.average_over:
        runs += [", averaged over "] + _names(res.average_over)
    runs.append(")")
    if res.n_missing:
        runs.append(f"; {_n(res.n_missing, 'result')} {'was' if res.n_missing == 1 else 'were'}"
                    " missing and each block ranked the alternatives that had one")
    rp = res.policy
    if rp.conditions_dropped or rp.alternatives_dropped:
        runs.append(f", after excluding {_n(rp.conditions_dropped, 'block')} and "
                    f"{_n(len(rp.alternatives_dropped), 'alternative')} with too many missing "
                    "results")
    runs.append(". ")
    verdict = "rejected" if res.significant else "did not reject"
    runs.append(f"{_omnibus_name(res)[0].upper()}{_omnibus_name(res)[1:]} {verdict} the "
                f"hypothesis that all alternatives perform equally (χ²({om.df:g}) = "
                f"{om.statistic:.2f}, {_p_paper(om.pvalue)}, α = {res.alpha:g}). ")
    corr = "" if res.posthoc_test == "nemenyi" else f" with {_correction(res.p_adjust)}"
    runs.append(f"{_posthoc_words(res)[0].upper()}{_posthoc_words(res)[1:]}{corr} over "
                f"{_family_words(res)} found ")
    n_sig = int(res.posthoc["significant"].fill_null(False).sum())
    runs.append(f"{n_sig} of {res.posthoc.height} differences significant. ")
    runs += _best_runs(res)
    return runs


def _report(res: Comparison) -> tuple[ReportSection, ...]:
    om = res.omnibus
    answer = Paragraph(_best_runs(res))
    omni = ReportSection("Omnibus test", (
        Table(("test", "statistic", "df", "p", "blocks", "alternatives", "missing results"),
              ((om.test.replace("-", "–"), f"{om.statistic:.4g}", f"{om.df:g}", _p(om.pvalue),
                str(res.n_blocks), str(res.k), str(res.n_missing)),),
              "lrrrrrr"),
        Paragraph([f"{_omnibus_name(res)[0].upper()}{_omnibus_name(res)[1:]} "
                   f"{'rejects' if res.significant else 'does not reject'} equal performance "
                   f"of the {res.k} alternatives at α = {res.alpha:g} over the same "
                   f"{res.n_blocks} blocks that every table and the diagram summarise."]),
    ))
    corr = ("none needed: the test controls the family-wise error itself"
            if res.posthoc_test == "nemenyi" else _correction(res.p_adjust))
    ph_items = [f"test: {_posthoc_words(res)}",
                f"comparisons: {_family_words(res)} (the family corrected together)",
                f"correction: {corr}; α = {res.alpha:g}"]
    if res.cd is not None:
        ph_items.append(f"critical difference of mean ranks: CD = {res.cd:.3f} (Nemenyi, "
                        f"α = {res.alpha:g}); the diagram's bars and the groups use it")
    else:
        what = ("the control's bar joins the alternatives around it none of which differs "
                "significantly from it" if res.control is not None else
                "groups and the diagram's bars join runs of alternatives (by mean rank) no "
                "pair of which differs significantly")
        ph_items.append(f"no single critical difference: {what}")
    sig = res.posthoc.filter(pl.col("significant").fill_null(False))
    ph_items.append(f"significant: {sig.height} of {res.posthoc.height}")
    post = ReportSection("Post-hoc test", (Bullets(tuple(ph_items)),))
    rows = []
    ctrl = res.control is not None
    for r in res.mean_ranks.iter_rows(named=True):
        cells = [Data(r["alternative"]), f"{r['mean_rank']:.2f}", str(r["n_blocks"])]
        if ctrl:
            cells.append("control" if r["alternative"] == res.control else
                         f"{_p(r['pvalue_vs_control'])}{' *' if r['significant_vs_control'] else ''}")
        else:
            cells.append(r["group"])
        rows.append(tuple(cells))
    head = ("alternative", "mean rank", "blocks",
            "p vs control (* significant)" if ctrl else "group")
    ranks = ReportSection("Mean ranks (1 = best)", (
        Table(head, tuple(rows), "lrrl" if not ctrl else "lrrr"),
        Paragraph(["Alternatives sharing a letter are not significantly different."
                   if not ctrl else f"p-values against the control, {_correction(res.p_adjust)} "
                   f"over the {res.k - 1} comparisons."]),
    ))
    data_items: list = [[f"{res.k} alternatives (column ", Data(res.alternatives_column),
                         f") over {res.n_blocks} blocks (", *_names(res.blocks_columns),
                         "); target ", Data(res.target),
                         f", {_direction_words(res.higher_is_better)}"]]
    if res.average_over:
        data_items.append(["results averaged over ", *_names(res.average_over)])
    data_items.append(_policy_runs(res))
    data_items.append(f"mean ranks with ties {'averaged' if res.ties == 'average' else 'given the lowest rank'} ({opt('ties', res.ties)})")
    data = ReportSection("Data", (Bullets(tuple(data_items)),))
    sections = [ReportSection("Answer", (answer,)), data, omni, post, ranks,
                *res.sections,
                ReportSection("A paragraph for a paper", (Quote(_paragraph(res)),))]
    if res.notes:
        sections.append(ReportSection("Notes", (Bullets(tuple(res.notes)),)))
    return tuple(sections)


def _summary_lines(res: Comparison) -> list[str]:
    from .report import _text

    om = res.omnibus
    lines = [
        f"{om.test} test over {res.n_blocks} blocks x {res.k} alternatives"
        + (f" ({_n(res.n_missing, 'missing result')} ranked among the available alternatives)"
           if res.n_missing else "")
        + f": chi2({om.df:g}) = {om.statistic:.4g}, p = {_p(om.pvalue)} -> "
        + ("the alternatives differ" if res.significant else "no significant difference")
        + f" at alpha = {res.alpha:g}",
        f"post-hoc: {_posthoc_words(res)} over {_family_words(res)}, "
        + ("no correction needed (Nemenyi)" if res.posthoc_test == "nemenyi"
           else _correction(res.p_adjust)) + f", alpha = {res.alpha:g}"
        + (f"; CD = {res.cd:.3f}" if res.cd is not None else ""),
        "best: " + _text(_best_runs(res)),
        "missing results: " + _text(_policy_runs(res)),
        "mean ranks with ties " + ("averaged" if res.ties == "average"
                                   else "given the lowest rank of their group")
        + f" ({opt('ties', res.ties)})",
    ]
    return lines + [f"note: {m}" for m in res.notes]


# ---- LaTeX -----------------------------------------------------------------------------


def _latex_p(p: float) -> str:
    if p < 1e-3:
        return "$p < 0.001$"
    return f"$p = {p:.3g}$"


def _latex(res: Comparison, *, label: str | None, caption: str | None) -> str:
    from .report import latex

    om = res.omnibus
    ctrl = res.control is not None
    show_blocks = res.n_missing > 0
    cols = ["Alternative", "Mean rank"] + (["Blocks"] if show_blocks else [])
    cols.append("$p$ vs.\\ control" if ctrl else ("Group"))
    align = "l" + "r" * (len(cols) - 1 - (0 if ctrl else 1)) + ("" if ctrl else "l")
    lines = []
    for r in res.mean_ranks.iter_rows(named=True):
        name = latex(Data(r["alternative"]))
        cells = [name, f"{r['mean_rank']:.2f}"]
        if show_blocks:
            cells.append(str(r["n_blocks"]))
        if ctrl:
            if r["alternative"] == res.control:
                cells[0] = r"\textit{" + name + "}"
                cells.append("control")
            else:
                p = r["pvalue_vs_control"]
                cells.append(("$<0.001$" if p < 1e-3 else f"{p:.3f}")
                             + (r"$^{*}$" if r["significant_vs_control"] else ""))
        else:
            cells.append(r["group"])
        if r["alternative"] in res.best:
            cells[1] = r"\textbf{" + cells[1] + "}"
        lines.append("    " + " & ".join(cells) + r" \\")
    if caption is None:
        test = om.test.replace("-", "--")
        corr = ("" if res.posthoc_test == "nemenyi"
                else f", {_correction(res.p_adjust).replace('–', '--')}")
        ph = _posthoc_words(res).replace("–", "--")
        cap = [f"Mean ranks (1 = best) of {res.k} alternatives over {res.n_blocks} blocks by ",
               Data(res.target), f" ({_direction_words(res.higher_is_better)}). {test}: "
               f"$\\chi^2({om.df:g}) = {om.statistic:.2f}$, {_latex_p(om.pvalue)}. "]
        if ctrl:
            cap += [f"$p$-values against the control ", Data(res.control),
                    f" by {ph}{corr} over the {res.k - 1} comparisons; "
                    f"$^{{*}}$ significant at $\\alpha = {res.alpha:g}$."]
        else:
            cap.append(f"Alternatives sharing a letter are not significantly different ({ph}"
                       f"{corr}, $\\alpha = {res.alpha:g}$"
                       + (f", CD $= {res.cd:.3f}$" if res.cd is not None else "") + ").")
        if show_blocks:
            cap.append(f" {_n(res.n_missing, 'result')} missing: ranks among the available "
                       "alternatives (Skillings--Mack); Blocks: where each has a result.")
        caption = latex(cap).replace("χ", "chi").replace("α", r"$\alpha$")
    if label is None:
        label = "tab:compare-" + (re.sub(r"[^A-Za-z0-9]+", "-", res.target).strip("-")
                                  or "target")
    label = re.sub(r"[^A-Za-z0-9:._-]+", "-", label)
    body = [
        "% genexpy_nb.significance.compare: needs \\usepackage{booktabs}",
        "\\begin{table}[htbp]",
        "  \\centering",
        f"  \\caption{{{caption}}}",
        f"  \\label{{{label}}}",
        f"  \\begin{{tabular}}{{{align}}}",
        "    \\toprule",
        "    " + " & ".join(cols) + r" \\",
        "    \\midrule",
        *lines,
        "    \\bottomrule",
        "  \\end{tabular}",
        "\\end{table}",
    ]
    for s in res.sections:
        if s.latex:
            body += ["", s.latex]
    return "\n".join(body) + "\n"
