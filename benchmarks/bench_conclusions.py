"""Speed of gx.conclusions against the paper's n* on the same studies (issue 35).

Run from the repository root::

    GENEXPY_NB_DATA_DIR=../shared/data python benchmarks/bench_conclusions.py

Prints (asserts nothing: speed is measured, not tested), warm, median of repeats, the two
timed interleaved:

* a simulated study of 20 alternatives x 200 conditions: ``gx.conclusions`` (best, top 3,
  190 pairs, the order) against ``gx.analyze`` with the four research questions;
* the encoder study (48 configurations): the same two calls;
* their ratio (the paper's n* time / the conclusions' time).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import genexpy_nb as gx


def timed(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def simulated(na: int = 20, n: int = 200, seed: int = 0) -> gx.Study:
    rng = np.random.default_rng(seed)
    means = np.linspace(1.0, 0.0, na)
    scores = means + rng.standard_normal((n, 1)) + rng.standard_normal((n, na))
    df = pl.DataFrame({"dataset": np.repeat([f"d{j}" for j in range(n)], na),
                       "model": [f"m{i:02d}" for i in range(na)] * n,
                       "score": scores.ravel()})
    return gx.Study(df, alternatives="model", target="score", generalize="dataset",
                    higher_is_better=True)


def compare(name: str, study: gx.Study, repeats: int) -> None:
    kernels = [gx.Jaccard(k=1), gx.Mallows(), gx.Borda(study.alternatives[0]), gx.RBF()]
    gx.conclusions(study)
    gx.analyze(study, kernels, seed=0)
    tc, ta = [], []
    for _ in range(repeats):  # interleaved
        tc.append(timed(lambda: gx.conclusions(study), 1))
        ta.append(timed(lambda: gx.analyze(study, kernels, seed=0), 1))
    c, a = statistics.median(tc), statistics.median(ta)
    rows = gx.conclusions(study).height
    print(f"{name:34s} conclusions {c:7.3f} s ({rows} rows)   paper's n* (4 questions) "
          f"{a:7.3f} s   ratio {a / c:5.1f}x", flush=True)


def main() -> int:
    compare("simulated 20 x 200", simulated(), 5)
    enc = gx.Study(gx.load_encoders(), alternatives="encoder", target="cv_score",
                   higher_is_better=True, generalize="dataset",
                   design=["model", "tuning", "scoring"])
    compare(f"encoders ({len(enc)} configurations)", enc, 3)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
