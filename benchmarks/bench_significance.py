"""Timings of the significance / distributions kernels against their naive twins.

Run from the repository root:  PYTHONPATH=. python benchmarks/bench_significance.py
Prints median wall times and the speed-up over tests/naive.py (kernels warmed up first).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import naive  # noqa: E402

from genexpy_nb import distributions as dist  # noqa: E402
from genexpy_nb import significance as sig  # noqa: E402
from genexpy_nb._numba.distributions import _sample_weak_orders  # noqa: E402
from genexpy_nb._numba.significance import _rank_rows  # noqa: E402


def timeit(fn, repeat=5):
    fn()  # warm-up (compilation, caches)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def row(name, fast, slow=None):
    ratio = f"{slow / fast:8.1f}x" if slow is not None else ""
    slow_s = f"{slow * 1e3:10.2f} ms" if slow is not None else " " * 13
    print(f"{name:<46}{fast * 1e3:10.3f} ms {slow_s} {ratio}")


def main():
    rng = np.random.default_rng(0)
    print(f"{'':<46}{'fast':>13} {'naive':>13} {'speed-up':>9}")
    x = rng.integers(0, 5, size=(500, 10)).astype(float)
    x[rng.random(x.shape) < 0.1] = np.nan
    row("midranks 500 x 10 (ties, NaN)", timeit(lambda: _rank_rows(x)),
        timeit(lambda: naive.rank_rows(x), repeat=2))
    row("Skillings-Mack 500 x 10", timeit(lambda: sig.skillings_mack(x)),
        timeit(lambda: naive.skillings_mack_statistic(x), repeat=2))
    row("weak orders na = 6 (4683)", timeit(lambda: dist.weak_orders(6)),
        timeit(lambda: naive.enumerate_weak_orders(6), repeat=2))
    na, n = 6, 2000
    u = rng.random((n, na))
    perm = np.argsort(rng.random((n, na)), axis=1).astype(np.int64)
    lf = dist._log_fubini(na)
    row("recursive uniform sampler 2000 x na=6", timeit(lambda: _sample_weak_orders(lf, u, perm)),
        timeit(lambda: naive.sample_weak_orders(na, u, perm), repeat=1))
    row("sample_uniform_rankings(50, 10000)",
        timeit(lambda: dist.sample_uniform_rankings(50, 10_000, seed=1)))
    # SPEC A10 loop: 1000 x (draw 20 rankings, Friedman, Conover-Iman)
    support = [[0, 1, 2, 3, 4], [1, 0, 2, 3, 4]]

    def a10():
        g = np.random.default_rng(1)
        for _ in range(1000):
            s = dist.sample_rankings(support, [0.55, 0.45], 20, seed=g)
            if sig.friedman(s).pvalue < 0.05:
                sig.posthoc_conover(s)

    row("A10 loop: 1000 x (sample, Friedman, Conover)", timeit(a10, repeat=1))


if __name__ == "__main__":
    main()
