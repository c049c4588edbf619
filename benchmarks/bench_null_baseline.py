"""What the no-signal baseline costs: ``analyze`` with and without ``null=True``.

Run from the repository root (the encoder study needs the public data)::

    GENEXPY_NB_DATA_DIR=../shared/data PYTHONPATH=. python benchmarks/bench_null_baseline.py

Prints the minimum of several wall times of the whole ``analyze`` call (MMD distributions and
the n* table for every configuration x kernel x alpha* x delta* x method, interval included)
without and with the baseline (``nstar_null`` and its band), and their ratio. The issue's
budget: at most 1.5x. Calls alternate (without, with, without, ...) so that the load of a
shared machine falls on both alike. On a busy machine the multi-threaded BLAS of the interval
makes single timings vary twofold; one thread everywhere gives steadier figures::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 GENEXPY_NB_DATA_DIR=... \
        PYTHONPATH=. python benchmarks/bench_null_baseline.py
"""

from __future__ import annotations

import os
import time

import genexpy_nb as gx
from genexpy_nb.example.study import load_example_study


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def ratio(name: str, study, kernels, repeat: int = 9) -> float:
    def run(null):
        return gx.analyze(study, kernels, progress=False, null=null)

    run(False), run(True)  # warm-up (compilation, caches)
    base, with_null = [], []
    for _ in range(repeat):
        base.append(timed(lambda: run(False)))
        with_null.append(timed(lambda: run(True)))
    b, w = min(base), min(with_null)
    print(f"{name:<46}{b:8.2f} s {w:8.2f} s {w / b:8.2f}x", flush=True)
    return w / b


def main() -> None:
    print(f"{'analyze (min of 9)':<46}{'no null':>10} {'null':>10} {'ratio':>9}")
    ex = gx.Study(load_example_study(), alternatives="model", target="score",
                  higher_is_better=True, generalize="dataset",
                  design=["metric", "train_size"], average_over="fold")
    ratio("example study (6 configs, 4 kernels)", ex,
          [gx.Jaccard(k=1), gx.Mallows(), gx.Borda(), gx.RBF()])
    if os.environ.get("GENEXPY_NB_DATA_DIR"):
        enc = gx.Study(gx.load_encoders(), alternatives="encoder", target="cv_score",
                       higher_is_better=True, generalize="dataset",
                       design=["model", "tuning", "scoring"])
        ratio("encoders (48 configs, 4 kernels)", enc,
              [gx.Borda("OHE"), gx.Jaccard(k=1), gx.Mallows(), gx.RBF()])
    else:
        print("(set GENEXPY_NB_DATA_DIR to time the encoder study too)")


if __name__ == "__main__":
    main()
