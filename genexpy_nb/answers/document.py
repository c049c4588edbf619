"""The one document model of every answer, rendered in four formats.

The formats are Markdown, HTML, plain text (the terminal) and LaTeX, with every string from
data escaped for its format; every number in it is written by :mod:`.numbers`. A report is
a sequence of :class:`~genexpy_nb.significance.ReportSection` objects;
a section holds blocks (``Paragraph``, ``Bullets``, ``Table``, ``Quote``), and a block
holds *runs*: a plain ``str`` is text this package wrote, ``Data`` wraps a string that came
from the user's table (an alternative's or a column's name), ``Strong`` emphasises a run.
Each renderer escapes for where the text lands (``genexpy_nb._escape``): Markdown
(``markdown_text`` for data), HTML (everything through ``html_text``), terminal (control
characters removed).

Other analyses add their own sections to a comparison's report the same way
(:meth:`~genexpy_nb.significance.Comparison.with_section`): the Bayesian signed-rank test or
robust aggregates over the same blocks, for instance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._escape import html_text, latex_text, markdown_text, terminal_text

__all__ = ["Data", "Strong", "Text", "Paragraph", "Bullets", "Table", "Quote", "Heading",
           "Raw", "ReportSection", "render_markdown", "render_html", "render_text", "render_latex",
           "render_blocks"]


@dataclass(frozen=True)
class Data:
    """A string from the user's data (escaped in every format)."""

    text: str


@dataclass(frozen=True)
class Strong:
    """Emphasised text (bold in Markdown and HTML)."""

    run: Any


class Text(str):
    """A sentence that names data: a ``str`` (its plain text) that keeps its runs.

    Notes and messages that embed names from the user's table are built as ``Text``: read
    as a string it is the plain sentence (what a notebook shows), while every renderer
    escapes its ``Data`` runs for its format. A plain ``str`` among the notes, which may
    embed a name from the data, is escaped as a whole.

    Parameters
    ----------
    *runs : str, Data, Strong or sequence of them
        The sentence's pieces: our text, and the names from the data.

    Returns
    -------
    Text
        The sentence.

    Examples
    --------
    >>> t = Text("best: ", Data("<b>x</b>"), ".")
    >>> str(t), render_markdown("r", [ReportSection("s", (Paragraph(t),))]).splitlines()[-1]
    ('best: <b>x</b>.', 'best: &lt;b&gt;x&lt;/b&gt;.')
    """

    runs: tuple

    def __new__(cls, *runs: Any) -> Text:
        """Join the runs' plain text; keep the runs."""
        self = super().__new__(cls, _raw(runs))
        self.runs = runs
        return self

    def __reduce__(self):
        """Pickle as the runs."""
        return (Text, self.runs)


def _raw(run: Any) -> str:
    """Return the plain text of a run, data as it is (a ``str``'s value)."""
    if isinstance(run, Text):
        return str.__str__(run)
    if isinstance(run, Data):
        return str(run.text)
    if isinstance(run, Strong):
        return _raw(run.run)
    if isinstance(run, str):
        return run
    return "".join(_raw(r) for r in run)


def as_data(run: Any) -> Any:
    """Return ``run`` with a plain ``str`` taken as data (a ``Text`` keeps its runs).

    For sentences whose origin is unknown (warnings' messages, notes): a plain string may
    embed a name from the data, so it is escaped as a whole.

    Parameters
    ----------
    run : str, Text or run
        A sentence.

    Returns
    -------
    Data or run
    """
    if isinstance(run, Text):
        return run
    return Data(run) if isinstance(run, str) else run


#: a run: our text (str), a Data string, Strong, Text, or a sequence of runs
Run = str | Data | Strong | Sequence


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of runs."""

    runs: Any


@dataclass(frozen=True)
class Quote:
    """A quoted paragraph (the text a paper can quote)."""

    runs: Any


@dataclass(frozen=True)
class Heading:
    """A heading of a nested part (``<h{level}>``, ``#`` x level); the text is a run."""

    level: int
    runs: Any


@dataclass(frozen=True)
class Raw:
    """A part already written for HTML and for Markdown (a figure, a nested document)."""

    html: str
    markdown: str


@dataclass(frozen=True)
class Bullets:
    """A bulleted list; each item is a run."""

    items: tuple


@dataclass(frozen=True)
class Table:
    """A table; header and cells are runs; ``align`` is "l" or "r" per column.

    The one table of every answer (the comparison's report, the study page, the summaries
    of n* and of the seeds): a ``title`` is written above it (bold) and ``notes`` below.

    Parameters
    ----------
    header : tuple of runs
        The column names.
    rows : tuple of tuples of runs
        The cells, as many per row as ``header``.
    align : str, default ""
        "l" or "r" per column (numbers right); "" aligns every column left.
    title : run, optional
        The line above the table.
    notes : tuple of runs, default ()
        The lines below it.

    Examples
    --------
    >>> print(Table(("model", "n*"), ((Data("a"), "6"),), "lr", title="answers").to_text())
    answers
    model  n*
    -----  --
    a       6
    """

    header: tuple
    rows: tuple[tuple, ...]
    align: str = ""
    title: Any = None
    notes: tuple = ()

    def to_text(self) -> str:
        """Render the table for a terminal: aligned columns under a rule, data made safe."""
        return _text_block(self)

    def to_markdown(self) -> str:
        """Render the table as Markdown (a pipe table), every cell escaped."""
        return _md_block(self)

    def to_html(self) -> str:
        """Render the table as HTML, every cell escaped."""
        return _html_block(self)

    def to_latex(self) -> str:
        """Render the table as LaTeX (booktabs), data escaped."""
        return _latex_block(self)


@dataclass(frozen=True)
class ReportSection:
    """A titled part of a report: blocks to render, and tables that ``save`` writes.

    Parameters
    ----------
    title : str
        The section's heading (our text).
    blocks : tuple
        ``Paragraph``, ``Bullets``, ``Table`` or ``Quote`` objects.
    tables : mapping of str to polars.DataFrame
        Files written beside the report by ``Comparison.save`` (name without suffix).
    latex : str, optional
        A LaTeX fragment written after the comparison's table in ``.to_latex()``.
    """

    title: str
    blocks: tuple = ()
    tables: Mapping[str, Any] = field(default_factory=dict)
    latex: str | None = None


# ---- runs ------------------------------------------------------------------------------

def plain(text: Any) -> str:
    """Return text for a terminal: control characters (escape sequences) removed, one line."""
    return terminal_text(text)


#: per format: how a string from the data, a string of ours and emphasis are written
_RUN_FORMATS = {
    "markdown": (markdown_text, str, "**{}**"),
    "html": (html_text, html_text, "<strong>{}</strong>"),
    "text": (plain, str, "{}"),
    "latex": (latex_text, str, r"\textbf{{{}}}"),  # our text is LaTeX already
    "tex": (latex_text, latex_text, r"\textbf{{{}}}"),  # every string escaped (blocks)
}


def _run(run: Any, format: str) -> str:
    """Write a run for ``format`` (a key of :data:`_RUN_FORMATS`), data escaped."""
    data, ours, strong = _RUN_FORMATS[format]
    if isinstance(run, Text):
        return _run(run.runs, format)
    if isinstance(run, Data):
        return data(run.text)
    if isinstance(run, Strong):
        return strong.format(_run(run.run, format))
    if isinstance(run, str):
        return ours(run)
    return "".join(_run(r, format) for r in run)


def _md(run: Any) -> str:
    return _run(run, "markdown")


def _html(run: Any) -> str:
    return _run(run, "html")


def _text(run: Any) -> str:
    return _run(run, "text")


def _tex(run: Any) -> str:
    """Return a run as LaTeX with every string escaped, ours included (blocks, sections)."""
    return _run(run, "tex")


def plain_text(run: Any) -> str:
    """Return a run as plain text, data unescaped (the writer escapes it for its format).

    Parameters
    ----------
    run : str, Data, Strong or sequence of them
        A piece of report text.

    Returns
    -------
    str
    """
    return _text(run)


def latex(run: Any) -> str:
    """Return a run as LaTeX text: data escaped, our text as written.

    Data is escaped with ``genexpy_nb._escape.latex_text``; the package's own text is
    LaTeX already where it has to be.
    """
    return _run(run, "latex")


# ---- blocks ----------------------------------------------------------------------------


def _md_block(b: Any) -> str:
    if isinstance(b, Paragraph):
        return _md(b.runs)
    if isinstance(b, Heading):
        return "#" * b.level + " " + _md(b.runs)
    if isinstance(b, Raw):
        return b.markdown
    if isinstance(b, Quote):
        return "> " + _md(b.runs)
    if isinstance(b, Bullets):
        return "\n".join(f"- {_md(it)}" for it in b.items)
    if isinstance(b, Table):
        align = b.align or "l" * len(b.header)
        rule = ["---:" if a == "r" else "---" for a in align]
        lines = ["| " + " | ".join(_md(h) for h in b.header) + " |", "| " + " | ".join(rule) + " |"]
        lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in b.rows]
        head = [f"**{_md(b.title)}**", ""] if b.title is not None else []
        notes = ["", "  \n".join(_md(n) for n in b.notes)] if b.notes else []
        return "\n".join(head + lines + notes)
    raise TypeError(f"not a report block: {b!r}")


def _html_block(b: Any) -> str:
    if isinstance(b, Paragraph):
        return f"<p>{_html(b.runs)}</p>"
    if isinstance(b, Heading):
        return f"<h{b.level}>{_html(b.runs)}</h{b.level}>"
    if isinstance(b, Raw):
        return b.html
    if isinstance(b, Quote):
        return f"<blockquote><p>{_html(b.runs)}</p></blockquote>"
    if isinstance(b, Bullets):
        return "<ul>" + "".join(f"<li>{_html(it)}</li>" for it in b.items) + "</ul>"
    if isinstance(b, Table):
        align = b.align or "l" * len(b.header)
        style = ['style="text-align:right"' if a == "r" else 'style="text-align:left"'
                 for a in align]
        head = "".join(f"<th {s}>{_html(h)}</th>" for h, s in zip(b.header, style))
        body = "".join("<tr>" + "".join(f"<td {s}>{_html(c)}</td>" for c, s in zip(row, style))
                       + "</tr>" for row in b.rows)
        table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        if b.title is None and not b.notes:
            return table
        title = f"<b>{_html(b.title)}</b>" if b.title is not None else ""
        notes = "".join(f"<div class=\"note\">{_html(n)}</div>" for n in b.notes)
        return f"<div class=\"gx-table\">{title}{table}{notes}</div>"
    raise TypeError(f"not a report block: {b!r}")


def _text_block(b: Any) -> str:
    if isinstance(b, (Paragraph, Quote, Heading)):
        return _text(b.runs)
    if isinstance(b, Bullets):
        return "\n".join(f"- {_text(it)}" for it in b.items)
    if isinstance(b, Table):
        cells = [[_text(h) for h in b.header]] + [[_text(c) for c in row] for row in b.rows]
        widths = [max(len(r[j]) for r in cells) for j in range(len(b.header))]
        align = b.align or "l" * len(b.header)
        lines = ["  ".join(c.rjust(w) if a == "r" else c.ljust(w)
                           for c, w, a in zip(r, widths, align)).rstrip() for r in cells]
        lines.insert(1, "  ".join("-" * w for w in widths))
        head = [_text(b.title)] if b.title is not None else []
        return "\n".join(head + lines + [_text(n) for n in b.notes])
    raise TypeError(f"not a report block: {b!r}")


def _latex_block(b: Any) -> str:
    if isinstance(b, Paragraph):
        return _tex(b.runs)
    if isinstance(b, Heading):
        return r"\paragraph{" + _tex(b.runs) + "}"
    if isinstance(b, Quote):
        return "\\begin{quote}\n" + _tex(b.runs) + "\n\\end{quote}"
    if isinstance(b, Bullets):
        return ("\\begin{itemize}\n" + "\n".join(f"  \\item {_tex(it)}" for it in b.items)
                + "\n\\end{itemize}")
    if isinstance(b, Table):
        align = b.align or "l" * len(b.header)
        lines = [f"\\begin{{tabular}}{{{align}}}", "  \\toprule",
                 "  " + " & ".join(_tex(h) for h in b.header) + r" \\", "  \\midrule"]
        lines += ["  " + " & ".join(_tex(c) for c in row) + r" \\" for row in b.rows]
        lines += ["  \\bottomrule", "\\end{tabular}"]
        head = [r"\textbf{" + _tex(b.title) + "}\n"] if b.title is not None else []
        notes = ["", *(_tex(n) + r"\\" for n in b.notes)] if b.notes else []
        return "\n".join(head + lines + notes)
    raise TypeError(f"not a report block: {b!r}")


def render_markdown(title: Any, sections: Sequence[ReportSection]) -> str:
    """Render the report as Markdown (CommonMark with pipe tables)."""
    out = [f"# {_md(title)}"]
    for s in sections:
        out.append(f"## {s.title}")
        out.extend(_md_block(b) for b in s.blocks)
    return "\n\n".join(out) + "\n"


def render_html(title: Any, sections: Sequence[ReportSection], *, level: int = 3) -> str:
    """Render the report as an HTML fragment (headings from ``<h{level}>``)."""
    out = [f"<h{level}>{_html(title)}</h{level}>"]
    for s in sections:
        out.append(f"<h{level + 1}>{html_text(s.title)}</h{level + 1}>")
        out.extend(_html_block(b) for b in s.blocks)
    return "<div class=\"genexpy-report\">" + "\n".join(out) + "</div>"


def render_text(sections: Sequence[ReportSection]) -> str:
    """Render the report as plain text for a terminal."""
    out = []
    for s in sections:
        out.append(s.title)
        out.extend(_text_block(b) for b in s.blocks)
    return "\n".join(out)


def render_latex(sections: Sequence[ReportSection]) -> str:
    """Render the report as LaTeX (a paragraph heading per section; tables need booktabs).

    Every string is escaped with ``genexpy_nb._escape.latex_text``, the package's own
    text too ("90 % interval" keeps its percent sign).
    """
    out = []
    for s in sections:
        out.append(r"\paragraph{" + latex_text(s.title) + "}")
        out.extend(_latex_block(b) for b in s.blocks)
    return "\n\n".join(out) + "\n"


def render_blocks(blocks: Sequence[Any], format: str) -> str:
    """Render blocks without a heading, data escaped (for pages that nest them).

    Parameters
    ----------
    blocks : sequence of Paragraph, Bullets, Table or Quote
        A section's blocks.
    format : {"html", "markdown", "text", "latex"}
        Where the text lands.

    Returns
    -------
    str
        The blocks, separated by blank lines (Markdown, text) or one after another (HTML).

    Examples
    --------
    >>> render_blocks([Paragraph(["best: ", Data("<b>")])], "html")
    '<p>best: &lt;b&gt;</p>'
    """
    render = {"html": _html_block, "markdown": _md_block, "text": _text_block,
              "latex": _latex_block}[format]
    return ("" if format == "html" else "\n\n").join(render(b) for b in blocks)
