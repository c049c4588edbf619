"""The command line's checks and argument types (:mod:`genexpy_nb.cli`), and its exit codes.

Option values parsed with a clear message, output paths checked before any work (never an
input, a replacement said), tables read with every failure a one-line error, the columns a
command's options name checked before the analysis runs, and the messages in command-line
words (:mod:`genexpy_nb._words`). Formerly ``genexpy_nb.cli_checks``.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._validation import GenexpyInputError, require_role_columns

if TYPE_CHECKING:  # polars is imported when a command runs, not for --help
    import polars as pl

__all__ = [
    "EXIT_OK",
    "EXIT_INPUT",
    "EXIT_USAGE",
    "EXIT_INTERRUPTED",
    "EXIT_BUG",
    "say",
    "answer",
    "encodable_streams",
    "debug_asked",
    "one_line",
    "caller_words",
    "command_flags",
    "csv_list",
    "number_list",
    "alpha_list",
    "level_pair",
    "kernel_question",
    "positive_int",
    "probability",
    "fraction",
    "non_negative",
    "check_parent",
    "no_nulls",
    "direction",
    "add_direction",
    "check_out_file",
    "check_out_dir",
    "read_table",
    "check_role_columns",
    "held_levels",
]

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: an unexpected error (a bug): one line and a hint, the traceback with --debug
EXIT_BUG = 3


def say(msg: str = "") -> None:
    """Print a line on stderr (notes, progress words; stdout holds the answer).

    Each line goes through :func:`genexpy_nb._escape.terminal_text`: an error or a note
    that quotes a name from the data cannot send an escape sequence to the terminal.
    """
    from .._escape import terminal_text

    print("\n".join(terminal_text(line) for line in str(msg).split("\n")), file=sys.stderr)


def answer(msg: str = "") -> None:
    """Print the answer on stdout, each line through the terminal's escaping door.

    Like :func:`say`: a name from the data cannot send an escape sequence or a
    bidirectional override to the terminal.
    """
    from .._escape import terminal_text

    print("\n".join(terminal_text(line) for line in str(msg).split("\n")))


#: characters the package prints: a stream that cannot encode them writes ASCII instead
_OWN_CHARACTERS = "\u2014\u2013\u00d7\u2265\u03b1\u00b1\u2192\u2026"


@contextlib.contextmanager
def encodable_streams() -> Iterator[None]:
    r"""Let stdout and stderr write any text, whatever their encoding.

    A stream whose encoding cannot write the package's own characters (``PYTHONIOENCODING=
    ascii``, a latin-1 terminal, ``LANG=C`` on old systems) writes, for each character it
    cannot encode, its ASCII rendering (:func:`genexpy_nb._escape.ascii_text`: ``—`` as
    ``--``, ``α`` as ``alpha``, a name's other characters as ``\u`` escapes) instead of
    ending the command in a ``UnicodeEncodeError``. The streams are set back afterwards.
    """
    from .._escape import ASCII_ERRORS

    changed = []
    for stream in (sys.stdout, sys.stderr):
        enc = getattr(stream, "encoding", None)
        if not enc or not hasattr(stream, "reconfigure"):
            continue
        try:
            _OWN_CHARACTERS.encode(enc)
        except UnicodeEncodeError:
            changed.append((stream, stream.errors))
            stream.reconfigure(errors=ASCII_ERRORS)
        except LookupError:  # pragma: no cover - an encoding Python does not know
            continue
    try:
        yield
    finally:
        for stream, errors in changed:
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(errors=errors)


def debug_asked(args: argparse.Namespace | None = None) -> bool:
    """Say whether the traceback of an unexpected error is asked for.

    ``--debug``, or ``GENEXPY_NB_DEBUG`` set to a true value (``1``, ``true``, ``yes``,
    ``on``; ``0``, ``false``, ``no``, ``off`` and empty are false; anything else is an
    error that names the variable).
    """
    from .._validation import env_flag

    return bool(getattr(args, "debug", False)) or env_flag("GENEXPY_NB_DEBUG", False)


@contextlib.contextmanager
def signals_as_interrupts() -> Iterator[None]:
    """Make SIGTERM and SIGHUP end a command as Ctrl-C does, cleaning up after it.

    ``kill`` (SIGTERM) and a closed terminal (SIGHUP) would otherwise end the process at
    once and leave a half-written output folder behind; as a ``KeyboardInterrupt`` they
    run every cleanup (the temporary folder is removed, the existing output is left as it
    was). Only in the main thread (where Python delivers signals); the previous handlers
    come back at the end.

    Yields
    ------
    None
    """
    import signal
    import threading

    old = {}
    if threading.current_thread() is threading.main_thread():
        def interrupt(signum, frame):
            raise KeyboardInterrupt(f"signal {signum}")

        for name in ("SIGTERM", "SIGHUP"):
            sig = getattr(signal, name, None)
            if sig is not None:
                try:
                    old[sig] = signal.signal(sig, interrupt)
                except (ValueError, OSError):  # pragma: no cover - not settable here
                    pass
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def one_line(msg: object) -> str:
    """Put a message on one line (the command line's errors are one line)."""
    return " ".join(str(msg).split())


def caller_words(msg: object) -> str:
    """Put a message of the library on one line, in command-line words.

    ``--rep 10``, not ``rep=10`` (:mod:`genexpy_nb._words`).
    """
    from .._words import translate

    return translate(one_line(msg))


def command_flags(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Map a command's Python names to its flags, read from its parser.

    ``invalid_target`` -> ``--invalid-target``; the positional table -> RESULTS.
    """
    out = {}
    for action in parser._actions:
        longs = [o for o in action.option_strings if o.startswith("--")]
        if longs and action.dest not in ("help", "version", "higher_is_better"):
            out[action.dest] = longs[0]
        elif not action.option_strings and action.dest not in ("command",):
            out[action.dest] = action.metavar or action.dest.upper()
    return out


def csv_list(text: str | None) -> list[str]:
    """Split a comma-separated option value into its non-empty items.

    Parameters
    ----------
    text : str or None
        The option's value, e.g. ``"a, b,,c"``.

    Returns
    -------
    list of str
        The items, stripped of spaces; empty for None or "".
    """
    return [t.strip() for t in text.split(",") if t.strip()] if text else []


def number_list(text: str) -> list[float]:
    """Argparse type: comma-separated numbers."""
    try:
        out = [float(t) for t in csv_list(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers, got {text!r}") from None
    if not out:
        raise argparse.ArgumentTypeError("expected at least one number")
    return out


def alpha_list(text: str) -> list[float]:
    """Argparse type: comma-separated probabilities in (0, 1)."""
    out = number_list(text)
    bad = [a for a in out if not 0.0 < a < 1.0]
    if bad:
        raise argparse.ArgumentTypeError(f"alpha* must lie strictly between 0 and 1, got {bad}")
    return out


def level_pair(text: str) -> tuple[str, str]:
    """Argparse type: COLUMN=LEVEL."""
    col, eq, level = text.partition("=")
    if not eq or not col.strip():
        raise argparse.ArgumentTypeError(f"expected COLUMN=LEVEL, got {text!r}")
    return col.strip(), level


def kernel_question(text: str):
    """Argparse type: a research question such as jaccard:k=2."""
    from ..generalizability.kernels import parse_kernel

    try:
        return parse_kernel(text)
    except GenexpyInputError as exc:
        raise argparse.ArgumentTypeError(caller_words(exc)) from None


def _number_type(name: str, convert: Callable[[str], float], ok: Callable[[float], bool],
                 number: str, expected: str) -> Callable[[str], Any]:
    """Return an argparse type: ``convert`` reads the text and ``ok`` accepts the number."""
    def parse(text: str) -> Any:
        try:
            v = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {number}, got {text!r}") from None
        if not ok(v):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {v}")
        return v

    parse.__name__ = parse.__qualname__ = name
    parse.__doc__ = f"Parse {expected} (an argparse type)."
    return parse


#: argparse types: a whole number of at least 1, a number strictly between 0 and 1, a
#: number in [0, 1]
positive_int = _number_type("positive_int", int, lambda v: v >= 1, "a whole number",
                            "a positive whole number")
probability = _number_type("probability", float, lambda v: 0.0 < v < 1.0, "a number",
                           "a number strictly between 0 and 1")
fraction = _number_type("fraction", float, lambda v: 0.0 <= v <= 1.0, "a number",
                        "a number in [0, 1]")


def non_negative(text: str) -> float:
    """Parse a finite number >= 0 (an argparse type): a width, a tolerance.

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    float
        The number; an ``argparse.ArgumentTypeError`` says what was expected otherwise.
    """
    import math

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (math.isfinite(v) and v >= 0.0):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return v


def check_parent(p: Path, option: str) -> None:
    """Check that the folder of an output file exists (created now if needed) and is writable."""
    from .._io import make_parent

    make_parent(p.expanduser().absolute().parent, f"{option} {str(p)!r}")


# ---- output paths: never an input, a replacement said (issue 30) -------------------------


def check_out_file(path: str, option: str = "--out", inputs: list[str] = ()) -> Path:
    """Check an output table path before any work; return it as a :class:`~pathlib.Path`.

    It must have a supported suffix, lie in a folder that can be written and be none of the
    ``inputs``; replacing an existing file is said on the terminal.
    """
    from .._io import check_frame_path, check_not_input

    p = check_frame_path(path, option)
    check_not_input(p, inputs, option)
    check_parent(p, option)
    if p.exists():
        say(f"note: {option} {str(p)!r} exists; it is replaced when the command succeeds")
    return p


def check_out_dir(path: str, option: str = "--out", inputs: list[str] = ()) -> Path:
    """Check an output folder before any work; return it as a :class:`~pathlib.Path`.

    It must be writable, hold none of the ``inputs`` and not be a folder of the user's own
    files; replacing one written by an earlier run is said on the terminal.
    """
    from .._io import check_not_input, check_output_dir

    check_not_input(path, inputs, option, folder=True)
    p = check_output_dir(path)
    if p.is_dir() and any(p.iterdir()):
        say(f"note: {option} {str(path)!r} holds the output of an earlier run; it is "
             "replaced when the command succeeds")
    return p


# ---- reading tables --------------------------------------------------------------------


#: the options naming the columns of names (alternatives, conditions, replicates, filters)
_NAME_OPTIONS = ("alternatives", "generalize", "blocks", "design", "average_over")


def read_table(path: str, args: argparse.Namespace | None = None) -> pl.DataFrame:
    """Read a results table from ``.parquet``, ``.csv`` or ``.tsv``.

    Every failure is a clear error (:func:`genexpy_nb.io.public.read_results`). The columns the
    options of ``args`` name as alternatives, conditions, design factors, replicates and
    held-constant filters keep the text the file has (``1``, ``1.0`` and ``01`` are three
    alternatives, not one number); the target is read as numbers.
    """
    from ..io.public import read_results

    names: list[str] = []
    for opt in _NAME_OPTIONS:
        value = getattr(args, opt, None)
        names += [value] if isinstance(value, str) and opt == "alternatives" else (
            csv_list(value) if isinstance(value, str) else [])
    names += [c for c, _ in (getattr(args, "held_constant", None) or [])]
    target = getattr(args, "target", None)
    return read_results(path, keep_text=[c for c in names if c != target])


def no_nulls(df, columns: list[str]) -> None:
    """Factor columns must name a level in every row; the error says where and how many."""
    for c in dict.fromkeys(columns):
        n_null = df[c].null_count()
        if n_null:
            raise GenexpyInputError(f"column {c!r} has {n_null} empty value(s) (of {df.height} "
                                    "rows); fill or drop those rows.")


def check_role_columns(df, args: argparse.Namespace) -> None:
    """Check the columns of the table roles (``nstar``, ``report``) before the analysis runs.

    Every column an option names is in the table
    (:func:`~genexpy_nb._validation.require_role_columns`), and the factor
    columns name a level in every row (:func:`no_nulls`).

    Parameters
    ----------
    df : polars.DataFrame
        The results table.
    args : argparse.Namespace
        The parsed arguments of a command with the options of
        :func:`genexpy_nb.cli._options.add_table_roles`.
    """
    held = args.held_constant or []
    require_role_columns(df, {"--alternatives": [args.alternatives], "--target": [args.target],
                              "--generalize": csv_list(args.generalize),
                              "--design": csv_list(args.design),
                              "--average-over": csv_list(args.average_over),
                              "--held-constant": [c for c, _ in held]})
    no_nulls(df, [args.alternatives, *csv_list(args.generalize), *csv_list(args.design),
                  *csv_list(args.average_over)])


def held_levels(df, held: list[tuple[str, str]]) -> dict:
    """Cast the levels typed on the command line (strings) to their column's type.

    Parameters
    ----------
    df : polars.DataFrame
        The results table.
    held : list of (str, str)
        The ``--held-constant COLUMN=LEVEL`` pairs.

    Returns
    -------
    dict
        ``{column: level}``, a numeric column's level as a number (an error otherwise).
    """
    out = {}
    for col, level in held:
        if col in df.columns and df.schema[col].is_numeric():
            try:
                out[col] = df.schema[col].to_python()(level)
            except (TypeError, ValueError, AttributeError):
                try:
                    out[col] = float(level)
                except ValueError:
                    raise GenexpyInputError(
                        f"--held-constant {col}={level}: column {col!r} is numeric, and "
                        f"{level!r} is not a number.") from None
        else:
            out[col] = level
    return out


def direction(args: argparse.Namespace) -> bool:
    """Read the target's direction from the parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        The arguments of a command with :func:`add_direction`'s options.

    Returns
    -------
    bool
        True for ``--higher-is-better``, False for ``--lower-is-better``.
    """
    return bool(args.higher_is_better)


def add_direction(p: argparse.ArgumentParser, required: bool = True) -> None:
    """Add the required choice ``--higher-is-better`` / ``--lower-is-better`` to a command.

    Parameters
    ----------
    required : bool, default True
        False where the command reads the direction from the file when it can (``report``
        on an evaluation output); it then checks the choice itself.
    """
    g = p.add_mutually_exclusive_group(required=required)
    g.add_argument("--higher-is-better", dest="higher_is_better", action="store_true",
                   default=None, help="the target is a score such as accuracy (required: "
                   "this or --lower-is-better)")
    g.add_argument("--lower-is-better", dest="higher_is_better", action="store_false",
                   help="the target is an error, a loss or a runtime")
