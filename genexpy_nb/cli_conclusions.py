"""The conclusions ``genexpy-nb nstar`` leads with, and the thresholds of its printed answer.

``nstar`` answers first what a researcher asks — do the study's conclusions hold (the best,
the top group, every pair, the order; :func:`genexpy_nb.conclusions`) and how many more
conditions would settle the others — writes them to ``conclusions.parquet`` beside ``--out``
(``--conclusions-out``), then prints the paper's n* per research question under the question
it answers. ``--no-conclusions`` leaves them out.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from . import config
from ._validation import GenexpyInputError
from .cli_checks import check_out_file, positive_int, say

__all__ = ["add_conclusion_options", "answer_thresholds", "conclusions_out",
           "write_conclusions"]


def answer_thresholds(args: argparse.Namespace) -> tuple[float, float]:
    """Choose alpha* and delta* of the printed answer.

    The headline ones (0.95, 0.05) when computed, else the nearest computed value; one given
    explicitly must be among the computed ones (checked before the analysis runs).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of ``nstar`` (``alpha``, ``delta``, ``summary_alpha``,
        ``summary_delta``).

    Returns
    -------
    tuple of float
        (alpha*, delta*) of the printed answer; the conclusions use the same pair.
    """

    def pick(given, grid, headline, flag, grid_flag):
        if given is None:
            return min(grid, key=lambda v: (abs(v - headline), v))
        if not any(abs(given - v) < 1e-12 for v in grid):
            raise GenexpyInputError(
                f"{flag} {given:g} is not among the computed values ({grid_flag} "
                f"{','.join(f'{v:g}' for v in grid)}): add it to {grid_flag} or choose one "
                "of them.")
        return given

    return (pick(args.summary_alpha, args.alpha, config.HEADLINE_ALPHA, "--summary-alpha",
                 "--alpha"),
            pick(args.summary_delta, args.delta, config.HEADLINE_DELTA, "--summary-delta",
                 "--delta"))


def _positive_number(text: str) -> float:
    """Parse a positive finite number for ``--margin`` and ``--budget``."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (v > 0 and v != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return v


def add_conclusion_options(p: argparse.ArgumentParser) -> None:
    """Add the options of the conclusions to the ``nstar`` parser.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of ``nstar``.

    Returns
    -------
    None
        ``--top-k``, ``--margin``, ``--budget``, ``--conclusions-out`` and
        ``--no-conclusions`` are added.
    """
    p.add_argument("--top-k", type=positive_int, default=3, metavar="K",
                   help="size of the top group whose membership is judged")
    p.add_argument("--margin", type=_positive_number, default=None, metavar="RANKS",
                   help="equivalence margin in mean ranks: pairs shown to differ by less "
                        "are 'tied' (default: none, no pair is called tied)")
    p.add_argument("--budget", type=_positive_number, default=None, metavar="CONDITIONS",
                   help="the most conditions you could run: a conclusion that cannot "
                        "settle within them is 'tied'")
    p.add_argument("--conclusions-out", default=None, metavar="PATH",
                   help="table of the conclusions (default: conclusions.parquet, or the "
                        "suffix of --out, in the folder of --out)")
    p.add_argument("--no-conclusions", action="store_true",
                   help="leave out the study's conclusions (best, top group, pairs, order)")


def conclusions_out(args: argparse.Namespace, out: Path,
                    figures: Path | None = None) -> Path | None:
    """Check where the conclusions go, before the analysis runs.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of ``nstar``.
    out : pathlib.Path
        The checked ``--out``.
    figures : pathlib.Path, optional
        The checked ``--figures`` folder (replaced as a whole: the table cannot lie in it).

    Returns
    -------
    pathlib.Path or None
        The path of the conclusions table; None with ``--no-conclusions``.
    """
    if args.no_conclusions:
        return None
    given = args.conclusions_out
    if given is None:
        name = f"conclusions{out.suffix}"
        given = str(out.with_name(name if name != out.name else f"{out.stem}_conclusions"
                                  f"{out.suffix}"))
    path = check_out_file(given, "--conclusions-out", inputs=[args.results])
    if path.absolute() == out.absolute():
        raise GenexpyInputError(f"--conclusions-out {given!r} is --out: give the conclusions "
                                "a file of their own.")
    if figures is not None and Path(figures).absolute() in path.absolute().parents:
        raise GenexpyInputError(f"--conclusions-out {given!r} lies in --figures: the figures' "
                                "folder is replaced as a whole; give the conclusions a file "
                                "outside it.")
    return path


def write_conclusions(study, args: argparse.Namespace, path: Path | None, alpha: float,
                      delta: float):
    """Compute the study's conclusions, write them to ``path`` atomically, summarise them.

    Parameters
    ----------
    study : Study
        The study of ``nstar``.
    args : argparse.Namespace
        The parsed arguments (``top_k``, ``margin``, ``budget``, ``seed``, ``quiet``).
    path : pathlib.Path or None
        Where to write them (None: nothing is done).
    alpha, delta : float
        alpha* and delta* of the printed answer.

    Returns
    -------
    ConclusionsSummary or None
        The sentences to lead the printed answer with; None when left out, or when alpha*
        is 0.5 or below (two studies agree by chance half the time: said in a note).
    """
    if path is None:
        return None
    if alpha <= 0.5:
        if not args.quiet:
            say(f"note: no conclusions at alpha* = {alpha:g}: two studies agree by chance "
                "half the time, choose --summary-alpha above 0.5")
        return None
    from ._io import write_frame
    from .generalizability import conclusions
    from .summary_conclusions import conclusions_summary, condition_word

    frame = conclusions(study, alpha=alpha, delta=delta, top_k=args.top_k, margin=args.margin,
                        budget=args.budget, seed=args.seed)
    write_frame(frame, path)
    return conclusions_summary(frame, unit=condition_word(study), alpha=alpha,
                               where=str(path))
