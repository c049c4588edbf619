"""Option names in the caller's vocabulary, re-exported for the comparison workflow.

They moved to :mod:`genexpy_nb._words` (one mechanism for every command).
"""

from __future__ import annotations

from .._words import command_line_words, on_command_line, opt, translate

__all__ = ["command_line_words", "opt", "translate", "on_command_line"]
