"""Where users waited: Nemenyi's test, the correlated Bayesian t-test and robust aggregates.

Run from the repository root:  PYTHONPATH=. python benchmarks/bench_waits.py [part ...]

Parts (default: all): ``nemenyi``, ``correlated``, ``aggregates``. Every part times
genexpy_nb and its peer *interleaved* (ours, theirs, ours, theirs, ...) after one warm-up
call of each, and prints the medians and their ratio:

* ``nemenyi``: ``posthoc_nemenyi`` against scikit-posthocs' ``posthoc_nemenyi_friedman`` on
  k alternatives x n conditions (10 x 20 and 200 x 2,000), and the largest difference of
  their p-values.
* ``correlated``: 540 correlated Bayesian t-tests (baycomp's own example shape: 10 folds x
  10 repetitions) asking only for the probabilities, against baycomp's
  ``CorrelatedTTest.probs``.
* ``aggregates``: IQM, median, mean and optimality gap with 95 % stratified-bootstrap
  intervals on 20 algorithms x 50 runs x 200 tasks at 50,000 replicates, against rliable's
  ``get_interval_estimates`` timed at ``--rliable-reps`` replicates and scaled linearly
  (rliable is one Python call per replicate), which the output says.

The figures measured on the 2-core development machine are in ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


def interleaved(fns, repeat):
    """Median seconds per call of each function, calls interleaved, after a warm-up each."""
    for f in fns:
        f()
    times = [[] for _ in fns]
    for _ in range(repeat):
        for t, f in zip(times, fns):
            t0 = time.perf_counter()
            f()
            t.append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def row(name, ours, theirs, note=""):
    """Print one line: both medians and the ratio."""
    print(f"{name:<46}{ours * 1e3:11.1f} ms {theirs * 1e3:12.1f} ms "
          f"{theirs / ours:8.1f}x  {note}", flush=True)


def nemenyi(args):
    """Nemenyi's test against scikit-posthocs."""
    import scikit_posthocs as sp

    from genexpy_nb import significance as sig

    for k, n in [(10, 20), (200, 2000)]:
        x = np.random.default_rng(k).normal(size=(n, k)) + np.linspace(0, 1, k)
        repeat = args.repeat if k < 100 else max(1, args.repeat // 3)
        t_ours, t_theirs = interleaved(
            [lambda x=x: sig.posthoc_nemenyi(x, higher_is_better=False),
             lambda x=x: sp.posthoc_nemenyi_friedman(x)], repeat)
        i, j = np.triu_indices(k, 1)
        ours = sig.posthoc_nemenyi(x, higher_is_better=False)["pvalue"].to_numpy()
        diff = np.abs(ours - sp.posthoc_nemenyi_friedman(x).to_numpy()[i, j]).max()
        row(f"Nemenyi, {k} alternatives x {n} conditions", t_ours, t_theirs,
            f"max |p difference| {diff:.1e}")


def correlated(args):
    """540 correlated Bayesian t-tests, probabilities only, against baycomp."""
    import baycomp

    from genexpy_nb import significance as sig

    rng = np.random.default_rng(0)
    pairs = []
    for _ in range(540):  # 10 x 10-fold CV of two models
        x = rng.normal(0.8, 0.02, 100)
        pairs.append((x, x + rng.normal(rng.normal(0, 0.01), 0.01, 100)))

    def ours():
        return [sig.correlated_bayesian_ttest(x, y, rope=0.01, runs=10,
                                              higher_is_better=True).probs
                for x, y in pairs]

    def theirs():
        return [baycomp.CorrelatedTTest.probs(x, y, 0.01, runs=10) for x, y in pairs]

    t_ours, t_theirs = interleaved([ours, theirs], args.repeat)
    diff = max(abs(a - b) for p, q in zip(ours(), theirs()) for a, b in zip(p, q))
    row("correlated Bayesian t, 540 tests, probabilities", t_ours, t_theirs,
        f"max |P difference| {diff:.1e}")


def aggregates(args):
    """Robust aggregates with intervals at 20 x 50 x 200 against rliable (scaled).

    Ours at one thread and at the default (all cores), rliable, interleaved; then the
    Monte Carlo standard error of each interval end (``low_mc_error``, ``high_mc_error``)
    of our run, per aggregate (the median over the 20 algorithms), at the replicates timed
    and scaled to 50,000 (it shrinks as ``1 / sqrt(reps)``).
    """
    import oracles

    from genexpy_nb import aggregates as ag
    from genexpy_nb._numba import threads
    from genexpy_nb.aggregates.estimates import REPS

    library, metrics = oracles.rliable()
    rng = np.random.default_rng(0)
    scores = {f"algo{i}": rng.normal(0.05 * i, 1.0, size=(50, 200)) + rng.normal(0, 1, 200)
              for i in range(20)}

    def f(x):
        return np.array([metrics.aggregate_median(x), metrics.aggregate_iqm(x),
                         metrics.aggregate_mean(x), metrics.aggregate_optimality_gap(x)])

    ag.interval_estimates({"w": scores["algo0"][:, :5]}, reps=10, progress=False)  # warm-up
    r_ours, r_theirs = args.reps, args.rliable_reps
    t1, c1, tall, ttheirs, ctheirs = [], [], [], [], []
    out = None
    for _ in range(args.repeat):  # interleaved: ours (1 thread), ours (all), rliable, ...
        with threads(1):
            t, c = time.perf_counter(), time.process_time()
            ag.interval_estimates(scores, reps=r_ours, progress=False)
            t1.append((time.perf_counter() - t) * REPS / r_ours)
            c1.append((time.process_time() - c) * REPS / r_ours)
        t = time.perf_counter()
        out = ag.interval_estimates(scores, reps=r_ours, progress=False)
        tall.append((time.perf_counter() - t) * REPS / r_ours)
        t, c = time.perf_counter(), time.process_time()
        library.get_interval_estimates(scores, f, reps=r_theirs)
        ttheirs.append((time.perf_counter() - t) * REPS / r_theirs)
        ctheirs.append((time.process_time() - c) * REPS / r_theirs)
    note = (f"(timed at {r_ours:,} ours, {r_theirs:,} rliable, scaled to 50,000; runs: ours "
            "{} s, rliable {} s)")
    # CPU time of both single-threaded runs: what other jobs' load leaves out of the wall time
    for label, ts, theirs in (("1 thread", t1, ttheirs), ("all cores", tall, ttheirs),
                              ("1 thread, CPU time", c1, ctheirs)):
        row(f"4 aggregates + CIs, 20x50x200, 50k reps, {label}", statistics.median(ts),
            statistics.median(theirs),
            note.format(", ".join(f"{t:.1f}" for t in ts), ", ".join(f"{t:.0f}" for t in theirs)))
    scale = (r_ours / REPS) ** 0.5
    print(f"  Monte Carlo standard error of the interval ends at {r_ours:,} replicates "
          f"(x{scale:.2f} at 50,000), median over the 20 algorithms:")
    for agg in ("median", "iqm", "mean", "optimality_gap"):
        part = out.filter(out["aggregate"] == agg)
        lo, hi = part["low_mc_error"].median(), part["high_mc_error"].median()
        width = (part["high"] - part["low"]).median()
        print(f"    {agg:<15} low {lo:.2e}  high {hi:.2e}  (interval width {width:.3f}; "
              f"at 50,000: {lo * scale:.1e}, {hi * scale:.1e})")


PARTS = {"nemenyi": nemenyi, "correlated": correlated, "aggregates": aggregates}


def main(argv=None):
    """Run the parts named on the command line (all by default)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("parts", nargs="*", metavar="part",
                    help=f"any of {', '.join(PARTS)} (default: all)")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved timed calls of each")
    ap.add_argument("--reps", type=int, default=50_000,
                    help="replicates our aggregates are timed at (scaled to 50,000; fewer "
                         "overstate our time: the per-call costs are scaled too)")
    ap.add_argument("--rliable-reps", type=int, default=100,
                    help="replicates rliable is timed at (scaled to 50,000)")
    args = ap.parse_args(argv)
    unknown = set(args.parts) - set(PARTS)
    if unknown:
        ap.error(f"unknown part(s) {sorted(unknown)}; choose from {', '.join(PARTS)}")
    print(f"{'':<46}{'genexpy_nb':>14} {'peer':>15} {'ratio':>9}")
    for p in args.parts or PARTS:
        PARTS[p](args)


if __name__ == "__main__":
    main()
