"""Serial vs a 2-worker Dask LocalCluster: a seed pool, ``analyze`` on 2,000 configurations.

Run from the repository root (needs genexpy_nb[cluster] and [train])::

    python benchmarks/bench_dask.py [n_models] [epochs] [n_configs] [repeats]

(defaults 16 models x 5 epochs of the digits CNN, 2,000 configurations, best of 2). Prints
wall-clock times (the minimum over the repeats), the speed-ups, and the peak resident memory
of each worker process and of this one. The cluster is started, and its workers warmed up
(torch imported, numba kernels loaded) before the timed runs; the start-up cost is printed
on its own. Asserts nothing: speed is measured, not tested. On a shared machine, the ratio
is bounded by the cores the other processes leave free.
"""

from __future__ import annotations

import itertools
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import genexpy_nb as gx  # noqa: E402


def peak_rss_mb() -> float:
    """Peak resident memory of this process (Linux: ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def best_of(f, repeat: int) -> tuple[float, object]:
    ts, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t)
    return min(ts), out


def synthetic_study(n_configs: int, N: int = 20, na: int = 5, seed: int = 0) -> gx.Study:
    """n_configs configurations x N conditions x na alternatives; configurations range from
    random rankings to a clear winner, so their n* differ."""
    rng = np.random.default_rng(seed)
    strength = np.repeat(np.linspace(0, 1, n_configs), N * na)
    base = np.tile(np.arange(na, dtype=float), n_configs * N)
    score = rng.random(n_configs * N * na) + strength * base
    return gx.Study(
        pl.DataFrame({
            "cfg": np.repeat(np.arange(n_configs), N * na),
            "cond": np.tile(np.repeat(np.arange(N), na), n_configs),
            "alt": np.tile([f"a{a}" for a in range(na)], n_configs * N),
            "score": score,
        }),
        alternatives="alt", target="score", generalize="cond", design="cfg",
        higher_is_better=True,
    )


def worker_peaks(client) -> list[float]:
    return sorted(client.run(peak_rss_mb).values())


def bench_pool(client, n_models: int, epochs: int, repeat: int) -> None:
    from genexpy_nb.seedpools import digits_binary_task, train_cnn_pool

    task = digits_binary_task()
    names = itertools.count()
    with tempfile.TemporaryDirectory() as tmp:
        def run(c):  # a new pool file each time (an existing pool is not retrained)
            return train_cnn_pool(Path(tmp) / f"p{next(names)}.npz", task=task,
                                  n_models=n_models, epochs=epochs, progress=False, client=c)

        t_serial, serial = best_of(lambda: run(None), repeat)
        t_dask, dist = best_of(lambda: run(client), repeat)
    same = all(np.array_equal(getattr(serial, k), getattr(dist, k))
               for k in ("gaps", "train_loss", "val_accuracy_curve"))
    cpu = float(serial.cpu_time_s.sum())
    print(f"pool, {n_models} CNNs x {epochs} epochs (600 digits, 1 torch thread each):")
    print(f"  serial          {t_serial:7.2f} s   ({cpu:.2f} s CPU in the models)")
    print(f"  2 workers       {t_dask:7.2f} s   speed-up {t_serial / t_dask:4.2f}x   "
          f"same bits: {same}")


def bench_analyze(client, n_configs: int, repeat: int) -> None:
    study = synthetic_study(n_configs)
    kernels = [gx.Jaccard(k=1), gx.Mallows()]
    kw = {"alphas": 0.95, "deltas": 0.05, "progress": False}
    gx.analyze(synthetic_study(4), kernels, **kw)  # compile / load the kernels here
    t1, local1 = best_of(lambda: gx.analyze(study, kernels, n_jobs=1, **kw), repeat)
    t2, local = best_of(lambda: gx.analyze(study, kernels, **kw), repeat)
    td, dist = best_of(lambda: gx.analyze(study, kernels, client=client, **kw), repeat)
    same = dist.equals(local) and local1.equals(local)
    print(f"analyze, {n_configs} configurations x 20 conditions x 5 alternatives, "
          "2 kernels, rep 200:")
    print(f"  local, 1 thread {t1:7.2f} s")
    import numba

    print(f"  local, {numba.config.NUMBA_NUM_THREADS} threads {t2:6.2f} s")
    print(f"  2 workers       {td:7.2f} s   speed-up {t1 / td:4.2f}x vs 1 thread, "
          f"{t2 / td:4.2f}x vs all threads   same bits: {same}")


def main() -> None:
    from distributed import Client, LocalCluster

    args = [int(a) for a in sys.argv[1:]]
    n_models, epochs, n_configs, repeat = (args + [16, 5, 2000, 2][len(args):])[:4]
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f} "
          "(other processes share these cores: ratios are noisy)")
    t = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    t_start = time.perf_counter() - t

    def warm():
        import torch  # noqa: F401

        import genexpy_nb.seedpools.training  # noqa: F401
        return gx.analyze(synthetic_study(2), [gx.Mallows()], rep=5, progress=False).height

    t = time.perf_counter()
    client.run(warm)
    print(f"LocalCluster of 2 worker processes: {t_start:.1f} s to start, "
          f"{time.perf_counter() - t:.1f} s to import torch and load the kernels in them")
    print(f"worker peak RSS after start: {worker_peaks(client)} MB")
    try:
        bench_pool(client, n_models, epochs, repeat)
        print(f"  worker peak RSS: {worker_peaks(client)} MB; this process: "
              f"{peak_rss_mb():.0f} MB")
        bench_analyze(client, n_configs, repeat)
        print(f"  worker peak RSS: {worker_peaks(client)} MB; this process: "
              f"{peak_rss_mb():.0f} MB")
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
