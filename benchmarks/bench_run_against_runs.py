"""One run against its runs: the time of ``run_against_runs`` as runs and items grow.

Each run of a model is tested against the model's other runs (a leave-one-out pool of
``runs - 1`` rows): ``runs`` calls of the alpha-hat bootstrap (B splits of the items) and one
full-data KS distance each, O(runs · B · T log T). Scores: a shared item difficulty plus run
noise. Prints the time per size (warm: the numba kernels compiled by a first small call)::

    PYTHONPATH=$PWD python benchmarks/bench_run_against_runs.py
"""

from __future__ import annotations

import time

import numpy as np
import polars as pl

from genexpy_nb.evals import run_against_runs

SIZES = [(100, 30), (10, 1_000), (20, 10_000), (50, 10_000)]


def table(runs: int, items: int, seed: int = 0) -> pl.DataFrame:
    """Long table of continuous per-item scores, ``runs × items`` rows."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=items)[None, :] + rng.normal(0, 0.3, (runs, items))
    return pl.DataFrame({"run": np.repeat(np.arange(runs), items),
                         "item": np.tile(np.arange(items), runs), "score": X.ravel()})


def main() -> None:
    """Time each size once, after a warm-up call."""
    run_against_runs(table(3, 40), items="item", runs="run", target="score", B=5,
                     progress=False)
    for runs, items in SIZES:
        df = table(runs, items)
        t0 = time.perf_counter()
        run_against_runs(df, items="item", runs="run", target="score", B=100, progress=False)
        print(f"{runs:>4} runs x {items:>6} items, B = 100: {time.perf_counter() - t0:6.2f} s")


if __name__ == "__main__":
    main()
