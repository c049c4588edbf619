"""First calls in a fresh process: each public test's first call against its warm call.

A notebook user pays the first call of every session: the imports it triggers (scipy.stats,
scipy.special, numba) and any kernel it loads. Each function runs in its own fresh
interpreter on a 16 x 112 table of accuracies (16 classifiers, 112 datasets; seeded, the
shape of a public UCR comparison), which prints the import of numpy + polars, the import of
genexpy_nb, the first call, a warm call and the whole process; the runs are interleaved,
``--repeat`` times, medians printed. ``--tree PATH`` times another checkout of the package
(e.g. an older commit exported with ``git archive``) in the same rounds, for a before/after
ratio under the same load.

Usage (from the repository root)::

    PYTHONPATH=. python benchmarks/bench_first_calls.py --repeat 5 [--tree /tmp/old]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parent.parent

ONE = r'''
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import polars as pl
t1 = time.perf_counter()
import genexpy_nb
from genexpy_nb import significance as sig
t2 = time.perf_counter()
X = pl.read_csv(sys.argv[2]).drop("dataset").to_numpy()
f = {"critical_difference": lambda: sig.critical_difference(X, higher_is_better=True),
     "posthoc_nemenyi": lambda: sig.posthoc_nemenyi(X, higher_is_better=True),
     "pairwise_wilcoxon": lambda: sig.pairwise_wilcoxon(X),
     "friedman": lambda: sig.friedman(X, higher_is_better=True),
     "conclusions": lambda: __import__("genexpy_nb").conclusions(__import__("genexpy_nb").Study(
         pl.read_csv(sys.argv[2]).unpivot(index="dataset"), alternatives="variable",
         target="value", generalize="dataset", higher_is_better=True), progress=False),
     }[sys.argv[1]]
t = time.perf_counter(); f(); first = time.perf_counter() - t
t = time.perf_counter(); f(); warm = time.perf_counter() - t
print(json.dumps({"numpy_polars": t1 - t0, "genexpy_nb": t2 - t1, "first": first,
                  "warm": warm, "whole": time.perf_counter() - t0}))
'''

FUNCTIONS = ("critical_difference", "posthoc_nemenyi", "pairwise_wilcoxon", "friedman",
             "conclusions")

#: the peers' whole processes on the same table: what a user of each runs instead
PEERS = {
    "scipy: studentized_range.ppf (the CD)": r"""
import sys, numpy as np, pandas as pd
from scipy import stats
X = pd.read_csv(sys.argv[1]).drop(columns="dataset").to_numpy()
stats.studentized_range.ppf(0.95, X.shape[1], np.inf)
""",
    "scipy: wilcoxon on every pair": r"""
import sys, itertools, numpy as np, pandas as pd
from scipy import stats
X = pd.read_csv(sys.argv[1]).drop(columns="dataset").to_numpy()
[stats.wilcoxon(X[:, i], X[:, j]) for i, j in itertools.combinations(range(X.shape[1]), 2)]
""",
    "scikit-posthocs: posthoc_nemenyi_friedman": r"""
import sys, pandas as pd, scikit_posthocs as sp
sp.posthoc_nemenyi_friedman(pd.read_csv(sys.argv[1]).drop(columns="dataset").to_numpy())
""",
    "autorank: autorank()": r"""
import sys, warnings, pandas as pd
from autorank import autorank
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    autorank(pd.read_csv(sys.argv[1]).drop(columns="dataset"), alpha=0.05, verbose=False)
""",
}


def _table(path: Path) -> None:
    rng = np.random.default_rng(1)
    base = 1.0 - rng.gamma(1.5, 0.08, (112, 1))
    S = np.clip(base - 0.05 + np.linspace(0, 0.06, 16)[None, :]
                + rng.normal(0, 0.02, (112, 16)), 0, 1)
    pl.DataFrame(S, schema=[f"clf{i:02d}" for i in range(16)]).with_columns(
        pl.Series("dataset", [f"d{i:03d}" for i in range(112)])).write_csv(path)


def main() -> None:
    """Time every function's first call in fresh processes and print the medians."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tree", type=Path, default=None, help="another checkout to compare")
    args = ap.parse_args()
    trees = {"this checkout": ROOT} | ({"--tree": args.tree} if args.tree else {})
    res: dict[tuple[str, str], list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp) / "w16x112.csv"
        _table(table)
        script = Path(tmp) / "one.py"
        script.write_text(ONE)
        for _ in range(args.repeat):
            for fn in FUNCTIONS:
                for label, tree in trees.items():
                    env = {**os.environ, "PYTHONPATH": str(tree)}
                    out = subprocess.run([sys.executable, str(script), fn, str(table)],
                                         capture_output=True, text=True, env=env, cwd=tmp)
                    if out.returncode != 0:
                        raise SystemExit(out.stderr[-2000:])
                    res.setdefault((label, fn), []).append(
                        json.loads(out.stdout.strip().splitlines()[-1]))
        peers: dict[str, list[float]] = {}
        for _ in range(args.repeat):
            for name, code in PEERS.items():
                path = Path(tmp) / "peer.py"
                path.write_text(code)
                t = time.perf_counter()
                out = subprocess.run([sys.executable, str(path), str(table)],
                                     capture_output=True, text=True, cwd=tmp)
                if out.returncode == 0:
                    peers.setdefault(name, []).append(time.perf_counter() - t)
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores; medians of "
          f"{args.repeat} fresh processes, interleaved; seconds")
    print(f"{'checkout':14s} {'function':20s} {'numpy+polars':>12s} {'genexpy_nb':>10s} "
          f"{'first call':>10s} {'warm':>7s} {'whole':>6s} {'first/(warm+import)':>19s}")
    for (label, fn), runs in res.items():
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        ratio = med["first"] / (med["warm"] + med["genexpy_nb"])
        print(f"{label:14s} {fn:20s} {med['numpy_polars']:12.2f} {med['genexpy_nb']:10.2f} "
              f"{med['first']:10.2f} {med['warm']:7.3f} {med['whole']:6.2f} {ratio:19.2f}")
    print("the peers' whole processes (interpreter, imports, the same table):")
    for name, ts in peers.items():
        print(f"  {name:45s} {statistics.median(ts):6.2f} s")


if __name__ == "__main__":
    main()
