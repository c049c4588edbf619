"""Option names in the caller's vocabulary: moved to :mod:`genexpy_nb._words` (one mechanism
for every command); re-exported here for the comparison workflow's modules.
"""

from __future__ import annotations

from .._words import command_line_words, on_command_line, opt, translate

__all__ = ["command_line_words", "opt", "translate", "on_command_line"]
