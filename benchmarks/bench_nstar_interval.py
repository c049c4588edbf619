"""What the interval of n* costs: ``analyze`` with and without ``interval=True``.

Run from the repository root (the encoder study needs the public data):

    GENEXPY_NB_DATA_DIR=../shared/data PYTHONPATH=. python benchmarks/bench_nstar_interval.py

Prints the minimum of several wall times of the whole ``analyze`` call (MMD distributions and
the n* table for every configuration x kernel x alpha* x delta* x method) and the factor the
interval adds; then the numba kernel behind the coverage simulation
(:func:`genexpy_nb._numba.nstar.resampled_quantiles`) against the package's resampling path
for the same work (one study's quantile curves, 100 times).
"""

from __future__ import annotations

import os
import time

import numpy as np

import genexpy_nb as gx
from genexpy_nb._numba import nstar as nb
from genexpy_nb.example.study import load_example_study
from genexpy_nb.generalizability.mmd import draw_pairs, kernel_support, mmd_from_pairs


def best(fn, repeat=3):
    fn()  # warm-up (compilation, caches)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def factor(name, study, kernels):
    base = best(lambda: gx.analyze(study, kernels, progress=False, interval=False))
    with_iv = best(lambda: gx.analyze(study, kernels, progress=False, interval=True))
    print(f"{name:<44}{base:8.2f} s {with_iv:8.2f} s {with_iv / base:8.2f}x")


def main():
    print(f"{'analyze (min of 3)':<44}{'no interval':>10} {'interval':>10} {'factor':>9}")
    ex = gx.Study(load_example_study(), alternatives="model", target="score",
                  higher_is_better=True, generalize="dataset",
                  design=["metric", "train_size"], average_over="fold")
    factor("example study (6 configs, 3 kernels)", ex,
           [gx.Jaccard(k=1), gx.Mallows(), gx.Borda("MLP")])
    if os.environ.get("GENEXPY_NB_DATA_DIR"):
        enc = gx.Study(gx.load_encoders(), alternatives="encoder", target="cv_score",
                       higher_is_better=True, generalize="dataset",
                       design=["model", "tuning", "scoring"])
        factor("encoders (48 configs, 4 kernels)", enc,
               [gx.Borda("OHE"), gx.Jaccard(k=1), gx.Mallows(), gx.RBF()])
    # the simulation's kernel against the package path, same work
    X = np.argsort(np.random.default_rng(0).random((40, 5)), axis=1)
    k = gx.Mallows().resolve(5)
    K, inv, _ = kernel_support(k, X)
    ns = np.arange(2, 20, 2)
    rep, B = 200, 100
    qidx = np.ceil(np.array([0.7, 0.8, 0.9, 0.95, 0.99]) * (rep - 1)).astype(np.int64)
    fast = best(lambda: nb.resampled_quantiles(K, inv, ns, rep, qidx, B, 0, 0, 1), 2)

    def slow():
        rng = np.random.default_rng(0)
        for _ in range(B):
            for n in ns:
                m = mmd_from_pairs(K, inv, *draw_pairs(40, int(n), rep, seed=rng))
                np.quantile(m, [0.7, 0.8, 0.9, 0.95, 0.99], method="higher")

    s = best(slow, 1)
    print(f"{'100 quantile curves, N=40, Mallows na=5':<44}{s:8.2f} s {fast:8.2f} s "
          f"{s / fast:8.1f}x faster (numba kernel)")


if __name__ == "__main__":
    main()
