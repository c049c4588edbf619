"""Speed and memory of the leaderboards (issue 49): Bradley-Terry's bootstrap, rank sets, tiers.

Run from the repository root::

    python benchmarks/bench_leaderboards.py [--battles 1000000] [--models 60] [--repeat 3]

Prints (asserts nothing: speed is measured, not tested), warm, medians of interleaved
repeats:

* ``gx.bradley_terry`` with 1,000 bootstrap replicates of a log of ``--battles`` battles
  among ``--models`` models, against one maximum-likelihood fit by evalica
  (``evalica.bradley_terry``, Rust) on the same battles, and their ratio;
* the peak resident memory of a fresh process that runs the 1,000 replicates (and of one
  that only reads the log and fits it), so the bootstrap's own memory is the difference;
* ``gx.rank_sets`` and ``gx.tiers`` on a simulated study of 60 alternatives x 100 conditions.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import genexpy_nb as gx  # noqa: E402


def battle_log(n: int, K: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    beta = rng.normal(0, 1, K)
    a = rng.integers(0, K, n)
    b = (a + rng.integers(1, K, n)) % K
    p = 1 / (1 + np.exp(-(beta[a] - beta[b])))
    u = rng.random(n)
    w = np.where(u < 0.9 * p, "model_a", np.where(u < 0.9, "model_b", "tie"))
    names = np.array([f"model-{i:02d}" for i in range(K)])
    return pl.DataFrame({"model_a": names[a], "model_b": names[b], "winner": w})


def _median(fn, repeats: int) -> float:
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def bradley_terry(n: int, K: int, repeats: int) -> None:
    import evalica

    df = battle_log(n, K)
    code = {"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y,
            "tie": evalica.Winner.Draw}
    xs, ys = df["model_a"].to_list(), df["model_b"].to_list()
    ws = [code[w] for w in df["winner"].to_list()]
    gx.bradley_terry(df.head(10_000), reps=100, progress=False)  # compile, warm
    ours, peer = [], []
    for _ in range(repeats):  # interleaved
        ours.append(_median(lambda: gx.bradley_terry(df, reps=1000, progress=False), 1))
        peer.append(_median(lambda: evalica.bradley_terry(xs, ys, ws), 1))
    o, e = statistics.median(ours), statistics.median(peer)
    print(f"Bradley-Terry, {n:,} battles x {K} models: 1,000 replicates {o:.2f} s; one "
          f"evalica fit {e:.2f} s; ratio {o / e:.2f}", flush=True)


def _child_peak(code: str) -> float:
    """Peak resident memory (MB) of a fresh Python process running ``code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(after, before) / 1024


def memory(n: int, K: int) -> None:
    setup = ("import sys; sys.path.insert(0, '.'); import genexpy_nb as gx; "
             "from benchmarks.bench_leaderboards import battle_log; "
             f"df = battle_log({n}, {K}); ")
    fit = _child_peak(setup + "gx.bradley_terry(df, reps=0, progress=False)")
    boot = _child_peak(setup + "gx.bradley_terry(df, reps=1000, progress=False)")
    print(f"peak memory: read + fit {fit:.0f} MB; with 1,000 replicates {boot:.0f} MB "
          f"(the bootstrap adds {max(boot - fit, 0):.0f} MB)", flush=True)


def study(K: int = 60, N: int = 100, repeats: int = 3) -> None:
    rng = np.random.default_rng(1)
    x = np.linspace(1.0, 0.0, K) + rng.standard_normal((N, 1)) + rng.standard_normal((N, K))
    df = pl.DataFrame({"dataset": np.repeat([f"d{j}" for j in range(N)], K),
                       "model": [f"m{i:02d}" for i in range(K)] * N, "score": x.ravel()})
    st = gx.Study(df, alternatives="model", target="score", generalize="dataset",
                  higher_is_better=True)
    gx.rank_sets(st, reps=200)
    gx.tiers(st, reps=200, draws=200)
    r = _median(lambda: gx.rank_sets(st), repeats)
    m = _median(lambda: gx.rank_sets(st, simultaneous=False), repeats)
    t = _median(lambda: gx.tiers(st), repeats)
    print(f"study {K} x {N}: rank_sets {r:.2f} s (marginal {m:.2f} s); tiers with the plan "
          f"{t:.2f} s", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--battles", type=int, default=1_000_000)
    ap.add_argument("--models", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-memory", action="store_true")
    a = ap.parse_args()
    bradley_terry(a.battles, a.models, a.repeat)
    if not a.no_memory:
        memory(a.battles, a.models)
    study(repeats=a.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
