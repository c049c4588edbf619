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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from .. import config
from .._escape import terminal_text as _terminal_text
from .._validation import GenexpyInputError, to_polars
from .._words import plural
from ..generalizability import NSTAR_SCHEMA, NULL_COLUMNS
from ..generalizability.planner import verdict_word
from . import numbers
from .document import Data, Paragraph, Strong, Table, render_blocks

__all__ = ["NstarSummary", "SeedsSummary", "Table", "nstar_summary", "seeds_summary",
           "question_words"]

#: estimates of n* that give a verdict, in order of preference (the bound never does)
_VERDICT_METHODS = ("resample", "approx_weighted", "approx")
#: columns of the analysis frame that are not design factors
_ANALYSIS_COLUMNS = frozenset({*NSTAR_SCHEMA, *NULL_COLUMNS, "nstar_ceil", "generalizable",
                               "deficit"})


#: a string from data made safe for a terminal, on one line (the one door: ``_escape``)
terminal_text = _terminal_text


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


# ---- tables on the one document model ---------------------------------------------------


def _table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]],
           notes: Sequence[str] = (), right: frozenset[int] = frozenset()) -> Table:
    """Build a :class:`~genexpy_nb.answers.document.Table` of strings (escaped as data).

    Every cell, the title and the notes are escaped for the format they land in.
    """
    return Table(tuple(Data(h) for h in headers),
                 tuple(tuple(Data(c) for c in r) for r in rows),
                 "".join("r" if i in right else "l" for i in range(len(headers))),
                 title=Data(title), notes=tuple(Data(n) for n in notes))


class _Tables:
    """Shared rendering of a list of tables plus a heading and closing lines.

    Copied into each summary class by :func:`_renders_tables` (not a base class: the API
    reference would name a private base). Everything is a block of the one document model
    (:mod:`genexpy_nb.answers.document`), rendered by its renderers.
    """

    heading: str
    tables: list[Table]
    footer: list[str]

    def blocks(self) -> tuple:
        """Return the summary as blocks of the document model (the lead's excepted).

        Returns
        -------
        tuple
            The heading, each table (its title and the question it answers above it), the
            closing lines, every string escaped as data.
        """
        body: list = []
        for i, t in enumerate(self.tables):
            title, question = (getattr(self, "titles", None) or [(None, None)] * (i + 1))[i]
            if title is not None:
                body.append(Paragraph(Strong(title)))
            if question is not None:
                body.append(Paragraph(question))
            body.append(t)
        return (Paragraph(Data(self.heading)), *body, *(Paragraph(Data(f)) for f in self.footer))

    def _lead(self, format: str) -> list[str]:
        lead = getattr(self, "conclusions", None)
        if lead is None:
            return []
        first = lead.to_text() if format == "text" else render_blocks(lead.blocks(), format)
        return [first, render_blocks([Paragraph(Strong(Data(self.question)))], format)]

    def to_text(self) -> str:
        """Render the summary as plain text for a terminal (what ``print`` shows).

        Returns
        -------
        str
            The heading, each table and the closing lines, separated by blank lines.
        """
        return "\n\n".join([*self._lead("text"), render_blocks(self.blocks(), "text")])

    def to_markdown(self) -> str:
        """Render the summary as Markdown (what a notebook shows), every cell escaped.

        Returns
        -------
        str
            The heading, each table and the closing lines, separated by blank lines.
        """
        return "\n\n".join([*self._lead("markdown"), render_blocks(self.blocks(), "markdown")])

    def to_latex(self) -> str:
        """Render the summary as LaTeX (booktabs tables), every string escaped.

        Returns
        -------
        str
        """
        return "\n\n".join([*self._lead("latex"), render_blocks(self.blocks(), "latex")])

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        return "<div>" + "".join([*self._lead("html"), render_blocks(self.blocks(), "html")]) \
            + "</div>"

    def __str__(self) -> str:
        return self.to_text()


def _renders_tables(cls: type) -> type:
    """Copy the rendering of :class:`_Tables` into ``cls``.

    ``cls`` has ``heading``, ``tables`` and ``footer``.
    """
    for name in ("blocks", "_lead", "to_text", "to_markdown", "to_latex", "_repr_markdown_",
                 "_repr_html_", "__str__"):
        setattr(cls, name, _Tables.__dict__[name])
    return cls


# ---- n* ---------------------------------------------------------------------------------


def _interval(lo: float | None, hi: float | None) -> str:
    """Write the interval of n* as every output does (``4-14``, ends rounded up)."""
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return ""
    return numbers.count_interval(lo, hi)


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
    titles : list of (run, run or None)
        Per table, its title ("research question: Jaccard(k=1)") and the research question
        it answers in one line with what delta* allows, shown above it.
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
    titles: list = field(default_factory=list)

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
    cells += [numbers.count(r["nstar"]), _interval(r.get("nstar_lo"), r.get("nstar_hi")),
              str(r["N"])]
    if has_null:
        base = numbers.count(r.get("nstar_null"))
        band = _interval(r.get("nstar_null_lo"), r.get("nstar_null_hi"))
        # the frame's beyond_chance: false = n* within or above the band
        mark = " (chance)" if r.get("beyond_chance") is False else ""
        cells += [f"{base} ({band}){mark}" if band else f"{base}{mark}"]
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
                         f"(marked (chance), see below){RECONCILE if n_yes else '.'}")
    if part.height > max_rows:
        notes.append(f"({part.height - max_rows} more in the full frame.)")
    return notes


#: what delta* lets two studies' answers differ by, per research question (SPEC A3)
_DELTA_WORDS = {
    "Jaccard": "their sets of best alternatives overlap (Jaccard similarity) at least "
               "1 - delta* = {keep}",
    "Mallows": "at most delta* = {d} of the pairs of alternatives are in the other order",
    "Borda": "the share of alternatives a* beats differs by at most delta* = {d}",
    "RBF": "the alternatives' scores differ by at most delta* = {d} (a mean squared "
           "difference, in units of the scores' spread)",
}


def question_words(label: str, delta: float) -> str:
    """Return the research question of a kernel's label, and what delta* allows in it.

    Parameters
    ----------
    label : str
        The kernel's label (``"Jaccard(k=1)"``, ``"Mallows"``).
    delta : float
        delta*.

    Returns
    -------
    str
        E.g. "Are the best alternatives consistently the same? Two studies answer it alike
        when their sets of best alternatives overlap ... at least 1 - delta* = 95%."
    """
    from ..generalizability import kernels

    name = label.split("(")[0]
    cls = {c.__name__: c for c in (kernels.Borda, kernels.Jaccard, kernels.Mallows,
                                   kernels.RBF)}.get(name)
    if cls is None:
        return ""
    out = cls.question
    how = _DELTA_WORDS.get(name)
    if how:
        out += " Two studies answer it alike when " + how.format(
            d=numbers.share(delta), keep=numbers.share(1 - delta)) + "."
    return out


#: said where "k generalize" and "k no more consistent than chance" meet (issue 48): the
#: two are not a contradiction, and the reader is told so on the same line
RECONCILE = (": both hold at once — two studies of this size would rank the alternatives "
             "alike as often as alpha* asks (generalizes), and so would rankings drawn at "
             "random (chance); generalizing here says that studies agree, not that a winner "
             "holds, which is what the conclusions answer.")


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
    delta = float(part["delta"][0]) if "delta" in part.columns and part.height else math.nan
    t = _table(f"research question: {label}", headers, rows,
               _question_notes(part, has_null, max_rows), frozenset(right))
    question = question_words(label, delta)
    # the question under the research question's name, above its table
    return (Table(t.header, t.rows, t.align, notes=t.notes), t.title,
            Data(question) if question else None)


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
                  unit: str = "condition", held_constant: Any = None) -> NstarSummary:
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
    held_constant : dict, optional
        The levels the study held constant (``Study.held_constant``), said in the heading
        (and in the conclusions' when given as a frame): every answer is about those levels
        only.

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
    made = [_question_table(label, order.filter(pl.col("kernel_label") == label), design,
                            has_null, max_rows)
            for label in dict.fromkeys(sel.sort("config_id")["kernel_label"].to_list())]
    tables = [t for t, _, _ in made]
    titles = [(title, question) for _, title, question in made]
    what = {"resample": "the resampled estimate, with its interval",
            "approx": "the closed-form estimate",
            "approx_weighted": "the weighted closed-form estimate"}.get(method, method)
    heading = (f"n* at alpha* = {numbers.setting(alpha)}, delta* = "
               f"{numbers.setting(delta)}, {what}: the number of "
               f"{unit}s for two independent studies to agree on each research question "
               f"(how consistent the per-{unit} rankings are, not whether the study's "
               f"conclusions hold); N: the {unit}s each configuration has.")
    if held_constant:
        from .conclusions import held_words

        heading += (f" With {held_words(held_constant)} held constant: every answer is about "
                    "those levels only.")
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
                else conclusions_summary(conclusions, unit=unit, alpha=alpha,
                                         held_constant=held_constant))
        question = f"How consistent are the per-{unit} rankings? (the paper's n*, Sec. 4)"
        footer.insert(len(footer) - (1 if where else 0), WHY_CHANCE.format(
            unit=unit, units=f"{unit}s"))
    return NstarSummary(frame=frame, rows=sel, alpha=alpha, delta=delta, method=method,
                        tables=tables, heading=heading, footer=footer, conclusions=lead,
                        question=question, titles=titles)


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
        rows.append([str(r.get(ident, r["_i"])), numbers.prob(r["alpha_hat"]),
                     numbers.prob(r.get("alpha_hat_sd")), numbers.prob(r["accuracy"]),
                     numbers.prob(churn), numbers.prob(r["ece"])])
    notes = [f"({df.height - max_rows} more in the full table.)"] if df.height > max_rows \
        else []
    table = _table(f"{plural(df.height, 'candidate')}, most representative first", headers,
                   rows, notes, frozenset({1, 2, 3, 4, 5}))
    heading = ("alpha-hat: the smallest share of a candidate's test points to trim for its "
               "logit gaps to pass the KS test against the reference pool (0 = "
               "representative; smaller = more representative).")
    footer = ["churn: share of test points whose prediction differs from the deep "
              "ensemble's; ECE: expected calibration error."]
    if where:
        footer.append(f"Full results ({plural(df.height, 'row')}): {where}")
    return SeedsSummary(frame=report, tables=[table], heading=heading, footer=footer)
