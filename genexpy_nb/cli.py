"""Command-line entry point: ``genexpy-nb``.

``genexpy-nb nstar results.parquet --alternatives encoder --target cv_score
--generalize dataset --design model,tuning,scoring --kernel jaccard --kernel mallows``
runs the whole analysis of SPEC A6 on a parquet/CSV file and writes the tidy frame.

``genexpy-nb demo`` runs the main job: the example study shipped with the package, end to
end (analysis, planning, figures), offline.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import polars as pl

from . import config
from ._validation import GenexpyInputError
from .data import read_results


def _csv_list(text: str | None) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()] if text else []


def _floats(text: str, name: str) -> list[float]:
    try:
        return [float(t) for t in _csv_list(text)]
    except ValueError:
        raise GenexpyInputError(
            f"--{name} must be comma-separated numbers, got {text!r}."
        ) from None


def _write_table(df: pl.DataFrame, path: str) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    if p.suffix.lower() == ".csv":
        df.write_csv(p)
    elif p.suffix.lower() == ".parquet":
        df.write_parquet(p)
    else:
        raise GenexpyInputError(f"--out {path!r}: use a .parquet or .csv file name.")


def _held(items: list[str]) -> dict:
    out = {}
    for it in items:
        col, eq, level = it.partition("=")
        if not eq or not col:
            raise GenexpyInputError(f"--held-constant expects COLUMN=LEVEL, got {it!r}.")
        out[col] = level
    return out


def _coerce_held(df: pl.DataFrame, held: dict) -> dict:
    """Levels typed on the command line are strings: cast them to the column's type."""
    out = {}
    for col, level in held.items():
        if col in df.columns and df.schema[col].is_numeric():
            try:
                out[col] = df.schema[col].to_python()(level)
            except (TypeError, ValueError, AttributeError):
                out[col] = float(level)
        else:
            out[col] = level
    return out


def cmd_nstar(args: argparse.Namespace) -> int:
    from .generalizability import analyze
    from .kernels import parse_kernel
    from .study import Study

    df = read_results(args.results)
    kernels = [parse_kernel(k) for k in (args.kernel or ["jaccard", "mallows"])]
    study = Study(
        df,
        alternatives=args.alternatives,
        target=args.target,
        generalize=_csv_list(args.generalize),
        design=_csv_list(args.design),
        average_over=_csv_list(args.average_over),
        held_constant=_coerce_held(df, _held(args.held_constant or [])),
        higher_is_better=not args.lower_is_better,
        tol_missing_alternatives=args.tol_missing_alternatives,
        tol_missing_conditions=args.tol_missing_conditions,
        invalid_target=args.invalid_target,
    )
    print(study, file=sys.stderr)
    print(study.report, file=sys.stderr)
    t0 = time.perf_counter()
    res = analyze(
        study, kernels,
        alphas=_floats(args.alpha, "alpha"), deltas=_floats(args.delta, "delta"),
        methods=_csv_list(args.methods), rep=args.rep, seed=args.seed, n_jobs=args.n_jobs,
        progress=not args.quiet,
    )
    print(f"analysed {len(study)} configurations x {len(kernels)} kernels in "
          f"{time.perf_counter() - t0:.1f} s", file=sys.stderr)
    _write_table(res, args.out)
    print(f"wrote {res.height} rows to {args.out}", file=sys.stderr)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    run_demo(out_dir=Path(args.out), rep=args.rep, seed=args.seed, progress=not args.quiet)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="genexpy-nb",
        description="Will the results of your ML study hold up? Generalizability analysis "
                    "of experimental studies.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    q = sub.add_parser("nstar", help="n* for every configuration of a results table")
    q.add_argument("results", help="tidy results table (.parquet or .csv)")
    q.add_argument("--alternatives", required=True, help="column of the compared methods")
    q.add_argument("--target", required=True, help="numeric result column")
    q.add_argument("--generalize", required=True,
                   help="generalizability factor(s), comma-separated (e.g. dataset)")
    q.add_argument("--design", default="", help="design factors, comma-separated")
    q.add_argument("--average-over", default="", help="stochastic factors (seed, fold)")
    q.add_argument("--held-constant", action="append", metavar="COLUMN=LEVEL",
                   help="fix a factor to one level (repeatable)")
    q.add_argument("--lower-is-better", action="store_true",
                   help="the target is an error or loss (default: higher is better)")
    q.add_argument("--kernel", action="append",
                   help="research question (repeatable): jaccard[:k=K], mallows[:nu=V], "
                        "borda:ALTERNATIVE, rbf[:gamma=V]; default jaccard and mallows")
    q.add_argument("--alpha", default=",".join(map(str, config.ALPHAS)),
                   help="desired generalizability alpha*, comma-separated")
    q.add_argument("--delta", default=",".join(map(str, config.DELTAS)),
                   help="similarity threshold delta*, comma-separated")
    q.add_argument("--methods", default="resample,approx,bound",
                   help="resample, approx, approx_weighted, bound (comma-separated)")
    q.add_argument("--rep", type=int, default=config.REP, help="resampled pairs per n")
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--n-jobs", type=int, default=None, help="threads (default: all cores)")
    q.add_argument("--tol-missing-alternatives", type=float,
                   default=config.TOL_MISSING_ALTERNATIVES)
    q.add_argument("--tol-missing-conditions", type=float,
                   default=config.TOL_MISSING_CONDITIONS)
    q.add_argument("--invalid-target", choices=["raise", "drop"], default="raise",
                   help="rows with a null/NaN/inf target: refuse (default) or drop")
    q.add_argument("--out", default="nstar.parquet", help="output file (.parquet or .csv)")
    q.add_argument("--quiet", action="store_true", help="no progress bar")
    q.set_defaults(func=cmd_nstar)

    d = sub.add_parser("demo", help="the main job: the shipped example study, end to end")
    d.add_argument("--out", default="genexpy_demo", help="output folder")
    d.add_argument("--rep", type=int, default=config.REP)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--quiet", action="store_true")
    d.set_defaults(func=cmd_demo)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except GenexpyInputError as exc:
        print(f"genexpy-nb: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
