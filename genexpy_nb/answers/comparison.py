"""The result of :func:`~genexpy_nb.significance.compare`: :class:`Comparison`.

The tests, the mean ranks, the data of the critical-difference diagram and the written
report (Markdown, HTML, LaTeX, plain text, built from the document model of :mod:`.report`:
its words are the second half of this module), and the files it writes.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from .._validation import GenexpyInputError, axis_length
from .._words import opt as _opt
from .._words import plural
from ..significance._pairs import correction_words
from ..significance._results import SignificanceResult
from . import numbers
from .document import (
    Bullets,
    Data,
    Paragraph,
    Quote,
    ReportSection,
    Strong,
    Table,
    as_data,
    latex,
    plain_text,
    render_html,
    render_markdown,
)

__all__ = ["Comparison"]

_FORMATS = ("csv", "parquet", "tsv", "json")


@dataclass(frozen=True, eq=False)
class Comparison:
    """The comparison of alternatives over blocks: tests, mean ranks, CD data and report.

    Made by :func:`compare`; displays as its report in a notebook (``_repr_html_``,
    ``_repr_markdown_``). Draw its CD diagram with :func:`genexpy_nb.charts.cd_diagram`
    (``charts.cd_diagram(res)``), write everything with :meth:`save` (tables and report)
    or :func:`genexpy_nb.charts.save_comparison` (also the diagram). Its fields (the
    parameters below) are its attributes.

    Parameters
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
    posthoc_test : str
        The post-hoc test used (``"nemenyi"``, ``"conover"``, ``"wilcoxon"``, ...; resolved
        from ``"auto"``).
    posthoc_label : str
        Its name as the report writes it.
    p_adjust : str or None
        The multiple-testing correction asked for (statsmodels' name), or None.
    alpha : float
        The significance level.
    ties : str
        How tied scores were ranked (``"average"`` or ``"min"``).
    top : int or None
        The number of best alternatives the comparison was restricted to, or None (all).
    target : str
        The score column compared.
    alternatives_column : str
        The column naming the alternatives (models).
    blocks_columns : tuple of str
        The columns whose combinations are the blocks (e.g. the datasets).
    average_over : tuple of str
        The columns averaged over before ranking (e.g. seeds or folds); empty if none.
    higher_is_better : bool
        True when a larger score is better (rank 1 = largest).
    alternatives : tuple of str
        Names of the alternatives, in the column order of ``values``.
    blocks : tuple of str
        Labels of the blocks, in the row order of ``values``.
    values : numpy.ndarray, shape (blocks, alternatives)
        The tested scores, NaN where a result is missing, after averaging and the
        missing-results policy.
    policy : FilterReport
        What the missing-results policy did (``genexpy_nb.FilterReport``).
    replicates : polars.DataFrame or None
        Alternatives whose results were averaged over fewer replicates than the others.
    notes : tuple of str
        Everything the reader should know (policy, replicates, folds as blocks, ties, few
        blocks, degenerate data).
    sections : tuple of ReportSection
        Extra report sections (see :meth:`with_section`).
    missing : {"study", "drop-block", "available"}
        What the tests did with a result still missing after the tolerances: the worst
        tier of its block (the Study's policy, as n*), its block left out, or ranks among
        the available alternatives (Skillings–Mack).
    held_constant : dict
        The levels the table was restricted to (``{column: level}``).
    failed : polars.DataFrame or None
        Every (block, alternative) without a result, by name, and how it was handled.
    tie_tolerance : (float, float) or None
        The Study's tie tolerances (rtol of a block's score range, atol): scores within it
        share a rank in every rank test.
    normalize : {"none", "minmax"}
        The scores of the aggregates, the Bayesian rope and the effect sizes
        (:attr:`scores_used`); ``normalize_reason`` says why.
    normalize_reason : str
    unit : str
        What a block is called in the words ("dataset" for a column ``dataset``, "block"
        where the blocks combine several columns); ``units`` is its plural.
    options : frozenset of str or None
        The options the reader can set where the report is shown (the Python names):
        an option outside them is not named in the words. None: every option of
        :func:`compare`.
    policy_note : runs or None
        Where another policy ran first (the study page): the sentence that says which,
        instead of this comparison's own tolerances.
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
    missing: str = "available"
    held_constant: dict = field(default_factory=dict)
    failed: pl.DataFrame | None = field(default=None, repr=False)
    tie_tolerance: tuple[float, float] | None = None
    normalize: str = "none"
    normalize_reason: str = ""
    unit: str = "block"
    options: frozenset | None = None
    policy_note: Any = None

    @property
    def units(self) -> str:
        """What a block is called, plural ("datasets" for a column ``dataset``)."""
        return self.unit + "s"

    # ---- sizes --------------------------------------------------------------------------
    n_blocks = axis_length("values", 0, "Blocks tested (after the missing-results policy).")

    @property
    def scores_used(self) -> np.ndarray:
        """Return the scores of the aggregates, the Bayesian rope and the effect sizes.

        ``values`` (raw, target units) or, with ``normalize == "minmax"``, min-max
        normalised per block: ``(x - min_b) / (max_b - min_b)`` over the block's results
        (0 = its lowest result, 1 = its highest; the direction is kept; a block whose
        results are all equal gets 0.5). NaN where a result is missing.

        Returns
        -------
        numpy.ndarray, shape (blocks, alternatives)
        """
        v = self.values
        if self.normalize != "minmax":
            return v
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows
            lo = np.nanmin(v, axis=1, keepdims=True)
            width = np.nanmax(v, axis=1, keepdims=True) - lo
        safe = np.where(width > 0, width, 1.0)
        return np.where(width > 0, (v - lo) / safe, np.where(np.isnan(v), np.nan, 0.5))

    k = axis_length("values", 1, "Alternatives compared.")

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
        """Return a one-line summary: sizes, omnibus p-value, post-hoc test, best."""
        return (f"Comparison({self.k} alternatives x {self.n_blocks} {self.units}; "
                f"{self.omnibus.test} {_p_paper(self.omnibus.pvalue)}; post-hoc "
                f"{self.posthoc_label}, {correction_words(self.p_adjust_used)}; best "
                f"{', '.join(self.best)})")

    @property
    def p_adjust_used(self) -> str | None:
        """The correction the post-hoc p-values carry (None for Nemenyi's test)."""
        return None if self.posthoc_test == "nemenyi" else self.p_adjust

    # ---- extending ----------------------------------------------------------------------
    def with_section(self, section: ReportSection) -> Comparison:
        """Return a copy whose report has ``section`` after the mean ranks (before the notes).

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
            raise GenexpyInputError("section must be a genexpy_nb.answers.document."
                                    f"ReportSection, got {type(section).__name__}.")
        return replace(self, sections=(*self.sections, section))

    def scores_frame(self) -> pl.DataFrame:
        """Return the tested scores as a tidy frame: ``block, alternative, score``.

        The scores after averaging and the missing-results policy; null where a result is
        missing.

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
        """Return the report as sections (rendered by :meth:`to_markdown` and :meth:`to_html`).

        Returns
        -------
        tuple of ReportSection
        """
        return _report(self)

    def title(self) -> list:
        """Return the report's title, as runs of text (names from the data kept apart).

        Returns
        -------
        list
            Runs of plain text and the target's name from the data, for the renderers.
        """
        return [f"Comparison of {self.k} alternatives over {self.n_blocks} {self.units}: ",
                Data(self.target), f" ({_direction_words(self.higher_is_better)})"]

    def title_text(self) -> str:
        """Return the report's title as plain text (for a page's ``<title>``, unescaped).

        Returns
        -------
        str
            The title, e.g. ``"Comparison of 5 alternatives over 30 blocks: accuracy
            (higher is better)"``; the writer escapes it for where it lands.
        """
        return plain_text(self.title())

    def to_markdown(self) -> str:
        """Return the report as Markdown.

        Tests, post-hoc test and correction, the best alternative and those not
        distinguishable from it, a paragraph a paper can quote, the mean ranks and notes;
        every name from the data escaped.

        Returns
        -------
        str
        """
        return render_markdown(self.title(), self.report_sections())

    def to_html(self) -> str:
        """Return the report as an HTML fragment (names from the data escaped).

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
        r"""Return the mean ranks as a LaTeX table (booktabs).

        Mean rank, number of blocks where results are missing, and the group letters, the
        CD, or the p-values against the control; the caption names the tests. Needs
        ``\usepackage{booktabs}``.

        Parameters
        ----------
        label : str, optional
            ``\label`` of the table (default ``tab:compare-<target>``).
        caption : str, optional
            LaTeX caption text to use instead of the generated one.

        Returns
        -------
        str
        """
        return _latex(self, label=label, caption=caption)

    def summary(self) -> str:
        """Return the answer in a few plain lines, as ``genexpy-nb compare`` prints it.

        The test, the post-hoc test and correction, the best alternative and those that
        cannot be told apart from it, the blocks.

        Returns
        -------
        str
        """
        return "\n".join(_summary_lines(self))

    # ---- files --------------------------------------------------------------------------
    def tables(self) -> dict[str, pl.DataFrame]:
        """Return the tables ``save`` writes, by file name (without suffix).

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
        if self.failed is not None and self.failed.height:
            out["failed_results"] = self.failed
        for s in self.sections:
            for name, frame in s.tables.items():
                if name in out:
                    raise GenexpyInputError(f"report section {s.title!r}: a table named "
                                            f"{name!r} exists already.")
                out[name] = frame
        return out

    def save(self, folder: str | Path, *, format: str = "csv") -> list[Path]:
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

    def write_into(self, folder: Path, *, format: str = "csv") -> list[Path]:
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


# ---- the words of a comparison: its report sections, the printed summary, LaTeX ----------
# Every number comes from the Comparison; every name from the data is a Data run, escaped
# by each renderer.


def _p(p: float) -> str:
    return numbers.pvalue(p)


def _p_paper(p: float) -> str:
    text = numbers.pvalue(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def opt(name: str, value: Any = ..., *, res: Any = None, **kw: Any) -> str:
    """Write an option as the reader sets it; "" where the surrounding command lacks it."""
    if res is not None and res.options is not None and name not in res.options:
        return ""
    return _opt(name, value, **kw)


def _paren_opt(res: Any, name: str, value: Any = ...) -> str:
    """`` (--flag value)`` where the reader can set the option, else ""."""
    text = opt(name, value, res=res)
    return f" ({text})" if text else ""


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
        (res.units, rp.conditions_total),
        (f"{res.units} dropped (more than {numbers.share(rp.tol_missing_alternatives)} of the "
         "alternatives missing)", rp.conditions_dropped),
        ("alternatives", rp.alternatives_total),
        (f"alternatives dropped (missing in more than {numbers.share(rp.tol_missing_conditions)}"
         f" of the remaining {res.units})", len(rp.alternatives_dropped)),
        (f"{res.units} tested", res.n_blocks),
        ("alternatives compared", res.k),
        (f"missing results in the tested {res.units} ({_handled(res)})", res.n_missing),
    ]
    return pl.DataFrame({"item": [r[0] for r in rows], "value": [int(r[1]) for r in rows]})


def _policy_runs(res: Comparison) -> list:
    rp = res.policy
    total = rp.conditions_total * rp.alternatives_total
    missing = total - rp.results_after_averaging
    if missing == 0:
        out = [f"none of the {total} results missing ({rp.alternatives_total} alternatives x "
               f"{rp.conditions_total} {res.units})"]
        return out + ([" ", res.policy_note] if res.policy_note is not None else [])
    out: list = [f"{missing} of {total} results missing ({rp.alternatives_total} alternatives "
                 f"x {rp.conditions_total} {res.units})"]
    if rp.rows_invalid_target:  # rows of the table, not results: said apart, in its own unit
        k = rp.rows_invalid_target
        out.append(f"; {plural(k, 'row')} of the table with an empty, NaN or infinite target "
                   f"{'was' if k == 1 else 'were'} dropped before averaging")
    if res.policy_note is not None:  # another policy ran first (the study page)
        out += ["; ", res.policy_note]
    else:
        out.append(f"; policy ({opt('tol_missing_alternatives', rp.tol_missing_alternatives)}"
                   f", {opt('tol_missing_conditions', rp.tol_missing_conditions)}): ")
    if res.policy_note is not None:
        pass
    elif rp.conditions_dropped or rp.alternatives_dropped:
        out.append(f"dropped {plural(rp.conditions_dropped, res.unit)} missing more than "
                   f"{numbers.share(rp.tol_missing_alternatives)} of the alternatives, then "
                   f"{plural(len(rp.alternatives_dropped), 'alternative')} missing in more than "
                   f"{numbers.share(rp.tol_missing_conditions)} of the remaining {res.units}")
        if rp.alternatives_dropped:
            out += [" ("] + _names(rp.alternatives_dropped) + [")"]
    else:
        out.append("nothing dropped")
    out.append(f"; {plural(res.n_missing, 'missing result')} "
               f"{'remains' if res.n_missing == 1 else 'remain'} in the {res.n_blocks} tested "
               f"{res.units}" + (f": {_handled(res)}" if res.n_missing else ""))
    return out


def _handled(res: Comparison) -> str:
    """How the tests treat a result still missing after the tolerances (``missing``)."""
    return {"study": f"each counted as the worst tier of its {res.unit}, as in n*",
            "drop-block": f"their {res.units} left out",
            }.get(res.missing, "ranked among the available alternatives (Skillings–Mack)")


def _policy_line(res: Comparison) -> str:
    """Return the choices behind every number: failed runs, ties, held-constant levels."""
    u = res.unit
    words = {"study": f"count as the worst tier of their {u}",
             "drop-block": f"drop their {u}",
             "available": f"are left out of their {u}'s ranking: ranks among the available "
                          "alternatives, Skillings–Mack"}[res.missing]
    out = f"failed or missing runs {words}{_paren_opt(res, 'missing', res.missing)}"
    if res.tie_tolerance is not None:
        rtol, atol = res.tie_tolerance
        out += (f"; scores of one {u} within {numbers.setting(rtol)} of its score range"
                + (f" or {numbers.setting(atol)}" if atol else "") + " of each other are tied "
                "in every rank test")
    if res.normalize_reason:
        out += ("; aggregates, Bayesian rope and effect sizes on "
                + (f"scores min-max normalised per {u} (0 = its lowest, 1 = its highest)"
                   if res.normalize == "minmax" else "raw scores")
                + f": {res.normalize_reason}; the rank tests rank within {res.units}, "
                f"unchanged by any rescaling of one {u}'s scores")
    if res.held_constant:
        out += "; held constant: " + ", ".join(f"{c} = {v}" for c, v in
                                               res.held_constant.items())
    return out


def _names(names: Sequence[str], ranks: Sequence[float] | None = None, digits: int = 2
           ) -> list:
    runs: list = []
    for t, a in enumerate(names):
        if t:
            runs.append(", ")
        runs.append(Data(a))
        if ranks is not None:
            runs.append(f" ({numbers.rank(ranks[t], digits)})")
    return runs


def _rank_digits(res: Comparison) -> int:
    """Return the decimals that tell the best mean rank from every other that differs.

    Two decimals unless the best and another alternative would print alike (10.72 and
    10.72 for 10.7220 and 10.7222): then as many as it takes, at most 6.
    """
    best = _mr(res, res.best[0])
    others = [float(r) for r in res.mean_ranks["mean_rank"].to_list() if r != best]
    for digits in range(2, 7):
        shown = numbers.rank(best, digits)
        if all(numbers.rank(r, digits) != shown for r in others):
            return digits
    return 6


def _best_runs(res: Comparison) -> list:
    best = res.best[0]
    dg = _rank_digits(res)
    runs: list = [Strong(Data(best)),
                  f" has the best mean rank ({numbers.rank(_mr(res, best), dg)}"]
    if res.n_missing and res.missing == "available":  # else every block ranks it
        n_b = int(res.mean_ranks.filter(pl.col("alternative") == best)["n_blocks"][0])
        runs.append(f" over the {n_b} {res.units} where it has a result")
    runs.append(")")
    if len(res.best) > 1:
        runs += [", tied with "] + _names(res.best[1:])
    if res.control is not None:
        c = res.control
        runs += ["; against the control ", Strong(Data(c)), f" ({numbers.rank(_mr(res, c), dg)})"]
        if res.indistinguishable:
            runs += [", not significantly different: "]
            runs += _names(res.indistinguishable,
                           [_mr(res, a) for a in res.indistinguishable], dg)
            sig = [a for a in res.mean_ranks["alternative"].to_list()
                   if a != c and a not in res.indistinguishable]
            if sig:
                runs += ["; significantly different: "]
                runs += _names(sig, [_mr(res, a) for a in sig], dg)
        else:
            runs.append(": every other alternative differs significantly from it")
        return runs + ["."]
    if res.indistinguishable:
        runs += ["; not significantly different from it: "]
        runs += _names(res.indistinguishable,
                       [_mr(res, a) for a in res.indistinguishable], dg)
    else:
        runs.append("; it is significantly better than every other alternative")
    return runs + ["."]


def _failed_names(res: Comparison, most: int = 5) -> list:
    """Name the alternatives that failed in the tested blocks: " (SVR on 4 blocks, ...)"."""
    failed = res.failed
    if failed is None or not failed.height:
        return []
    counts = (failed.filter(~pl.col("handled").str.contains("tolerance"))
              .group_by("alternative", maintain_order=True).len()
              .sort("len", "alternative", descending=[True, False]))
    if not counts.height:
        return []
    runs: list = [" ("]
    for t, r in enumerate(counts.head(most).iter_rows(named=True)):
        runs += ([", "] if t else []) + [Data(r["alternative"]),
                                         f" on {plural(r['len'], res.unit)}"]
    if counts.height > most:
        runs.append(f", and {plural(counts.height - most, 'more alternative')}")
    return [*runs, ")"]


def _paragraph(res: Comparison) -> list:
    om = res.omnibus
    blocks = ", ".join(res.blocks_columns)
    if res.unit != "block" and len(res.blocks_columns) == 1:  # the column says what they are
        runs: list = [f"We compared {res.k} alternatives on {res.n_blocks} {res.units} by "
                      "their "]
    else:
        runs = [f"We compared {res.k} alternatives on {res.n_blocks} blocks (levels of "]
        runs += _names(res.blocks_columns) if blocks else ["blocks"]
        runs += [") by their "]
    runs += [Data(res.target)] + [f" ({_direction_words(res.higher_is_better)}"]
    if res.average_over:
        runs += [", averaged over "] + _names(res.average_over)
    runs.append(")")
    if res.n_missing:
        runs.append(f"; {plural(res.n_missing, 'result')} {'was' if res.n_missing == 1 else 'were'}"
                    " missing")
        runs += _failed_names(res)
        runs.append(f" and each {res.unit} ranked the alternatives that had one"
                    if res.missing == "available" else
                    f", each counted as the worst result of its {res.unit}")
    rp = res.policy
    if rp.conditions_dropped or rp.alternatives_dropped:
        runs.append(f", after excluding {plural(rp.conditions_dropped, res.unit)} and "
                    f"{plural(len(rp.alternatives_dropped), 'alternative')} with too many missing "
                    "results")
    runs.append(". ")
    verdict = "rejected" if res.significant else "did not reject"
    runs.append(f"{_omnibus_name(res)[0].upper()}{_omnibus_name(res)[1:]} {verdict} the "
                f"hypothesis that all alternatives perform equally (χ²({numbers.setting(om.df)}) = "
                f"{numbers.statistic(om.statistic)}, {_p_paper(om.pvalue)}, α = "
                f"{numbers.setting(res.alpha)}). ")
    corr = "" if res.posthoc_test == "nemenyi" else f" with {correction_words(res.p_adjust)}"
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
        Table(("test", "statistic", "df", "p", res.units, "alternatives", "missing results"),
              ((om.test.replace("-", "–"), numbers.statistic(om.statistic),
                numbers.setting(om.df), _p(om.pvalue),
                str(res.n_blocks), str(res.k), str(res.n_missing)),),
              "lrrrrrr"),
        Paragraph([f"{_omnibus_name(res)[0].upper()}{_omnibus_name(res)[1:]} "
                   f"{'rejects' if res.significant else 'does not reject'} equal performance "
                   f"of the {res.k} alternatives at α = {numbers.setting(res.alpha)} over the "
                   f"same {res.n_blocks} {res.units} that every table and the diagram "
                   "summarise."]),
    ))
    corr = ("none needed: the test controls the family-wise error itself"
            if res.posthoc_test == "nemenyi" else correction_words(res.p_adjust))
    ph_items = [f"test: {_posthoc_words(res)}",
                f"comparisons: {_family_words(res)} (the family corrected together)",
                f"correction: {corr}; α = {numbers.setting(res.alpha)}"]
    if res.cd is not None:
        ph_items.append(f"critical difference of mean ranks: CD = {numbers.rank(res.cd)} "
                        f"(Nemenyi, α = {numbers.setting(res.alpha)}); the diagram's bars and "
                        "the groups use it")
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
        cells = [Data(r["alternative"]), numbers.rank(r["mean_rank"]), str(r["n_blocks"])]
        if ctrl:
            star = " *" if r["significant_vs_control"] else ""
            cells.append("control" if r["alternative"] == res.control else
                         f"{_p(r['pvalue_vs_control'])}{star}")
        else:
            cells.append(r["group"])
        rows.append(tuple(cells))
    head = ("alternative", "mean rank", res.units,
            "p vs control (* significant)" if ctrl else "group")
    ranks = ReportSection("Mean ranks (1 = best)", (
        Table(head, tuple(rows), "lrrl" if not ctrl else "lrrr"),
        Paragraph(["Alternatives sharing a letter are not significantly different."
                   if not ctrl else f"p-values against the control, "
                   f"{correction_words(res.p_adjust)} over the {res.k - 1} comparisons."]),
    ))
    data_items: list = [[f"{res.k} alternatives (column ", Data(res.alternatives_column),
                         f") over {res.n_blocks} {res.units} (", *_names(res.blocks_columns),
                         "); target ", Data(res.target),
                         f", {_direction_words(res.higher_is_better)}"]]
    if res.average_over:
        data_items.append(["results averaged over ", *_names(res.average_over)])
    data_items.append(_policy_runs(res))
    how = "averaged" if res.ties == "average" else "given the lowest rank"
    data_items.append(f"mean ranks with ties {how}{_paren_opt(res, 'ties', res.ties)}")
    data = ReportSection("Data", (Bullets(tuple(data_items)),))
    policy = Paragraph([as_data("Policy: " + _policy_line(res) + ".")])
    sections = [ReportSection("Answer", (answer, policy)), data, omni, post, ranks,
                *res.sections,
                ReportSection("A paragraph for a paper", (Quote(_paragraph(res)),))]
    if res.notes:
        # a note is a Text (its names are Data runs) or, from a warning, a plain string
        # that may embed a name: escaped as a whole
        sections.append(ReportSection("Notes", (Bullets(tuple(as_data(m) for m in res.notes)),)))
    return tuple(sections)


def _summary_lines(res: Comparison) -> list[str]:
    om = res.omnibus
    lines = [
        "policy: " + _policy_line(res),
        f"{om.test} test over {res.n_blocks} {res.units} x {res.k} alternatives"
        + (f" ({plural(res.n_missing, 'missing result')} {_handled(res)})"
           if res.n_missing else "")
        + f": chi2({numbers.setting(om.df)}) = {numbers.statistic(om.statistic)}, "
        + _p_paper(om.pvalue) + " -> "
        + ("the alternatives differ" if res.significant else "no significant difference")
        + f" at alpha = {numbers.setting(res.alpha)}",
        f"post-hoc: {_posthoc_words(res)} over {_family_words(res)}, "
        + ("no correction needed (Nemenyi)" if res.posthoc_test == "nemenyi"
           else correction_words(res.p_adjust)) + f", alpha = {numbers.setting(res.alpha)}"
        + (f"; CD = {numbers.rank(res.cd)}" if res.cd is not None else ""),
        "best: " + plain_text(_best_runs(res)),
        "missing results: " + plain_text(_policy_runs(res)),
        "mean ranks with ties " + ("averaged" if res.ties == "average"
                                   else "given the lowest rank of their group")
        + _paren_opt(res, "ties", res.ties),
    ]
    return lines + [f"note: {plain_text(as_data(m))}" for m in res.notes]


# ---- LaTeX -----------------------------------------------------------------------------


def _latex_p(p: float) -> str:
    return f"${_p_paper(p)}$"


def _latex(res: Comparison, *, label: str | None, caption: str | None) -> str:
    om = res.omnibus
    ctrl = res.control is not None
    show_blocks = res.n_missing > 0 and res.missing == "available"
    cols = ["Alternative", "Mean rank"] + ([res.units.capitalize()] if show_blocks else [])
    cols.append("$p$ vs.\\ control" if ctrl else ("Group"))
    align = "l" + "r" * (len(cols) - 1 - (0 if ctrl else 1)) + ("" if ctrl else "l")
    lines = []
    for r in res.mean_ranks.iter_rows(named=True):
        name = latex(Data(r["alternative"]))
        cells = [name, numbers.rank(r["mean_rank"])]
        if show_blocks:
            cells.append(str(r["n_blocks"]))
        if ctrl:
            if r["alternative"] == res.control:
                cells[0] = r"\textit{" + name + "}"
                cells.append("control")
            else:
                p = r["pvalue_vs_control"]
                cells.append(f"${numbers.pvalue(p)}$"
                             + (r"$^{*}$" if r["significant_vs_control"] else ""))
        else:
            cells.append(r["group"])
        if r["alternative"] in res.best:
            cells[1] = r"\textbf{" + cells[1] + "}"
        lines.append("    " + " & ".join(cells) + r" \\")
    if caption is None:
        test = om.test.replace("-", "--")
        corr = ("" if res.posthoc_test == "nemenyi"
                else f", {correction_words(res.p_adjust).replace('–', '--')}")
        ph = _posthoc_words(res).replace("–", "--")
        cap = [f"Mean ranks (1 = best) of {res.k} alternatives over {res.n_blocks} {res.units} "
               "by ",
               Data(res.target), f" ({_direction_words(res.higher_is_better)}). {test}: "
               f"$\\chi^2({numbers.setting(om.df)}) = {numbers.statistic(om.statistic)}$, "
               f"{_latex_p(om.pvalue)}. "]
        if ctrl:
            cap += ["$p$-values against the control ", Data(res.control),
                    f" by {ph}{corr} over the {res.k - 1} comparisons; "
                    f"$^{{*}}$ significant at $\\alpha = {numbers.setting(res.alpha)}$."]
        else:
            cap.append(f"Alternatives sharing a letter are not significantly different ({ph}"
                       f"{corr}, $\\alpha = {numbers.setting(res.alpha)}$"
                       + (f", CD $= {numbers.rank(res.cd)}$" if res.cd is not None else "")
                       + ").")
        if show_blocks:
            cap.append(f" {plural(res.n_missing, 'result')} missing: ranks among the available "
                       f"alternatives (Skillings--Mack); {res.units.capitalize()}: where each "
                       "has a result.")
        elif res.n_missing:
            cap.append(f" {plural(res.n_missing, 'result')} missing, each counted as the "
                       f"worst of its {res.unit}.")
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
