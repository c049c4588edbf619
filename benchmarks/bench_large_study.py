"""Large studies: the cost of ``analyze`` in the number of conditions N, and the thinned grid.

Prints, for a synthetic study of N conditions x 8 alternatives (scores with a clear signal,
rankings with ties), all four kernels (Jaccard k=1, Borda, Mallows, RBF) and the no-signal
baseline on (the default):

- the wall time and the peak memory (``resource``: maximum resident set) of ``analyze`` at
  N = 1,000 (the full grid: at the bound), 2,000, 5,000 and 20,000 (the thinned grid),
  each in its own process, at the numba threads given (``--threads``);
- the growth exponent of the time beyond N = 1,000 (least squares on log time vs log N
  over the thinned runs);
- the thinned grid against the full one at N = 2,000 (``--validate``): n* (alpha* = 0.95,
  delta* = 0.05, the resampled estimate) over several seeds of the resampling, with the
  full grid's seed-to-seed range and interval.

``--items DIR``: the n* analysis of ``genexpy-nb report`` (Jaccard k=1 and Mallows, the
baseline, rep 200) on the 20 x 5,000 items board of ``bench_report.py`` (0/1 correctness:
rankings with two tie levels), each run a fresh process, interleaved with the same run on
the package at DIR (e.g. ``git archive <commit> genexpy_nb | tar -x -C DIR``): medians,
their ratio, the load, whether the n* frames are equal and the MMD samples' largest
relative difference.

Usage::

    nice python benchmarks/bench_large_study.py --threads 1 2
    nice python benchmarks/bench_large_study.py --validate --seeds 5
    nice python benchmarks/bench_large_study.py --items /tmp/before --repeat 3
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time

import numpy as np
import polars as pl

NA = 8
KERNEL_NAMES = ("jaccard", "borda", "mallows", "rbf")


def make_study(N: int, seed: int = 0, signal: float = 0.5, na: int = NA):
    """A study of N conditions x na alternatives with a clear signal."""
    import genexpy_nb as gx

    rng = np.random.default_rng(seed)
    S = rng.normal(size=(N, na)) + signal * np.linspace(1.0, 0.0, na)
    names = [f"m{i}" for i in range(na)]
    df = pl.DataFrame({"dataset": np.repeat([f"d{j:06d}" for j in range(N)], na),
                       "model": names * N, "score": S.ravel()})
    return gx.Study(df, alternatives="model", target="score", generalize="dataset",
                    higher_is_better=True)


def kernels(names=KERNEL_NAMES):
    """The four research questions."""
    from genexpy_nb.generalizability.kernels import RBF, Borda, Jaccard, Mallows

    table = {"jaccard": Jaccard(k=1), "borda": Borda(), "mallows": Mallows(), "rbf": RBF()}
    return [table[k] for k in names]


def one(N: int, threads: int) -> dict:
    """Time one analysis in this process (after a warm-up on a small study)."""
    import resource

    import genexpy_nb as gx
    from genexpy_nb import config

    gx.analyze(make_study(60), kernels(), progress=False, n_jobs=threads)
    with config.force_route(large_study_min_N=100, large_support_m=50,
                            large_matrix_m=50):  # load the large path's kernels too
        gx.analyze(make_study(300), kernels(), progress=False, n_jobs=threads)
    st = make_study(N)
    t = time.perf_counter()
    res = gx.analyze(st, kernels(), progress=False, n_jobs=threads)
    wall = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    grid = res["grid"][0] if "grid" in res.columns else "full grid"
    return {"N": N, "threads": threads, "seconds": wall, "peak_mb": peak, "grid": grid}


def timings(Ns, threads_list) -> None:
    """Print the times, peak memory and the growth exponent."""
    print(f"{'N':>7} {'threads':>7} {'seconds':>9} {'peak MB':>8}  grid")
    for nt in threads_list:
        rows = []
        for N in Ns:
            out = subprocess.run([sys.executable, __file__, "--one", str(N), str(nt)],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append(r)
            print(f"{r['N']:>7} {r['threads']:>7} {r['seconds']:>9.2f} {r['peak_mb']:>8.0f}  "
                  f"{r['grid']}", flush=True)
        big = [r for r in rows if r["grid"] != "full grid"]
        if len(big) >= 2:
            x = np.log([r["N"] for r in big])
            y = np.log([r["seconds"] for r in big])
            slope = float(np.polyfit(x, y, 1)[0])
            print(f"growth exponent beyond N = 1,000 ({nt} thread(s)): {slope:.2f}")


def validate(N: int, seeds: int, names, na: int = NA) -> None:
    """The grid the analysis chooses against the full one: n* over seeds of the resampling.

    The full grid of the paper (no budget, no bound, no baseline: the study's n* does not
    depend on it) against the default analysis (its grid chosen by the cost model, with
    the baseline, as a user runs it).
    """
    import genexpy_nb as gx
    from genexpy_nb import config

    st = make_study(N, na=na)
    ks = kernels(names)
    rows = []
    for seed in range(seeds):
        for label, bounds, null in (("full", dict(large_study_min_N=math.inf,
                                                  grid_budget_s=math.inf), False),
                                    ("thinned", {}, True)):
            t = time.perf_counter()
            with config.force_route(**bounds):
                res = gx.analyze(st, ks, alphas=0.95, deltas=0.05, estimators=["resample"],
                                 seed=seed, progress=False, null=null)
            dt = time.perf_counter() - t
            grid = res["grid"][0] if "grid" in res.columns else "full grid"
            for r in res.iter_rows(named=True):
                rows.append({"grid": label, "seed": seed, "kernel": r["kernel"],
                             "nstar": r["nstar"], "lo": r["nstar_lo"], "hi": r["nstar_hi"],
                             "seconds": dt})
            print(f"  seed {seed} {label:>7}: {dt:6.1f} s ({grid})", flush=True)
    df = pl.DataFrame(rows)
    print(f"\nn* at alpha* = 0.95, delta* = 0.05, N = {N}, {seeds} seeds of the resampling")
    print(f"{'kernel':>8} {'full median':>11} {'full range':>17} {'full interval':>17} "
          f"{'thin median':>11} {'thin range':>17} {'thin interval':>17} {'inside':>6} "
          f"{'log ratio':>9}")
    for k in dict.fromkeys(df["kernel"].to_list()):
        f = df.filter(pl.col("kernel") == k, pl.col("grid") == "full")
        t = df.filter(pl.col("kernel") == k, pl.col("grid") == "thinned")
        fm, tm = float(f["nstar"].median()), float(t["nstar"].median())
        lo, hi = float(f["lo"].median()), float(f["hi"].median())
        inside = int(((t["nstar"] >= lo) & (t["nstar"] <= hi)).sum())
        tlo, thi = float(t["lo"].median()), float(t["hi"].median())
        print(f"{k:>8} {fm:>11.1f} {f['nstar'].min():>8.1f}-{f['nstar'].max():<8.1f} "
              f"{lo:>8.1f}-{hi:<8.1f} {tm:>11.1f} {t['nstar'].min():>8.1f}-"
              f"{t['nstar'].max():<8.1f} {tlo:>8.1f}-{thi:<8.1f} {inside:>3}/{t.height:<2} "
              f"{math.log(tm / fm):>+9.3f}")


def sweep(Ns, names, na: int, repeat: int, threads: int) -> None:
    """Time the analysis at N and N + 1 for each N, warm, interleaved; print the ratios."""
    import os
    import statistics

    import genexpy_nb as gx
    from genexpy_nb import config

    ks = kernels(names)
    gx.analyze(make_study(60, na=na), ks, progress=False, n_jobs=threads)
    with config.force_route(large_study_min_N=100, large_support_m=50, large_matrix_m=50):
        gx.analyze(make_study(300, na=na), ks, progress=False, n_jobs=threads)
    sizes = sorted({m for N in Ns for m in (N, N + 1)})
    studies = {N: make_study(N, na=na) for N in sizes}
    times: dict[int, list[float]] = {N: [] for N in sizes}
    est, grids = {}, {}
    for _ in range(repeat):
        for N in sizes:
            t = time.perf_counter()
            ga = gx.GeneralizabilityAnalysis(studies[N], ks, progress=False, n_jobs=threads)
            times[N].append(time.perf_counter() - t)
            plan = next(iter(ga.grid_plans.values()))
            est[N] = ga.estimated_seconds
            grids[N] = (f"thinned, {plan.ns.size} sizes up to {int(plan.ns[-1])}"
                        if plan.thinned else f"full, {plan.ns.size} sizes")
    print(f"load average {os.getloadavg()[0]:.2f}; {threads} thread(s); {na} alternatives, "
          f"kernels {' '.join(names)}; median of {repeat}, interleaved")
    print(f"{'N':>7} {'seconds':>8} {'estimate':>8} {'ratio to N-1':>12}  grid")
    prev = None
    for N in sizes:
        med = statistics.median(times[N])
        ratio = f"{med / statistics.median(times[prev]):.2f}" if prev == N - 1 else ""
        print(f"{N:>7} {med:8.2f} {est[N]:8.2f} {ratio:>12}  {grids[N]}", flush=True)
        prev = N


ITEMS_RUN = r'''
import sys, time
import numpy as np, polars as pl
import genexpy_nb as gx
from genexpy_nb import config
from genexpy_nb.generalizability.analysis import GeneralizabilityAnalysis
from genexpy_nb.generalizability.kernels import default_questions
study = gx.Study(pl.read_csv(sys.argv[1]), alternatives="model", target="accuracy",
                 generalize="dataset", higher_is_better=True)
t = time.perf_counter()
an = GeneralizabilityAnalysis(study, default_questions(), progress=False)
res = an.nstar(alphas=[config.HEADLINE_ALPHA], deltas=[config.HEADLINE_DELTA])
print(time.perf_counter() - t)
cd = next(iter(an.dists.values()))
np.savez(sys.argv[2], mmd=cd.mmd, null=cd.null_mmd)
res.write_parquet(sys.argv[2] + ".parquet")
'''


def items(other: str, repeat: int) -> None:
    """The n* analysis on the 20 x 5,000 items board, here and at ``other``, interleaved."""
    import os
    import statistics
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_report import _board

    here = str(Path(__file__).resolve().parent.parent)
    with tempfile.TemporaryDirectory() as tmp:
        board = Path(tmp) / "board.csv"
        _board(20, 5000, True, board)
        times: dict[str, list[float]] = {"this": [], "other": []}
        for _ in range(repeat):
            for key, path in (("other", other), ("this", here)):
                env = {**os.environ, "PYTHONPATH": path}
                out = subprocess.run([sys.executable, "-c", ITEMS_RUN, str(board),
                                      f"{tmp}/{key}.npz"], env=env, capture_output=True,
                                     text=True, check=True, cwd=tmp)  # not this folder
                times[key].append(float(out.stdout.split()[-1]))
                print(f"{key}: {times[key][-1]:.2f} s (load {os.getloadavg()[0]:.1f})",
                      flush=True)
        a, b = (statistics.median(times[k]) for k in ("other", "this"))
        print(f"median {a:.2f} s -> {b:.2f} s: {a / b:.2f}x")
        fa, fb = (pl.read_parquet(f"{tmp}/{k}.npz.parquet") for k in ("other", "this"))
        print("n* frames equal:", fa.equals(fb))
        za, zb = np.load(f"{tmp}/other.npz"), np.load(f"{tmp}/this.npz")
        for k in ("mmd", "null"):
            rel = np.max(np.abs(za[k] - zb[k]) / np.maximum(np.abs(za[k]), 1e-300))
            print(f"{k}: largest relative difference {rel:.2g}, "
                  f"{np.mean(za[k] != zb[k]):.1%} of the values not bit-identical")


def main(argv=None) -> None:
    """Parse the arguments and run the benchmarks."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--one", nargs=2, type=int, metavar=("N", "THREADS"),
                   help=argparse.SUPPRESS)
    p.add_argument("--N", nargs="+", type=int, default=[1000, 2000, 5000, 20000])
    p.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    p.add_argument("--validate", action="store_true")
    p.add_argument("--validate-N", type=int, default=2000)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--kernels", nargs="+", default=list(KERNEL_NAMES))
    p.add_argument("--na", type=int, default=NA, help="alternatives of the study")
    p.add_argument("--sweep", nargs="+", type=int, default=None, metavar="N",
                   help="time N and N + 1 for each N given, warm, interleaved, in one "
                        "process (the smoothness of the time in N)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--items", metavar="DIR", default=None,
                   help="the 20 x 5,000 items board against the package at DIR")
    a = p.parse_args(argv)
    if a.items:
        items(a.items, a.repeat)
        return
    if a.one:
        print(json.dumps(one(*a.one)))
        return
    if a.validate:
        validate(a.validate_N, a.seeds, a.kernels, a.na)
        return
    if a.sweep:
        sweep(a.sweep, a.kernels, a.na, a.repeat, a.threads[0])
        return
    timings(a.N, a.threads)


if __name__ == "__main__":
    main()
