"""Options and advice in the caller's vocabulary.

``invalid_target="drop"`` in Python, ``--invalid-target drop`` on the command line.

One mechanism for every command. The command line runs each command inside
:func:`command_line_words`, given the flags of that command (``dest`` -> flag, read from
its argument parser); within it

- :func:`opt` writes an option as a flag (``opt("invalid_target", "drop")`` is
  ``--invalid-target drop``), and
- :func:`translate` rewrites a message raised by the library in Python's words: every
  ``name=value`` of a known option becomes its flag (``rep=10`` -> ``--rep 10``,
  ``average_over=[...]`` -> ``--average-over COLUMNS``), and the few phrases that only make
  sense in Python (``Borda(alternative=...)``, ``see study.report``, a polars snippet) are
  said as the command line says them.

Outside that block both return Python's words unchanged, so the same error reads
``invalid_target='drop'`` in a notebook. :mod:`genexpy_nb.cli` translates every
:class:`~genexpy_nb.GenexpyInputError` and every warning it shows.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

__all__ = ["command_line_words", "opt", "translate", "on_command_line", "PYTHON_SYNTAX",
           "plural", "role_nouns", "noun"]

_CLI: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "genexpy_nb_cli_words", default=None)

#: keyword argument -> command-line flag, where the flag is not simply ``--`` + the name
#: with dashes (the library's plural names of the repeatable flags, the positional table)
_FLAGS = {"data": "RESULTS", "table": "RESULTS", "results": "RESULTS", "alphas": "--alpha",
          "deltas": "--delta", "kernels": "--kernel", "higher_is_better": "--higher-is-better"}

#: what a placeholder stands for on the command line, by option
_PLACEHOLDERS = {"held_constant": "COLUMN=LEVEL", "kernel": "QUESTION", "kernels": "QUESTION"}

#: phrases that only make sense in Python, and how the command line says them
_PHRASES: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile(r"Borda\(alternative=\.\.\.\)"), "--kernel borda:NAME"),
    (re.compile(r"\bsee study\.report\b"), "see the study summary the command prints "
                                           "without --quiet"),
    (re.compile(r"\(?study\.report[^)]*\)"), "(the study summary printed before the analysis)"),
    # a polars snippet (``e.g. df.filter(pl.col('acc').is_finite())``): fix the file instead
    (re.compile(r",? e\.g\. df\.\w+\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)"), ""),
    (re.compile(r", or pandas\.read_csv\([^()]*\) then gx\.read_results\(frame\)"), ""),
    # a column of names kept as text (read_results): the command line names them so
    (re.compile(r"; cast it \(pl\.col\([^()]*\)\.cast\(pl\.Float64\)\) if they are "
                r"numbers"), ""),
)

#: Python argument syntax that must not reach a terminal: ``name=``, ``[...]``, ``{...}``,
#: a call with keyword arguments (``Borda(alternative=...)``), an attribute of a Python
#: object (``study.report``); used by the tests of every command's errors
PYTHON_SYNTAX = re.compile(
    r"(?<![\w:-])[a-z][a-z0-9_]*=(?!=)|\[\.\.\.\]|\{\.\.\.\}|\b[A-Za-z_]\w*\([a-z_]+=|"
    r"\bstudy\.report\b|\bpl\.col\(")


def plural(n: int, word: str, words: str | None = None) -> str:
    """``"1 configuration"``, ``"2 configurations"`` (``words``: an irregular plural)."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


@contextlib.contextmanager
def command_line_words(flags: Mapping[str, str] | None = None) -> Iterator[None]:
    """Within this block, :func:`opt` and :func:`translate` speak in command-line flags.

    ``flags`` maps the command's Python names to its flags (``{"rep": "--rep", ...}``);
    those names are translated in every message, in addition to the ones a caller of
    :func:`translate` names. Nested blocks add to the outer one's flags.
    """
    outer = _CLI.get() or {}
    token = _CLI.set({**outer, **(flags or {})})
    try:
        yield
    finally:
        _CLI.reset(token)


_NOUNS: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "genexpy_nb_role_nouns", default=None)


@contextlib.contextmanager
def role_nouns(**nouns: str) -> Iterator[None]:
    """Within this block, :func:`noun` names a role as the calling workflow does.

    ``with role_nouns(condition="block", conditions="blocks"): Study(...)``: the comparison
    workflow calls the Study's conditions blocks, and the Study's messages say so (the
    caller supplies its words; no message is rewritten afterwards).
    """
    outer = _NOUNS.get() or {}
    token = _NOUNS.set({**outer, **nouns})
    try:
        yield
    finally:
        _NOUNS.reset(token)


def noun(word: str) -> str:
    """Return ``word`` (``"condition"``, ``"conditions"``) in the caller's words.

    The word itself outside :func:`role_nouns`, else what the caller named it.
    """
    return (_NOUNS.get() or {}).get(word, word)


def on_command_line() -> bool:
    """Return True inside :func:`command_line_words`."""
    return _CLI.get() is not None


def _flag(name: str) -> str:
    known = _CLI.get() or {}
    return known.get(name) or _FLAGS.get(name, "--" + name.replace("_", "-"))


def _cli_value(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def opt(name: str, value: Any = ..., *, placeholder: str | None = None) -> str:
    """Write an option as the caller writes it.

    ``opt("invalid_target", "drop")`` is ``invalid_target="drop"`` in Python and
    ``--invalid-target drop`` on the command line; ``opt("average_over", placeholder=
    "COLUMNS")`` is ``average_over=[...]`` / ``--average-over COLUMNS``; ``opt("alpha")``
    the bare name / flag. Booleans: ``opt("higher_is_better", False)`` is
    ``--lower-is-better`` on the command line.
    """
    if on_command_line():
        if name == "higher_is_better" and isinstance(value, bool):
            return "--higher-is-better" if value else "--lower-is-better"
        if isinstance(value, bool):
            return _flag(name) if value else f"no {_flag(name)}"
        if value is ...:
            return _flag(name) + (f" {placeholder}" if placeholder else "")
        return f"{_flag(name)} {_cli_value(value)}"
    if value is ...:
        return f"{name}=[...]" if placeholder else name
    if isinstance(value, str):
        return f'{name}="{value}"'
    if isinstance(value, Sequence):
        return f"{name}={list(value)!r}"
    return f"{name}={value!r}"


#: ``name=value`` as Python prints it; not inside a quoted string from the data
#: (``column 'rep=5'``), which starts with a quote
_ASSIGN = re.compile(r"(?<![\w.'\"-])([a-z][a-z0-9_]*)=('[^']*'|\"[^\"]*\"|\[[^\]]*\]|\{[^}]*\}"
                     r"|[^\s,;)]+?(?=[.:]?(?:[\s,;)]|$)))")


def _value(text: str) -> Any:
    """Rewrite a value as Python printed it, as the command line types it."""
    if text in ("True", "False"):
        return text == "True"
    if text[:1] in "'\"":
        return text[1:-1]
    if text.startswith("["):
        return ",".join(v.strip().strip("'\"") for v in text[1:-1].split(",") if v.strip())
    return text


def translate(message: str, names: Sequence[str] = ()) -> str:
    """``message`` in the caller's vocabulary.

    Outside :func:`command_line_words` the message is returned as it is. On the command
    line every ``name=value`` of ``names`` or of the command's flags becomes the flag
    (``invalid_target='drop'`` -> ``--invalid-target drop``, ``average_over=[...]`` ->
    ``--average-over COLUMNS``, ``higher_is_better=False`` -> ``--lower-is-better``), and
    Python-only phrases are said as the command line says them.
    """
    known_flags = _CLI.get()
    if known_flags is None:
        return message
    known = set(names) | set(known_flags) | set(_FLAGS)
    for pattern, words in _PHRASES:
        message = pattern.sub(words, message)

    def sub(m: re.Match) -> str:
        name, value = m.group(1), m.group(2)
        if name not in known:
            return m.group(0)
        if value in ("[...]", "{...}", "..."):
            return opt(name, placeholder=_PLACEHOLDERS.get(name, "COLUMNS"))
        return opt(name, _value(value))

    return _ASSIGN.sub(sub, message)
