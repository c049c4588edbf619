"""genexpy_nb's Bayesian tests and robust aggregates against baycomp and rliable, side by side.

Run from the repository root:  PYTHONPATH=. python benchmarks/bench_beyond_pvalues.py

* **Aggregates**: median, IQM, mean and optimality gap with 95 % stratified-bootstrap
  intervals at rliable's default 50,000 replicates, on 5 algorithms x 10 runs x 20 tasks
  (the setting of rliable's examples): ``genexpy_nb.aggregates.estimates.interval_estimates``
  against ``rliable.library.get_interval_estimates`` with rliable's four metrics. rliable
  takes about a minute and a half here; ``--rliable-reps N`` times it at N replicates and
  scales to 50,000 (it is linear in the replicates: every replicate is a Python call),
  which the output says.
* **Bayesian signed-rank test** over 50 datasets at baycomp's default 50,000 posterior
  samples, with a rope (0.01) and without; the sign test and the correlated t-test too.

Both packages get a warm-up call first (numba's compiling, imports), then the median of
``--repeat`` calls is printed for ours, of fewer calls for theirs.

The figures measured on the 2-core development machine are in ``benchmarks/README.md``
(2026-11-26: aggregates 107x at 50,000 replicates on a loaded machine, 133x quiet with
rliable timed at 5,000 and scaled; Bayesian signed-rank 35-51x, baycomp taking 0.40-0.62 s
here).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import oracles

from genexpy_nb import aggregates as ag
from genexpy_nb import significance as sig


def timed(fn, repeat):
    """Median seconds per call over ``repeat`` calls, after a warm-up call."""
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def row(name, ours, theirs, note=""):
    digits = 0 if theirs >= 10 * ours else 1
    print(f"{name:<58}{ours * 1e3:11.1f} ms {theirs * 1e3:12.1f} ms "
          f"{theirs / ours:8.{digits}f}x  {note}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="timed calls of ours")
    ap.add_argument("--rliable-reps", type=int, default=50_000,
                    help="replicates rliable is timed at (scaled to 50,000)")
    args = ap.parse_args(argv)
    import baycomp

    library, metrics = oracles.rliable()
    print(f"{'':<58}{'genexpy_nb':>14} {'peer':>15} {'ratio':>9}")

    # ---- aggregates, 5 algorithms x 10 runs x 20 tasks --------------------------------
    rng = np.random.default_rng(0)
    scores = {f"algo{i}": rng.normal(0.1 * i, 1.0, size=(10, 20)) + rng.normal(0, 1, 20)
              for i in range(5)}
    reps = ag.REPS

    def f(x):
        return np.array([metrics.aggregate_median(x), metrics.aggregate_iqm(x),
                         metrics.aggregate_mean(x), metrics.aggregate_optimality_gap(x)])

    ours = timed(lambda: ag.interval_estimates(scores, reps=reps, progress=False), args.repeat)
    r_reps = args.rliable_reps
    t = time.perf_counter()
    library.get_interval_estimates(scores, f, reps=r_reps)
    theirs = (time.perf_counter() - t) * reps / r_reps
    note = "" if r_reps == reps else f"(rliable timed at {r_reps} replicates, scaled)"
    row("4 aggregates + 95% CIs, 5x10x20, 50,000 replicates", ours, theirs, note)
    # the probability of improvement of one pair (rliable: a Mann-Whitney test per task
    # and replicate), timed at 2,000 replicates
    pair = {"algo4": scores["algo4"], "algo0": scores["algo0"]}
    ours = timed(lambda: ag.probability_of_improvement(pair, reps=2000, progress=False),
                 args.repeat)
    theirs = timed(lambda: library.get_interval_estimates(
        {"p": [scores["algo4"], scores["algo0"]]}, metrics.probability_of_improvement,
        reps=2000), 1)
    row("P(improvement) + 95% CI, one pair, 10x20, 2,000 replicates", ours, theirs)
    thr = np.linspace(-3, 3, 61)
    ours = timed(lambda: ag.performance_profile(scores, thr, reps=2000, progress=False),
                 args.repeat)
    theirs = timed(lambda: library.create_performance_profile(scores, thr, reps=2000), 1)
    row("performance profiles + bands, 5x10x20, 61 thresholds, 2,000", ours, theirs)

    # ---- Bayesian tests, 50 datasets ----------------------------------------------------
    x = rng.uniform(0.7, 0.9, 50)
    y = x + rng.normal(0.005, 0.02, 50)
    for rope in (0.01, 0.0):
        ours = timed(lambda rope=rope: sig.bayesian_signed_rank(
            x, y, rope=rope, higher_is_better=True), args.repeat)
        theirs = timed(lambda rope=rope: baycomp.SignedRankTest.probs(
            x, y, rope, random_state=0), 2)
        row(f"Bayesian signed-rank, 50 datasets, 50,000 samples, rope {rope}", ours, theirs)
    ours = timed(lambda: sig.bayesian_sign_test(x, y, rope=0.01, higher_is_better=True),
                 args.repeat)
    theirs = timed(lambda: baycomp.SignTest.probs(x, y, 0.01, random_state=0), args.repeat)
    row("Bayesian sign test, 50 datasets, 50,000 samples, rope 0.01", ours, theirs)
    cx, cy = x[:30], y[:30]
    ours = timed(lambda: sig.correlated_bayesian_ttest(cx, cy, rope=0.01, runs=3,
                                                       higher_is_better=True), args.repeat)
    theirs = timed(lambda: baycomp.CorrelatedTTest.probs(cx, cy, 0.01, runs=3), args.repeat)
    row("correlated Bayesian t-test, 3 x 10 CV (probabilities + sample)", ours, theirs,
        "(ours also draws the 50,000-sample posterior)")


if __name__ == "__main__":
    main()
