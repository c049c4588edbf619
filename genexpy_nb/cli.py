"""Command-line entry point: ``genexpy-nb``.

Subcommands:

- ``genexpy-nb demo`` - the example study shipped with the package, analysed end to end
  (analysis, planning, figures), offline;
- ``genexpy-nb nstar TABLE ...`` - n* for every configuration of your own results table;
- ``genexpy-nb seeds POOL.npz`` - alpha-hat, accuracy, churn and ECE of candidate models
  against a reference pool trained with other seeds;
- ``genexpy-nb compare TABLE ...`` - Friedman (or Skillings-Mack when results are missing),
  post-hoc tests, a critical-difference diagram and a written report
  (:func:`genexpy_nb.significance.compare`).

Exit codes scripts can rely on: 0 success; 1 an input error (a one-line message on stderr,
never a traceback: unreadable or empty table, unknown column, unusable output path, ...),
checked before the analysis runs; 2 a usage error (unknown or malformed option); 130
interrupted (Ctrl-C); 3 an unexpected error, i.e. a bug (one line with a hint; ``--debug``
or ``GENEXPY_NB_DEBUG=1`` shows the traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from . import config
from ._validation import GenexpyInputError
from .cli_checks import (
    add_direction,
    alpha_list,
    caller_words,
    check_out_dir,
    check_out_file,
    command_flags,
    csv_list,
    direction,
    fraction,
    kernel_question,
    level_pair,
    no_nulls,
    number_list,
    one_line,
    positive_int,
    probability,
    read_table,
    require_options,
    say,
    signals_as_interrupts,
)
from .cli_conclusions import (
    add_conclusion_options,
    answer_thresholds,
    conclusions_out,
    write_conclusions,
)
from .cli_report import add_report_parser

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: an unexpected error (a bug): one line and a hint, the traceback with --debug
EXIT_BUG = 3


# ---- nstar -----------------------------------------------------------------------------


def _coerce_held(df, held: list[tuple[str, str]]) -> dict:
    """Levels typed on the command line are strings: cast them to the column's type."""
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
    from ._io import atomic_dir
    from .charts import generalizability as ch
    from .generalizability.planner import plan

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


def cmd_nstar(args: argparse.Namespace) -> int:
    """Run ``genexpy-nb nstar``: n* of a results table, written to ``--out``.

    The study is checked before the analysis runs; the answer is printed
    (:func:`~genexpy_nb.nstar_summary`), the charts written to ``--figures`` if asked for.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of the command.

    Returns
    -------
    int
        The exit code: 0 (errors are raised; :func:`main` turns them into exit codes).
    """
    from ._io import write_frame

    out = check_out_file(args.out, inputs=[args.results])
    figures = _figure_dir(args.figures, [args.results], args.out)
    s_alpha, s_delta = answer_thresholds(args)
    concl_path = conclusions_out(args, out, figures)
    df = read_table(args.results)
    held = args.held_constant or []
    require_options(df, {"--alternatives": [args.alternatives], "--target": [args.target],
                  "--generalize": csv_list(args.generalize), "--design": csv_list(args.design),
                  "--average-over": csv_list(args.average_over),
                  "--held-constant": [c for c, _ in held]})

    no_nulls(df, [args.alternatives, *csv_list(args.generalize), *csv_list(args.design),
                   *csv_list(args.average_over)])

    from .generalizability import analyze
    from .generalizability.kernels import Jaccard, Mallows
    from .study import Study

    kernels = args.kernel or [Jaccard(k=1), Mallows()]
    study = Study(
        df, alternatives=args.alternatives, target=args.target,
        generalize=csv_list(args.generalize), design=csv_list(args.design),
        average_over=csv_list(args.average_over), held_constant=_coerce_held(df, held),
        higher_is_better=direction(args),
        tol_missing_alternatives=args.tol_missing_alternatives,
        tol_missing_conditions=args.tol_missing_conditions,
        invalid_target=args.invalid_target,
    )
    if not args.quiet:
        from .summary import study_words

        say(f"study: {study_words(study)}")
        say("\n".join(caller_words(ln) for ln in str(study.report).splitlines()))
    t0 = time.perf_counter()
    res = analyze(study, kernels, alphas=args.alpha, deltas=args.delta,
                  methods=csv_list(args.methods), rep=args.rep, seed=args.seed,
                  n_jobs=args.n_jobs, progress=not args.quiet)
    if not args.quiet:
        say(f"analysed {len(study)} configuration{'s' if len(study) != 1 else ''} x "
             f"{len(kernels)} research question{'s' if len(kernels) != 1 else ''} in "
             f"{time.perf_counter() - t0:.1f} s")
    write_frame(res, out)
    lead = write_conclusions(study, args, concl_path, s_alpha, s_delta)
    from .summary import nstar_summary

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
                print(lead.to_text())
            say(f"note: only the distribution-free bound was computed (--methods bound): a "
                 f"worst case, never a verdict; wrote {res.height} rows to {out}")
        else:
            from .summary_conclusions import condition_word

            print(nstar_summary(res, s_alpha, s_delta, where=str(out), conclusions=lead,
                                unit=condition_word(study)).to_text())
    return EXIT_OK


# ---- seeds -----------------------------------------------------------------------------


def _load_gaps(path: str, n_reference: int | None):
    """Read (reference gaps, candidate gaps, labels, description) from a pool or a plain .npz."""
    from ._io import read_npz
    from .seedpools.pools import PER_MODEL_KEYS

    p = Path(path).expanduser()
    if not p.exists() and not p.is_symlink():
        from .data import shipped_path

        try:
            p = shipped_path(path) if p.name == path else p
        except GenexpyInputError:
            pass
        if not p.is_file():
            raise GenexpyInputError(f"pool file {path!r} not found (neither a path nor a pool "
                                    "shipped with the package, e.g. cnn_digits_both.npz).")
    if p.suffix.lower() != ".npz":
        if p.is_dir():
            raise GenexpyInputError(f"{path!r} is a folder; give an .npz file.")
        raise GenexpyInputError(f"{path!r}: expected an .npz file (NumPy archive).")
    import zipfile

    read_npz(p, "pool file", keys=())  # a readable archive (a clear error otherwise)
    with zipfile.ZipFile(p) as zf:
        files = {n[:-4] if n.endswith(".npy") else n for n in zf.namelist()}
    if "meta" in files and set(PER_MODEL_KEYS) <= files:
        from .seedpools.pools import load_pool

        pool = load_pool(p)
        ref, cand = pool.split(n_reference)
        return ref, cand, pool.labels, f"pool {p.name} ({pool.n_models} models)"
    # read within bounds (declared shapes, compression, memory); only what is used
    arrays = read_npz(p, "pool file", keys=("gaps", "reference", "candidates", "labels"))
    if "labels" not in arrays:
        raise GenexpyInputError(
            f"{path!r} has no 'labels' array (the 0/1 test labels, for accuracy and ECE). "
            f"Its arrays: {sorted(files)}. Save it as np.savez(f, gaps=..., labels=...) or "
            "np.savez(f, reference=..., candidates=..., labels=...).")
    if "reference" in arrays and "candidates" in arrays:
        if n_reference is not None:
            raise GenexpyInputError("--n-reference splits a 'gaps' array; this file already "
                                    "has 'reference' and 'candidates': leave it out.")
        return arrays["reference"], arrays["candidates"], arrays["labels"], p.name
    if "gaps" in arrays:
        g = arrays["gaps"]
        if g.ndim != 2:
            raise GenexpyInputError(f"{path!r}: 'gaps' must be a 2-d array (models x test "
                                    f"points), got shape {g.shape}.")
        m = g.shape[0]
        n_ref = m // 2 if n_reference is None else n_reference
        if not 2 <= n_ref < m:
            raise GenexpyInputError(
                f"--n-reference {n_ref}: the file has {m} models; the reference needs at least "
                "2 and at least one must remain as candidate.")
        return g[:n_ref], g[n_ref:], arrays["labels"], f"{p.name} ({m} models)"
    raise GenexpyInputError(
        f"{path!r} holds neither 'gaps' nor 'reference' + 'candidates' arrays (it has "
        f"{sorted(files)}).")


def cmd_seeds(args: argparse.Namespace) -> int:
    """Run ``genexpy-nb seeds``: alpha-hat and the other numbers of each candidate model.

    The gaps of a pool (or a plain ``.npz``) are checked before the bootstrap runs; the
    report is written to ``--out`` and summarised (:func:`~genexpy_nb.seeds_summary`).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of the command.

    Returns
    -------
    int
        The exit code: 0 (errors are raised; :func:`main` turns them into exit codes).
    """
    import polars as pl

    from ._io import write_frame

    out = check_out_file(args.out, inputs=[args.pool])
    ref, cand, labels, what = _load_gaps(args.pool, args.n_reference)
    from .variability import candidate_report
    from .variability._checks import as_candidates, as_gaps, as_labels

    # checked here, before the bootstrap runs
    ref_checked = as_gaps("reference gaps", ref, ndim=(2,))
    cand_checked = as_candidates("candidate gaps", cand, ref_checked.shape[1])
    as_labels(labels, ref_checked.shape[1])
    if (ref_checked.min() >= 0.0 and ref_checked.max() <= 1.0
            and cand_checked.min() >= 0.0 and cand_checked.max() <= 1.0):
        raise GenexpyInputError(
            "every value lies in [0, 1]: these look like probabilities, not logit gaps "
            "(logit of class 1 minus logit of class 0, negative = class 0). Convert them: "
            "gaps = log(p / (1 - p)).")
    from .variability.robust_ks import check_alpha_hat_size

    check_alpha_hat_size(ref_checked.shape[1], cand_checked.shape[0], args.B)  # upfront
    n_ref = ref_checked.shape[0]
    if not args.quiet:
        say(f"{what}: {n_ref} reference models, {cand_checked.shape[0]} candidates, "
             f"{ref_checked.shape[1]} test points")
    t0 = time.perf_counter()
    rep = candidate_report(ref_checked, cand_checked, labels, B=args.B, seed=args.seed,
                           n_jobs=args.n_jobs, progress=not args.quiet,
                           clip=None if args.no_clip else args.clip, bins=args.bins,
                           ensemble=args.ensemble)
    rep = rep.with_columns((pl.col("candidate") + n_ref).alias("model")).select(
        "model", pl.all().exclude("model"))
    write_frame(rep, out)
    if not args.quiet:
        from .summary import seeds_summary

        say(f"alpha-hat of {rep.height} candidate{'s' if rep.height != 1 else ''} in "
             f"{time.perf_counter() - t0:.1f} s")
        print(seeds_summary(rep, where=str(out)).to_text())
    return EXIT_OK


# ---- compare ---------------------------------------------------------------------------


def cmd_compare(args: argparse.Namespace) -> int:
    """Argparse -> :func:`genexpy_nb.significance.compare` -> files (and the answer)."""
    import warnings


    figs = csv_list(args.figures)
    bad = [f for f in figs if f not in ("html", "png", "svg", "pdf")]
    if bad:
        raise GenexpyInputError(f"--figures: unsupported format(s) {bad}; use html, png, svg "
                                "or pdf (comma-separated), or '' for none.")
    out = check_out_dir(args.out, inputs=[args.results])
    df = read_table(args.results)
    from ._words import command_line_words
    from .significance.compare import compare

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
            control=args.control, top=args.top)
        if args.bayesian_rope is not None or args.aggregates:
            from .significance.beyond_sections import aggregates_section, bayesian_section

            if args.bayesian_rope is not None:
                res = res.with_section(bayesian_section(res, rope=args.bayesian_rope))
            if args.aggregates:
                res = res.with_section(aggregates_section(res))
        if not args.quiet:
            print(res.summary())
        from .charts.cd_figure import save_comparison

        paths = save_comparison(res, out, figures=figs, format=args.format)
    if not args.quiet:
        say(f"wrote {', '.join(p.name for p in paths)} to {out}/")
    return EXIT_OK


# ---- demo ------------------------------------------------------------------------------


def cmd_demo(args: argparse.Namespace) -> int:
    """Run ``genexpy-nb demo``: the worked example (:func:`~genexpy_nb.example.demo.run_demo`).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of the command.

    Returns
    -------
    int
        The exit code: 0 (errors are raised; :func:`main` turns them into exit codes).
    """
    check_out_dir(args.out)
    from .example.demo import run_demo

    run_demo(out_dir=Path(args.out), rep=args.rep, seed=args.seed, progress=not args.quiet)
    return EXIT_OK


# ---- precompile --------------------------------------------------------------------------


def cmd_precompile(args: argparse.Namespace) -> int:
    """Run ``genexpy-nb precompile``: compile the numba kernels into the disk cache.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of the command.

    Returns
    -------
    int
        The exit code: 0 (errors are raised; :func:`main` turns them into exit codes).
    """
    from .precompile import precompile

    t = time.perf_counter()
    res = precompile(progress=not args.quiet)
    for row in res.iter_rows(named=True):
        how = (f"{row['compiled']} compiled" if row["compiled"] else
               f"{row['from_cache']} already in the cache" if row["from_cache"] else
               "already loaded")
        nf = row["functions"]
        print(f"{row['kernels']:26s} {nf} function{'s' if nf != 1 else ''}, {how} "
              f"({row['seconds']:.1f} s)")
    print(f"done in {time.perf_counter() - t:.1f} s: first calls in later sessions load "
          "these kernels instead of compiling them")
    print(f"numba's cache of these kernels: {config.numba_cache_dir()}")
    return EXIT_OK


# ---- parser ----------------------------------------------------------------------------


class _Formatter(argparse.HelpFormatter):
    """Show each option's default after its help; keep paragraphs and example lines.

    Descriptions are wrapped by paragraph; example lines (indented by two spaces) stay as is.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if ("%(default)" not in text and not action.required and action.default is not None
                and action.default is not argparse.SUPPRESS and action.option_strings
                and action.nargs != 0):  # flags (store_true/false) have no value to show
            default = action.default
            if isinstance(default, (list, tuple)):
                default = ",".join(map(str, default))
            if default == "":
                default = "none"
            text += f" (default: {default})"
        return text

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        out = []
        for para in text.split("\n\n"):
            lines = para.split("\n")
            head = [ln for ln in lines if not ln.startswith("  ")]
            keep = [ln for ln in lines if ln.startswith("  ")]
            if head:
                out.append(textwrap.fill(" ".join(head), width, initial_indent=indent,
                                         subsequent_indent=indent))
            out.extend(indent + ln for ln in keep)
            out.append("")
        return "\n".join(out).rstrip()


def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version

        return version("genexpy_nb")
    except PackageNotFoundError:  # a source checkout on PYTHONPATH
        from . import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of ``genexpy-nb`` (every option documented, defaults shown).

    Returns
    -------
    argparse.ArgumentParser
        The parser, with one sub-command per command.
    """
    p = argparse.ArgumentParser(
        prog="genexpy-nb", formatter_class=_Formatter,
        description="Will the results of your ML study hold up? Generalizability of "
                    "experimental studies, seed variability, significance tests.",
        epilog="exit codes: 0 success, 1 input error (one-line message), 2 usage error, "
               "3 unexpected error (a bug; --debug shows its traceback), 130 interrupted",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    p.add_argument("--debug", action="store_true",
                   help="show the traceback of an unexpected error (also GENEXPY_NB_DEBUG=1)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    d = sub.add_parser("demo", formatter_class=_Formatter,
                       help="the shipped example study, analysed end to end, offline",
                       description="Analyse the example study shipped with the package (8 "
                                   "classifiers on 80 datasets) end to end and write tables "
                                   "and figures to a folder.")
    d.add_argument("--out", default="genexpy_demo",
                   help="output folder (written atomically; a folder written by an earlier "
                        "run is replaced, a folder of other files is never touched)")
    d.add_argument("--rep", type=positive_int, default=config.REP,
                   help="resampled pairs of studies per sample size")
    d.add_argument("--seed", type=int, default=0, help="random seed")
    d.add_argument("--quiet", action="store_true", help="no progress bars")
    d.set_defaults(func=cmd_demo)

    pc = sub.add_parser(
        "precompile", formatter_class=_Formatter,
        help="compile the numerical kernels once, after installing",
        description="Compile the numba kernels that large studies and large alpha-hat "
                    "calls use into numba's disk cache (10-20 s on a quiet machine, "
                    "once per installation), so that no first call in a notebook pauses to "
                    "compile. "
                    "Smaller work runs on NumPy and needs none of this.")
    pc.add_argument("--quiet", action="store_true", help="no progress bar")
    pc.set_defaults(func=cmd_precompile)

    q = sub.add_parser(
        "nstar", formatter_class=_Formatter,
        help="do a study's conclusions hold, and n* for every configuration",
        description="Do your study's conclusions hold (the winner, the top group, every "
                    "pair, the order), and how many more experimental conditions (datasets, "
                    "...) would settle the others? Then the paper's n* per research "
                    "question: how consistent the per-condition rankings are.\n\nexample:\n  "
                    "genexpy-nb nstar results.parquet --alternatives encoder --target cv_score "
                    "--higher-is-better \\\n    --generalize dataset --design model,tuning "
                    "--kernel jaccard:k=1 --kernel borda:OHE --out nstar.parquet")
    q.add_argument("results", help="tidy results table: .parquet, .csv or .tsv")
    q.add_argument("--alternatives", required=True, help="column of the compared methods")
    q.add_argument("--target", required=True, help="numeric result column")
    add_direction(q)
    q.add_argument("--generalize", required=True,
                   help="generalizability factor(s), comma-separated (e.g. dataset)")
    q.add_argument("--design", default="", help="design factors, comma-separated")
    q.add_argument("--average-over", default="",
                   help="stochastic factors averaged out first (e.g. seed,fold)")
    q.add_argument("--held-constant", action="append", metavar="COLUMN=LEVEL", type=level_pair,
                   help="fix a factor to one level (repeatable)")
    q.add_argument("--kernel", action="append", type=kernel_question, metavar="QUESTION",
                   help="research question (repeatable): jaccard[:k=K], mallows[:nu=V], "
                        "borda[:ALTERNATIVE] (default: the best on average), rbf[:gamma=V]; "
                        "default: jaccard:k=1 and mallows")
    q.add_argument("--alpha", type=alpha_list, default=list(config.ALPHAS),
                   help="desired generalizability alpha*, comma-separated")
    q.add_argument("--delta", type=number_list, default=list(config.DELTAS),
                   help="similarity threshold delta*, comma-separated")
    q.add_argument("--methods", default="resample,approx,bound",
                   help="estimates of n*: resample, approx, approx_weighted, bound "
                        "(comma-separated)")
    q.add_argument("--rep", type=positive_int, default=config.REP,
                   help="resampled pairs of studies per sample size")
    q.add_argument("--seed", type=int, default=0, help="random seed")
    q.add_argument("--n-jobs", type=positive_int, default=None,
                   help="threads (default: all cores)")
    q.add_argument("--tol-missing-alternatives", type=fraction,
                   default=config.TOL_MISSING_ALTERNATIVES,
                   help="drop a condition missing more than this share of the alternatives")
    q.add_argument("--tol-missing-conditions", type=fraction,
                   default=config.TOL_MISSING_CONDITIONS,
                   help="then drop an alternative missing in more than this share of the "
                        "conditions")
    q.add_argument("--invalid-target", choices=["raise", "drop"], default="raise",
                   help="rows with a null/NaN/inf target: refuse, or drop them")
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
    q.add_argument("--quiet", action="store_true", help="print nothing but errors")
    q.set_defaults(func=cmd_nstar)

    s = sub.add_parser(
        "seeds", formatter_class=_Formatter,
        help="alpha-hat, accuracy, churn and ECE of models trained with different seeds",
        description="How representative is a model trained with one seed? For every "
                    "candidate model: alpha-hat (trimmed KS test against a reference pool "
                    "of models trained with other seeds), accuracy, churn and ECE.\n\n"
                    "POOL is an .npz file: a pool written by genexpy_nb.seedpools (or the "
                    "name of a shipped one, e.g. cnn_digits_both.npz), or your own arrays "
                    "saved with np.savez(path, gaps=G, labels=y) - G of shape (models, test "
                    "points) holding logit gaps (logit of class 1 minus logit of class 0), "
                    "the first half the reference - or np.savez(path, reference=R, "
                    "candidates=C, labels=y).")
    s.add_argument("pool", metavar="POOL", help="the .npz file of logit gaps and labels")
    s.add_argument("--n-reference", type=positive_int, default=None,
                   help="models in the reference (the first ones); default: half the pool")
    s.add_argument("--B", type=positive_int, default=config.ALPHA_HAT_B,
                   help="bootstrap draws of the reference for alpha-hat")
    s.add_argument("--clip", type=float, default=config.LOGIT_CLIP,
                   help="clip logit gaps to [-CLIP, CLIP] (saturated models)")
    s.add_argument("--no-clip", action="store_true", help="do not clip the gaps")
    s.add_argument("--bins", type=positive_int, default=config.ECE_BINS,
                   help="bins of the expected calibration error")
    s.add_argument("--ensemble", choices=["candidates", "reference"], default="candidates",
                   help="the deep ensemble that churn is measured against")
    s.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap")
    s.add_argument("--n-jobs", type=positive_int, default=None,
                   help="threads (default: all cores)")
    s.add_argument("--out", default="seeds.csv",
                   help="output table, one row per candidate (.csv, .parquet, .tsv or .json)")
    s.add_argument("--quiet", action="store_true", help="print nothing but errors")
    s.set_defaults(func=cmd_seeds)

    c = sub.add_parser(
        "compare", formatter_class=_Formatter,
        help="rank tests over blocks: omnibus test, post-hoc tests, CD diagram, report",
        description="Is any alternative better than another across the blocks (datasets, "
                    "tasks)? The missing-results policy of nstar first (the same "
                    "--tol-missing-* and --invalid-target), then Friedman's test (or "
                    "Skillings-Mack's when results are missing: each block ranks the "
                    "alternatives that have a result there), a post-hoc test with its "
                    "correction, mean ranks and a critical-difference diagram, all over the "
                    "same blocks. Prints the answer; writes the tables, report.md (a "
                    "paragraph a paper can quote), mean_ranks.tex (booktabs) and the "
                    "diagram.\n\nexample:\n  genexpy-nb compare results.csv --alternatives "
                    "model --target accuracy --blocks dataset \\\n    --average-over seed "
                    "--higher-is-better --out comparison")
    c.add_argument("results", help="tidy results table: .parquet, .csv or .tsv")
    c.add_argument("--alternatives", required=True, help="column of the compared methods")
    c.add_argument("--target", required=True, help="numeric result column")
    c.add_argument("--blocks", required=True,
                   help="column(s) defining a block, comma-separated (e.g. dataset; folds "
                        "as blocks are not independent datasets: average them instead)")
    add_direction(c)
    c.add_argument("--average-over", default="",
                   help="replicate columns averaged first (e.g. seed,fold), comma-separated")
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
    c.add_argument("--bayesian-rope", type=float, default=None, metavar="R",
                   help="also the Bayesian signed-rank test (Benavoli et al. 2017) of every "
                        "alternative against the best (or --control), with a region of "
                        "practical equivalence of +-R in the target's units")
    c.add_argument("--aggregates", action="store_true",
                   help="also IQM, mean and median per alternative with bootstrap intervals "
                        "over the blocks (Agarwal et al. 2021)")
    c.add_argument("--ties", choices=["average", "min"], default="average",
                   help="mean ranks of tied alternatives: the mean of the ranks they occupy, "
                        "or the lowest (the tests use mid-ranks either way)")
    c.add_argument("--tol-missing-alternatives", type=fraction,
                   default=config.TOL_MISSING_ALTERNATIVES,
                   help="drop a block missing more than this share of the alternatives (0: "
                        "complete blocks only)")
    c.add_argument("--tol-missing-conditions", type=fraction,
                   default=config.TOL_MISSING_CONDITIONS,
                   help="then drop an alternative missing in more than this share of the "
                        "blocks")
    c.add_argument("--invalid-target", choices=["raise", "drop"], default="raise",
                   help="rows with an empty/NaN/inf target (failed runs): refuse, or drop "
                        "them (they then count as missing results)")
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
    c.add_argument("--quiet", action="store_true", help="print nothing but errors")
    c.set_defaults(func=cmd_compare)
    for sp in (d, pc, q, s, c, add_report_parser(sub, _Formatter)):  # --debug too
        sp.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show the traceback of an unexpected error (a bug)")
    return p


def _export_notes():
    """Report files an export could not write as one-line notes on stderr.

    For example no PNG under ``ulimit -v``; the notes replace Python's warning format.
    """
    import contextlib
    import warnings

    from ._io import ExportSkippedWarning

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


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, 1 input error, 2 usage, 130).

    Every message is in command-line words (:mod:`genexpy_nb._words`): the library's
    errors and warnings name the flags (``--invalid-target drop``), not Python's keyword
    arguments (``invalid_target='drop'``), which they keep in a notebook.
    """
    from ._words import command_line_words

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
        from ._numba import no_compile_note

        with command_line_words(command_flags(commands[args.command])), _export_notes(), \
                no_compile_note(getattr(args, "quiet", False)), signals_as_interrupts():
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
        if getattr(args, "debug", False) or os.environ.get("GENEXPY_NB_DEBUG"):
            raise
        say(f"genexpy-nb {args.command}: unexpected error ({type(exc).__name__}: "
             f"{one_line(exc)[:300]}). This is a bug, not your input: run the command "
             "again with --debug (or GENEXPY_NB_DEBUG=1) for the traceback, and report it.")
        return EXIT_BUG


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
