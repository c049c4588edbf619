"""The cost model of ``genexpy_nb.config.COSTS``: measure its constants, and check it.

``python benchmarks/bench_costs.py measure`` times each primitive the model counts on one
thread (CPU time of the process, so that other jobs on a shared machine inflate it less
than the wall time) and prints the nanoseconds per unit of work next to the constant in
``config.COSTS``.

``python benchmarks/bench_costs.py check [--wall]`` runs whole n* analyses on one thread
(full grid and large-study path, several shapes) and prints the model's estimate next to
the time taken: the estimates of every analysis must be within 2x of it.

Run from the repository root with ``PYTHONPATH=.``; say the machine's load (``uptime``).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import polars as pl


def _cpu(f, *args, repeat=3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        f(*args)
        best = min(best, time.process_time() - t)
    return best


def measure() -> None:
    """Print the measured nanoseconds per unit of each constant of the model."""
    from genexpy_nb import config
    from genexpy_nb._numba import one_blas_thread, threads
    from genexpy_nb.generalizability import large, mmd
    from genexpy_nb.generalizability.kernels import RBF, Mallows

    c = config.COSTS
    rng = np.random.default_rng(0)
    rows = []
    with threads(1), one_blas_thread():
        rep = 200
        for N, n, bucket in [(1000, 100, False), (1000, 100, True), (3000, 300, True)]:
            t = _cpu(lambda N=N, n=n, b=bucket: mmd.draw_pairs(N, n, rep, seed=rng, bucket=b))
            rows.append(("draw_ns", f"N={N} bucket={bucket}", t / (rep * N) * 1e9, c.draw_ns))
        for m, n in [(300, 100), (1000, 400), (2000, 600)]:
            K = np.exp(-rng.random((m, m)))
            K = (K + K.T) / 2
            inv = np.arange(m)
            IX, IY = mmd.draw_pairs(m, n, rep, seed=rng)
            t = _cpu(mmd.mmd_from_pairs, K, inv, IX, IY)
            rest = rep * (m + 2 * n) * c.cell_ns * 1e-9
            rows.append(("blas_ns", f"m={m} n={n}", (t - rest) / (rep * m * m) * 1e9,
                         c.blas_ns))
        for m, n in [(1000, 12), (3000, 60), (3000, 160)]:
            K = np.exp(-rng.random((m, m)))
            K = (K + K.T) / 2
            inv = np.arange(m)
            IX, IY = mmd.draw_pairs(m, n, rep, seed=rng)
            k = 2 * n
            t = _cpu(mmd.mmd_from_pairs, K, inv, IX, IY)
            gather = rep * k * k <= config.ROUTES.mmd_gather_max_work
            name = "gather_ns" if gather else ("loop_ns" if m <= config.ROUTES.mmd_cache_m
                                               else "loop_far_ns")
            per = t / (rep * k * k * (1.0 if gather else 0.5)) * 1e9
            rows.append((name, f"m={m} n={n}", per, getattr(c, name)))
        for na, N, n in [(8, 8000, 300), (20, 8000, 300), (100, 8000, 150)]:
            X = rng.normal(size=(N, na))
            R = np.argsort(np.argsort(-X, axis=1), axis=1)
            sup = large.large_support(Mallows().resolve(na), R)
            t = _cpu(large.mmd_grid, sup, N, np.array([n]), rep, 1)
            words = (na * na + 63) // 64
            per = (t - rep * 2 * n * c.unit_draw_ns * 1e-9) / (rep * 2.0 * n * n * words)
            rows.append(("mallows_word_ns", f"na={na} n={n}", per * 1e9, c.mallows_word_ns))
            if na == 20:
                sup = large.large_support(RBF().resolve(na), X)
                t = _cpu(large.mmd_grid, sup, N, np.array([n]), rep, 1)
                per = t / (rep * 2.0 * n * n) * 1e9 - c.rbf_exp_ns
                rows.append(("rbf_value_ns", f"na={na} n={n}", per / na, c.rbf_value_ns))
        for na, m in [(20, 1500), (100, 1000)]:
            X = rng.normal(size=(m, na))
            R = np.argsort(np.argsort(-X, axis=1), axis=1)
            t = _cpu(Mallows().resolve(na).gram, R, repeat=2)
            rows.append(("gram_mallows_ns", f"na={na} m={m}", t / (m * m * na * na) * 1e9,
                         c.gram_mallows_ns))
            t = _cpu(RBF().resolve(na).gram, X, repeat=2)
            rows.append(("gram_ns", f"na={na} m={m}", t / (m * m * na) * 1e9, c.gram_ns))
        for N in (400, 1500):
            sup_rows = rng.normal(size=(N, 10))
            R = np.argsort(np.argsort(-sup_rows, axis=1), axis=1)
            from genexpy_nb.generalizability.interval import INTERVAL_B, _closed_form_spread

            K = Mallows().resolve(10).gram(R)
            counts = np.ones(N)
            t = _cpu(_closed_form_spread, K, counts, np.array([0.95]), INTERVAL_B,
                     np.random.default_rng(0), repeat=2)
            # the interval (INTERVAL_B resamples) and the band (NULL_B = INTERVAL_B / 2)
            rows.append(("closed_ns", f"m={N}", 1.5 * t / (N * N) * 1e9, c.closed_ns))
    print(f"load average {os.getloadavg()[0]:.2f}; CPU time of one thread, best of 3")
    print(f"{'constant':18s} {'where':22s} {'measured':>10s} {'COSTS':>8s}")
    for name, where, got, have in rows:
        print(f"{name:18s} {where:22s} {got:10.3f} {have:8.3f}")


def _study(N: int, na: int, binary: bool, seed: int = 0):
    import genexpy_nb as gx

    rng = np.random.default_rng(seed)
    if binary:  # per-item 0/1 scores of a leaderboard
        p = np.clip(0.5 + np.linspace(0, 0.1, na)[None, :] + rng.normal(0, 0.2, (N, 1)),
                    0.02, 0.98)
        S = (rng.random((N, na)) < p).astype(float)
    else:
        S = rng.normal(size=(N, na)) + 0.5 * np.linspace(1.0, 0.0, na)
    df = pl.DataFrame({"d": np.repeat([f"d{j:06d}" for j in range(N)], na),
                       "m": [f"m{i:03d}" for i in range(na)] * N, "s": S.ravel()})
    return gx.Study(df, alternatives="m", target="s", generalize="d", higher_is_better=True)


#: (N, alternatives, kernels, 0/1 scores)
CHECKS = [(400, 20, "mallows", False), (1000, 20, "mallows", False),
          (700, 8, "jaccard,borda,mallows,rbf", False), (1000, 8, "jaccard", False),
          (1000, 100, "jaccard,mallows", True), (2000, 20, "mallows", False),
          (4000, 20, "mallows", False), (5000, 20, "jaccard,mallows", True),
          (50, 300, "jaccard,mallows", False), (51, 72, "jaccard,mallows", False)]


def check(wall: bool, only: list[int] | None = None) -> None:
    """Print estimate and time taken of whole analyses (one thread)."""
    import genexpy_nb as gx
    from genexpy_nb.generalizability.kernels import parse_kernel

    clock = time.perf_counter if wall else time.process_time
    gx.analyze(_study(60, 8, False), [parse_kernel(k) for k in
                                      ("jaccard", "borda", "mallows", "rbf")],
               progress=False, n_jobs=1)
    print(f"load average {os.getloadavg()[0]:.2f}; {'wall' if wall else 'CPU'} time, "
          "one thread")
    print(f"{'shape':40s} {'grid':28s} {'estimate':>9s} {'taken':>8s} {'ratio':>6s}")
    for i, (N, na, ks, binary) in enumerate(CHECKS):
        if only and i not in only:
            continue
        st = _study(N, na, binary)
        kernels = [parse_kernel(k) for k in ks.split(",")]
        t = clock()
        ga = gx.GeneralizabilityAnalysis(st, kernels, progress=False, n_jobs=1)
        took = clock() - t
        plan = next(iter(ga.grid_plans.values()))
        grid = (f"thinned, {plan.ns.size} sizes" if plan.thinned
                else f"full, {plan.ns.size} sizes")
        print(f"{N} x {na} {ks}{' (0/1)' if binary else '':<12s}"[:40].ljust(40)
              + f" {grid:28s} {plan.seconds:9.2f} {took:8.2f} {took / plan.seconds:6.2f}",
              flush=True)


def main() -> None:
    """Run the chosen part."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["measure", "check"])
    ap.add_argument("--wall", action="store_true", help="wall time instead of CPU time")
    ap.add_argument("--only", type=int, nargs="*", help="indices of CHECKS to run")
    args = ap.parse_args()
    if args.what == "measure":
        measure()
    else:
        check(args.wall, args.only)


if __name__ == "__main__":
    main()
