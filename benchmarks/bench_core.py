"""Time the core operations against their naive twins, and the whole case studies.

Run from the repository root::

    GENEXPY_NB_DATA_DIR=../shared/data python benchmarks/bench_core.py

Prints timings and speed-up ratios; asserts nothing (speed is measured, not tested).
Cold start (import + first compile or cache load) is measured in a fresh subprocess.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import naive  # noqa: E402

import genexpy_nb as gx  # noqa: E402
from genexpy_nb.mmd import draw_pairs, kernel_support, mmd_from_pairs  # noqa: E402


def best_of(f, repeat=5):
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return min(ts)


def row(name, fast, slow=None):
    ratio = f"{slow / fast:10.0f}x" if slow else ""
    s = f"{slow * 1e3:12.2f} ms" if slow else " " * 15
    print(f"{name:44s} {fast * 1e3:12.3f} ms {s} {ratio}")


def cold_start():
    code = ("import time; t=time.perf_counter(); import genexpy_nb as gx, numpy as np; "
            "t1=time.perf_counter(); k=gx.Mallows().resolve(4); "
            "x=np.array([[0,1,2,3],[1,0,2,3]]); gx.mmd(x, x[::-1], k); "
            "gx.mmd_distribution(x.repeat(5,0), k, 2, rep=5); "
            "print(t1-t, time.perf_counter()-t1)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    imp, first = map(float, out.stdout.split())
    return imp, first


def main():
    print(f"cores: {os.cpu_count()}, numba threads: {__import__('numba').get_num_threads()}")
    imp, first = cold_start()
    print(f"cold start: import {imp:.2f} s, first kernel call (compile or cache load) "
          f"{first:.2f} s")
    rng = np.random.default_rng(0)
    na, N = 32, 48
    R = np.array([np.unique(r, return_inverse=True)[1] for r in rng.integers(0, 10, (N, na))])
    print(f"\n{'operation':44s} {'genexpy_nb':>15s} {'naive twin':>15s} {'ratio':>11s}")
    for k, f in [(gx.Jaccard(1), lambda r, s: naive.jaccard(r, s, 1)),
                 (gx.Mallows(), lambda r, s: naive.mallows(r, s, 1 / 496)),
                 (gx.Borda(0), lambda r, s: naive.borda(r, s, 0, 1 / na))]:
        kk = k.resolve(na)
        kk.gram(R)
        fast = best_of(lambda kk=kk: kk.gram(R))
        slow = best_of(lambda f=f: naive.gram(f, R.tolist(), R.tolist()), 1)
        row(f"{kk.label} gram {N}x{N}, na={na}", fast, slow)
    kk = gx.Mallows().resolve(na)
    K, inv, _ = kernel_support(kk, R)
    IX, IY = draw_pairs(N, 12, 200, seed=0)
    mmd_from_pairs(K, inv, IX, IY)
    fast = best_of(lambda: mmd_from_pairs(K, inv, IX, IY))
    f = lambda r, s: naive.mallows(r, s, kk.nu)  # noqa: E731
    slow = best_of(lambda: [naive.mmd(f, R[IX[i]].tolist(), R[IY[i]].tolist())
                            for i in range(10)], 1) * 20
    row("200 MMD_12 samples (Mallows; naive x20 of 10)", fast, slow)

    data_dir = os.environ.get("GENEXPY_NB_DATA_DIR")
    if not data_dir:
        print("\nGENEXPY_NB_DATA_DIR not set: skipping the case studies")
        return
    print("\nwhole studies: every configuration x 4 kernels x 5x5 (alpha, delta), rep=200,"
          " resampled + approximation + bound")
    enc = gx.Study(gx.load_encoders(), alternatives="encoder", target="cv_score",
                   generalize="dataset", design=["model", "tuning", "scoring"],
                   higher_is_better=True)
    ks = [gx.Borda("OHE"), gx.Jaccard(1), gx.Mallows(), gx.RBF()]
    gx.analyze(enc, ks, rep=10, progress=False)  # warm-up (JIT)
    t = time.perf_counter()
    res = gx.analyze(enc, ks, progress=False)
    t_enc = time.perf_counter() - t
    print(f"  encoders : {len(enc)} configurations, {res.height} rows in {t_enc:.2f} s")
    t = time.perf_counter()
    bb = gx.Study(gx.load_bigbench(), alternatives="model_family_model_name",
                  target="score_value", generalize="subtask_description",
                  design=["task_name", "number_of_shots"], higher_is_better=True,
                  invalid_target="drop")
    ks = [gx.Borda("GPT GPT-3 Small"), gx.Jaccard(1), gx.Mallows(), gx.RBF()]
    res = gx.analyze(bb, ks, progress=False)
    t_bb = time.perf_counter() - t
    print(f"  BIG-bench: {len(bb)} configurations, {res.height} rows in {t_bb:.2f} s "
          "(study construction included)")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  peak resident memory: {peak:.0f} MB")


if __name__ == "__main__":
    main()
