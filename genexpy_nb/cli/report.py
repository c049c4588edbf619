"""``genexpy-nb report``: the whole answer for a study, as one page (:func:`genexpy_nb.report`).

Reads a results table, builds the study (the same roles and missing-results policy as
``nstar``: the shared option groups of :mod:`genexpy_nb.cli._options`), and writes
``report.html`` (opens offline), ``report.md`` and the tidy tables behind every number into
one folder, atomically; prints the answer's first section.
(Formerly ``genexpy_nb.cli_report``.)
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from .. import config
from ._checks import (
    EXIT_OK,
    check_out_dir,
    check_role_columns,
    csv_list,
    direction,
    held_levels,
    probability,
    read_table,
    say,
)
from ._options import (
    add_kernel,
    add_max_seconds,
    add_missing_choice,
    add_missing_policy,
    add_quiet,
    add_rep,
    add_seed,
    add_table_roles,
)

__all__ = ["add_parser", "add_report_parser", "cmd_report"]


def cmd_report(args: argparse.Namespace) -> int:
    """Run ``genexpy-nb report``: table -> :func:`genexpy_nb.report` -> the folder."""
    out = check_out_dir(args.out, inputs=[args.results])
    df = read_table(args.results)
    check_role_columns(df, args)
    from ..answers.report_page import report

    t0 = time.perf_counter()
    page = report(
        df, alternatives=args.alternatives, target=args.target,
        generalize=csv_list(args.generalize), higher_is_better=direction(args),
        design=csv_list(args.design), average_over=csv_list(args.average_over),
        held_constant=held_levels(df, args.held_constant or []),
        tol_missing_alternatives=args.tol_missing_alternatives,
        tol_missing_conditions=args.tol_missing_conditions,
        invalid_target=args.invalid_target, alpha=args.alpha, delta=args.delta,
        kernels=args.kernel, rep=args.rep, seed=args.seed, progress=not args.quiet,
        rope=args.bayesian_rope, missing=args.missing)
    paths = page.save(out)
    if not args.quiet:
        from ..answers.conclusions import conclusions_summary

        say(page.policy)
        print(conclusions_summary(page.conclusions, unit=page.unit).to_text())
        say(f"wrote {len(paths)} files to {out}/ in {time.perf_counter() - t0:.1f} s: "
            "open report.html (it works offline)")
    return EXIT_OK


def add_parser(sub: Any, formatter: type) -> argparse.ArgumentParser:
    """Add the ``report`` subcommand and its parser (:data:`genexpy_nb.cli.COMMANDS`)."""
    r = sub.add_parser(
        "report", formatter_class=formatter,
        help="the whole answer for a study, as one page (HTML, Markdown, tidy tables)",
        description="One page per study: do its conclusions hold, what to run next, the "
                    "classical rank tests with their CD diagrams, how sure each place is, "
                    "the paper's n* per research question with its no-signal baseline, and "
                    "what the missing-results policy did (every missing result by name). "
                    "Writes report.html (opens offline), report.md and the tidy tables "
                    "behind every number.\n\nexample:\n  genexpy-nb report results.csv "
                    "--alternatives model --target accuracy --generalize dataset \\\n    "
                    "--higher-is-better --average-over seed --out study_report")
    add_table_roles(r)
    add_kernel(r, help="research question of n* (repeatable): jaccard[:k=K], mallows[:nu=V], "
                       "borda[:ALTERNATIVE], rbf[:gamma=V]; default: jaccard:k=1 and mallows")
    r.add_argument("--alpha", type=probability, default=config.HEADLINE_ALPHA,
                   help="desired generalizability alpha* (1 - alpha* is also the "
                        "significance level of the rank tests)")
    r.add_argument("--delta", type=float, default=config.HEADLINE_DELTA,
                   help="similarity threshold delta* of n*")
    add_rep(r, help="resampled pairs of studies per sample size of n*")
    r.add_argument("--bayesian-rope", type=float, default=None, metavar="R",
                   help="also the Bayesian signed-rank test (Benavoli et al. 2017) of every "
                        "alternative against the best, with a region of practical "
                        "equivalence of +-R in the target's units (raw scores); without it "
                        "the page runs no Bayesian test")
    add_seed(r)
    add_missing_policy(r, invalid_help="rows with a null/NaN/inf target (failed runs): refuse, "
                                       "or drop them (they then count as missing results, "
                                       "listed by name)")
    add_missing_choice(r)
    r.add_argument("--out", default="study_report",
                   help="output folder: report.html, report.md and the tables (written "
                        "atomically; a folder of other files is never touched)")
    add_quiet(r)
    add_max_seconds(r)
    r.set_defaults(func=cmd_report)
    return r


#: its name in 0.2 (``genexpy_nb.cli_report.add_report_parser``)
add_report_parser = add_parser
