"""Command-line entry point: ``genexpy-nb``.

Subcommands:

- ``genexpy-nb demo`` - the example study shipped with the package, analysed end to end
  (analysis, planning, figures), offline;
- ``genexpy-nb precompile`` - the numba kernels compiled into numba's disk cache, once;
- ``genexpy-nb nstar TABLE ...`` - n* for every configuration of your own results table;
- ``genexpy-nb seeds POOL.npz`` - alpha-hat, accuracy, churn and ECE of candidate models
  against a reference pool trained with other seeds;
- ``genexpy-nb compare TABLE ...`` - Friedman (or Skillings-Mack when results are missing),
  post-hoc tests, a critical-difference diagram and a written report
  (:func:`genexpy_nb.significance.compare`);
- ``genexpy-nb report TABLE ...`` - the whole answer for a study, as one page
  (:func:`genexpy_nb.report`).

One module per subcommand (``demo``, ``precompile``, ``nstar``, ``seeds``, ``compare``,
``report``), each with ``add_parser(subparsers, formatter)`` and its ``cmd_<name>(args)``;
the option groups they share (the table's roles, the missing-results policy, ``--seed``,
``--quiet``, ...) live in :mod:`genexpy_nb.cli._options`, the argument types and checks in
:mod:`genexpy_nb.cli._checks`. This module holds the registry of subcommands, the top-level
parser and :func:`main`, which turns every outcome into an exit code.

Exit codes scripts can rely on: 0 success; 1 an input error (a one-line message on stderr,
never a traceback: unreadable or empty table, unknown column, unusable output path, ...),
checked before the analysis runs; 2 a usage error (unknown or malformed option); 130
interrupted (Ctrl-C); 3 an unexpected error, i.e. a bug (one line with a hint; ``--debug``
or ``GENEXPY_NB_DEBUG=1`` shows the traceback). Every command works whatever the encoding of
its output streams: where they cannot write Unicode (``PYTHONIOENCODING=ascii``), the
characters they cannot encode are written in ASCII (``—`` as ``--``, ``α`` as ``alpha``).
"""

from __future__ import annotations

import argparse
import os
import sys

from .._validation import GenexpyInputError
from . import compare, demo, nstar, precompile, report, seeds
from ._checks import (
    EXIT_BUG,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    caller_words,
    command_flags,
    debug_asked,
    encodable_streams,
    one_line,
    say,
    signals_as_interrupts,
)
from ._options import HelpFormatter, add_debug

__all__ = ["COMMANDS", "build_parser", "main", "EXIT_OK", "EXIT_INPUT", "EXIT_USAGE",
           "EXIT_INTERRUPTED", "EXIT_BUG"]

#: the subcommands, in the order ``--help`` lists them: each module's
#: ``add_parser(subparsers, formatter)`` adds its parser (with the help formatter of every
#: subcommand) and returns it, and sets its ``cmd_<name>(args)``, which runs the command on
#: the parsed arguments and returns the exit code (0: errors are raised, and :func:`main`
#: turns them into exit codes)
COMMANDS = (demo, precompile, nstar, seeds, compare, report)



def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version

        return version("genexpy_nb")
    except PackageNotFoundError:  # a source checkout on PYTHONPATH
        from .._version import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of ``genexpy-nb`` (every option documented, defaults shown).

    Returns
    -------
    argparse.ArgumentParser
        The parser, with one subcommand per module of :data:`COMMANDS`.
    """
    p = argparse.ArgumentParser(
        prog="genexpy-nb", formatter_class=HelpFormatter,
        description="Will the results of your ML study hold up? Generalizability of "
                    "experimental studies, seed variability, significance tests.",
        epilog="exit codes: 0 success, 1 input error (one-line message), 2 usage error, "
               "3 unexpected error (a bug; --debug shows its traceback), 130 interrupted",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    p.add_argument("--debug", action="store_true",
                   help="show the traceback of an unexpected error (also GENEXPY_NB_DEBUG=1)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        add_debug(command.add_parser(sub, HelpFormatter))  # --debug after a command too
    return p


def _export_notes():
    """Report files an export could not write as one-line notes on stderr.

    For example no PNG under ``ulimit -v``; the notes replace Python's warning format.
    """
    import contextlib
    import warnings

    from .._io import ExportSkippedWarning

    @contextlib.contextmanager
    def notes():
        with warnings.catch_warnings():
            warnings.simplefilter("always", ExportSkippedWarning)
            # our own warnings (a target named like a loss, ...) are shown, as notes
            warnings.filterwarnings("always", module=r"genexpy_nb(\.|$)")
            shown = warnings.showwarning
            reasons: set[str] = set()

            def show(message, category, *rest, **kw):
                if not isinstance(message, ExportSkippedWarning):
                    if category.__module__.startswith("genexpy_nb"):
                        # our own warnings (a target named like a loss, ...) as notes, in
                        # command-line words
                        return say(f"note: {caller_words(message)}")
                    return shown(message, category, *rest, **kw)
                if message.reason in reasons:  # the reason once, then the files
                    say(f"note: {one_line(message.what)} (as above)")
                else:
                    reasons.add(message.reason)
                    say(f"note: {one_line(message)}")

            warnings.showwarning = show
            yield

    return notes()


def _limits(max_seconds: float | None):
    """Return the limit of ``--max-seconds`` for the command's analyses (none: as it is)."""
    import contextlib

    from .. import config

    if max_seconds is None:
        return contextlib.nullcontext()
    return config.allow_seconds(max_seconds)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, 1 input error, 2 usage, 130).

    Every message is in command-line words (:mod:`genexpy_nb._words`): the library's
    errors and warnings name the flags (``--invalid-target drop``), not Python's keyword
    arguments (``invalid_target='drop'``), which they keep in a notebook.
    """
    with encodable_streams():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    from .._words import command_line_words

    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    every_flag = {k: v for sub in commands.values() for k, v in command_flags(sub).items()}
    try:
        with command_line_words(every_flag):
            args = parser.parse_args(argv)
    except SystemExit as exc:  # --help / --version (0) and usage errors (2)
        return int(exc.code or 0)
    except KeyboardInterrupt:
        say("genexpy-nb: interrupted")
        return EXIT_INTERRUPTED
    try:
        from ..config import check_environment

        check_environment()  # GENEXPY_NB_DEBUG=maybe: said now, not after a failure
    except GenexpyInputError as exc:
        say(f"genexpy-nb {args.command}: error: {one_line(exc)}")
        return EXIT_INPUT
    try:
        from .._numba import no_compile_note

        with command_line_words(command_flags(commands[args.command])), _export_notes(), \
                no_compile_note(getattr(args, "quiet", False)), signals_as_interrupts(), \
                _limits(getattr(args, "max_seconds", None)):
            return args.func(args)
    except GenexpyInputError as exc:
        with command_line_words(command_flags(commands[args.command])):
            say(f"genexpy-nb {args.command}: error: {caller_words(exc)}")
        return EXIT_INPUT
    except KeyboardInterrupt:
        say("genexpy-nb: interrupted (no output written)")
        if argv is None:  # run as a program: leave now, with the code scripts expect
            # CPython 3.11 may remember an interrupt that C code saw (e.g. while a library
            # ran Python source) and turn any exit into death by SIGINT (-2), even though
            # the interrupt was handled here; the temporary files are already removed
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(EXIT_INTERRUPTED)
        return EXIT_INTERRUPTED
    except OSError as exc:  # disk full, permission changed while running, ...
        say(f"genexpy-nb {args.command}: error: {one_line(exc)}")
        return EXIT_INPUT
    except Exception as exc:
        if debug_asked(args):
            raise
        say(f"genexpy-nb {args.command}: unexpected error ({type(exc).__name__}: "
             f"{one_line(exc)[:300]}). This is a bug, not your input: run the command "
             "again with --debug (or GENEXPY_NB_DEBUG=1) for the traceback, and report it.")
        return EXIT_BUG
