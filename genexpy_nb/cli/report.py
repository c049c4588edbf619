"""``genexpy-nb report``: the whole answer for a study, as one page (:func:`genexpy_nb.report`).

Reads a results table — or an evaluation output told by its content
(:func:`genexpy_nb.io.boards.read_board`: lm-evaluation-harness, inspect_ai, Every Eval
Ever, tsml, per-item boards) —, builds the study (the same roles and missing-results policy
as ``nstar``: the shared option groups of :mod:`genexpy_nb.cli._options`), and writes
``report.html`` (opens offline), ``report.md`` and the tidy tables behind every number into
one folder, atomically; prints the answer's first section.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from .. import config
from ._checks import (
    EXIT_OK,
    EXIT_USAGE,
    answer,
    check_out_dir,
    check_role_columns,
    csv_list,
    direction,
    held_levels,
    non_negative,
    probability,
    read_table,
    say,
)
from ._options import (
    add_kernel,
    add_max_seconds,
    add_missing_choice,
    add_missing_policy,
    add_plan_options,
    add_rep,
    add_seed,
    add_table_roles,
    subcommand,
)

__all__ = ["add_parser", "cmd_report"]


class _Usage(Exception):
    """A table without its roles: a usage error (exit code 2, as argparse's)."""


def _table_and_roles(args: argparse.Namespace) -> tuple[Any, dict, str | None]:
    """Read RESULTS: a tidy table with its roles, a per-item table, or an eval output.

    Returns the table, the roles for :func:`genexpy_nb.report` and, for an evaluation
    output read by its content, the words on where it came from.
    """
    from pathlib import Path

    from .._validation import GenexpyInputError
    from ..io.boards import board_from_table, detect_format, read_board

    tidy = args.alternatives and args.target and (args.generalize or args.items)
    path = Path(args.results).expanduser()
    board = None
    if not tidy and (path.is_dir() or detect_format(path) is not None):
        board = read_board(path, alternatives=args.alternatives, target=args.target,
                           items=args.items, runs=args.runs, tasks=args.tasks,
                           higher_is_better=args.higher_is_better)
    elif args.items and not (args.alternatives and args.target
                             and args.higher_is_better is not None):
        board = board_from_table(read_table(args.results, args),
                                 alternatives=args.alternatives,
                                 target=args.target, items=args.items, runs=args.runs,
                                 tasks=args.tasks, higher_is_better=args.higher_is_better)
    if board is not None:
        roles = dict(alternatives=board.alternatives, target=board.target,
                     higher_is_better=board.higher_is_better)
        if board.kind == "per-item":
            roles |= dict(items=board.items, runs=board.runs, tasks=board.tasks)
        else:
            roles |= dict(generalize=board.generalize,
                          average_over=[board.runs] if board.runs else None)
        metrics = board.metrics
        said = [board.source + ":"] + board.notes
        if metrics.height:
            counts = metrics.group_by("metric", maintain_order=True).len()
            said.append("One metric per task: " + ", ".join(
                f"{m} ({n} task{'s' if n != 1 else ''})" for m, n in counts.iter_rows()) + ".")
        return board.frame, roles, " ".join(said)
    missing = [flag for flag, v in (("--alternatives", args.alternatives),
                                    ("--target", args.target)) if not v]
    if not (args.generalize or args.items):
        missing.append("--generalize (or --items for a per-item table)")
    if args.higher_is_better is None:
        missing.append("--higher-is-better or --lower-is-better")
    if missing:  # a usage error, as argparse's for a required option (exit code 2)
        raise _Usage(f"{args.results!r} is not an evaluation output read by its content, "
                     f"so it is a results table: the following arguments are required: "
                     f"{', '.join(missing)}")
    df = read_table(args.results, args)
    check_role_columns(df, args)
    for flag, col in (("--items", args.items), ("--runs", args.runs), ("--tasks", args.tasks)):
        if col and col not in df.columns:
            raise GenexpyInputError(f"{flag}: column {col!r} not in the table; its columns "
                                    f"are {df.columns[:20]}.")
    roles = dict(alternatives=args.alternatives, target=args.target,
                 generalize=csv_list(args.generalize) or None,
                 higher_is_better=direction(args), design=csv_list(args.design),
                 average_over=csv_list(args.average_over) or None,
                 held_constant=held_levels(df, args.held_constant or []),
                 items=args.items, runs=args.runs, tasks=args.tasks)
    return df, roles, None


def cmd_report(args: argparse.Namespace) -> int:
    """Run ``genexpy-nb report``: table or eval output -> :func:`genexpy_nb.report` -> folder."""
    out = check_out_dir(args.out, inputs=[args.results])
    try:
        df, roles, source = _table_and_roles(args)
    except _Usage as exc:
        say(f"usage: genexpy-nb report RESULTS [options]\ngenexpy-nb report: error: {exc}")
        return EXIT_USAGE
    from ..answers.report_page import report

    t0 = time.perf_counter()
    page = report(
        df, **roles, tol_missing_alternatives=args.tol_missing_alternatives,
        tol_missing_conditions=args.tol_missing_conditions,
        invalid_target=args.invalid_target, alpha=args.alpha, delta=args.delta,
        kernels=args.kernel, rep=args.rep, seed=args.seed, progress=not args.quiet,
        rope=args.rope, missing=args.missing, normalize=args.normalize,
        imputed=args.imputed, source=source, sequential=args.sequential,
        assurance=args.assurance)
    paths = page.save(out)
    if not args.quiet:
        from ..answers.conclusions import conclusions_summary

        if source:
            say(f"read {args.results}: {source}")
        say(page.policy)
        say(page.scale)
        answer(conclusions_summary(page.conclusions, unit=page.unit,
                                   held_constant=page.study.held_constant,
                                   tiers=page.tiers).to_text())
        from ..answers.numbers import seconds

        say(f"wrote {len(paths)} files to {out}/ in {seconds(time.perf_counter() - t0)}: "
            "open report.html (it works offline)")
    return EXIT_OK


@subcommand("report",
            help="the whole answer for a study, as one page (HTML, Markdown, tidy tables)",
            description="One page per study: do its conclusions hold, what to run next, the "
                        "classical rank tests with their CD diagrams, how sure each place is, "
                        "the paper's n* per research question with its no-signal baseline, and "
                        "what the missing-results policy did (every missing result by name). "
                        "Writes report.html (opens offline), report.md and the tidy tables "
                        "behind every number. RESULTS is a tidy results table with its roles, or "
                        "an evaluation output read by its content: an lm-evaluation-harness "
                        "results folder (0.3, 0.4) or its --log_samples files, inspect_ai JSON "
                        "logs, Every Eval Ever files, tsml results, or a per-item board (JSONL, "
                        "CSV: a model, an item and a score column; item example_id, doc_id, "
                        "question_id, ...; score pass1, pass@1, acc, correct, score, ...; task "
                        "benchmark_id, task).\n\nexamples:\n  genexpy-nb report results.csv "
                        "--alternatives model --target accuracy --generalize dataset \\\n    "
                        "--higher-is-better --average-over seed --out study_report\n  "
                        "genexpy-nb report lm_eval_output/ --out study_report\n  "
                        "genexpy-nb report board.jsonl --items example_id --out study_report")
def add_parser(r: argparse.ArgumentParser) -> None:
    """Add the options of ``genexpy-nb report``."""
    add_table_roles(r, required=False)
    r.add_argument("--items", default=None, metavar="COLUMN",
                   help="per-item rows (an LLM or agent benchmark): the column naming the item "
                        "(question, sample); the items, within their tasks, are then the "
                        "conditions (no --generalize needed) and the page adds the noise "
                        "budget over runs, items and tasks, the tie groups and what to run "
                        "next. An evaluation output (lm-evaluation-harness, inspect_ai, "
                        "Every Eval Ever, per-item JSONL/CSV) is read by its content")
    r.add_argument("--runs", default=None, metavar="COLUMN",
                   help="with --items: the column naming an item's repeated run (seed, "
                        "sample, epoch), averaged per item")
    r.add_argument("--tasks", default=None, metavar="COLUMN",
                   help="with --items: the column naming the task an item belongs to")
    add_kernel(r, help="research question of n* (repeatable): jaccard[:k=K], mallows[:nu=V], "
                       "borda[:ALTERNATIVE], rbf[:gamma=V]; default: jaccard:k=1 and mallows")
    r.add_argument("--alpha", type=probability, default=config.HEADLINE_ALPHA,
                   help="desired generalizability alpha* (1 - alpha* is also the "
                        "significance level of the rank tests)")
    r.add_argument("--delta", type=float, default=config.HEADLINE_DELTA,
                   help="similarity threshold delta* of n*")
    add_rep(r, help="resampled pairs of studies per sample size of n*")
    from ..answers.report_page import ROPE_UNITS

    r.add_argument("--bayesian-rope", dest="rope", type=non_negative, default=None,
                   metavar="R",
                   help="also the Bayesian signed-rank test (Benavoli et al. 2017) of every "
                        "alternative against the best, with a region of practical "
                        f"equivalence of +-R {ROPE_UNITS}; without it the page runs no "
                        "Bayesian test")
    r.add_argument("--normalize", choices=["auto", "none", "minmax"], default="auto",
                   help="the scale of every number that crosses conditions (aggregates, "
                        "rope, effect sizes, runs against conditions), one for the study: "
                        "raw, or min-max normalised per condition (0 = its lowest, 1 = its "
                        "highest); auto normalises when the conditions' score ranges differ "
                        "by more than a factor of 100. Said at the top of the page; ranks "
                        "are scale-free")
    r.add_argument("--imputed", default=None, metavar="COLUMN",
                   help="boolean column marking the results the table's source imputed "
                        "(failed runs it filled in): they count as failed runs under "
                        "--missing, listed by name on the page")
    add_plan_options(r)
    add_seed(r)
    add_missing_policy(r, invalid_help="rows with a null/NaN/inf target (failed runs): refuse, "
                                       "or drop them (they then count as missing results, "
                                       "listed by name)")
    add_missing_choice(r)
    r.add_argument("--out", default="study_report",
                   help="output folder: report.html, report.md and the tables (written "
                        "atomically; a folder of other files is never touched)")
    add_max_seconds(r)
