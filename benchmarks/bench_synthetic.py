"""Timings of the known-distribution experiments (generalizability.synthetic) vs naive twins.

Run from the repository root:  PYTHONPATH=. python benchmarks/bench_synthetic.py
Prints median wall times and the speed-up over tests/naive.py, then the cost of the two
notebooks' experiments (05: true n* and 400 preliminary studies; 06: 1000 samples).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import naive

from genexpy_nb import Borda, Jaccard, Mallows
from genexpy_nb import synthetic as syn
from genexpy_nb.generalizability.distributions import uniform_distribution


def timeit(fn, repeat=3):
    fn()  # warm-up (compilation, caches)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def row(name, fast, slow=None):
    ratio = f"{slow / fast:8.1f}x" if slow is not None else ""
    slow_s = f"{slow * 1e3:10.1f} ms" if slow is not None else " " * 13
    print(f"{name:<52}{fast * 1e3:10.1f} ms {slow_s} {ratio}")


def main():
    R3, P3 = uniform_distribution(3)
    R5, P5 = uniform_distribution(5)
    k3 = Mallows().resolve(3)
    print(f"{'':<52}{'fast':>13} {'naive':>13} {'speed-up':>9}")
    row("MMD_10 from P (na=3, Mallows), rep=200",
        timeit(lambda: syn.mmd_distribution_from_pmf(R3, P3, Mallows(), 10, rep=200)),
        timeit(lambda: naive.pmf_mmd_samples(R3, P3, lambda r, s: naive.mallows(r, s, k3.nu),
                                             10, 200, 0), repeat=1))
    row("true n* (na=3, Mallows, 0.9, 0.15), rep=200",
        timeit(lambda: syn.true_nstar(R3, P3, Mallows(), 0.9, 0.15, rep=200)),
        timeit(lambda: naive.true_nstar(R3, P3, lambda r, s: naive.mallows(r, s, k3.nu),
                                        float(k3.eps(0.15)), 0.9, 200, 0, 100), repeat=1))
    for k in (Jaccard(k=1), Mallows(), Borda(0)):
        row(f"true n* (na=5, {k.name}, 0.95, 0.05), rep=2000",
            timeit(lambda k=k: syn.true_nstar(R5, P5, k, 0.95, 0.05), repeat=1))
    ks = [Jaccard(k=1), Mallows(), Borda(0)]
    for N in (10, 20, 40, 80):
        row(f"10 preliminary studies N={N}, 3 kernels, rep=200",
            timeit(lambda N=N: syn.preliminary_nstar(R5, P5, ks, Ns=[N], repetitions=10,
                                                     progress=False), repeat=1))
    two = np.array([[0, 1, 2, 3, 4], [1, 0, 2, 3, 4]])
    row("Appendix A: 1000 samples of 20, rep=200",
        timeit(lambda: syn.significance_vs_generalizability(two, [0.55, 0.45], progress=False),
               repeat=1))


if __name__ == "__main__":
    main()
