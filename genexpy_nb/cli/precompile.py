"""``genexpy-nb precompile``: compile the numba kernels into numba's disk cache, once.

:func:`genexpy_nb.example.precompile.precompile`, with one line per group of kernels.
"""

from __future__ import annotations

import argparse
import time

from .. import config
from ._checks import EXIT_OK, answer
from ._options import subcommand

__all__ = ["add_parser", "cmd_precompile"]


def cmd_precompile(args: argparse.Namespace) -> int:
    """Run ``genexpy-nb precompile``: compile the numba kernels into the disk cache."""
    from ..answers.numbers import seconds
    from ..example.precompile import precompile

    t = time.perf_counter()
    res = precompile(progress=not args.quiet, everything=args.all)
    for row in res.iter_rows(named=True):
        how = (f"{row['compiled']} compiled" if row["compiled"] else
               f"{row['from_cache']} already in the cache" if row["from_cache"] else
               "already loaded")
        nf = row["functions"]
        answer(f"{row['kernels']:26s} {nf} function{'s' if nf != 1 else ''}, {how} "
              f"({seconds(row['seconds'])})")
    answer(f"done in {seconds(time.perf_counter() - t)}: first calls in later sessions load "
          "these kernels instead of compiling them")
    answer(f"numba's cache of these kernels: {config.numba_cache_dir()}")
    return EXIT_OK


@subcommand("precompile", quiet="no progress bar",
            help="compile the numerical kernels once, after installing",
            description="Compile the numba kernels that the default pipeline uses on large "
                        "inputs (the report, nstar, compare, seeds: large studies' n*, the "
                        "conclusions' order and plan, the task bootstrap, Nemenyi's test, "
                        "alpha-hat, the leaderboards' tiers) into numba's disk cache, once per "
                        "installation, so that no first call in a notebook pauses to compile; "
                        "--all adds the kernels nothing calls by default. Smaller work runs on "
                        "NumPy and needs none of this.")
def add_parser(pc: argparse.ArgumentParser) -> None:
    """Add the options of ``genexpy-nb precompile``: ``--all`` and ``--quiet``."""
    pc.add_argument("--all", action="store_true",
                    help="every kernel, also those nothing calls by default (the rliable-"
                         "style aggregates without the task bootstrap, the Bayesian "
                         "signed-rank test, the simulations' rankings with ties), which "
                         "otherwise compile on their first use")
