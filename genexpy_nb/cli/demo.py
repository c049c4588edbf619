"""``genexpy-nb demo``: the example study shipped with the package, analysed end to end.

Analysis, planning and figures, offline (:func:`genexpy_nb.example.demo.run_demo`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ._checks import EXIT_OK, check_out_dir
from ._options import add_rep, add_seed, subcommand

__all__ = ["add_parser", "cmd_demo"]


def cmd_demo(args: argparse.Namespace) -> int:
    """Run ``genexpy-nb demo``: the worked example (:func:`~genexpy_nb.example.demo.run_demo`)."""
    check_out_dir(args.out)
    from ..example.demo import run_demo

    run_demo(out_dir=Path(args.out), rep=args.rep, seed=args.seed, progress=not args.quiet)
    return EXIT_OK


@subcommand("demo", quiet="no progress bars",
            help="the shipped example study, analysed end to end, offline",
            description="Analyse the example study shipped with the package (8 classifiers "
                        "on 80 datasets) end to end and write tables and figures to a folder.")
def add_parser(d: argparse.ArgumentParser) -> None:
    """Add the options of ``genexpy-nb demo``."""
    d.add_argument("--out", default="genexpy_demo",
                   help="output folder (written atomically; a folder written by an earlier "
                        "run is replaced, a folder of other files is never touched)")
    add_rep(d)
    add_seed(d)
