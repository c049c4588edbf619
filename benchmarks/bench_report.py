"""``genexpy-nb report`` as a whole process: the shipped example and an 18 x 104 table.

Run from the repository root:  PYTHONPATH=. python benchmarks/bench_report.py [--repeat N]

Each run is a fresh interpreter (``python -m genexpy_nb report ...``), so the times include
starting Python, importing, reading the table, the whole analysis (conclusions, plan, rank
tests per configuration, rank probabilities, n*) and writing the folder - what a user waits
for. Two tables:

- **example**: the study shipped with the package (8 classifiers x 80 datasets x 6
  configurations, 5 folds averaged);
- **18 x 104**: 18 alternatives on 104 datasets, one configuration, a few failed runs
  (absent rows), generated here (seeded).

With autorank installed (``pip install genexpy_nb[bench]``) the script also times what an
autorank user runs on the 18 x 104 table (``autorank`` + ``create_report`` +
``latex_table`` + ``plot_stats`` saved as PNG, the datasets with a failed run dropped) and
prints the ratio of the medians (the runs interleaved: one of each per round); note that
``report`` computes much more than those four calls (the conclusions' n*, the paper's n*,
rank probabilities, aggregates). The minimum and median
wall times are printed with the load average: run it on a quiet machine.

``--against DIR`` also times the same reports run from another checkout of the package (a
git worktree of an earlier commit, say), interleaved with this one's, and prints the ratios
of their medians: a change's speed-up measured in the same conditions.

``--wide PATH`` adds a public table of your own (a wide CSV: the first column names the
datasets, every other numeric column is a method's accuracy, higher is better), timed the
same way as the 18 x 104 table, e.g. the 14 x 85 UCR table of ``results/ppsn_vs_sota.csv``
joined with ``results/ppsn_vs_sbc.csv`` of github.com/fw2713/ppsn (not shipped: it has no
licence).
"""

from __future__ import annotations

import argparse
import importlib.util
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


def _table_18x104(path: Path) -> None:
    """18 alternatives x 104 datasets of accuracies, 6 failed runs left out (seeded)."""
    rng = np.random.default_rng(0)
    skill = np.linspace(0.0, 0.08, 18)
    rows = [(f"ds{i:03d}", f"method_{j:02d}",
             float(np.clip(0.7 + skill[j] + rng.normal(0, 0.05), 0, 1)))
            for i in range(104) for j in range(18)]
    drop = {(f"ds{i:03d}", "method_03") for i in (5, 17, 40)} | {
        (f"ds{i:03d}", "method_11") for i in (2, 60, 99)}
    rows = [r for r in rows if (r[0], r[1]) not in drop]
    pl.DataFrame(rows, schema=["dataset", "model", "accuracy"], orient="row").write_csv(path)


#: leaderboard shapes of issue 53: (alternatives, conditions, per-item 0/1 scores)
BOARDS = ((72, 51, False), (100, 1000, True), (300, 50, False), (20, 5000, True))


def _board(na: int, nc: int, binary: bool, path: Path, seed: int = 0) -> None:
    """A seeded leaderboard: na models on nc datasets (accuracies) or items (0/1).

    Accuracies: a skewed difficulty per dataset (most datasets easy, a tail of hard
    ones), a skill per model and noise, clipped to [0, 1]: not normal, as real accuracy
    tables, so autorank takes its usual path (Friedman and Nemenyi). Items: each model
    answers each item correctly with a probability from the item's difficulty and the
    model's skill.
    """
    rng = np.random.default_rng(seed)
    skill = np.linspace(0.0, 0.1, na)
    if binary:
        p = np.clip(0.5 + skill[None, :] + rng.normal(0, 0.2, (nc, 1)), 0.02, 0.98)
        S = (rng.random((nc, na)) < p).astype(float)
    else:
        base = 1.0 - rng.gamma(1.5, 0.08, size=(nc, 1))
        S = np.clip(base - 0.1 + skill[None, :] + rng.normal(0, 0.02, (nc, na)), 0, 1)
    pl.DataFrame({"dataset": np.repeat([f"d{i:05d}" for i in range(nc)], na),
                  "model": [f"m{j:03d}" for j in range(na)] * nc,
                  "accuracy": S.ravel()}).write_csv(path)


def _long_from_wide(wide: Path, path: Path) -> str:
    """A wide results CSV (datasets x methods) as the long table; returns its shape."""
    w = pl.read_csv(wide)
    first = w.columns[0]
    methods = [c for c in w.columns[1:] if w.schema[c].is_numeric()]
    w.unpivot(index=first, on=methods, variable_name="model", value_name="accuracy").rename(
        {first: "dataset"}).drop_nulls().write_csv(path)
    return f"{len(methods)} x {w.height}"


def _time(cmd: list[str], env: dict, cwd: Path = ROOT) -> tuple[float, float]:
    """Run one command; return its wall time and its CPU time (user + system, all threads)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    took = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu


def main() -> None:
    """Time the contenders and print the table of times."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--wide", type=Path, default=None,
                    help="also a public wide table: datasets x methods, higher is better")
    ap.add_argument("--against", type=Path, default=None,
                    help="another checkout of the package (e.g. a git worktree of an earlier "
                         "commit): its reports too, interleaved, and the ratios")
    ap.add_argument("--boards", action="store_true",
                    help="the leaderboard shapes of issue 53 (72 x 51, 100 x 1,000 items, "
                         "300 x 50, 20 x 5,000 items) instead of the example and 18 x 104")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        from genexpy_nb.example.study import load_example_study

        load_example_study().write_csv(tmp / "example.csv")
        _table_18x104(tmp / "t18x104.csv")
        py = [sys.executable, "-m", "genexpy_nb", "report"]
        common = ["--alternatives", "model", "--target", "accuracy", "--generalize",
                  "dataset", "--higher-is-better", "--quiet"]
        if args.boards:
            runs, pairs = {}, []
            for na, nc, binary in BOARDS:
                label = f"{na} x {nc}{' items' if binary else ''}"
                path = tmp / f"board_{na}x{nc}.csv"
                _board(na, nc, binary, path)
                pairs.append((label, path))
                runs[f"report, {label}"] = py + [str(path), *common, "--max-seconds", "inf",
                                                 "--out", str(tmp / f"o_{na}x{nc}")]
        else:
            runs = {
                "report, example (8 x 80 x 6 configurations)": py + [
                    str(tmp / "example.csv"), "--alternatives", "model", "--target", "score",
                    "--generalize", "dataset", "--design", "metric,train_size",
                    "--average-over", "fold", "--higher-is-better", "--quiet",
                    "--out", str(tmp / "o1")],
                "report, 18 x 104": py + [str(tmp / "t18x104.csv"), *common,
                                          "--out", str(tmp / "o2")],
            }
            pairs = [("18 x 104", tmp / "t18x104.csv")]
        if args.wide is not None:
            shape = _long_from_wide(args.wide, tmp / "wide.csv")
            pairs.append((f"public {shape}", tmp / "wide.csv"))
            runs[f"report, public {shape}"] = py + [
                str(tmp / "wide.csv"), "--alternatives", "model", "--target", "accuracy",
                "--generalize", "dataset", "--higher-is-better", "--quiet",
                "--out", str(tmp / "o3")]
        other = {}
        if args.against is not None:  # the same reports from the other checkout
            against = args.against.resolve()
            if not (against / "genexpy_nb" / "__init__.py").is_file():
                raise SystemExit(f"--against {against}: no genexpy_nb package there")
            for name, cmd in list(runs.items()):
                if name.startswith("report, "):
                    key = "against" + name.removeprefix("report")
                    at = cmd.index("--out") + 1  # its own output folder
                    runs[key] = [*cmd[:at], cmd[at] + "_against", *cmd[at + 1:]]
                    other[key] = against
        if importlib.util.find_spec("autorank") is not None:
            (tmp / "ar.py").write_text(AUTORANK)
            for label, table in pairs:
                (tmp / f"ar_{table.stem}").mkdir()
                runs[f"autorank 4 calls, {label}"] = [
                    sys.executable, str(tmp / "ar.py"), str(table), "model", "accuracy",
                    "dataset", str(tmp / f"ar_{table.stem}")]
        times: dict[str, list[float]] = {k: [] for k in runs}
        cpus: dict[str, list[float]] = {k: [] for k in runs}
        loads = []
        for _ in range(args.repeat):
            for name, cmd in runs.items():
                cwd = other.get(name, ROOT)
                wall, cpu = _time(cmd, {**env, "PYTHONPATH": str(cwd)}, cwd)
                times[name].append(wall)
                cpus[name].append(cpu)
                loads.append(os.getloadavg()[0])
    print(f"load average {min(loads):.1f}-{max(loads):.1f} while these ran, "
          f"{os.cpu_count()} cores, {args.repeat} runs each, interleaved")
    for name, ts in times.items():
        print(f"{name:48s} min {min(ts):6.2f} s   median {statistics.median(ts):6.2f} s   "
              f"CPU median {statistics.median(cpus[name]):6.2f} s")
    compared = [k.removeprefix("autorank 4 calls, ") for k in times
                if k.startswith("autorank")]
    for label in compared:
        ours, peer = f"report, {label}", f"autorank 4 calls, {label}"
        ratio = statistics.median(times[ours]) / statistics.median(times[peer])
        cpu_ratio = statistics.median(cpus[ours]) / statistics.median(cpus[peer])
        print(f"report / autorank on {label} (medians): wall {ratio:.2f}, CPU {cpu_ratio:.2f}")
    for name in other:
        mine = "report" + name.removeprefix("against")
        ratio = statistics.median(times[mine]) / statistics.median(times[name])
        cpu_ratio = statistics.median(cpus[mine]) / statistics.median(cpus[name])
        print(f"this checkout / {args.against} on {name.removeprefix('against, ')} "
              f"(medians): wall {ratio:.2f}, CPU {cpu_ratio:.2f}")
    if not compared:
        print("autorank is not installed (pip install genexpy_nb[bench]): no ratio")


if __name__ == "__main__":
    main()
