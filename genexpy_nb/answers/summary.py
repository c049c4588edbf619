"""Short answers from long frames, as tables for the terminal and for notebooks.

The n* verdict per research question and the seed-variability numbers per candidate, as one
table each.

:func:`nstar_summary` reads the frame of :func:`~genexpy_nb.analyze` at the headline
thresholds (alpha* = 0.95, delta* = 0.05 by default) and gives, per research question, every
configuration's n* with its interval, N, the no-signal baseline (when the frame has it) and
the verdict in words. The verdicts are the frame's own (``generalizable``, ``reliable``,
``deficit``, ``reason``; the same rule as
``genexpy_nb.generalizability.planner.verdict_word``): nothing
here decides anew. The object displays as that short summary in a notebook and keeps the
full frame in ``.frame``::

    res = gx.analyze(study, kernels)       # a polars DataFrame, as before
    gx.nstar_summary(res)                  # the answer, one table per research question
    gx.nstar_summary(res).frame            # the full frame again

``genexpy-nb nstar`` and ``genexpy-nb seeds`` print the same tables
(:meth:`NstarSummary.to_text <genexpy_nb.answers.summary.NstarSummary.to_text>`,
:meth:`SeedsSummary.to_text <genexpy_nb.answers.summary.SeedsSummary.to_text>`).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from .. import config
from .._escape import html_text, markdown_text
from .._validation import GenexpyInputError, to_polars
from .._words import plural
from ..generalizability import NSTAR_SCHEMA, NULL_COLUMNS
from ..generalizability.planner import verdict_word

__all__ = ["NstarSummary", "SeedsSummary", "Table", "nstar_summary", "seeds_summary"]

#: estimates of n* that give a verdict, in order of preference (the bound never does)
_VERDICT_METHODS = ("resample", "approx_weighted", "approx")
#: columns of the analysis frame that are not design factors
_ANALYSIS_COLUMNS = frozenset({*NSTAR_SCHEMA, *NULL_COLUMNS, "nstar_ceil", "generalizable",
                               "deficit"})


def terminal_text(value: object) -> str:
    """Make a string from data safe for a terminal, on one line.

    Control characters (escape sequences, carriage returns, ...) are shown as ``?``; newlines
    and tabs become spaces.

    Parameters
    ----------
    value : object
        Anything; its ``str()`` is cleaned.

    Returns
    -------
    str
        The cleaned one-line string.
    """
    s = str(value)
    return "".join("?" if unicodedata.category(ch)[0] == "C" else ch
                   for ch in s.replace("\n", " ").replace("\t", " "))


def study_words(study) -> str:
    """Describe a :class:`~genexpy_nb.Study` in one sentence, without Python syntax.

    For a terminal: its configurations, alternatives, factors and target.

    Parameters
    ----------
    study : Study
        The study to describe.

    Returns
    -------
    str
        The sentence.
    """
    design = ", ".join(map(str, study.design)) or "none"
    return (f"{plural(len(study), 'configuration')} x {plural(study.na, 'alternative')}; "
            f"generalizing over {', '.join(map(str, study.generalize))}; design factors: "
            f"{design}; target {study.target} "
            f"({'higher' if study.higher_is_better else 'lower'} is better)")


# ---- a table with three renderings ------------------------------------------------------


@dataclass
class Table:
    """A titled table of strings, rendered as plain text, Markdown or HTML.

    Plain text has aligned columns; every cell is escaped for where it lands.

    Parameters
    ----------
    title : str
        The line above the table.
    headers : list of str
        The column names.
    rows : list of list of str
        The cells, one list of strings per row (as many as ``headers``).
    notes : list of str, default []
        Lines printed below the table.
    right : frozenset of int, default frozenset()
        The indices of the columns aligned right (numbers).
    """

    title: str
    headers: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    #: columns aligned right (numbers)
    right: frozenset[int] = frozenset()

    def to_text(self) -> str:
        """Render the table as plain text for a terminal.

        Returns
        -------
        str
            The title, the aligned columns under a rule, then the notes; control characters
            of the cells shown as ``?``.
        """
        head = [terminal_text(h) for h in self.headers]
        body = [[terminal_text(c) for c in r] for r in self.rows]
        widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(head)]

        def line(cells: Sequence[str]) -> str:
            return "  ".join(c.rjust(w) if i in self.right else c.ljust(w)
                             for i, (c, w) in enumerate(zip(cells, widths, strict=True)))

        out = [terminal_text(self.title), line(head).rstrip(),
               "  ".join("-" * w for w in widths)]
        out += [line(r).rstrip() for r in body]
        out += [terminal_text(n) for n in self.notes]
        return "\n".join(out)

    def to_markdown(self) -> str:
        """Render the table as Markdown, every cell escaped.

        Returns
        -------
        str
            The bold title, a pipe table (numbers aligned right) and the notes.
        """
        def row(cells):
            return "| " + " | ".join(markdown_text(c) for c in cells) + " |"

        align = ["---:" if i in self.right else ":---" for i in range(len(self.headers))]
        out = [f"**{markdown_text(self.title)}**", "", row(self.headers),
               "| " + " | ".join(align) + " |", *(row(r) for r in self.rows)]
        if self.notes:
            out += [""] + [markdown_text(n) + "  " for n in self.notes]
        return "\n".join(out)

    def to_html(self) -> str:
        """Render the table as HTML, every cell escaped.

        Returns
        -------
        str
            A ``<div>`` holding the bold title, the ``<table>`` and the notes.
        """
        def cells(tag, values):
            return "".join(
                f"<{tag} style='text-align:{'right' if i in self.right else 'left'}'>"
                f"{html_text(v)}</{tag}>" for i, v in enumerate(values))

        body = "".join(f"<tr>{cells('td', r)}</tr>" for r in self.rows)
        notes = "".join(f"<div style='font-size:90%'>{html_text(n)}</div>" for n in self.notes)
        return (f"<div><b>{html_text(self.title)}</b><table><thead><tr>"
                f"{cells('th', self.headers)}</tr></thead><tbody>{body}</tbody></table>"
                f"{notes}</div>")


class _Tables:
    """Shared rendering of a list of :class:`Table` plus a heading and closing lines.

    Copied into each summary class by :func:`_renders_tables` (not a base class: the API
    reference would name a private base).
    """

    heading: str
    tables: list[Table]
    footer: list[str]

    def to_text(self) -> str:
        """Render the summary as plain text for a terminal (what ``print`` shows).

        Returns
        -------
        str
            The heading, each table and the closing lines, separated by blank lines.
        """
        parts = [terminal_text(self.heading)] + [t.to_text() for t in self.tables]
        lead = getattr(self, "conclusions", None)
        if lead is not None:
            parts = [lead.to_text(), terminal_text(self.question)] + parts
        return "\n\n".join(parts + ["\n".join(terminal_text(f) for f in self.footer)]
                           if self.footer else parts)

    def to_markdown(self) -> str:
        """Render the summary as Markdown (what a notebook shows), every cell escaped.

        Returns
        -------
        str
            The heading, each table and the closing lines, separated by blank lines.
        """
        parts = [markdown_text(self.heading)] + [t.to_markdown() for t in self.tables]
        lead = getattr(self, "conclusions", None)
        if lead is not None:
            parts = [lead.to_markdown(), f"### {markdown_text(self.question)}"] + parts
        parts += ["  \n".join(markdown_text(f) for f in self.footer)] if self.footer else []
        return "\n\n".join(parts)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        foot = "".join(f"<p>{html_text(f)}</p>" for f in self.footer)
        lead = getattr(self, "conclusions", None)
        first = (lead.to_html() + f"<hr><h4>{html_text(self.question)}</h4>"
                 if lead is not None else "")
        return (first + f"<div><p>{html_text(self.heading)}</p>"
                + "<br>".join(t.to_html() for t in self.tables) + foot + "</div>")

    def __str__(self) -> str:
        return self.to_text()


def _renders_tables(cls: type) -> type:
    """Copy the rendering of :class:`_Tables` into ``cls``.

    ``cls`` has ``heading``, ``tables`` and ``footer``.
    """
    for name in ("to_text", "to_markdown", "_repr_markdown_", "_repr_html_", "__str__"):
        setattr(cls, name, _Tables.__dict__[name])
    return cls


# ---- n* ---------------------------------------------------------------------------------


def _num(x: float | None, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return f"{x:.{digits}f}"


def _interval(lo: float | None, hi: float | None) -> str:
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return ""
    return f"[{_num(lo)}, {_num(hi)}]"


def verdict_text(generalizable: bool | None, deficit: int | None,
                 reason: str | None) -> str:
    """Put the verdict of one row of an analysis frame in words.

    "generalizes", "needs k more" (k = the frame's ``deficit``, the conditions to add), or
    "unsure: reason" (the frame's null verdict, an estimate not to be trusted or undefined,
    with its reason, as :func:`genexpy_nb.generalizability.planner.verdict_word` words it).

    Parameters
    ----------
    generalizable : bool or None
        The row's ``generalizable`` column (None: no verdict).
    deficit : int or None
        The row's ``deficit``: the conditions still to add.
    reason : str or None
        The row's ``reason``, given with an unsure verdict.

    Returns
    -------
    str
        The verdict in words.
    """
    if generalizable is True:
        return "generalizes"
    if generalizable is False:
        return f"needs {deficit} more" if deficit is not None and deficit > 0 else \
            "does not generalize"
    return verdict_word(None, reason or "n* is undefined")


@_renders_tables
@dataclass
class NstarSummary:
    """The answer of an analysis at one pair of thresholds, as :func:`nstar_summary` builds it.

    One :class:`Table` per research question, printed (``print``), shown in a notebook, or
    rendered with ``to_text()`` / ``to_markdown()``.

    Parameters
    ----------
    frame : polars.DataFrame or pandas.DataFrame
        The full frame that was summarised (of :func:`~genexpy_nb.analyze`), unchanged.
    rows : polars.DataFrame
        The rows behind the tables, one per configuration and research question at
        (``alpha``, ``delta``) for ``method``, with a ``verdict`` column in words.
    alpha, delta : float
        The thresholds alpha* and delta* of the answer.
    method : str
        The estimate whose verdict is given ("resample", "approx" or "approx_weighted").
    tables : list of Table
        One table per research question.
    heading : str
        The sentence above the tables.
    footer : list of str
        The lines below them (what the no-signal baseline and "(chance)" mean, where the
        full frame was written).
    conclusions : ConclusionsSummary, optional
        The study's conclusions (:func:`~genexpy_nb.conclusions_summary`), shown first when
        given.
    question : str, default ""
        The question the tables answer, shown as their title after the conclusions.
    """

    frame: pl.DataFrame
    rows: pl.DataFrame
    alpha: float
    delta: float
    method: str
    tables: list[Table]
    heading: str
    footer: list[str]
    conclusions: Any = None
    question: str = ""

    def counts(self) -> dict[str, int]:
        """Count the rows that generalize, need more conditions, or are unsure.

        Returns
        -------
        dict of str to int
            ``{"generalizes": ..., "needs more": ..., "unsure": ...}``.
        """
        g = self.rows["generalizable"]
        return {"generalizes": int((g == True).sum()),  # noqa: E712 (polars series)
                "needs more": int((g == False).sum()),  # noqa: E712
                "unsure": int(g.is_null().sum())}


def design_columns(frame: pl.DataFrame) -> list[str]:
    """List the design-factor columns of an analysis frame (those that name a configuration).

    Parameters
    ----------
    frame : polars.DataFrame
        A frame of :func:`~genexpy_nb.analyze`.

    Returns
    -------
    list of str
        Its columns that are not columns of the analysis itself, in the frame's order.
    """
    return [c for c in frame.columns if c not in _ANALYSIS_COLUMNS]


def _summary_method(methods: list[str], method: str | None) -> str:
    """Check the estimate asked for, or pick the default; the bound is refused.

    The default is the first of :data:`_VERDICT_METHODS` found in the frame.
    """
    if method is None:
        method = next((m for m in _VERDICT_METHODS if m in methods), None)
        if method is None:
            raise GenexpyInputError(
                "the frame has only the distribution-free bound, a worst case and never a "
                "verdict: analyse with the resampled method (the default) or a closed form.")
    elif method == "bound":
        raise GenexpyInputError(
            "the distribution-free bound is a worst case for any data, never a verdict: "
            "summarise 'resample' (the default), 'approx' or 'approx_weighted'.")
    return method


def _question_row(r: dict, design: list[str], has_null: bool) -> list[str]:
    """Format the cells of one configuration's row of a question's table.

    Design levels, n*, interval, N, the no-signal baseline when there is one, verdict.
    """
    cells = [str(r[c]) for c in design] if design else ["the whole study"]
    cells += [_num(r["nstar"]), _interval(r.get("nstar_lo"), r.get("nstar_hi")),
              str(r["N"])]
    if has_null:
        base = _num(r.get("nstar_null"))
        band = _interval(r.get("nstar_null_lo"), r.get("nstar_null_hi"))
        # the frame's beyond_chance: false = n* within or above the band
        mark = " (chance)" if r.get("beyond_chance") is False else ""
        cells += [f"{base} {band}{mark}".strip()]
    cells += [r["verdict"]]
    return cells


def _question_notes(part: pl.DataFrame, has_null: bool, max_rows: int) -> list[str]:
    """Write the lines below one question's table.

    The verdicts counted, the rows no more consistent than chance, the rows left out.
    """
    g = part["generalizable"]
    n_yes, n_no, n_unsure = (int((g == True).sum()), int((g == False).sum()),  # noqa: E712
                             int(g.is_null().sum()))
    notes = [f"{n_yes} of {plural(part.height, 'configuration')} "
             f"generalize{'s' if n_yes == 1 else ''}"
             + (f", {n_no} need{'s' if n_no == 1 else ''} more conditions" if n_no else "")
             + (f", {n_unsure} unsure" if n_unsure else "") + "."]
    if has_null and "beyond_chance" in part.columns:
        n_chance = int((part["beyond_chance"] == False).sum())  # noqa: E712
        if n_chance:
            notes.append(f"{n_chance} of them no more consistent than chance "
                         "(marked (chance), see below).")
    if part.height > max_rows:
        notes.append(f"({part.height - max_rows} more in the full frame.)")
    return notes


def _question_table(label: str, part: pl.DataFrame, design: list[str], has_null: bool,
                    max_rows: int) -> Table:
    """Build the table of one research question from its rows, in the order given."""
    headers = [*(design or ["configuration"]), "n*", "interval", "N"]
    right = {len(headers) - 3, len(headers) - 1}
    if has_null:
        headers += ["no-signal n*"]
    headers += ["verdict"]
    rows = [_question_row(r, design, has_null)
            for r in part.head(max_rows).iter_rows(named=True)]
    return Table(f"research question: {label}", headers, rows,
                 _question_notes(part, has_null, max_rows), frozenset(right))


def _summary_footer(has_null: bool, methods: list[str], n_rows: int,
                    where: str | None) -> list[str]:
    """Write the lines below the tables of :func:`nstar_summary`.

    What the no-signal baseline and "(chance)" mean, that the bound is no verdict, where
    the full frame was written.
    """
    footer = []
    if has_null:
        footer.append("no-signal n*: the n* the same study would have if no alternative "
                      "were better than another (its results exchanged at random among the "
                      "alternatives within each condition), with the range chance alone "
                      "gives it.")
        footer.append("(chance): n* lies within (or above) the no-signal baseline's range — "
                      "the answer is no more consistent than if no alternative were better; "
                      "a verdict 'generalizes' then says that two studies agree, not that "
                      "they find a winner.")
    if "bound" in methods:
        footer.append("The distribution-free bound in the full frame is a worst case for any "
                      "data, not the verdict.")
    if where:
        footer.append(f"Full results ({plural(n_rows, 'row')}): {where}")
    return footer


def nstar_summary(frame, alpha: float = config.HEADLINE_ALPHA,
                  delta: float = config.HEADLINE_DELTA, *, method: str | None = None,
                  max_rows: int = 25, where: str | None = None, conclusions: Any = None,
                  unit: str = "condition") -> NstarSummary:
    """Summarise the answer of :func:`~genexpy_nb.analyze` in one table per research question.

    Parameters
    ----------
    frame : polars.DataFrame or pandas.DataFrame
        The frame of :func:`~genexpy_nb.analyze` (or of ``GeneralizabilityAnalysis.nstar``).
    alpha, delta : float
        The thresholds of the answer (alpha* and delta*; both must be in the frame).
    method : str, optional
        The estimate whose verdict is given; default: the resampled one when the frame
        has it, else the weighted, then the plain closed form. The distribution-free bound
        is a worst case for any data, never a verdict, and is refused here.
    max_rows : int, default 25
        Configurations listed per research question, the ones needing the most
        conditions first; the others are counted below the table.
    where : str, optional
        Where the full frame was written (said below the tables), if anywhere.
    conclusions : polars.DataFrame or ConclusionsSummary, optional
        The frame of :func:`~genexpy_nb.conclusions` for the same study (or its
        :func:`~genexpy_nb.conclusions_summary`): the summary then leads with the study's
        conclusions (the best, the top group, the pairs, the order) and puts the paper's
        n* under the question it answers, with a sentence on why the two can differ.
    unit : str, default "condition"
        What a condition is called in the sentences ("dataset", "task").

    Returns
    -------
    NstarSummary
        ``print`` it or display it in a notebook; ``.frame`` is ``frame``, ``.rows`` the
        selected rows with a ``verdict`` column, ``.conclusions`` the conclusions' summary
        (or None), ``.to_text()``, ``.to_markdown()``.
    """
    df = to_polars(frame, "frame")
    need = {"config_id", "kernel_label", "alpha", "delta", "method", "nstar", "N",
            "generalizable", "deficit", "reason"}
    missing = sorted(need - set(df.columns))
    if missing:
        raise GenexpyInputError(f"frame lacks the columns {missing}: pass the frame returned "
                                "by analyze().")
    methods = df["method"].unique().to_list()
    method = _summary_method(methods, method)
    sel = df.filter((pl.col("alpha") - alpha).abs() < 1e-12,
                    (pl.col("delta") - delta).abs() < 1e-12, pl.col("method") == method)
    if sel.height == 0:
        raise GenexpyInputError(
            f"no rows at alpha* = {alpha}, delta* = {delta} for the {method!r} estimate; the "
            f"frame has alpha* {sorted(df['alpha'].unique().to_list())}, delta* "
            f"{sorted(df['delta'].unique().to_list())}, estimates {sorted(methods)}.")
    design = design_columns(df)
    has_null = "nstar_null" in sel.columns and sel["nstar_null"].is_not_nan().any()
    verdicts = [verdict_text(g, d, r) for g, d, r in
                sel.select("generalizable", "deficit", "reason").iter_rows()]
    sel = sel.with_columns(pl.Series("verdict", verdicts, dtype=pl.String))
    # by the verdict (needs more, generalizes, unsure), then by n*: the configurations needing
    # the most first (deficit, whole conditions), equal ones by n* itself, largest first
    order = sel.sort([pl.col("generalizable").is_null(), pl.col("generalizable"), "deficit",
                      pl.col("nstar").fill_nan(None), "config_id"],
                     descending=[False, False, True, True, False], nulls_last=True)
    tables = [_question_table(label, order.filter(pl.col("kernel_label") == label), design,
                              has_null, max_rows)
              for label in dict.fromkeys(sel.sort("config_id")["kernel_label"].to_list())]
    what = {"resample": "the resampled estimate, with its interval",
            "approx": "the closed-form estimate",
            "approx_weighted": "the weighted closed-form estimate"}.get(method, method)
    heading = (f"n* at alpha* = {alpha:g}, delta* = {delta:g}, {what}: the number of "
               f"{unit}s for two independent studies to agree on each research question "
               f"(how consistent the per-{unit} rankings are, not whether the study's "
               f"conclusions hold); N: the {unit}s each configuration has.")
    footer = _summary_footer(has_null, methods, df.height, where)
    if "grid" in sel.columns and sel["grid"].drop_nulls().len():  # large studies
        notes = "; ".join(sorted(set(sel["grid"].drop_nulls().to_list())))
        footer.insert(0, f"n* of the configurations with more than "
                         f"{int(config.ROUTES.large_study_min_N):,} {unit}s is read from a "
                         f"thinned grid of sample sizes ({notes}; user guide, n*, "
                         "\"Large studies\").")
    lead, question = None, ""
    if conclusions is not None:
        from .conclusions import WHY_CHANCE, ConclusionsSummary, conclusions_summary

        lead = (conclusions if isinstance(conclusions, ConclusionsSummary)
                else conclusions_summary(conclusions, unit=unit, alpha=alpha))
        question = f"How consistent are the per-{unit} rankings? (the paper's n*, Sec. 4)"
        footer.insert(len(footer) - (1 if where else 0), WHY_CHANCE.format(
            unit=unit, units=f"{unit}s"))
    return NstarSummary(frame=frame, rows=sel, alpha=alpha, delta=delta, method=method,
                        tables=tables, heading=heading, footer=footer, conclusions=lead,
                        question=question)


# ---- seeds ------------------------------------------------------------------------------


@_renders_tables
@dataclass
class SeedsSummary:
    """The per-candidate numbers of a seed-variability report, as :func:`seeds_summary` builds it.

    One table of the numbers of :func:`~genexpy_nb.variability.candidate_report`.

    Parameters
    ----------
    frame : polars.DataFrame or pandas.DataFrame
        The full report that was summarised, unchanged.
    tables : list of Table
        The table (one).
    heading : str
        The sentence above it (what alpha-hat is).
    footer : list of str
        The lines below it (churn and ECE, where the full report was written).
    """

    frame: pl.DataFrame
    tables: list[Table]
    heading: str
    footer: list[str]


def seeds_summary(report, *, id_column: str | None = None, max_rows: int = 25,
                  where: str | None = None) -> SeedsSummary:
    """Summarise a candidate report in one table, the most representative candidate first.

    One row per candidate model, the smallest alpha-hat first.

    Parameters
    ----------
    report : polars.DataFrame or pandas.DataFrame
        The frame of :func:`genexpy_nb.variability.candidate_report`: columns
        ``alpha_hat``, ``accuracy`` and ``ece`` at least (``alpha_hat_sd`` and
        ``churn_ensemble_frac`` shown when present).
    id_column : str, optional
        The column naming each candidate (default ``model``, else ``candidate``).
    max_rows : int, default 25
        Rows shown; the others are counted in a note.
    where : str, optional
        Where the full table was written, named under the table.

    Returns
    -------
    SeedsSummary
        Text (``to_text()``), Markdown and HTML displays of one table: alpha-hat with its
        bootstrap standard deviation, accuracy, churn against the ensemble and ECE.
    """
    df = to_polars(report, "report")
    need = {"alpha_hat", "accuracy", "ece"}
    missing = sorted(need - set(df.columns))
    if missing:
        raise GenexpyInputError(f"report lacks the columns {missing}: pass the frame of "
                                "candidate_report().")
    ident = id_column or ("model" if "model" in df.columns else "candidate")
    order = df.with_row_index("_i").sort(["alpha_hat", "_i"])
    headers = ["model", "alpha-hat", "sd", "accuracy", "churn", "ECE"]
    rows = []
    for r in order.head(max_rows).iter_rows(named=True):
        churn = r.get("churn_ensemble_frac")
        rows.append([str(r.get(ident, r["_i"])), _num(r["alpha_hat"], 3),
                     _num(r.get("alpha_hat_sd"), 3), _num(r["accuracy"], 3),
                     _num(churn, 3) if churn is not None else "-", _num(r["ece"], 3)])
    notes = [f"({df.height - max_rows} more in the full table.)"] if df.height > max_rows \
        else []
    table = Table(f"{plural(df.height, 'candidate')}, most representative first", headers,
                  rows, notes, frozenset({1, 2, 3, 4, 5}))
    heading = ("alpha-hat: the smallest share of a candidate's test points to trim for its "
               "logit gaps to pass the KS test against the reference pool (0 = "
               "representative; smaller = more representative).")
    footer = ["churn: share of test points whose prediction differs from the deep "
              "ensemble's; ECE: expected calibration error."]
    if where:
        footer.append(f"Full results ({plural(df.height, 'row')}): {where}")
    return SeedsSummary(frame=report, tables=[table], heading=heading, footer=footer)
