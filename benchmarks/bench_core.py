"""Speed of the core: cold and warm, small and large studies, per MMD value.

Run from the repository root::

    GENEXPY_NB_DATA_DIR=../shared/data python benchmarks/bench_core.py [--quick]

Prints (asserts nothing: speed is measured, not tested):

* import: ``import genexpy_nb`` against ``import polars`` alone, fresh processes;
* fresh install: the first n* and the first alpha-hat in fresh processes with an empty numba
  cache (``NUMBA_CACHE_DIR`` set to a new temporary folder), then with a cache filled by
  ``genexpy-nb precompile`` (timed too); the compile time is first call minus warm call
  (CPU);
* warm: n* of every encoder configuration (min / median / max of repeats);
* per MMD value: time per resampled MMD_n value against the quadratic-form limit, 2 m^2
  flops (m = support size) at the flop rate this machine reaches in one-thread DGEMM;
* large: one configuration with na = 1000 alternatives and N = 1000 conditions, all four
  kernels, default grid, rep and methods: wall time, CPU time and peak memory;
* the kernel matrices against their naive twins (tests/naive.py).

Timings on a shared machine are noisy: every figure is a min / median of repeats, and the
large case also reports CPU time.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))


def run_py(code: str, env: dict | None = None) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON line."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def mmm(xs) -> str:
    return (f"min {min(xs) * 1e3:9.2f}  median {statistics.median(xs) * 1e3:9.2f}  "
            f"max {max(xs) * 1e3:9.2f} ms")


# ---------------------------------------------------------------------------------------
IMPORT = """
import json, time
t = time.perf_counter(); import {mod}; print(json.dumps({{"t": time.perf_counter() - t}}))
"""

FIRST_NSTAR = """
import json, time, resource
t0 = time.perf_counter(); c0 = time.process_time()
import numpy as np, genexpy_nb as gx
from genexpy_nb.generalizability import GeneralizabilityAnalysis
rng = np.random.default_rng(0)
N, na = {N}, {na}
S = rng.normal(size=na)[None, :] * 0.5 + rng.normal(size=(N, na))
import polars as pl
df = pl.DataFrame({{"c": np.repeat(np.arange(N), na).astype(str),
                   "a": np.tile([f"a{{i}}" for i in range(na)], N), "y": S.ravel()}})
st = gx.Study(df, alternatives="a", target="y", generalize="c", higher_is_better=True)
ks = [{kernels}]
t1 = time.perf_counter(); c1 = time.process_time()
GeneralizabilityAnalysis(st, ks, progress=False).nstar()
t2 = time.perf_counter(); c2 = time.process_time()
GeneralizabilityAnalysis(st, ks, progress=False).nstar()
t3 = time.perf_counter(); c3 = time.process_time()
import sys
print(json.dumps({{"setup": t1 - t0, "first": t2 - t1, "warm": t3 - t2,
                  "first_cpu": c2 - c1, "warm_cpu": c3 - c2,
                  "numba": "numba" in sys.modules}}))
"""

FIRST_ALPHA_HAT = """
import json, time
import numpy as np
import genexpy_nb.variability as gv
rng = np.random.default_rng(0)
ref = rng.normal(size=({M}, {T})); cand = rng.normal(size=({C}, {T}))
t1 = time.perf_counter(); c1 = time.process_time()
gv.alpha_hat(ref, cand, B={B}, progress=False)
t2 = time.perf_counter(); c2 = time.process_time()
gv.alpha_hat(ref, cand, B={B}, progress=False)
t3 = time.perf_counter(); c3 = time.process_time()
import sys
print(json.dumps({{"first": t2 - t1, "warm": t3 - t2, "first_cpu": c2 - c1,
                  "warm_cpu": c3 - c2, "numba": "numba" in sys.modules}}))
"""

LARGE = """
import json, time, resource
import numpy as np, polars as pl, genexpy_nb as gx
rng = np.random.default_rng(0)
na, N = {na}, {N}
S = rng.normal(size=na)[None, :] * 0.5 + rng.normal(size=(N, na))
df = pl.DataFrame({{"c": np.repeat(np.arange(N), na).astype(str),
                   "a": np.tile([f"a{{i}}" for i in range(na)], N), "y": S.ravel()}})
st = gx.Study(df, alternatives="a", target="y", generalize="c", higher_is_better=True)
ks = [gx.Borda("a0"), gx.Jaccard(1), gx.Mallows(), gx.RBF()]
gx.analyze(st, ks, rep=2, progress=False)  # compile or load the kernels, not timed
r0 = resource.getrusage(resource.RUSAGE_SELF); t = time.perf_counter()
res = gx.analyze(st, ks, progress=False)
wall = time.perf_counter() - t; r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
print(json.dumps({{"wall": wall, "cpu": cpu, "rows": res.height,
                  "peak_mb": r1.ru_maxrss / 1024}}))
"""


def bench_import(reps: int) -> None:
    pol = [run_py(IMPORT.format(mod="polars"))["t"] for _ in range(reps)]
    gxt = [run_py(IMPORT.format(mod="genexpy_nb"))["t"] for _ in range(reps)]
    print("\nimport (fresh processes)")
    print(f"  import polars      {mmm(pol)}")
    print(f"  import genexpy_nb  {mmm(gxt)}")
    print(f"  difference of the medians: "
          f"{(statistics.median(gxt) - statistics.median(pol)) * 1e3:.0f} ms")


def bench_fresh(reps: int) -> None:
    print("\nfresh install: first call in a fresh process, empty numba cache "
          "(compile = first - warm, CPU seconds)")
    cases = [
        ("first n*, typical study (N=48, na=32, 4 kernels)", FIRST_NSTAR.format(
            N=48, na=32, kernels='gx.Borda("a0"), gx.Jaccard(1), gx.Mallows(), gx.RBF()')),
        ("first n*, large support (N=400, na=120)", FIRST_NSTAR.format(
            N=400, na=120, kernels='gx.Borda("a0"), gx.Jaccard(1), gx.Mallows(), gx.RBF()')),
        ("first n*, very large support (N=1000, na=1000: numba kernels)", FIRST_NSTAR.format(
            N=1000, na=1000, kernels='gx.Borda("a0"), gx.Jaccard(1), gx.Mallows(), gx.RBF()')),
        ("first alpha-hat (20 x 400 reference, 5 candidates, B = 20)",
         FIRST_ALPHA_HAT.format(M=20, T=400, C=5, B=20)),
        ("first alpha-hat, notebook size (100 x 897 reference, 100 candidates, B = 100: "
         "numba kernel)", FIRST_ALPHA_HAT.format(M=100, T=897, C=100, B=100)),
    ]
    pre_dir = tempfile.mkdtemp(prefix="genexpy_nb_precompiled_")
    try:
        t = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "genexpy_nb", "precompile", "--quiet"],
                              capture_output=True, text=True, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT),
                                   "NUMBA_CACHE_DIR": pre_dir})
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-3000:])
        print(f"  genexpy-nb precompile on an empty cache: {time.perf_counter() - t:.1f} s")
        for label, code in cases:
            fresh, cached, walls, pre_walls = [], [], [], []
            for _ in range(reps):
                with tempfile.TemporaryDirectory() as d:
                    r = run_py(code, {"NUMBA_CACHE_DIR": d})
                    fresh.append(r["first_cpu"] - r["warm_cpu"])
                    walls.append((r["first"], r["warm"]))
                r2 = run_py(code, {"NUMBA_CACHE_DIR": pre_dir})
                cached.append(r2["first_cpu"] - r2["warm_cpu"])
                pre_walls.append(r2["first"])
            extra = "" if "numba" not in r else f" (numba imported: {r['numba']})"
            print(f"  {label}{extra}")
            print(f"    empty cache: compile {min(fresh):.2f} s min, "
                  f"{statistics.median(fresh):.2f} s median;  after precompile: "
                  f"{min(cached):.2f} s min, {statistics.median(cached):.2f} s median"
                  + (" (numba's start-up and loading)" if r.get("numba") else ""))
            first, warm = min(walls)
            print(f"    wall: first call {first:.2f} s with an empty cache, "
                  f"{min(pre_walls):.2f} s after precompile; second call {warm:.2f} s")
    finally:
        shutil.rmtree(pre_dir, ignore_errors=True)


def flop_rate() -> float:
    from threadpoolctl import threadpool_limits

    a = np.random.default_rng(0).random((400, 400))
    best = 0.0
    with threadpool_limits(1, "blas"):
        for _ in range(7):
            t = time.perf_counter()
            a @ a
            best = max(best, 2 * 400**3 / (time.perf_counter() - t))
    return best


def bench_per_value(rate: float) -> None:
    from threadpoolctl import threadpool_limits

    import genexpy_nb as gx
    from genexpy_nb.generalizability.mmd import draw_pairs, kernel_support, mmd_from_pairs

    print(f"\nper MMD value (one-thread DGEMM rate {rate / 1e9:.1f} GFLOP/s; limit = "
          "2 m^2 flops at that rate)")
    rng = np.random.default_rng(0)
    for N, na, n in ((48, 32, 12), (48, 32, 22), (400, 100, 100), (1000, 200, 40),
                     (1000, 200, 499)):
        R = rng.integers(0, 1000, (N, na))
        k = gx.Mallows().resolve(na)
        K, inv, _ = kernel_support(k, R)
        m = K.shape[0]
        IX, IY = draw_pairs(N, n, 200, seed=0)
        with threadpool_limits(1, "blas"):
            import numba

            old = numba.get_num_threads()
            numba.set_num_threads(1)
            mmd_from_pairs(K, inv, IX, IY)
            ts = []
            for _ in range(200 if m < 200 else 15):  # small cases: many repeats, stable min
                t = time.perf_counter()
                mmd_from_pairs(K, inv, IX, IY)
                ts.append((time.perf_counter() - t) / 200)
            numba.set_num_threads(old)
        limit = 2 * m * m / rate
        touched = min(2 * n, m)
        print(f"  N={N:5d} m={m:5d} n={n:4d} (touches <= {touched:4d}): "
              f"{min(ts) * 1e6:8.2f} us min, {statistics.median(ts) * 1e6:8.2f} us median "
              f"per value; limit {limit * 1e6:8.2f} us -> {min(ts) / limit:5.2f}x")


def bench_warm(reps: int) -> None:
    data_dir = os.environ.get("GENEXPY_NB_DATA_DIR")
    if not data_dir:
        print("\nGENEXPY_NB_DATA_DIR not set: skipping the case studies")
        return
    import genexpy_nb as gx
    from genexpy_nb.generalizability import GeneralizabilityAnalysis

    enc = gx.Study(gx.load_encoders(), alternatives="encoder", target="cv_score",
                   generalize="dataset", design=["model", "tuning", "scoring"],
                   higher_is_better=True)
    ks = [gx.Borda("OHE"), gx.Jaccard(1), gx.Mallows(), gx.RBF()]
    cid = next(s.config_id for s in enc.samples() if s.N >= 40)
    one = [gx.Jaccard(1)]
    GeneralizabilityAnalysis(enc, one, configurations=[cid], progress=False).nstar()
    ts = []
    for _ in range(reps * 4):
        t = time.perf_counter()
        GeneralizabilityAnalysis(enc, one, configurations=[cid], progress=False).nstar()
        ts.append(time.perf_counter() - t)
    print(f"\nwarm: n* of one encoder configuration (N = {enc.sample(cid).N}), Jaccard, "
          "rep 200, 5 x 5, all methods")
    print(f"  {mmm(ts)}")
    ts = []
    for _ in range(max(2, reps // 2)):
        t = time.perf_counter()
        res = gx.analyze(enc, ks, progress=False)
        ts.append(time.perf_counter() - t)
    print(f"  whole encoder study: {len(enc)} configurations x 4 kernels, {res.height} rows: "
          f"{mmm(ts)}")


def bench_large(na: int, N: int) -> None:
    r = run_py(LARGE.format(na=na, N=N), {"NUMBA_CACHE_DIR": os.environ.get(
        "NUMBA_CACHE_DIR", str(Path(tempfile.gettempdir()) / "genexpy_nb_bench_cache"))})
    print(f"\nlarge: one configuration, na = {na}, N = {N}, 4 kernels, default grid, rep and "
          f"methods ({r['rows']} rows)")
    print(f"  wall {r['wall']:.2f} s, CPU {r['cpu']:.2f} s (all threads), peak resident "
          f"memory {r['peak_mb']:.0f} MB")


def bench_naive() -> None:
    import naive

    import genexpy_nb as gx

    rng = np.random.default_rng(0)
    na, N = 32, 48
    R = np.array([np.unique(r, return_inverse=True)[1] for r in rng.integers(0, 10, (N, na))])
    print(f"\nkernel matrices {N}x{N}, na={na}: genexpy_nb vs naive twin")
    for k, f in [(gx.Jaccard(1), lambda r, s: naive.jaccard(r, s, 1)),
                 (gx.Mallows(), lambda r, s: naive.mallows(r, s, 1 / 496)),
                 (gx.Borda(0), lambda r, s: naive.borda(r, s, 0, 1 / na))]:
        kk = k.resolve(na)
        kk.gram(R)
        ts = []
        for _ in range(20):
            t = time.perf_counter()
            kk.gram(R)
            ts.append(time.perf_counter() - t)
        t = time.perf_counter()
        naive.gram(f, R.tolist(), R.tolist())
        slow = time.perf_counter() - t
        print(f"  {kk.label:22s} {min(ts) * 1e3:8.3f} ms   naive {slow * 1e3:9.1f} ms   "
              f"{slow / min(ts):8.0f}x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats, no large case")
    ap.add_argument("--large-na", type=int, default=1000)
    ap.add_argument("--large-N", type=int, default=1000)
    ap.add_argument("--only", nargs="+", metavar="PART",
                    choices=["import", "fresh", "per-value", "warm", "large", "naive"],
                    help="run only these parts")
    args = ap.parse_args()
    # an installed package has its bytecode compiled (pip does it); a source tree run with
    # PYTHONDONTWRITEBYTECODE may not, and would time the compiling of our modules
    compileall.compile_dir(str(ROOT / "genexpy_nb"), quiet=1)
    reps = 2 if args.quick else 5
    parts = set(args.only or ["import", "fresh", "per-value", "warm", "large", "naive"])
    if args.quick and not args.only:
        parts.discard("large")
    print(f"cores: {os.cpu_count()}; timings on a shared machine: min / median of repeats")
    if "import" in parts:
        bench_import(reps)
    if "fresh" in parts:
        bench_fresh(max(1, reps // 2))
    if "per-value" in parts:
        bench_per_value(flop_rate())
    if "warm" in parts:
        bench_warm(reps)
    if "large" in parts:
        bench_large(args.large_na, args.large_N)
    if "naive" in parts:
        bench_naive()


if __name__ == "__main__":
    main()
