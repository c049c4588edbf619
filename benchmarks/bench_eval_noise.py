"""Per-item logs at a leaderboard's scale: read, reduce and decompose in bounded memory.

Generates a per-item table of ``models × items × runs`` 0/1 outcomes (default 1,000 ×
14,000 × 5 = 70 million rows, the size of a public MMLU leaderboard with repeats; 57 tasks)
as parquet files written one block of models at a time (never the whole table in memory),
then runs ``eval_noise`` on ``pl.scan_parquet`` (polars' streaming engine reduces it to
per-item means) and decomposes each model against the next on the leaderboard. Prints the
time of each step and the peak resident memory::

    PYTHONPATH=$PWD python benchmarks/bench_eval_noise.py                    # 70 M rows
    PYTHONPATH=$PWD python benchmarks/bench_eval_noise.py --models 100       # 7 M rows
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

from genexpy_nb.evals import eval_noise


def peak_mib() -> float:
    """Peak resident memory of this process so far, MiB (Linux: ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def generate(folder: Path, models: int, items: int, runs: int, tasks: int, block: int,
             seed: int) -> int:
    """Write the table as parquet files of ``block`` models each; return its rows."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(size=items)
    task = np.sort(rng.integers(0, tasks, items)).astype(np.int16)
    rows = 0
    for start in range(0, models, block):
        m = np.arange(start, min(start + block, models))
        ability = rng.normal(size=m.size)[:, None]
        p = 1 / (1 + np.exp(-(ability - difficulty[None, :])))  # (b, items)
        y = (rng.random((m.size, items, runs)) < p[..., None]).astype(np.int8)
        pl.DataFrame({
            "model": np.repeat(m, items * runs).astype(np.int32),
            "task": np.tile(np.repeat(task, runs), m.size),
            "item": np.tile(np.repeat(np.arange(items, dtype=np.int32), runs), m.size),
            "run": np.tile(np.arange(runs, dtype=np.int8), m.size * items),
            "correct": y.ravel(),
        }).write_parquet(folder / f"block_{start:06d}.parquet")
        rows += y.size
    return rows


def main() -> None:
    """Generate, reduce, decompose; print times and peak memory."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=1000)
    ap.add_argument("--items", type=int, default=14000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tasks", type=int, default=57)
    ap.add_argument("--block", type=int, default=25)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        rows = generate(folder, args.models, args.items, args.runs, args.tasks, args.block, 0)
        t1 = time.perf_counter()
        size = sum(f.stat().st_size for f in folder.iterdir()) / 2**20
        print(f"generated {rows:,} rows ({args.models} models x {args.items} items x "
              f"{args.runs} runs, {args.tasks} tasks) as {size:.0f} MiB of parquet in "
              f"{t1 - t0:.1f} s; peak memory so far {peak_mib():.0f} MiB")
        noise = eval_noise(pl.scan_parquet(folder / "*.parquet"), alternatives="model",
                           target="correct", items="item", runs="run", tasks="task",
                           higher_is_better=True)
        t2 = time.perf_counter()
        comp = noise.components
        print(f"eval_noise (read, reduce, {noise.summary.height} neighbouring pairs "
              f"decomposed): {t2 - t1:.1f} s; peak memory {peak_mib():.0f} MiB")
        print(comp.group_by("level").agg(pl.col("share").median()).sort("level"))
        print(f"total {t2 - t0:.1f} s")


if __name__ == "__main__":
    main()
