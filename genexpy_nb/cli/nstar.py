"""``genexpy-nb nstar``: do a study's conclusions hold, and n* for every configuration.

``nstar`` answers first what a researcher asks — do the study's conclusions hold (the best,
the top group, every pair, the order; :func:`genexpy_nb.conclusions`) and how many more
conditions would settle the others — writes them to ``conclusions.parquet`` beside ``--out``
(``--conclusions-out``), then prints the paper's n* per research question under the question
it answers (:func:`genexpy_nb.nstar_summary`), and writes the charts to ``--figures`` if
asked for. ``--no-conclusions`` leaves the conclusions out. (The conclusions' options and
writer were ``genexpy_nb.cli_conclusions``.)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from .. import config
from .._validation import GenexpyInputError
from ..answers.numbers import seconds, setting
from ._checks import (
    EXIT_OK,
    alpha_list,
    answer,
    caller_words,
    check_out_dir,
    check_out_file,
    check_role_columns,
    csv_list,
    direction,
    held_levels,
    number_list,
    positive_int,
    probability,
    read_table,
    say,
)
from ._options import (
    INVALID_TARGET_HELP,
    add_alias,
    add_kernel,
    add_max_seconds,
    add_missing_choice,
    add_missing_policy,
    add_n_jobs,
    add_plan_options,
    add_rep,
    add_seed,
    add_table_roles,
    subcommand,
)

__all__ = ["add_parser", "cmd_nstar", "add_conclusion_options", "answer_thresholds",
           "conclusions_out", "write_conclusions"]


def _figure_dir(path: str | None, inputs: list[str], out: str) -> Path | None:
    """Check the folder of ``--figures`` before the analysis runs.

    It must not be the folder of ``--out`` (the figures' folder is replaced as a whole).
    """
    if path is None:
        return None
    folder = Path(path).expanduser().absolute()
    table = Path(out).expanduser().absolute()
    if folder == table or folder in table.parents:
        raise GenexpyInputError(
            f"--figures {path!r} would hold --out {out!r}: the figures' folder is replaced as "
            "a whole; give the figures a folder of their own.")
    return check_out_dir(path, "--figures", inputs)


def _write_nstar_figures(res, folder: Path, alpha: float, delta: float, method: str,
                         quiet: bool) -> list[Path]:
    """Write the charts of an n* frame (HTML that opens offline, PNG, SVG), atomically.

    An export that cannot be written is a note (``save_chart``).
    """
    from .._io import atomic_dir
    from ..charts import generalizability as ch
    from ..generalizability.planner import plan

    charts = {}
    if res["alpha"].n_unique() > 1:
        charts["nstar_by_alpha"] = ch.nstar_boxplots(res, vary="alpha", delta=delta,
                                                     method=method)
    if res["delta"].n_unique() > 1:
        charts["nstar_by_delta"] = ch.nstar_boxplots(res, vary="delta", alpha=alpha,
                                                     method=method)
    if method != "bound":
        charts["deficits"] = ch.deficit_heatmap(plan(res, alpha=alpha, delta=delta,
                                                     method=method))
    written = []
    with atomic_dir(folder) as tmp:
        for name, chart in charts.items():
            for p in ch.save_chart(chart, [tmp / f"{name}.{f}" for f in ("html", "png", "svg")]):
                written.append(folder / Path(p).name)
    if not quiet:
        say(f"wrote the figures {', '.join(sorted(p.name for p in written))} to {folder}/")
    return written


def _apply_missing(study, missing: str):
    """Apply ``--missing`` to the built study: (study, the conditions left out)."""
    import polars as pl

    if missing == "drop-block":
        from ..study._missing import drop_incomplete_conditions

        return drop_incomplete_conditions(study)
    return study, pl.DataFrame(schema={"config_id": pl.UInt32, "condition": pl.String})


def cmd_nstar(args: argparse.Namespace) -> int:
    """Run ``genexpy-nb nstar``: n* of a results table, written to ``--out``.

    The study is checked before the analysis runs; the answer is printed
    (:func:`~genexpy_nb.nstar_summary`), the charts written to ``--figures`` if asked for.
    """
    from .._io import write_frame
    from ..study._missing import refuse_available

    refuse_available(args.missing, "n* (and the conclusions it leads with)")
    out = check_out_file(args.out, inputs=[args.results])
    figures = _figure_dir(args.figures, [args.results], args.out)
    s_alpha, s_delta = answer_thresholds(args)
    concl_path = conclusions_out(args, out, figures)
    df = read_table(args.results, args)
    check_role_columns(df, args)

    from ..generalizability import analyze
    from ..generalizability.kernels import default_questions
    from ..study.core import Study

    kernels = args.kernel or default_questions()
    study = Study(
        df, alternatives=args.alternatives, target=args.target,
        generalize=csv_list(args.generalize), design=csv_list(args.design),
        average_over=csv_list(args.average_over),
        held_constant=held_levels(df, args.held_constant or []),
        higher_is_better=direction(args),
        tol_missing_alternatives=args.tol_missing_alternatives,
        tol_missing_conditions=args.tol_missing_conditions,
        invalid_target=args.invalid_target,
    )
    study, dropped = _apply_missing(study, args.missing)
    if not args.quiet:
        from ..answers.conclusions import condition_word
        from ..answers.summary import study_words
        from ..study._missing import missing_words

        unit = condition_word(study)
        say(f"missing results: {missing_words(args.missing, unit)} (--missing {args.missing})"
            + (f"; {dropped.height} {unit}(s) left out" if args.missing == "drop-block" else ""))
        say(f"study: {study_words(study)}")
        say("\n".join(caller_words(ln) for ln in str(study.report).splitlines()))
    t0 = time.perf_counter()
    res = analyze(study, kernels, alphas=args.alpha, deltas=args.delta,
                  estimators=csv_list(args.estimators), rep=args.rep, seed=args.seed,
                  n_jobs=args.n_jobs, progress=not args.quiet)
    if not args.quiet:
        say(f"analysed {len(study)} configuration{'s' if len(study) != 1 else ''} x "
             f"{len(kernels)} research question{'s' if len(kernels) != 1 else ''} in "
             f"{seconds(time.perf_counter() - t0)}")
    write_frame(res, out)
    lead = write_conclusions(study, args, concl_path, s_alpha, s_delta)
    from ..answers.summary import nstar_summary

    methods = res["method"].unique().to_list()
    only_bound = methods == ["bound"]
    if figures is not None:
        _write_nstar_figures(res, figures, s_alpha, s_delta,
                             "bound" if only_bound else
                             next(m for m in ("resample", "approx_weighted", "approx")
                                  if m in methods), args.quiet)
    if not args.quiet:
        if only_bound:
            if lead is not None:
                answer(lead.to_text())
            say(f"note: only the distribution-free bound was computed (--estimators bound): a "
                 f"worst case, never a verdict; wrote {res.height} rows to {out}")
        else:
            from ..answers.conclusions import condition_word

            answer(nstar_summary(res, s_alpha, s_delta, where=str(out), conclusions=lead,
                                 unit=condition_word(study),
                                 held_constant=study.held_constant).to_text())
    return EXIT_OK


# ---- the conclusions it leads with ------------------------------------------------------


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
        ``--top-k``, ``--margin``, ``--budget``, ``--sequential``, ``--assurance``,
        ``--conclusions-out`` and ``--no-conclusions`` are added.
    """
    p.add_argument("--top-k", type=positive_int, default=3, metavar="K",
                   help="size of the top group whose membership is judged")
    p.add_argument("--margin", type=_positive_number, default=None, metavar="RANKS",
                   help="equivalence margin in mean ranks: pairs shown to differ by less "
                        "are 'tied' (default: none, no pair is called tied)")
    p.add_argument("--budget", type=_positive_number, default=None, metavar="CONDITIONS",
                   help="the most conditions you could run: a conclusion that cannot "
                        "settle within them is 'tied'")
    add_plan_options(p)
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
            say(f"note: no conclusions at alpha* = {setting(alpha)}: two studies agree by chance "
                "half the time, choose --summary-alpha above 0.5")
        return None
    from .._io import write_frame
    from ..answers.conclusions import conclusions_summary, condition_word
    from ..generalizability import conclusions

    frame = conclusions(study, alpha=alpha, delta=delta, top_k=args.top_k, margin=args.margin,
                        budget=args.budget, seed=args.seed,
                        sequential=getattr(args, "sequential", False),
                        assurance=getattr(args, "assurance", 0.8))
    write_frame(frame, path)
    return conclusions_summary(frame, unit=condition_word(study), alpha=alpha,
                               where=str(path), held_constant=study.held_constant)


# ---- the parser ------------------------------------------------------------------------


@subcommand("nstar",
            help="do a study's conclusions hold, and n* for every configuration",
            description="Do your study's conclusions hold (the winner, the top group, every "
                        "pair, the order), and how many more experimental conditions (datasets, "
                        "...) would settle the others? Then the paper's n* per research "
                        "question: how consistent the per-condition rankings are.\n\nexample:\n  "
                        "genexpy-nb nstar results.parquet --alternatives encoder --target cv_score "
                        "--higher-is-better \\\n    --generalize dataset --design model,tuning "
                        "--kernel jaccard:k=1 --kernel borda:OHE --out nstar.parquet")
def add_parser(q: argparse.ArgumentParser) -> None:
    """Add the options of ``genexpy-nb nstar``."""
    add_table_roles(q)
    add_kernel(q, help="research question (repeatable): jaccard[:k=K], mallows[:nu=V], "
                       "borda[:ALTERNATIVE] (default: the best on average), rbf[:gamma=V]; "
                       "default: jaccard:k=1 and mallows")
    q.add_argument("--alpha", type=alpha_list, default=list(config.ALPHAS),
                   help="desired generalizability alpha*, comma-separated")
    q.add_argument("--delta", type=number_list, default=list(config.DELTAS),
                   help="similarity threshold delta*, comma-separated")
    estimators = q.add_argument(
        "--estimators", default="resample,approx,bound",
        help="estimates of n*: resample, approx, approx_weighted, bound (comma-separated)")
    add_alias(q, estimators, "--methods")  # 0.1's name, still accepted
    add_rep(q)
    add_seed(q)
    add_n_jobs(q)
    add_missing_policy(q, invalid_help=INVALID_TARGET_HELP)
    add_missing_choice(q)
    q.add_argument("--out", default="nstar.parquet",
                   help="output table (.parquet, .csv, .tsv or .json)")
    q.add_argument("--summary-alpha", type=probability, default=None, metavar="ALPHA",
                   help="alpha* of the answer printed and of the conclusions (one of --alpha; "
                        "default: 0.95 when computed, else the nearest computed)")
    q.add_argument("--summary-delta", type=float, default=None, metavar="DELTA",
                   help="delta* of the answer printed (one of --delta; default: 0.05 when "
                        "computed, else the nearest computed)")
    q.add_argument("--figures", default=None, metavar="DIR",
                   help="also write the charts to this folder: n* by alpha* and by delta*, "
                        "the deficits n* - N; each as .html (opens offline), .png, .svg")
    add_conclusion_options(q)
    add_max_seconds(q)
