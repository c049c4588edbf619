"""Option names in the caller's vocabulary: ``invalid_target="drop"`` in Python,
``--invalid-target drop`` on the command line.

The comparison workflow (:func:`genexpy_nb.significance.compare`) phrases its errors and
notes with :func:`opt`; the command line runs it inside :func:`command_line_words`, so
the same message names the flag there and the keyword argument in a notebook. Messages of
the functions it calls (the :class:`~genexpy_nb.Study`'s missing-results policy) are
rewritten by :func:`translate` the same way.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["command_line_words", "opt", "translate", "on_command_line"]

_CLI: contextvars.ContextVar[bool] = contextvars.ContextVar("genexpy_nb_cli_words",
                                                           default=False)

#: keyword argument -> command-line flag, where the flag is not simply ``--`` + the name
#: with dashes (``higher_is_better=False`` is ``--lower-is-better``)
_FLAGS = {"data": "RESULTS", "table": "RESULTS"}


@contextlib.contextmanager
def command_line_words() -> Iterator[None]:
    """Within this block, :func:`opt` and :func:`translate` speak in command-line flags."""
    token = _CLI.set(True)
    try:
        yield
    finally:
        _CLI.reset(token)


def on_command_line() -> bool:
    """True inside :func:`command_line_words`."""
    return _CLI.get()


def _flag(name: str) -> str:
    return _FLAGS.get(name, "--" + name.replace("_", "-"))


def _cli_value(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def opt(name: str, value: Any = ..., *, placeholder: str | None = None) -> str:
    """An option as the caller writes it.

    ``opt("invalid_target", "drop")`` is ``invalid_target="drop"`` in Python and
    ``--invalid-target drop`` on the command line; ``opt("average_over", placeholder=
    "COLUMNS")`` is ``average_over=[...]`` / ``--average-over COLUMNS``; ``opt("alpha")``
    the bare name / flag. Booleans: ``opt("higher_is_better", False)`` is
    ``--lower-is-better`` on the command line.
    """
    if _CLI.get():
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


_ASSIGN = re.compile(r"\b([a-z][a-z_]*)=('[^']*'|\"[^\"]*\"|\[[^\]]*\]|\{[^}]*\}|[^\s,;)]+)")


def translate(message: str, names: Sequence[str]) -> str:
    """``message`` with every ``name=value`` of ``names`` in the caller's vocabulary.

    Outside :func:`command_line_words` the message is returned as it is. On the command
    line ``invalid_target='drop'`` becomes ``--invalid-target drop`` and
    ``average_over=[...]`` ``--average-over COLUMNS``.
    """
    if not _CLI.get():
        return message
    known = set(names)

    def sub(m: re.Match) -> str:
        name, value = m.group(1), m.group(2)
        if name not in known:
            return m.group(0)
        if value in ("[...]", "{...}"):
            return opt(name, placeholder="COLUMNS")
        if value[:1] in "'\"":
            value = value[1:-1]
        elif value.startswith("["):
            value = ",".join(v.strip().strip("'\"") for v in value[1:-1].split(",") if v)
        return opt(name, value)

    return _ASSIGN.sub(sub, message)
