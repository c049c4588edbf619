"""The command line's option groups, written once and shared by the subcommands.

A subcommand's parser is built from these groups (dask's ``cli.py`` shares its options the
same way): the results table and its roles (``--alternatives``, ``--target``, the direction,
``--generalize``, ``--design``, ``--average-over``, ``--held-constant``), the
missing-results policy (``--tol-missing-*``, ``--invalid-target``), the research questions
(``--kernel``), and the options most commands have (``--rep``, ``--seed``, ``--n-jobs``,
``--quiet``, ``--debug``). A group takes the words of a command where they differ (a
"block" in ``compare``, a "condition" elsewhere), so each ``--help`` reads as before. Every
``add_*`` takes the command's parser ``p`` first and adds its options to it; a ``help``
argument is the option's help in the command's words.

One vocabulary for the roles: ``--generalize`` (``nstar``, ``report``) and ``--blocks``
(``compare``) name the same role, the column(s) whose levels are the conditions, and each
command accepts the other word as an unlisted alias (:func:`add_alias`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from .. import config
from ._checks import (
    add_direction,
    fraction,
    kernel_question,
    level_pair,
    positive_int,
)

__all__ = [
    "HelpFormatter",
    "subcommand",
    "add_plan_options",
    "add_direction",
    "add_results",
    "add_table_roles",
    "add_alias",
    "add_alternatives_target",
    "add_blocks",
    "add_factors",
    "add_held_constant",
    "add_missing_policy",
    "add_missing_choice",
    "add_kernel",
    "add_rep",
    "add_seed",
    "add_n_jobs",
    "add_quiet",
    "add_debug",
    "INVALID_TARGET_HELP",
]

#: ``--invalid-target``'s words in ``nstar`` (``report`` and ``compare`` say more)
INVALID_TARGET_HELP = "rows with a null/NaN/inf target: refuse, or drop them"


class HelpFormatter(argparse.HelpFormatter):
    """Show each option's default after its help; keep paragraphs and example lines.

    Descriptions are wrapped by paragraph; example lines (indented by two spaces) stay as is.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if ("%(default)" not in text and not action.required and action.default is not None
                and action.default is not argparse.SUPPRESS and action.option_strings
                and action.nargs != 0):  # flags (store_true/false) have no value to show
            default = action.default
            if isinstance(default, (list, tuple)):
                default = ",".join(map(str, default))
            if default == "":
                default = "none"
            text += f" (default: {default})"
        return text

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        out = []
        for para in text.split("\n\n"):
            lines = para.split("\n")
            head = [ln for ln in lines if not ln.startswith("  ")]
            keep = [ln for ln in lines if ln.startswith("  ")]
            if head:
                out.append(textwrap.fill(" ".join(head), width, initial_indent=indent,
                                         subsequent_indent=indent))
            out.extend(indent + ln for ln in keep)
            out.append("")
        return "\n".join(out).rstrip()


def subcommand(name: str, *, help: str, description: str,
               quiet: str = "print nothing but errors") -> Callable[[Callable], Callable]:
    """Make a subcommand's ``add_parser(subparsers, formatter)`` from its options.

    The decorated function adds the subcommand's options to its parser; the result adds the
    parser (``help``, ``description``), those options, ``--quiet`` (its help ``quiet``) and,
    as the command, the function ``cmd_<name>`` of the same module, looked up when the
    parser is built (the protocol of :data:`genexpy_nb.cli.COMMANDS`).
    """
    def decorate(options: Callable[[argparse.ArgumentParser], None]) -> Callable:
        def add_parser(sub: Any, formatter: type) -> argparse.ArgumentParser:
            p = sub.add_parser(name, formatter_class=formatter, help=help,
                               description=description)
            options(p)
            add_quiet(p, help=quiet)
            p.set_defaults(func=getattr(sys.modules[options.__module__], f"cmd_{name}"))
            return p

        add_parser.__doc__ = (f"Add the ``{name}`` subcommand and its parser "
                              "(:data:`genexpy_nb.cli.COMMANDS`).")
        return add_parser

    return decorate


def add_alias(p: argparse.ArgumentParser, action: argparse.Action, *aliases: str) -> None:
    """Let ``p`` accept ``aliases`` as further option strings of ``action``, unlisted.

    The action keeps its own option strings, so ``--help``, the usage line and argparse's
    messages ("the following arguments are required: --generalize") name only the documented
    word; an alias given on the command line fills the same destination and counts for
    ``required``. ``--blocks=X`` works as ``--blocks X``.

    Parameters
    ----------
    action : argparse.Action
        What ``p.add_argument`` returned for the documented option.
    *aliases : str
        The other words, e.g. ``"--blocks"``; none may be an option of ``p`` already.

    Raises
    ------
    ValueError
        An alias is an option of ``p`` already.
    """
    known = p._option_string_actions  # argparse's table of option strings (3.11-3.13)
    for alias in aliases:
        if alias in known:
            raise ValueError(f"{alias} is an option of {p.prog} already")
        known[alias] = action


# ---- the results table and its roles ---------------------------------------------------


def add_results(p: argparse.ArgumentParser, help: str | None = None) -> None:
    """Add the positional results table (``RESULTS``)."""
    p.add_argument("results", help=help or "tidy results table: .parquet, .csv or .tsv")


def add_alternatives_target(p: argparse.ArgumentParser, required: bool = True) -> None:
    """Add ``--alternatives`` (the compared methods' column) and ``--target`` (the result).

    Parameters
    ----------
    required : bool, default True
        False where the command can read them from the file (``report`` on an evaluation
        output).
    """
    p.add_argument("--alternatives", required=required, help="column of the compared methods")
    p.add_argument("--target", required=required, help="numeric result column")


def add_factors(p: argparse.ArgumentParser, required: bool = True) -> None:
    """Add the factors of a study: ``--generalize``, ``--design``, ``--average-over``, and more.

    ``--held-constant`` is the last.

    Parameters
    ----------
    required : bool, default True
        Whether ``--generalize`` is required.
    """
    generalize = p.add_argument(
        "--generalize", required=required,
        help="generalizability factor(s), comma-separated (e.g. dataset)")
    add_alias(p, generalize, "--blocks")
    p.add_argument("--design", default="", help="design factors, comma-separated")
    p.add_argument("--average-over", default="",
                   help="stochastic factors averaged out first (e.g. seed,fold)")
    add_held_constant(p)


def add_blocks(p: argparse.ArgumentParser) -> None:
    """Add ``--blocks`` (``compare``'s word for ``--generalize``, also accepted)."""
    blocks = p.add_argument(
        "--blocks", required=True,
        help="column(s) defining a block, comma-separated (e.g. dataset; folds as blocks are "
             "not independent datasets: average them instead)")
    add_alias(p, blocks, "--generalize")


def add_held_constant(p: argparse.ArgumentParser) -> None:
    """Add ``--held-constant COLUMN=LEVEL`` (repeatable): keep the rows at one level."""
    p.add_argument("--held-constant", action="append", metavar="COLUMN=LEVEL", type=level_pair,
                   help="fix a factor to one level (repeatable)")


def add_table_roles(p: argparse.ArgumentParser, required: bool = True) -> None:
    """Add the table and every role of a study (``nstar``, ``report``).

    ``RESULTS``, ``--alternatives``, ``--target``, ``--higher-is-better`` /
    ``--lower-is-better`` (required), then :func:`add_factors`.

    Parameters
    ----------
    required : bool, default True
        False for ``report``, which reads the roles of an evaluation output from the file
        (and checks them itself for a table).
    """
    add_results(p, None if required else
                "a tidy results table (.parquet, .csv, .tsv) with its roles, or an evaluation "
                "output (a file or a folder) read by its content")
    add_alternatives_target(p, required)
    add_direction(p, required)
    add_factors(p, required)


def add_missing_policy(p: argparse.ArgumentParser, unit: str = "condition",
                       complete_note: str = "",
                       invalid_help: str = INVALID_TARGET_HELP) -> None:
    """Add the missing-results policy: ``--tol-missing-*`` and ``--invalid-target``.

    Parameters
    ----------
    unit : str, default "condition"
        What a row of the rankings is called in the command's words (``"block"``).
    complete_note : str, default ""
        Appended to the help of ``--tol-missing-alternatives`` (e.g. what 0 means).
    invalid_help : str
        The help of ``--invalid-target``.
    """
    p.add_argument("--tol-missing-alternatives", type=fraction,
                   default=config.TOL_MISSING_ALTERNATIVES,
                   help=f"drop a {unit} missing more than this share of the alternatives"
                        f"{complete_note}")
    p.add_argument("--tol-missing-conditions", type=fraction,
                   default=config.TOL_MISSING_CONDITIONS,
                   help=f"then drop an alternative missing in more than this share of the "
                        f"{unit}s")
    p.add_argument("--invalid-target", choices=["raise", "drop"], default="raise",
                   help=invalid_help)


def add_missing_choice(p: argparse.ArgumentParser, unit: str = "condition") -> None:
    """Add ``--missing``: what a result still missing after the tolerances becomes.

    The same choices, default and help in ``compare``, ``nstar`` and ``report``
    (``study``, ``drop-block``, ``available``; see :mod:`genexpy_nb.significance.compare`).

    Parameters
    ----------
    unit : str, default "condition"
        What a row of the rankings is called in the command's words (``"block"``).
    """
    from ..study._missing import MISSING_HELP, MISSING_POLICIES

    p.add_argument("--missing", choices=list(MISSING_POLICIES), default=MISSING_POLICIES[0],
                   help=MISSING_HELP.format(unit=unit))


# ---- the analysis ----------------------------------------------------------------------


def add_kernel(p: argparse.ArgumentParser, help: str) -> None:
    """Add ``--kernel``, the repeatable research question of n*.

    Parameters
    ----------
    help : str
        The option's help in the command's words.
    """
    p.add_argument("--kernel", action="append", type=kernel_question, metavar="QUESTION",
                   help=help)


def add_rep(p: argparse.ArgumentParser,
            help: str = "resampled pairs of studies per sample size") -> None:
    """Add ``--rep``, the resampled pairs of studies per sample size of n*."""
    p.add_argument("--rep", type=positive_int, default=config.REP, help=help)


def add_seed(p: argparse.ArgumentParser, help: str = "random seed") -> None:
    """Add ``--seed``, the random seed (default 0)."""
    p.add_argument("--seed", type=int, default=0, help=help)


def add_n_jobs(p: argparse.ArgumentParser) -> None:
    """Add ``--n-jobs``, the threads (default: all cores)."""
    p.add_argument("--n-jobs", type=positive_int, default=None,
                   help="threads (default: all cores)")


def add_quiet(p: argparse.ArgumentParser,
              help: str = "print nothing but errors") -> None:
    """Add ``--quiet``.

    Parameters
    ----------
    help : str
        What it leaves out, in the command's words.
    """
    p.add_argument("--quiet", action="store_true", help=help)


def _seconds(text: str) -> float:
    """Parse ``--max-seconds``: a positive number of seconds, or ``inf``."""
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0:
        raise argparse.ArgumentTypeError(
            f"expected a positive number of seconds (or inf), got {text!r}")
    return value


def add_max_seconds(p: argparse.ArgumentParser) -> None:
    """Add ``--max-seconds``: the limit on an analysis' estimated time (see ``config.LIMITS``).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The command's parser.
    """
    p.add_argument("--max-seconds", type=_seconds, default=None, metavar="SECONDS",
                   help="refuse to start an analysis estimated to take longer than this "
                        "(default: $GENEXPY_NB_MAX_SECONDS, else 600; 'inf': no limit); "
                        "the estimate is made from the table's shape and shown on the "
                        "progress bar")


def add_debug(p: argparse.ArgumentParser) -> None:
    """Add a subcommand's ``--debug`` (the top-level one is the default: given either way)."""
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="show the traceback of an unexpected error (a bug)")


def add_plan_options(p: argparse.ArgumentParser) -> None:
    """Add ``--sequential`` and ``--assurance`` (the conclusions' rule and plan)."""
    p.add_argument("--sequential", action="store_true",
                   help="anytime-valid verdicts: valid however often you look again after "
                        "adding conditions (add new conditions at the end of the table); "
                        "default: fixed-N verdicts, valid for one look")
    p.add_argument("--assurance", type=_assurance, default=0.8, metavar="P",
                   help="'needs k more' comes true with this probability (default 0.8)")


def _assurance(text: str) -> float:
    """Parse ``--assurance``: a probability strictly between 0 and 1."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability, got {text!r}") from None
    if not 0.0 < v < 1.0:
        raise argparse.ArgumentTypeError(f"expected a probability in (0, 1), got {text!r}")
    return v
