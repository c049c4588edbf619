"""Timings of the significance tests and kernels against their naive twins and scipy.

Run from the repository root:  PYTHONPATH=. python benchmarks/bench_significance.py
Prints median wall times and the speed-up over tests/naive.py or the scipy / statsmodels
call it replaces (warmed up first). The two-model tests (corrected t, McNemar, 5x2cv) are
timed per call: they should take microseconds to a millisecond.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import naive  # noqa: E402

from genexpy_nb import distributions as dist  # noqa: E402
from genexpy_nb import significance as sig  # noqa: E402
from genexpy_nb._numba.distributions import _sample_weak_orders  # noqa: E402
from genexpy_nb._numba.significance import _rank_rows  # noqa: E402


def timeit(fn, repeat=5):
    """Median seconds per call over ``repeat`` calls, after a warm-up call."""
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
    # why the numba ranks and our Friedman statistic stay (rank_tests.py, _numba)
    small = rng.integers(0, 5, size=(20, 5)).astype(float)
    row("midranks 20 x 5 vs scipy.stats.rankdata", timeit(lambda: _rank_rows(small), 50),
        timeit(lambda: stats.rankdata(small, axis=1), 50))
    row("friedman 20 x 5 vs scipy friedmanchisquare",
        timeit(lambda: sig.friedman(small, higher_is_better=False), 50),
        timeit(lambda: stats.friedmanchisquare(*small.T), 50))
    # why Holm's step-down is ours (corrections.py): statsmodels' holm calls gc.collect()
    pv = rng.random(10)
    row("Holm on 10 p-values vs statsmodels", timeit(lambda: sig.adjust_pvalues(pv, "holm")),
        timeit(lambda: multipletests(pv, method="holm"), repeat=3))
    # the two-model tests: microseconds to a millisecond per call
    d100 = rng.normal(0.01, 0.02, 100)
    row("corrected_ttest, 10 x 10 CV (J = 100)",
        timeit(lambda: sig.corrected_ttest(d100, n_train=900, n_test=100), 200))
    d52 = rng.normal(0.01, 0.02, (5, 2))
    row("paired_ttest_5x2cv", timeit(lambda: sig.paired_ttest_5x2cv(d52), 200))
    row("combined_ftest_5x2cv", timeit(lambda: sig.combined_ftest_5x2cv(d52), 200))
    row("mcnemar(table), exact vs statsmodels",
        timeit(lambda: sig.mcnemar(table=[[500, 31], [17, 452]]), 200),
        timeit(lambda: sm_mcnemar([[500, 31], [17, 452]], exact=True), 200))
    yt = rng.integers(0, 2, 10_000)
    pa, pb = np.where(rng.random(10_000) < 0.9, yt, 1 - yt), np.where(rng.random(10_000) < 0.88,
                                                                        yt, 1 - yt)
    row("mcnemar from 10 000 labels, mid-p", timeit(lambda: sig.mcnemar(yt, pa, pb,
                                                                        method="mid-p"), 50))
    row("cohens_dz / rank_biserial / cliffs_delta (n=50)",
        timeit(lambda: (sig.cohens_dz(d100[:50]), sig.rank_biserial(d100[:50]),
                        sig.cliffs_delta(d100[:50], d100[50:])), 50))
    row("bootstrap_ci BCa, n = 30, 9999 resamples",
        timeit(lambda: sig.bootstrap_ci(d100[:30], seed=0), 3))
    x = rng.integers(0, 5, size=(500, 10)).astype(float)
    row("midranks 500 x 10 vs scipy.stats.rankdata", timeit(lambda: _rank_rows(x), 20),
        timeit(lambda: stats.rankdata(x, axis=1), 20))
    x[rng.random(x.shape) < 0.1] = np.nan
    row("midranks 500 x 10 (ties, NaN)", timeit(lambda: _rank_rows(x)),
        timeit(lambda: naive.rank_rows(x), repeat=2))
    row("Skillings-Mack 500 x 10", timeit(lambda: sig.skillings_mack(x, higher_is_better=False)),
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
            if sig.friedman(s, higher_is_better=False).pvalue < 0.05:
                sig.posthoc_conover(s, higher_is_better=False)

    row("A10 loop: 1000 x (sample, Friedman, Conover)", timeit(a10, repeat=1))


if __name__ == "__main__":
    main()
