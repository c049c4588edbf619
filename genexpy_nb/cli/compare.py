"""``genexpy-nb compare``: rank tests over blocks, a CD diagram and a written report.

Friedman's test (or Skillings-Mack's when results are missing), post-hoc tests, mean ranks
and a critical-difference diagram over the same blocks
(:func:`genexpy_nb.significance.compare`); optionally the Bayesian signed-rank test and the
aggregates with bootstrap intervals. Prints the answer; writes the tables, ``report.md``,
``mean_ranks.tex`` and the diagram into one folder, atomically.
"""

from __future__ import annotations

import argparse
from typing import Any

from .._validation import GenexpyInputError
from ._checks import (
    EXIT_OK,
    answer,
    check_out_dir,
    csv_list,
    direction,
    held_levels,
    non_negative,
    positive_int,
    probability,
    read_table,
    say,
)
from ._options import (
    add_alternatives_target,
    add_blocks,
    add_direction,
    add_held_constant,
    add_max_seconds,
    add_missing_choice,
    add_missing_policy,
    add_quiet,
    add_results,
    add_seed,
)

__all__ = ["add_parser", "cmd_compare"]


def cmd_compare(args: argparse.Namespace) -> int:
    """Argparse -> :func:`genexpy_nb.significance.compare` -> files (and the answer)."""
    import warnings

    figs = csv_list(args.figures)
    bad = [f for f in figs if f not in ("html", "png", "svg", "pdf")]
    if bad:
        raise GenexpyInputError(f"--figures: unsupported format(s) {bad}; use html, png, svg "
                                "or pdf (comma-separated), or '' for none.")
    out = check_out_dir(args.out, inputs=[args.results])
    df = read_table(args.results, args)
    from .._words import command_line_words
    from ..answers.compare import compare

    with command_line_words(), warnings.catch_warnings(record=True):
        # warnings (degenerate data, ...) are in the result's notes, printed below
        warnings.simplefilter("always")
        res = compare(
            df, alternatives=args.alternatives, target=args.target,
            blocks=csv_list(args.blocks), higher_is_better=direction(args),
            average_over=csv_list(args.average_over), posthoc=args.posthoc,
            p_adjust=None if args.p_adjust.lower() == "none" else args.p_adjust,
            alpha=args.alpha, tol_missing_alternatives=args.tol_missing_alternatives,
            tol_missing_conditions=args.tol_missing_conditions,
            invalid_target=args.invalid_target,
            require_complete_replicates=args.require_complete_replicates, ties=args.ties,
            control=args.control, top=args.top,
            held_constant=held_levels(df, args.held_constant or []) or None,
            missing=args.missing, normalize=args.normalize)
        from ..answers.beyond_sections import (
            aggregates_section,
            bayesian_section,
            rank_sets_section,
            summary_lines,
        )
        from ..answers.paper_table import paper_table_section

        res = res.with_section(paper_table_section(res))
        if args.bayesian_rope is not None:
            res = res.with_section(bayesian_section(res, rope=args.bayesian_rope))
        if args.aggregates:
            res = res.with_section(aggregates_section(res))
        if args.rank_sets:
            res = res.with_section(rank_sets_section(res, level=1 - args.alpha, seed=args.seed))
        if not args.quiet:
            answer("\n".join([res.summary(), *summary_lines(res)]))
        from ..charts.cd_figure import save_comparison

        paths = save_comparison(res, out, figures=figs, format=args.format)
    if not args.quiet:
        say(f"wrote {', '.join(p.name for p in paths)} to {out}/")
    return EXIT_OK


def add_parser(sub: Any, formatter: type) -> argparse.ArgumentParser:
    """Add the ``compare`` subcommand and its parser (:data:`genexpy_nb.cli.COMMANDS`)."""
    c = sub.add_parser(
        "compare", formatter_class=formatter,
        help="rank tests over blocks: omnibus test, post-hoc tests, CD diagram, report",
        description="Is any alternative better than another across the blocks (datasets, "
                    "tasks)? The missing-results policy of nstar first (the same "
                    "--tol-missing-*, --invalid-target and --missing: a failed run is the "
                    "worst of its block), then Friedman's test (or Skillings-Mack's with "
                    "--missing available: each block ranks the alternatives that have a "
                    "result there), a post-hoc test with its "
                    "correction, mean ranks and a critical-difference diagram, all over the "
                    "same blocks. Prints the answer; writes the tables, report.md (a "
                    "paragraph a paper can quote, a table a paper can use), mean_ranks.tex "
                    "(booktabs: the mean ranks, then per alternative the mean rank, median "
                    "and MAD of the score, Cliff's delta against the best with its "
                    "magnitude, the groups and the CD) and the diagram.\n\nexample:\n  "
                    "genexpy-nb compare results.csv --alternatives "
                    "model --target accuracy --blocks dataset \\\n    --average-over seed "
                    "--higher-is-better --out comparison")
    add_results(c)
    add_alternatives_target(c)
    add_blocks(c)
    add_direction(c)
    c.add_argument("--average-over", default="",
                   help="replicate columns averaged first (e.g. seed,fold), comma-separated")
    add_held_constant(c)
    c.add_argument("--require-complete-replicates", action="store_true",
                   help="refuse results averaged over fewer replicates than the others")
    c.add_argument("--posthoc", choices=["auto", "conover", "nemenyi", "siegel"],
                   default="auto",
                   help="post-hoc test: Conover-Iman (complete blocks), Nemenyi, or the "
                        "Siegel-Castellan z-test of mean ranks; auto: Conover-Iman on "
                        "complete blocks, the z-test when results are missing")
    c.add_argument("--p-adjust", default="holm",
                   help="correction of the post-hoc p-values (holm, bonferroni, fdr_bh, ..., "
                        "or none); ignored by Nemenyi's test")
    c.add_argument("--control", default=None, metavar="ALTERNATIVE",
                   help="compare every alternative with this one only (k - 1 tests, "
                        "corrected as a family of k - 1)")
    c.add_argument("--alpha", type=probability, default=0.05, help="significance level")
    c.add_argument("--bayesian-rope", type=non_negative, default=None, metavar="R",
                   help="also the Bayesian signed-rank test (Benavoli et al. 2017) of every "
                        "alternative against the best (or --control), with a region of "
                        "practical equivalence of +-R on the scores --normalize chose "
                        "(target units, or 0-1 per block)")
    c.add_argument("--aggregates", action="store_true",
                   help="also IQM, mean and median per alternative with bootstrap intervals "
                        "over the blocks (Agarwal et al. 2021)")
    c.add_argument("--rank-sets", action="store_true",
                   help="also the places each alternative can hold, for all at once, and "
                        "the tiers (simultaneous rank sets at level 1 - alpha; Mogstad, "
                        "Romano, Shaikh & Wilhelm 2023): printed, in report.md and in "
                        "rank_sets.<format>")
    add_seed(c, help="seed of the rank sets' bootstrap (same seed, same sets)")
    c.add_argument("--ties", choices=["average", "min"], default="average",
                   help="mean ranks of tied alternatives: the mean of the ranks they occupy, "
                        "or the lowest (the tests use mid-ranks either way)")
    add_missing_policy(c, unit="block", complete_note=" (0: complete blocks only)",
                       invalid_help="rows with an empty/NaN/inf target (failed runs): refuse, "
                                    "or drop them (they then count as missing results)")
    add_missing_choice(c, unit="block")
    c.add_argument("--normalize", choices=["auto", "none", "minmax"], default="auto",
                   help="scores of --aggregates, --bayesian-rope and the effect sizes: raw, "
                        "or min-max normalised per block (0 = its lowest, 1 = its highest); "
                        "auto normalises when the blocks' score ranges differ by more than a "
                        "factor of 100. Said in the answer; the rank tests are scale-free")
    c.add_argument("--top", type=positive_int, default=None, metavar="K",
                   help="the diagram draws the K best alternatives, the rest summarised "
                        "(default: all)")
    c.add_argument("--figures", default="html,png",
                   help="formats of the critical-difference diagram: html, png, svg, pdf "
                        "(comma-separated; '' for none)")
    c.add_argument("--format", choices=["csv", "parquet", "tsv", "json"], default="csv",
                   help="format of the tables")
    c.add_argument("--out", default="comparison",
                   help="output folder: report.md, mean_ranks.tex, the omnibus, posthoc, "
                        "mean_ranks and missing_results tables, cd_diagram figures (written "
                        "atomically)")
    add_quiet(c)
    add_max_seconds(c)
    c.set_defaults(func=cmd_compare)
    return c
