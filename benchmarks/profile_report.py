"""Where ``genexpy-nb report``'s time goes, per step and section (cProfile, cold process).

Run from the repository root:  PYTHONPATH=. python benchmarks/profile_report.py [--boards]

Each board of ``bench_report.py --boards`` (72 x 51, 100 x 1,000 items, 300 x 50, 20 x 5,000
items) is profiled in a fresh interpreter, the profiler on from the first import, so the
table counts what a user waits for: the imports, reading the CSV, each analysis and each
section of the page, writing the folder. Each row is the cumulative time of the functions
that do that step (cProfile's own overhead included: the times are about 1.1-1.3x those
of an unprofiled run; read them as shares). ``--top N`` also prints the N costliest
functions of each board.
"""

from __future__ import annotations

import argparse
import os
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_report import BOARDS, _board  # noqa: E402

#: (row label, [(file suffix, function name)]): the cumulative times summed
STEPS = (
    ("imports and start (before the table is read)", None),
    ("reading the table, the study", [("cli/report.py", "_table_and_roles"),
                                      ("answers/report_page.py", "_as_study"),
                                      ("answers/report_page.py", "_missing_pairs"),
                                      ("answers/scales.py", "outliers")]),
    ("conclusions: pairs (closed form)", [("generalizability/_conclusion_model.py",
                                           "_pair_stats"),
                                          ("generalizability/conclusions.py", "_pair_rows"),
                                          ("generalizability/conclusions.py", "_separation")]),
    ("conclusions: best, top-k, order (Monte Carlo n*)", [
        ("generalizability/conclusions.py", "_set_row")]),
    ("conclusions: the plan (needs k more)", [("generalizability/conclusions.py",
                                               "_plan_rows")]),
    ("conclusions: the frame", [("generalizability/conclusions.py", "_frame")]),
    ("classical tests (per configuration)", [("answers/report_page.py", "_comparison")]),
    ("rank probabilities and intervals", [("answers/report_page.py", "_rank_tables")]),
    ("robust aggregates (bootstrap)", [("answers/report_page.py", "_beyond_p_values")]),
    ("n* (two questions, baseline)", [("generalizability/run.py", "analyze")]),
    ("section: the answer", [("answers/report_page.py", "_answer_section")]),
    ("section: what to run next (plan)", [("answers/report_page.py", "_plan_section")]),
    ("section: tiers (rank sets, their plan)", [("answers/report_page.py",
                                                 "_tiers_section")]),
    ("section: the classical tests", [("answers/report_page.py", "_classical_section")]),
    ("section: beyond p-values", [("answers/report_page.py", "_beyond_section")]),
    ("section: n*", [("answers/report_page.py", "_nstar_section")]),
    ("section: the data", [("answers/report_page.py", "_data_section")]),
    ("writing the folder", [("answers/report_page.py", "save")]),
)

CHILD = r'''
import cProfile, sys, time
t0 = time.perf_counter()
pr = cProfile.Profile()
pr.enable()
from genexpy_nb.cli import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
pr.disable()
pr.dump_stats(sys.argv[1])
print(time.perf_counter() - t0)
'''


def _cum(stats: pstats.Stats, targets: list[tuple[str, str]]) -> float:
    """Sum the cumulative times of the named functions (outermost calls only)."""
    total = 0.0
    for (path, _line, name), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():
        if any(path.endswith(suffix) and name == fn for suffix, fn in targets):
            total += ct
    return total


def profile(path: Path, out: Path, tmp: Path) -> tuple[dict[str, float], float, pstats.Stats]:
    """Profile one report in a fresh interpreter; return the seconds per step."""
    prof = tmp / "p.pstats"
    args = ["report", str(path), "--alternatives", "model", "--target", "accuracy",
            "--generalize", "dataset", "--higher-is-better", "--quiet", "--max-seconds",
            "inf", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(prof), *args], env=env,
                          capture_output=True, text=True, check=True, cwd=ROOT)
    wall = float(proc.stdout.strip().splitlines()[-1])
    st = pstats.Stats(str(prof))
    report = _cum(st, [("cli/report.py", "cmd_report")])
    rows = {}
    for label, targets in STEPS:
        rows[label] = None if targets is None else _cum(st, targets)
    rows[STEPS[0][0]] = wall - report  # the interpreter, the imports, the parser
    rows["the rest of the report"] = report - sum(v for k, v in rows.items()
                                                   if k != STEPS[0][0])
    rows["whole process (profiled)"] = wall
    return rows, wall, st


def main() -> None:
    """Profile the boards and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--only", default=None, help="one board, e.g. 300x50")
    args = ap.parse_args()
    cols, tops = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for na, nc, binary in BOARDS:
            if args.only and args.only != f"{na}x{nc}":
                continue
            path = tmp / f"board_{na}x{nc}.csv"
            _board(na, nc, binary, path)
            label = f"{na} x {nc:,}{' items' if binary else ''}"
            cols[label], _, st = profile(path, tmp / f"o_{na}x{nc}", tmp)
            tops[label] = st
    print(f"load average {os.getloadavg()[0]:.1f} at the end, {os.cpu_count()} cores")
    labels = list(cols)
    print("| step / section | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    for row in [s[0] for s in STEPS] + ["the rest of the report", "whole process (profiled)"]:
        print(f"| {row} | " + " | ".join(f"{cols[c][row]:.2f}" for c in labels) + " |")
    for label, st in tops.items():
        if args.top:
            print(f"\n## {label}")
            st.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
