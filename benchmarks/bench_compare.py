"""``genexpy-nb compare`` as a whole process against autorank, on the same table.

Run from the repository root:  PYTHONPATH=. python benchmarks/bench_compare.py [--repeat N]
[--table results.csv --alternatives COL --target COL --blocks COL]

The default table has the shape of the neural-nets-vs-boosted-trees benchmark of McElfresh
et al. (2023): 22 algorithms x 171 datasets with 562 failed runs (absent rows), most of
them from a few algorithms that fail on large datasets; it is generated here (seeded), so
nothing is downloaded.

Each contender runs in a fresh interpreter (``python -m genexpy_nb compare`` / a script
calling autorank), so the times include starting Python, importing, reading the CSV, the
tests, the report and the figures - what a user waits for:

- **genexpy_nb**: ``genexpy-nb compare TABLE ... --figures html,png``: the missing-results
  policy, Skillings-Mack's test over every remaining block, post-hoc z-tests with Holm's
  correction, mean ranks, the tables, report.md, mean_ranks.tex, the CD diagram as HTML
  and PNG.
- **autorank**: what its user writes for the same table: pandas reads it, pivots it to a
  wide table and drops the datasets with a failed run (autorank refuses missing values),
  then ``autorank(...)``, ``create_report`` (text), ``latex_table`` and ``plot_stats``
  saved as PNG (matplotlib, Agg).

The contenders alternate, ``--repeat`` times each (default 7); the minimum and the median
wall time are printed with the ratio of the medians. Run it on a quiet machine (the load
average is printed). autorank is a benchmark-only dependency: ``pip install
genexpy_nb[bench]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

AUTORANK = r'''
import sys, warnings
import matplotlib
matplotlib.use("Agg")
import pandas as pd
import matplotlib.pyplot as plt
from autorank import autorank, create_report, latex_table, plot_stats
path, alt, target, block, out = sys.argv[1:6]
df = pd.read_csv(path)
wide = df.pivot_table(index=block, columns=alt, values=target).dropna()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    res = autorank(wide, alpha=0.05, verbose=False, order="descending")
    create_report(res)
    latex_table(res)
    plot_stats(res)
plt.savefig(out + "/cd.png")
'''


def make_table(path: Path, seed: int = 0) -> None:
    """22 algorithms x 171 datasets, 562 failed runs (absent rows), seeded."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(seed)
    k, n, failed = 22, 171, 562
    names = [f"algorithm_{j:02d}" for j in range(k)]
    skill = np.linspace(0.0, 0.08, k)
    acc = 0.8 + rng.normal(0, 0.06, (n, 1)) + skill + rng.normal(0, 0.03, (n, k))
    # failures: mostly 6 algorithms on the largest datasets, a few scattered elsewhere
    size = rng.random(n)
    weight = np.outer(size ** 3, np.r_[np.full(6, 8.0), np.full(k - 6, 0.3)])
    p = (weight / weight.sum()).ravel()
    gone = rng.choice(n * k, size=failed, replace=False, p=p)
    keep = np.ones(n * k, dtype=bool)
    keep[gone] = False
    keep = keep.reshape(n, k)
    rows = [(f"dataset_{i:03d}", names[j], float(acc[i, j])) for i in range(n)
            for j in range(k) if keep[i, j]]
    pl.DataFrame(rows, schema=["dataset", "algorithm", "accuracy"], orient="row").write_csv(path)


def _run(cmd: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    dt = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:4]} failed:\n{proc.stderr[-2000:]}")
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--table", default=None)
    ap.add_argument("--alternatives", default="algorithm")
    ap.add_argument("--target", default="accuracy")
    ap.add_argument("--blocks", default="dataset")
    args = ap.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        table = Path(args.table) if args.table else tmp / "table.csv"
        if args.table is None:
            make_table(table)
        # byte-compile first, as an installation does
        subprocess.run([py, "-m", "compileall", "-q", str(ROOT / "genexpy_nb")], check=True)
        ours = [py, "-m", "genexpy_nb", "compare", str(table), "--alternatives",
                args.alternatives, "--target", args.target, "--blocks", args.blocks,
                "--higher-is-better", "--figures", "html,png", "--quiet", "--out"]
        try:
            import autorank  # noqa: F401

            has_autorank = True
        except ImportError:
            has_autorank = False
            print("autorank is not installed (pip install genexpy_nb[bench]): genexpy_nb only")
        script = tmp / "autorank_run.py"
        script.write_text(AUTORANK)
        times: dict[str, list[float]] = {"genexpy_nb": [], "autorank": []}
        for r in range(args.repeat + 1):  # the first round warms the file cache
            out = tmp / f"g{r}"
            t = _run([*ours, str(out)])
            if r:
                times["genexpy_nb"].append(t)
            if has_autorank:
                (tmp / f"a{r}").mkdir()
                t = _run([py, str(script), str(table), args.alternatives, args.target,
                          args.blocks, str(tmp / f"a{r}")])
                if r:
                    times["autorank"].append(t)
        load = os.getloadavg()
        import polars as pl

        df = pl.read_csv(table)
        k = df[args.alternatives].n_unique()
        n = df[args.blocks].n_unique()
        print(f"table: {k} alternatives x {n} blocks, {k * n - df.height} missing results; "
              f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.repeat} runs each")
        print(f"{'':28}{'min':>9}{'median':>9}")
        for name, ts in times.items():
            if ts:
                print(f"{name + ' (whole process)':28}{min(ts):8.2f}s{statistics.median(ts):8.2f}s")
        if times["autorank"]:
            ratio = statistics.median(times["autorank"]) / statistics.median(times["genexpy_nb"])
            print(f"autorank / genexpy_nb (medians): {ratio:.2f}x")


if __name__ == "__main__":
    main()
