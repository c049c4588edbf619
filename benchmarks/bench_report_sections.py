"""Three sections of ``genexpy-nb report`` at leaderboard scale, against another checkout.

Run from the repository root:
``PYTHONPATH=. python benchmarks/bench_report_sections.py [--against DIR] [--repeat N]``

The sections of issue 53 whose cost grew with the board: the tiers (``gx.tiers``: the rank
sets' bootstrap draws, the step-down test, the plan), the rank tables (rank probabilities,
intervals and the top group, as the page computes them) and the robust aggregates (the
task bootstrap of the page's comparison). Each board of ``bench_report.py --boards`` but the
smallest (100 x 1,000 items, 300 x 50, 20 x 5,000 items) is timed in a fresh interpreter per
round, as the report meets them: numba already loaded by the earlier analyses (one unrelated
kernel called first), each section's first call timed (its kernels loaded from the disk
cache) and then its best of ``--repeat`` more calls. ``--against DIR`` times another
checkout (e.g. ``git worktree add /tmp/base main``) in the same rounds, interleaved, and
prints the ratios of the medians over the rounds; run it twice first so that both
checkouts' kernels are in the numba cache. The load average is printed: on a busy machine
the times scatter, read the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_report import _board  # noqa: E402

BOARDS = ((100, 1000, True), (300, 50, False), (20, 5000, True))

CHILD = r'''
import json, sys, time
import numpy as np
import polars as pl
import genexpy_nb as gx
from genexpy_nb.answers import report_page as rp
from genexpy_nb.leaderboards import tiers
from genexpy_nb._numba.leaderboards import top_abs
top_abs(np.zeros((4, 3), np.float32), 2, np.zeros((4, 2), np.int32), 0, 4)  # numba loaded
path, repeat = sys.argv[1], int(sys.argv[2])
df = pl.read_csv(path)
study = gx.Study(df, alternatives="model", target="accuracy", generalize="dataset",
                 higher_is_better=True)
res = rp._comparison(study, 0, alpha=0.05)
steps = {
    "tiers": lambda: tiers(study, level=0.95, seed=0, progress=False),
    "rank tables": lambda: rp._rank_tables(study, rep=rp.RANK_REP, seed=0),
    "robust aggregates": lambda: rp._beyond_p_values(study, {0: res}, rope=None, seed=0),
}
out = {}
for name, fn in steps.items():
    t = time.perf_counter()
    fn()
    first = time.perf_counter() - t
    later = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        later.append(time.perf_counter() - t)
    out[name] = [first, min(later) if later else first]
print(json.dumps(out))
'''


def _run(root: Path, path: Path, repeat: int) -> dict[str, list[float]]:
    """Time the sections of one board with the package of ``root``, in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path), str(repeat)], env=env,
                          capture_output=True, text=True, cwd=root)
    if proc.returncode != 0:
        raise SystemExit(f"failed in {root}:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    """Time the sections, interleaved with the other checkout if one is given."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", type=Path, default=None, help="another checkout's root")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    roots = {"this": ROOT} | ({"other": args.against.resolve()} if args.against else {})
    with tempfile.TemporaryDirectory() as tmp:
        for na, nc, binary in BOARDS:
            path = Path(tmp) / f"board_{na}x{nc}.csv"
            _board(na, nc, binary, path)
            runs: dict[str, list[dict[str, list[float]]]] = {k: [] for k in roots}
            for _ in range(args.rounds):
                for key, root in roots.items():
                    runs[key].append(_run(root, path, args.repeat))
            label = f"{na} x {nc:,}{' items' if binary else ''}"
            print(f"\n## {label} (load average {os.getloadavg()[0]:.1f}, "
                  f"{os.cpu_count()} cores; seconds, median of {args.rounds} rounds: "
                  "first call / best later call)")
            for step in runs["this"][0]:
                cells = []
                for key in roots:
                    first = statistics.median(r[step][0] for r in runs[key])
                    best = statistics.median(r[step][1] for r in runs[key])
                    cells.append(f"{key} {first:.2f} / {best:.2f}")
                if args.against:
                    a = statistics.median(r[step][0] for r in runs["other"])
                    b = statistics.median(r[step][0] for r in runs["this"])
                    cells.append(f"first calls other / this: {a / b:.2f}x")
                print(f"- {step}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
