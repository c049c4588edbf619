"""Where ``genexpy-nb report``'s time goes, per step and section (cProfile, cold process).

Run from the repository root:  PYTHONPATH=. python benchmarks/profile_report.py [--streams]

Each board of ``bench_report.py --boards`` (72 x 51, 100 x 1,000 items, 300 x 50, 20 x 5,000
items) is profiled in a fresh interpreter, the profiler on from the first import, so the
table counts what a user waits for: the imports, reading the CSV, each analysis and each
section of the page, writing the folder. Each row is the cumulative time of the functions
that do that step (cProfile's own overhead included: the times are about 1.1-1.3x those
of an unprofiled run; read them as shares). The report runs its analyses side by side on
threads; profiled, they run one after another on one thread (the rows add up to the time of
one stream after another). ``--streams`` prints instead when each analysis and section of
an unprofiled run started and ended, and on which thread. ``--top N`` also prints the N
costliest functions of each board.
"""

from __future__ import annotations

import argparse
import importlib.util
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
                                           "_pair_core"),
                                          ("generalizability/_conclusion_model.py",
                                           "_pair_intervals"),
                                          ("generalizability/conclusions.py",
                                           "_pair_verdicts"),
                                          ("generalizability/conclusions.py", "_pair_rows"),
                                          ("generalizability/conclusions.py", "_separation")]),
    ("conclusions: best, top-k, order (Monte Carlo n*)", [
        ("generalizability/conclusions.py", "_set_nstar")]),
    ("conclusions: the plan (needs k more)", [("generalizability/conclusions.py", "_plan"),
                                              ("generalizability/conclusions.py",
                                               "_plan_rows")]),
    ("conclusions: the frame", [("generalizability/conclusions.py", "_frame")]),
    ("classical tests (per configuration)", [("answers/report_page.py", "_comparison")]),
    ("rank probabilities and intervals", [("answers/report_page.py", "_rank_tables")]),
    ("robust aggregates (bootstrap)", [("answers/report_page.py", "_beyond_p_values")]),
    ("n* (two questions, baseline)", [("generalizability/run.py", "analyze")]),
    ("section: the answer", [("answers/report_page.py", "_answer_section")]),
    ("section: what to run next (plan)", [("answers/report_page.py", "_plan_section")]),
    ("tiers (rank sets, their plan)", [("leaderboards/tier_plan.py", "tiers")]),
    ("section: tiers", [("answers/report_page.py", "_tiers_section")]),
    ("section: the classical tests", [("answers/report_page.py", "_classical_section")]),
    ("section: beyond p-values", [("answers/report_page.py", "_beyond_section")]),
    ("section: n*", [("answers/report_page.py", "_nstar_section")]),
    ("section: the data", [("answers/report_page.py", "_data_section")]),
    ("writing the folder", [("answers/report_page.py", "save")]),
)

# The report runs its analyses as streams on threads, and cProfile sees only the thread
# that started it: here every pool runs what it is given at once, on the calling thread (the
# streams one after another: the rows add up to the CPU time of one stream after another,
# not to the wall time; ``--streams`` prints when each stream ran in an unprofiled run).
CHILD = r'''
import cProfile, sys, time
import concurrent.futures as cf
_Pool = cf.ThreadPoolExecutor
class _Serial:
    """The report's streams and gx.conclusions' threads, one after another on this thread.

    The kernels' row blocks (run_blocks) keep their own pools: cProfile counts a step's
    kernels as the time its thread waited for them.
    """
    def __new__(cls, *a, **k):
        if not str(k.get("thread_name_prefix", "")).startswith(
                ("genexpy_nb-report", "genexpy_nb-conclusions")):
            return _Pool(*a, **k)
        return object.__new__(cls)
    def __init__(self, *a, **k):
        pass
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return False
    def submit(self, fn, *args, **kwargs):
        f = cf.Future()
        try:
            f.set_result(fn(*args, **kwargs))
        except BaseException as e:
            f.set_exception(e)
        return f
cf.ThreadPoolExecutor = _Serial
t0 = time.perf_counter()
pr = cProfile.Profile()
pr.enable()
from genexpy_nb.cli import main
rc = 0
try:
    rc = main(sys.argv[2:])
except SystemExit as e:
    rc = e.code
pr.disable()
if rc:  # a report that failed is not a profile of one
    raise SystemExit(f"the report failed (exit code {rc})")
pr.dump_stats(sys.argv[1])
print(time.perf_counter() - t0)
'''


#: ``--streams``: when each analysis of an unprofiled report starts and ends, and on which
#: thread (the report's four streams, then its sections and the folder)
STREAMS = r'''
import functools, sys, threading, time
t0 = time.perf_counter()
import genexpy_nb.answers.report_page as RP
import genexpy_nb.generalizability as G
import genexpy_nb.leaderboards as L
log = []
def wrap(owner, name):
    fn = getattr(owner, name)
    @functools.wraps(fn)
    def timed(*a, **k):
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            log.append((t - t0, time.perf_counter() - t0, name, threading.current_thread().name))
    setattr(owner, name, timed)
for owner, name in [(G, "analyze"), (G, "conclusions"), (L, "tiers"), (RP, "_comparison"),
                    (RP, "_rank_tables"), (RP, "_beyond_p_values"), (RP.StudyReport, "save")]:
    wrap(owner, name)
names = [f.__name__ for f in RP._SECTIONS]
for name in names:
    wrap(RP, name)
RP._SECTIONS = tuple(getattr(RP, n) for n in names)
from genexpy_nb.cli import main
start = time.perf_counter() - t0
main(sys.argv[1:])
print(f"{'imports':22s} {'MainThread':26s}   0.00 -> {start:6.2f}")
for a, b, name, thread in sorted(log):
    print(f"{name:22s} {thread:26s} {a:6.2f} -> {b:6.2f}  ({b - a:.2f} s)")
print(f"whole process {time.perf_counter() - t0:.2f} s")
'''


#: ``--held-back``: n* waits until the other three streams have finished, then runs alone
HELD = r'''
import sys, threading, time
t0 = time.perf_counter()
import genexpy_nb.answers.report_page as RP
import genexpy_nb.generalizability as G
import genexpy_nb.generalizability.planner as P
import genexpy_nb.leaderboards as L
done, lock, others = set(), threading.Lock(), threading.Event()
marks = {}
def last_of(owner, name):
    """The last call of each of the other streams: plan, tiers, the aggregates."""
    fn = getattr(owner, name)
    def wrapped(*a, **k):
        try:
            return fn(*a, **k)
        finally:
            with lock:
                done.add(name)
                if len(done) == 3 and not others.is_set():
                    marks["others"] = time.perf_counter() - t0
                    others.set()
    setattr(owner, name, wrapped)
for owner, name in [(P, "plan"), (L, "tiers"), (RP, "_beyond_p_values")]:
    last_of(owner, name)
_analyze = G.analyze
def held(*a, **k):
    others.wait()
    t = time.perf_counter()
    try:
        return _analyze(*a, **k)
    finally:
        marks["nstar"] = time.perf_counter() - t
        marks["nstar_end"] = time.perf_counter() - t0
G.analyze = held
_save = RP.StudyReport.save
def save(self, *a, **k):
    t = time.perf_counter()
    try:
        return _save(self, *a, **k)
    finally:
        marks["save_end"] = time.perf_counter() - t0
        marks["after_nstar"] = marks["save_end"] - marks["nstar_end"]
RP.StudyReport.save = save
from genexpy_nb.cli import main
main(sys.argv[1:])
print(marks["others"], marks["nstar"], marks["after_nstar"], time.perf_counter() - t0)
'''


def _report_args(path: Path, out: Path) -> list[str]:
    """The command line of the boards' report (after ``python -m genexpy_nb``)."""
    return ["report", str(path), "--alternatives", "model", "--target", "accuracy",
            "--generalize", "dataset", "--higher-is-better", "--quiet", "--max-seconds",
            "inf", "--out", str(out)]


def _boards(tmp: Path, only: str | None):
    """Write the boards of ``bench_report.py --boards`` into ``tmp``: (na, nc, binary, path)."""
    for na, nc, binary in BOARDS:
        if only and only != f"{na}x{nc}":
            continue
        path = tmp / f"board_{na}x{nc}.csv"
        _board(na, nc, binary, path)
        yield na, nc, binary, path


def _held_back(only: str | None, repeat: int) -> None:
    """Print, per board, the page's analyses without n* beside them, and n* alone."""
    import statistics

    from bench_report import AUTORANK, _time

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    have_autorank = importlib.util.find_spec("autorank") is not None
    print("| board | other analyses done (s) | n* alone (s) | sections and folder (s) | "
          "page without n* (s) | autorank (s) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "ar.py").write_text(AUTORANK)
        for na, nc, binary, path in _boards(tmp, only):
            args = _report_args(path, tmp / f"o_{na}x{nc}")
            marks, peer = [], []
            for _ in range(repeat):
                proc = subprocess.run([sys.executable, "-c", HELD, *args], env=env,
                                      capture_output=True, text=True, check=True, cwd=ROOT)
                marks.append([float(v) for v in proc.stdout.split()[-4:]])
                if have_autorank:
                    out = tmp / f"ar_{na}x{nc}"
                    out.mkdir(exist_ok=True)
                    peer.append(_time([sys.executable, str(tmp / "ar.py"), str(path),
                                       "model", "accuracy", "dataset", str(out)], env)[0])
            others, nstar, after, _whole = (statistics.median(c) for c in zip(*marks))
            ar = f"{statistics.median(peer):.2f}" if peer else "not installed"
            print(f"| {na} x {nc:,}{' items' if binary else ''} | {others:.2f} | {nstar:.2f} "
                  f"| {after:.2f} | {others + after:.2f} | {ar} |")
    print(f"load average {os.getloadavg()[0]:.1f} at the end, {os.cpu_count()} cores, "
          f"{repeat} runs each, medians")


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
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(prof), *_report_args(path, out)],
                          env=env, capture_output=True, text=True, check=True, cwd=ROOT)
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


def _streams(only: str | None) -> None:
    """Print, per board, when each analysis and section of an unprofiled report ran."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for na, nc, binary, path in _boards(tmp, only):
            args = _report_args(path, tmp / f"o_{na}x{nc}")
            proc = subprocess.run([sys.executable, "-c", STREAMS, *args], env=env,
                                  capture_output=True, text=True, check=True, cwd=ROOT)
            print(f"## {na} x {nc:,}{' items' if binary else ''} (load average "
                  f"{os.getloadavg()[0]:.1f}, {os.cpu_count()} cores)")
            print(proc.stdout)


def main() -> None:
    """Profile the boards and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--only", default=None, help="one board, e.g. 300x50")
    ap.add_argument("--streams", action="store_true",
                    help="unprofiled: when each stream and section ran, on which thread")
    ap.add_argument("--held-back", action="store_true",
                    help="unprofiled: the other analyses without n* beside them, then n* "
                         "alone, and autorank on the same board")
    ap.add_argument("--repeat", type=int, default=3, help="runs per board (--held-back)")
    args = ap.parse_args()
    if args.held_back:
        _held_back(args.only, args.repeat)
        return
    if args.streams:
        _streams(args.only)
        return
    cols, tops = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for na, nc, binary, path in _boards(tmp, args.only):
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
