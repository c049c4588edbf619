"""Timings of the significance tests and kernels against their naive twins and scipy.

Run from the repository root:  PYTHONPATH=. python benchmarks/bench_significance.py
Prints median wall times and the speed-up over tests/naive.py or the scipy / statsmodels
call it replaces (warmed up first). The two-model tests (corrected t, McNemar, 5x2cv) are
timed per call: they should take microseconds to a millisecond.

The last section times the critical-difference diagram written to PNG, scores table ->
file, against autorank's matplotlib diagram (``autorank`` + ``plot_stats`` + ``savefig``;
skipped with a message when autorank is not installed: it is not a dependency), on 50 x 10
and 1000 x 50 tables (conditions x models): cold (the first call in a fresh process, and
the whole process with its imports) and warm (later calls), min / median / max of repeats.
``--cd-only`` runs only that section; ``--win-tie-loss`` only the timing of
``win_tie_loss`` (against the loop it replaced, one scipy Wilcoxon per pair, at 200
alternatives x 10 conditions, and alone at 2,000 alternatives); ``--repeat N`` sets its
number of repeats.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import naive

from genexpy_nb import distributions as dist
from genexpy_nb import significance as sig
from genexpy_nb._numba.distributions import _sample_weak_orders
from genexpy_nb.significance._ranks import rank_rows


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


def _win_tie_loss_loop(v, hib=True):
    """win_tie_loss as it was before issue 39: one scipy Wilcoxon per pair, a loop per cell."""
    names = [str(i) for i in range(v.shape[1])]
    pw = sig.pairwise_wilcoxon(v, p_adjust="holm", nan_policy="omit", order=names)
    pval = {(a, b): p for a, b, p in pw.select("alternative_1", "alternative_2",
                                                "pvalue").iter_rows()}
    rows = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i != j:
                keep = ~(np.isnan(v[:, i]) | np.isnan(v[:, j]))
                d = v[keep, i] - v[keep, j]
                better = d if hib else -d
                tie = np.abs(d) <= 0
                rows.append((a, b, int(((better > 0) & ~tie).sum()), int(tie.sum()),
                             int(((better < 0) & ~tie).sum()), d.size, float(d.mean()),
                             pval.get((a, b), pval.get((b, a)))))
    return rows


def bench_win_tie_loss():
    """win_tie_loss vectorised against the loop it replaced (one scipy Wilcoxon per pair).

    Continuous scores at 200 alternatives x 10 conditions (scipy's exact p-value, ~2.5 ms a
    pair); rounded scores (ties: scipy's permutation test, ~0.4 s a pair) at 12 alternatives
    only; then 2,000 alternatives (1,999,000 pairs), new code only.
    """
    rng = np.random.default_rng(0)
    for label, v in (("200 x 10, continuous (19,900 pairs)", rng.random((10, 200))),
                     ("12 x 10, ties (66 pairs)", np.round(rng.random((10, 12)), 1))):
        fast = timeit(lambda v=v: sig.win_tie_loss(v, higher_is_better=True, progress=False), 3)
        t = time.perf_counter()
        _win_tie_loss_loop(v)
        row(f"win_tie_loss {label}", fast, time.perf_counter() - t)
    for label, big in (("continuous", rng.random((10, 2000))),
                       ("ties", np.round(rng.random((10, 2000)), 2))):
        t = time.perf_counter()
        sig.win_tie_loss(big, higher_is_better=True, progress=False)
        row(f"win_tie_loss 2,000 x 10, {label}", time.perf_counter() - t)


def main():
    rng = np.random.default_rng(0)
    print(f"{'':<46}{'fast':>13} {'naive':>13} {'speed-up':>9}")
    # our midranks (NumPy, nothing to compile) and Friedman statistic against scipy's
    small = rng.integers(0, 5, size=(20, 5)).astype(float)
    row("midranks 20 x 5 vs scipy.stats.rankdata", timeit(lambda: rank_rows(small), 50),
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
    row("midranks 500 x 10 vs scipy.stats.rankdata", timeit(lambda: rank_rows(x), 20),
        timeit(lambda: stats.rankdata(x, axis=1), 20))
    x[rng.random(x.shape) < 0.1] = np.nan
    row("midranks 500 x 10 (ties, NaN)", timeit(lambda: rank_rows(x)),
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


# --- the critical-difference diagram as PNG, against autorank ------------------------------

_CD_SETUP = """
import time
t0 = time.perf_counter()
{imports}
import numpy as np
t1 = time.perf_counter()
rng = np.random.default_rng(0)
x = rng.random(({n}, {k})) + np.linspace(0.0, 0.3, {k})
names = [f"model_{{j}}" for j in range({k})]
"""

# scores table -> PNG file, one statement per contender (same data, same file name)
_CD_CONTENDERS = {
    "ours: save_cd_diagram": (
        "from genexpy_nb.charts import save_cd_diagram",
        "save_cd_diagram(x, path, higher_is_better=True, alternatives=names)",
    ),
    "ours via Vega: save_chart": (
        "from genexpy_nb.charts import cd_diagram, save_chart",
        "save_chart(cd_diagram(x, higher_is_better=True, alternatives=names), path)",
    ),
    "autorank": (
        "import contextlib, io, warnings\n"
        "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
        "import pandas as pd\nfrom autorank import autorank, plot_stats",
        "with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():\n"
        "    warnings.simplefilter('ignore')\n"
        "    res = autorank(pd.DataFrame(x, columns=names), alpha=0.05, verbose=False,\n"
        "                   force_mode='nonparametric')\n"
        "    plot_stats(res, allow_insignificant=True)\n"
        "    plt.savefig(path)\n"
        "    plt.close('all')",
    ),
}

_CD_COLD = _CD_SETUP + """
path = {path!r}
t2 = time.perf_counter()
{call}
t3 = time.perf_counter()
warm = []
for _ in range({warm}):
    a = time.perf_counter()
{call_indented}
    warm.append(time.perf_counter() - a)
print("RESULT", json.dumps({{"import": t1 - t0, "first": t3 - t2, "warm": warm}}))
"""


def _cd_run(name: str, n: int, k: int, path: str, warm: int) -> dict:
    imports, call = _CD_CONTENDERS[name]
    code = "import json\n" + _CD_COLD.format(
        imports=imports, n=n, k=k, path=path, call=call, warm=warm,
        call_indented="\n".join("    " + line for line in call.splitlines()))
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=False)
    whole = time.perf_counter() - t
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    if out.returncode or not line:
        raise RuntimeError(f"{name} failed:\n{out.stderr[-2000:]}")
    res = json.loads(line[0][7:])
    res["whole"] = whole - sum(res["warm"])  # the process with one call: start, imports, call
    return res


def _mmm(xs: list[float]) -> str:
    return (f"{min(xs) * 1e3:7.0f} {statistics.median(xs) * 1e3:7.0f} "
            f"{max(xs) * 1e3:7.0f}")


def bench_cd_png(repeat: int = 5, warm: int = 5) -> None:
    """Print the CD-diagram-to-PNG timings (ms: min, median, max) and the ratios.

    Each contender runs in fresh processes: "first call" is its first diagram there (after
    the imports), "warm" the calls after it, "whole process" the process's wall time with
    one call (interpreter start, imports, data, call), the warm calls subtracted. autorank
    is forced to its non-parametric mode (Friedman, Nemenyi, CD diagram: our work).
    """
    try:
        import autorank  # noqa: F401
    except ImportError:
        print("\nCD diagram -> PNG: autorank is not installed (pip install autorank), so the "
              "comparison with it is skipped; our own timings follow.")
        names = [c for c in _CD_CONTENDERS if not c.startswith("autorank")]
    else:
        names = list(_CD_CONTENDERS)
    print(f"\nCD diagram -> PNG file, {repeat} fresh processes each (interleaved), "
          f"{warm} warm calls per process; ms as min / median / max")
    tmp = Path(tempfile.mkdtemp())
    for n, k in ((50, 10), (1000, 50)):
        runs: dict[str, list[dict]] = {c: [] for c in names}
        for r in range(repeat):
            for c in names:  # interleaved, so that the others' load hits all alike
                runs[c].append(_cd_run(c, n, k, str(tmp / f"cd_{n}x{k}_{r}.png"), warm))
        print(f"\n{n} x {k} (conditions x models){'':<7}{'first call':>23}"
              f"{'warm (later calls)':>25}{'whole process':>25}")
        stats_by = {}
        for c in names:
            first = [x["first"] for x in runs[c]]
            warm_t = [t for x in runs[c] for t in x["warm"]]
            whole = [x["whole"] for x in runs[c]]
            stats_by[c] = (first, warm_t, whole)
            print(f"  {c:<37}{_mmm(first)}  {_mmm(warm_t)}  {_mmm(whole)}")
        if "autorank" in stats_by:
            ar = stats_by["autorank"]
            for c in names[:2]:
                ours = stats_by[c]
                ratio = "  ".join(
                    f"{what} {statistics.median(a) / statistics.median(o):5.2f}x"
                    f" (min {min(a) / min(o):5.2f}x)"
                    for what, o, a in zip(("first", "warm", "whole"), ours, ar))
                print(f"  autorank / {c:<26}{ratio}")


if __name__ == "__main__":
    args = sys.argv[1:]
    rep = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 5
    if "--win-tie-loss" in args:
        bench_win_tie_loss()
        sys.exit(0)
    if "--cd-only" not in args:
        main()
        bench_win_tie_loss()
    bench_cd_png(repeat=rep)
