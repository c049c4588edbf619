r"""One escaping helper per output format, for every string that comes from data.

Names of alternatives, configurations, columns and files come from results tables that
users did not always write themselves. Wherever such a string lands in a file that a
browser, a spreadsheet, a Markdown renderer or LaTeX reads, it goes through the helper of
that format first (OWASP's output encoding; Jinja's autoescape):

- :func:`html_text` - text and attribute values in HTML (``& < > " '``);
- :func:`json_text` - JSON files: the invisible controls as ``\uXXXX`` escapes (the same
  data, shown visibly);
- :func:`script_json` - JSON embedded in an HTML ``<script>`` element (``</script>``,
  ``<!--`` and the JavaScript line separators cannot end or break the element);
- :func:`xml_text` - text and attribute values in SVG / XML (the control characters XML 1.0
  forbids would make the file unreadable);
- :func:`markdown_text` - text in Markdown, table cells included (punctuation that
  Markdown interprets, pipes, raw HTML and line breaks);
- :func:`latex_text` - text in LaTeX (``\ { } $ & # ^ _ ~ %`` and ``< >``);
- :func:`csv_cell` / :func:`csv_safe` - text cells of CSV/TSV files: a cell that a
  spreadsheet would run as a formula (starting with ``= + - @``, a tab or a carriage
  return) gets a leading apostrophe;
- :func:`drawable` - every string of a chart specification without the characters the
  chart renderers cannot draw (control characters abort vl-convert's SVG renderer, line
  separators break Vega-Lite's generated expressions) and without the invisible controls;
- :func:`terminal_text` - text printed on a terminal, on one line, without control
  characters (an escape sequence from the data would clear the screen or set the window's
  title) and without the Unicode controls that reorder what is displayed; on a terminal
  (or a pipe) whose encoding is not Unicode, :data:`ASCII_ERRORS` writes the characters
  it cannot encode in ASCII (``—`` as ``--``, ``α`` as ``alpha``; a name's other
  characters as ``\u`` escapes, so that two names stay two).

Every helper, for every format, also drops the control characters (NUL, ESC and the
terminal escape sequences it starts, the C1 range, the bidirectional embeddings,
overrides, isolates and marks): no format displays them, and a name holding one must not
look like another name, reorder its line or reach a terminal that prints the file.
:data:`INVISIBLE` is that set, for writers that test for it.

Examples
--------
>>> html_text('</script><b>"x"</b>')
'&lt;/script&gt;&lt;b&gt;&quot;x&quot;&lt;/b&gt;'
>>> latex_text("R2_score & 50%")
'R2\\_score \\& 50\\%'
>>> markdown_text("a|b*")
'a\\|b\\*'
>>> csv_cell("=HYPERLINK()")
"'=HYPERLINK()"
"""

from __future__ import annotations

import codecs
import html
import json
import re
import unicodedata
from typing import Any

__all__ = [
    "ASCII_ERRORS",
    "ascii_text",
    "csv_cell",
    "csv_safe",
    "display_clashes",
    "drawable",
    "html_text",
    "json_text",
    "latex_text",
    "markdown_text",
    "script_json",
    "terminal_text",
    "xml_text",
]

#: control characters no text output shows: C0 except tab, line feed and carriage return,
#: DEL, the C1 range, and the bidirectional embeddings, overrides, isolates and marks (they
#: reorder what a reader sees, "Trojan Source"); line breaks are each helper's business
INVISIBLE = ("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
             "\u2066-\u2069]")
_INVISIBLE = re.compile(INVISIBLE)
#: the same set in the syntax of polars' (Rust) regular expressions
_INVISIBLE_RUST = (r"[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x{9F}\x{61C}\x{200E}\x{200F}"
                   r"\x{202A}-\x{202E}\x{2066}-\x{2069}]")


def _visible(value: Any) -> str:
    """``str(value)`` without the control characters that no text format shows."""
    return _INVISIBLE.sub("", str(value))


def terminal_text(value: Any) -> str:
    r"""``str(value)`` as one line for a terminal: no escape sequence, no control character.

    Line breaks (``\n``, ``\r``, U+2028, U+2029 and the others Python splits lines at)
    become spaces; tabs stay; every other control character (ESC starts the sequences
    that clear a screen or set a window's title) and the bidirectional overrides are
    dropped.

    Examples
    --------
    >>> terminal_text("a\x1b[2Jb\x1b]0;title\x07\nc")
    'a[2Jb]0;title c'
    """
    return _visible(" ".join(str(value).splitlines()))


#: how the package's own characters are written where the output's encoding is ASCII
_ASCII = {"\u2014": "--", "\u2013": "-", "\u2212": "-", "\u2500": "-", "\u2550": "=",
          "\u00d7": "x", "\u2265": ">=", "\u2264": "<=", "\u00b1": "+/-", "\u2213": "-/+",
          "\u2248": "~", "\u2192": "->", "\u2190": "<-", "\u2026": "...", "\u00b7": ".",
          "\u2022": "*", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
          "\u03b1": "alpha", "\u03b4": "delta", "\u03c7": "chi", "\u03c4": "tau",
          "\u00b2": "^2", "\u221e": "inf", "\u00a7": "Sec.", "\u00a0": " ", "\u2009": " ",
          "\u202f": " ", "\u2502": "|", "\u2506": "|", "\u2260": "!=", "\u2713": "ok"}


def ascii_text(value: Any) -> str:
    r"""``str(value)`` in ASCII: the package's symbols spelled out, other characters escaped.

    ``—`` becomes ``--``, ``α`` ``alpha``, ``≥`` ``>=``; a letter with an accent loses it
    (``é`` -> ``e``); any other character becomes its ``\uXXXX`` escape, so that two
    different names stay two different texts.

    Examples
    --------
    >>> ascii_text("n* ≥ 3 — α = 0.95, café 日")
    'n* >= 3 -- alpha = 0.95, cafe \\u65e5'
    """
    out = []
    for c in str(value):
        if c < "\x80":
            out.append(c)
        elif c in _ASCII:
            out.append(_ASCII[c])
        else:
            base = unicodedata.normalize("NFKD", c).encode("ascii", "ignore").decode()
            out.append(base or c.encode("ascii", "backslashreplace").decode())
    return "".join(out)


def _ascii_errors(err: UnicodeError) -> tuple[str, int]:
    if not isinstance(err, UnicodeEncodeError):
        raise err
    return ascii_text(err.object[err.start:err.end]), err.end


#: the ``errors`` of a text stream that cannot encode Unicode (``PYTHONIOENCODING=ascii``,
#: a latin-1 terminal): each character it cannot write goes through :func:`ascii_text`
ASCII_ERRORS = "genexpy-nb-ascii"
codecs.register_error(ASCII_ERRORS, _ascii_errors)


def display_clashes(names: Any) -> list[tuple[str, str]]:
    r"""Pairs of distinct names that every output would show alike.

    The escaping helpers drop control characters and put line breaks and runs of white
    space on one line, so ``"a\x00"`` and ``"a"``, or ``"a\u2028b"`` and ``"a b"``, would
    be drawn with the same label; a table of results that names two alternatives so must
    be refused (or renamed) before anything is drawn.

    Parameters
    ----------
    names : iterable of str
        The names, distinct as strings.

    Returns
    -------
    list of (str, str)
        Each name that looks like an earlier one, with that earlier one (empty: none).

    Examples
    --------
    >>> display_clashes(["a", "b", "a\x1b", "b\u2028c", "b c"])
    [('a', 'a\x1b'), ('b\u2028c', 'b c')]
    """
    seen: dict[str, str] = {}
    out = []
    for name in names:
        key = " ".join(terminal_text(name).split())
        if key in seen and seen[key] != name:
            out.append((seen[key], name))
        else:
            seen.setdefault(key, name)
    return out


def html_text(value: Any) -> str:
    """``value`` as text safe in HTML element content and in quoted attribute values.

    The invisible controls are dropped and line breaks become spaces (HTML shows them so
    anyway, but a line separator would reach a terminal that prints the file).
    """
    return html.escape(" ".join(_visible(value).splitlines()), quote=True)


_INVISIBLE_JSON = re.compile(INVISIBLE[:-1] + "\u2028\u2029]")


def json_text(text: str) -> str:
    r"""Return a JSON document with the invisible controls written as ``\uXXXX`` escapes.

    The parsed data are unchanged (the escapes decode to the same characters, which only
    occur inside JSON strings), but no escape sequence, bidirectional override or line
    separator reaches whoever prints or displays the file raw.

    Parameters
    ----------
    text : str
        A JSON document.

    Returns
    -------
    str

    Examples
    --------
    >>> json_text('{"name": "a\u202eb"}')
    '{"name": "a\\u202eb"}'
    """
    return _INVISIBLE_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


#: characters that must not appear raw in JSON inside <script>: '<' starts '</script>' and
#: '<!--'; '>' and '&' for symmetry with HTML parsers; U+2028/U+2029 end a JavaScript line
_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                   "\u2028": "\\u2028", "\u2029": "\\u2029"}
_SCRIPT_RE = re.compile("[<>&\u2028\u2029]")


def script_json(obj: Any, **dumps_kwargs: Any) -> str:
    r"""``json.dumps(obj)`` that is safe inside an HTML ``<script>`` element.

    The characters ``< > &`` and U+2028/U+2029 only occur inside JSON strings, where the
    ``\uXXXX`` escapes written instead decode to the same characters: the parsed object is
    unchanged, and no string from the data can close the element (``</script>``) or open an
    HTML comment.

    >>> script_json({"name": "</script><script>alert(1)</script>"})
    '{"name": "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"}'
    """
    text = json.dumps(obj, **dumps_kwargs)
    return _SCRIPT_RE.sub(lambda m: _SCRIPT_ESCAPES[m.group()], text)


# XML 1.0 allows tab, newline and carriage return among the C0 controls, nothing else
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_text(value: Any) -> str:
    """``value`` as text safe in SVG/XML content and quoted attributes.

    ``& < > " '`` become entities; control characters that XML 1.0 forbids are dropped
    (they would make the whole file unreadable, not only the label), and so are the other
    invisible controls, the bidirectional overrides included (a right-to-left override
    would reverse the label's text, and a page embedding the SVG's); line breaks become
    spaces (a label is one line).
    """
    return html.escape(_XML_INVALID.sub("", " ".join(_visible(value).splitlines())),
                       quote=True)


# punctuation that Markdown (CommonMark, GitHub tables, MyST's dollar math) interprets
# anywhere in a line; the rest ('-', '.', '(' ...) only matters at the start of a line
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]|~$])")
# <, > and & as entity references: every Markdown renderer reads them as text (a
# backslash before < is CommonMark's rule but not Python-Markdown's)
_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MD_LINE_START = re.compile(r"^(\s*(?:\d+)?)([#+\-=!.)])")


def markdown_text(value: Any) -> str:
    """``value`` as literal text in Markdown, also inside a table cell.

    Line breaks become spaces (a table row is one line); the punctuation that Markdown
    interprets inside a line (emphasis, code, links, table pipes, math) is backslash-escaped,
    and so is a start that would open a heading, a list or a quote (CommonMark allows a
    backslash before any ASCII punctuation); ``<``, ``>`` and ``&`` (raw HTML, entities)
    become entity references. Names such as ``GPT-3``
    or ``v1.2`` stay as they are.
    """
    text = " ".join(_visible(value).splitlines())
    text = "".join(_MD_ENTITIES.get(c, c) for c in text)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _MD_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


_LATEX = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "^": r"\textasciicircum{}", "_": r"\_", "~": r"\textasciitilde{}", "%": r"\%",
    "<": r"\textless{}", ">": r"\textgreater{}",
}
_LATEX_RE = re.compile("|".join(re.escape(k) for k in _LATEX))


def latex_text(value: Any) -> str:
    """``value`` as literal text in LaTeX (text mode); line breaks become spaces."""
    text = " ".join(_visible(value).splitlines())
    return _LATEX_RE.sub(lambda m: _LATEX[m.group()], text)


#: a cell a spreadsheet may run as a formula: ``= + - @`` first (after any white space or
#: control characters, which some spreadsheets skip), or a tab or carriage return first
_FORMULA = r"^(?:[\s\x00-\x1f\x7f-\x9f]*[=+\-@]|[\t\r])"
_FORMULA_RE = re.compile(_FORMULA)


def csv_cell(value: Any) -> Any:
    """Make a text cell that a spreadsheet will show as text, never run as a formula.

    The invisible controls are dropped (an escape sequence would reach the terminal of
    whoever prints the file, a bidirectional override would reorder the cell); strings
    starting with ``= + - @`` (after any white space), a tab or a carriage return get a
    leading apostrophe (OWASP's advice for CSV injection); anything else, numbers
    included, is returned as is.
    """
    if isinstance(value, str):
        value = _visible(value)
        if _FORMULA_RE.match(value):
            return "'" + value
    return value


def csv_safe(frame: Any) -> Any:
    """Return a polars frame whose text columns went through :func:`csv_cell` (a new frame).

    Only string (and categorical / enum) columns change, and only their cells that hold an
    invisible control or start like a formula; the caller's frame is left as it is. Column
    names are cleaned of the invisible controls too.
    """
    import polars as pl

    exprs = []
    for name, dtype in frame.schema.items():
        if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
            col = pl.col(name).cast(pl.String).str.replace_all(_INVISIBLE_RUST, "")
            risky = col.str.contains(_FORMULA)
            exprs.append(pl.when(risky).then(pl.lit("'") + col).otherwise(col).alias(name))
    out = frame.with_columns(exprs) if exprs else frame
    names = {c: _visible(c) for c in out.columns if _INVISIBLE.search(c)}
    if names and len(set(_visible(c) for c in out.columns)) == out.width:
        out = out.rename(names)
    return out


def drawable(obj: Any) -> Any:
    r"""Copy a JSON-like object (a chart spec) so that renderers can draw its strings.

    Characters that XML 1.0 forbids (C0 controls other than tab, line feed and carriage
    return; U+FFFE, U+FFFF) are dropped: vl-convert's SVG/PNG/PDF renderer aborts the whole
    process (a Rust panic) on a title or label holding one. U+2028 and U+2029 become
    spaces: Vega-Lite copies sort orders and scale domains into expressions where they end
    the string. Keys are cleaned the same way, so field names still match their data.

    >>> drawable({"title": "a\x1bb", "x\x01": ["p\u2028q", 1]})
    {'title': 'ab', 'x': ['p q', 1]}
    """
    if isinstance(obj, str):
        if (_XML_INVALID.search(obj) or _INVISIBLE.search(obj) or "\u2028" in obj
                or "\u2029" in obj):
            obj = _XML_INVALID.sub("", _visible(obj)).replace("\u2028", " ").replace(
                "\u2029", " ")
        return obj
    if isinstance(obj, dict):
        return {drawable(k): drawable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [drawable(v) for v in obj]
    return obj
