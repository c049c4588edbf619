"""``genexpy-nb report``: the whole answer for a study, as one page (:func:`genexpy_nb.report`).

Reads a results table, builds the study (the same roles and missing-results policy as
``nstar``), and writes ``report.html`` (opens offline), ``report.md`` and the tidy tables
behind every number into one folder, atomically; prints the answer's first section.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from . import config
from ._validation import GenexpyInputError
from .cli_checks import (
    add_direction,
    check_out_dir,
    csv_list,
    direction,
    fraction,
    kernel_question,
    level_pair,
    no_nulls,
    positive_int,
    probability,
    read_table,
    require_options,
    say,
)

__all__ = ["add_report_parser", "cmd_report"]


def _held_levels(df: Any, held: list[tuple[str, str]]) -> dict:
    """Cast the levels typed on the command line to their column's type."""
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


def cmd_report(args: argparse.Namespace) -> int:
    """Run ``genexpy-nb report``: table -> :func:`genexpy_nb.report` -> the folder.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of the command.

    Returns
    -------
    int
        The exit code: 0 (errors are raised; the entry point turns them into exit codes).
    """
    out = check_out_dir(args.out, inputs=[args.results])
    df = read_table(args.results)
    held = args.held_constant or []
    require_options(df, {"--alternatives": [args.alternatives], "--target": [args.target],
                         "--generalize": csv_list(args.generalize),
                         "--design": csv_list(args.design),
                         "--average-over": csv_list(args.average_over),
                         "--held-constant": [c for c, _ in held]})
    no_nulls(df, [args.alternatives, *csv_list(args.generalize), *csv_list(args.design),
                  *csv_list(args.average_over)])
    from .report_page import report

    t0 = time.perf_counter()
    page = report(
        df, alternatives=args.alternatives, target=args.target,
        generalize=csv_list(args.generalize), higher_is_better=direction(args),
        design=csv_list(args.design), average_over=csv_list(args.average_over),
        held_constant=_held_levels(df, held),
        tol_missing_alternatives=args.tol_missing_alternatives,
        tol_missing_conditions=args.tol_missing_conditions,
        invalid_target=args.invalid_target, alpha=args.alpha, delta=args.delta,
        kernels=args.kernel, rep=args.rep, seed=args.seed, progress=not args.quiet)
    paths = page.save(out)
    if not args.quiet:
        from .summary_conclusions import conclusions_summary

        print(conclusions_summary(page.conclusions, unit=page.unit).to_text())
        say(f"wrote {len(paths)} files to {out}/ in {time.perf_counter() - t0:.1f} s: "
            "open report.html (it works offline)")
    return 0


def add_report_parser(sub: Any, formatter: type) -> argparse.ArgumentParser:
    """Add the ``report`` sub-command to the command line's sub-parsers.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The sub-parsers of ``genexpy-nb``.
    formatter : type
        The help formatter of the other sub-commands.

    Returns
    -------
    argparse.ArgumentParser
        The sub-command's parser.
    """
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
    r.add_argument("results", help="tidy results table: .parquet, .csv or .tsv")
    r.add_argument("--alternatives", required=True, help="column of the compared methods")
    r.add_argument("--target", required=True, help="numeric result column")
    add_direction(r)
    r.add_argument("--generalize", required=True,
                   help="generalizability factor(s), comma-separated (e.g. dataset)")
    r.add_argument("--design", default="", help="design factors, comma-separated")
    r.add_argument("--average-over", default="",
                   help="stochastic factors averaged out first (e.g. seed,fold)")
    r.add_argument("--held-constant", action="append", metavar="COLUMN=LEVEL",
                   type=level_pair, help="fix a factor to one level (repeatable)")
    r.add_argument("--kernel", action="append", type=kernel_question, metavar="QUESTION",
                   help="research question of n* (repeatable): jaccard[:k=K], mallows[:nu=V], "
                        "borda[:ALTERNATIVE], rbf[:gamma=V]; default: jaccard:k=1 and mallows")
    r.add_argument("--alpha", type=probability, default=config.HEADLINE_ALPHA,
                   help="desired generalizability alpha* (1 - alpha* is also the "
                        "significance level of the rank tests)")
    r.add_argument("--delta", type=float, default=config.HEADLINE_DELTA,
                   help="similarity threshold delta* of n*")
    r.add_argument("--rep", type=positive_int, default=config.REP,
                   help="resampled pairs of studies per sample size of n*")
    r.add_argument("--seed", type=int, default=0, help="random seed")
    r.add_argument("--tol-missing-alternatives", type=fraction,
                   default=config.TOL_MISSING_ALTERNATIVES,
                   help="drop a condition missing more than this share of the alternatives")
    r.add_argument("--tol-missing-conditions", type=fraction,
                   default=config.TOL_MISSING_CONDITIONS,
                   help="then drop an alternative missing in more than this share of the "
                        "conditions")
    r.add_argument("--invalid-target", choices=["raise", "drop"], default="raise",
                   help="rows with a null/NaN/inf target (failed runs): refuse, or drop "
                        "them (they then count as missing results, listed by name)")
    r.add_argument("--out", default="study_report",
                   help="output folder: report.html, report.md and the tables (written "
                        "atomically; a folder of other files is never touched)")
    r.add_argument("--quiet", action="store_true", help="print nothing but errors")
    r.set_defaults(func=cmd_report)
    return r
