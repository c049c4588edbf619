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

Usage::

    nice python benchmarks/bench_large_study.py --threads 1 2
    nice python benchmarks/bench_large_study.py --validate --seeds 5
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


def make_study(N: int, seed: int = 0, signal: float = 0.5):
    """A study of N conditions x NA alternatives with a clear signal."""
    import genexpy_nb as gx

    rng = np.random.default_rng(seed)
    S = rng.normal(size=(N, NA)) + signal * np.linspace(1.0, 0.0, NA)
    names = [f"m{i}" for i in range(NA)]
    df = pl.DataFrame({"dataset": np.repeat([f"d{j:06d}" for j in range(N)], NA),
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
                            large_rbf_matrix_m=50):  # load the large path's kernels too
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


def validate(N: int, seeds: int, names) -> None:
    """The thinned grid against the full one: n* over seeds of the resampling."""
    import genexpy_nb as gx
    from genexpy_nb import config

    st = make_study(N)
    ks = kernels(names)
    rows = []
    for seed in range(seeds):
        for label, bound in (("full", math.inf), ("thinned", 1000)):
            t = time.perf_counter()
            with config.force_route(large_study_min_N=bound):
                res = gx.analyze(st, ks, alphas=0.95, deltas=0.05, estimators=["resample"],
                                 seed=seed, progress=False, null=False)
            dt = time.perf_counter() - t
            for r in res.iter_rows(named=True):
                rows.append({"grid": label, "seed": seed, "kernel": r["kernel"],
                             "nstar": r["nstar"], "lo": r["nstar_lo"], "hi": r["nstar_hi"],
                             "seconds": dt})
            print(f"  seed {seed} {label:>7}: {dt:6.1f} s", flush=True)
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
    a = p.parse_args(argv)
    if a.one:
        print(json.dumps(one(*a.one)))
        return
    if a.validate:
        validate(a.validate_N, a.seeds, a.kernels)
        return
    timings(a.N, a.threads)


if __name__ == "__main__":
    main()
