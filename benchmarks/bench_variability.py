"""Speed of the trimmed KS distance and alpha-hat (prints timings; asserts nothing).

Run from the repository root:

    PYTHONPATH=$PWD python benchmarks/bench_variability.py [--threads 2] [--quick]

Targets (SPEC B2/B3, project issue 4): d_alpha for 2 x 2000 points at 13 alphas under 1 ms
after warm-up; alpha-hat for 100 candidates x 100 bootstraps x 13 alphas at T = 4000 test
points under 60 s on 2 cores.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from naive import naive_trimmed_ks

from genexpy_nb import config
from genexpy_nb.variability import alpha_hat, trimmed_ks, trimming_curve
from genexpy_nb.variability._ks_rows import _ks_rows


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def bench_trimmed_ks(n_naive: int) -> None:
    rng = np.random.default_rng(0)
    x_ref = np.clip(rng.normal(0, 4, 2000), -15, 15)
    x_cand = np.clip(rng.normal(0.3, 4.5, 2000), -15, 15)
    grid = np.array(config.ALPHA_GRID)
    trimmed_ks(x_ref, x_cand, grid)  # warm-up (compile / load cache)
    t_pub = _best(lambda: trimmed_ks(x_ref, x_cand, grid), 50)
    t_ker = _best(lambda: _ks_rows(x_ref, x_cand[None, :], grid), 50)
    t_one = _best(lambda: trimmed_ks(x_ref, x_cand, 0.1), 50)
    print(f"trimmed_ks 2x2000, 13 alphas: {t_pub * 1e3:.3f} ms (public), "
          f"{t_ker * 1e3:.3f} ms (kernel); 1 alpha: {t_one * 1e3:.3f} ms")
    # naive O(P^2) twin at a smaller size, extrapolated quadratically to 2 x 2000
    r_s, c_s = x_ref[:n_naive], x_cand[:n_naive]
    t_naive = _best(lambda: naive_trimmed_ks(r_s, c_s, 0.1), 1)
    scale = (2000 / n_naive) ** 2
    t_naive_full = t_naive * scale
    print(f"naive twin 2x{n_naive}, 1 alpha: {t_naive:.3f} s -> extrapolated to 2x2000: "
          f"{t_naive_full:.1f} s (x{scale:.0f})")
    print(f"ratio naive (1 alpha) / numba (13 alphas): {t_naive_full / t_pub:,.0f}x; "
          f"per alpha: {t_naive_full / (t_pub / 13):,.0f}x")


def bench_alpha_hat(threads: int, C: int, B: int, T: int, M: int) -> None:
    rng = np.random.default_rng(1)
    ref = rng.normal(0, 4, size=(M, T))
    cands = rng.normal(rng.normal(0, 0.5, size=(C, 1)), 4, size=(C, T))
    alpha_hat(ref[:, :200], cands[:2, :200], B=2, progress=False, n_jobs=threads)  # warm-up
    for exact in (False, True):
        t0, c0 = time.perf_counter(), time.process_time()
        alpha_hat(ref, cands, B=B, exact=exact, seed=0, n_jobs=threads, progress=False)
        t, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"alpha_hat {C} candidates x {B} bootstraps x {len(config.ALPHA_GRID)} alphas, "
              f"T={T}, M={M}, threads={threads}, exact={exact}: {t:.2f} s wall "
              f"({cpu:.2f} s CPU)")
    # every grid level for every (bootstrap, candidate), no early stop at the first pass
    t0 = time.perf_counter()
    trimming_curve(ref, cands, B=B, seed=0, n_jobs=threads, progress=False)
    t = time.perf_counter() - t0
    print(f"trimming_curve (all {len(config.ALPHA_GRID)} levels always computed), same sizes: "
          f"{t:.2f} s")


def main() -> None:
    import os

    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="smaller naive twin and alpha-hat")
    args = ap.parse_args()
    bench_trimmed_ks(n_naive=250 if args.quick else 500)
    if args.quick:
        bench_alpha_hat(args.threads, C=20, B=20, T=4000, M=100)
    else:
        bench_alpha_hat(args.threads, C=100, B=100, T=4000, M=100)


if __name__ == "__main__":
    main()
