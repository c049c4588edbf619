"""Does ``eval_noise(...).se`` at a larger design match the Monte Carlo truth?

A known generating model of two models' per-item correctness (logit scale)::

    logit P(a right on item i of task t) = mu + u_t + theta_i + e_i,   u_t ~ N(0, tau²),
    logit P(b right on item i of task t) = theta_i,                     e_i ~ N(0, sigma_e²),
    theta_i ~ N(0, 1); each run is a Bernoulli draw (runs not paired across models).

Each study observes T0 tasks × N0 items × K0 runs; ``eval_noise`` (tasks sampled, items
weighted equally) predicts the standard error of the difference of the two models' means at
a larger design (T1, N1, K1). The truth is the standard deviation of that difference over
``--mc`` fresh benchmarks of the larger design drawn from the same generating model. The
script prints, per scenario, the share of studies whose prediction lies within ±25 % of the
truth and the quartiles of predicted / true::

    PYTHONPATH=$PWD python scripts/eval_noise_simulation.py              # ~10 s on 2 cores
    PYTHONPATH=$PWD python scripts/eval_noise_simulation.py --studies 200 --mc 2000

Figures of the defaults (60 studies, 600 fresh benchmarks per scenario, seed 0) are in the
user guide's page on evaluations.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import polars as pl

from genexpy_nb.evals import eval_noise

#: (name, (T0, N0, K0), (T1, N1, K1), tau, sigma_e, mu)
SCENARIOS = [
    ("tasks dominate, 40x50x4 -> 80x100x8", (40, 50, 4), (80, 100, 8), 0.5, 0.7, 0.2),
    ("items dominate, 30x40x3 -> 30x200x3", (30, 40, 3), (30, 200, 3), 0.15, 1.5, 0.1),
    ("runs dominate, 30x30x2 -> 60x30x10", (30, 30, 2), (60, 30, 10), 0.2, 0.3, 0.1),
]


def draw(T, N, K, tau, sig, mu, rng):
    """One benchmark: correctness arrays of a and b, shape (T, N, K)."""
    u = rng.normal(0, tau, T)[:, None]
    theta = rng.normal(0, 1, (T, N))
    e = rng.normal(0, sig, (T, N))
    pa = 1 / (1 + np.exp(-(mu + u + theta + e)))
    pb = 1 / (1 + np.exp(-theta))
    return rng.random((T, N, K)) < pa[..., None], rng.random((T, N, K)) < pb[..., None]


def table(ya, yb) -> pl.DataFrame:
    """The long table eval_noise reads."""
    T, N, K = ya.shape
    t, i, k = (g.ravel() for g in np.meshgrid(np.arange(T), np.arange(N), np.arange(K),
                                              indexing="ij"))
    return pl.DataFrame({"model": ["a"] * ya.size + ["b"] * yb.size,
                         "task": np.r_[t, t], "item": np.r_[i, i], "run": np.r_[k, k],
                         "correct": np.r_[ya.ravel(), yb.ravel()].astype(np.float64)})


def scenario(obs, big, tau, sig, mu, studies, mc, rng):
    """(predicted / true ratios over studies, the true se)."""
    truth = np.std([a.mean() - b.mean() for a, b in
                    (draw(*big, tau, sig, mu, rng) for _ in range(mc))], ddof=1)
    ratios = []
    for _ in range(studies):
        noise = eval_noise(table(*draw(*obs, tau, sig, mu, rng)), alternatives="model",
                           target="correct", items="item", runs="run", tasks="task",
                           higher_is_better=True)
        T1, N1, K1 = big
        ratios.append(noise.se("a", "b", runs=K1, items=N1, tasks=T1) / truth)
    return np.array(ratios), truth


def main() -> None:
    """Run every scenario and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=60)
    ap.add_argument("--mc", type=int, default=600)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{'scenario':40s} {'true se':>9s} {'within ±25%':>12s} "
          f"{'ratio q25':>10s} {'median':>7s} {'q75':>6s}")
    for name, obs, big, tau, sig, mu in SCENARIOS:
        t0 = time.perf_counter()
        r, truth = scenario(obs, big, tau, sig, mu, args.studies, args.mc, rng)
        within = np.mean(np.abs(r - 1) <= 0.25)
        q = np.quantile(r, [0.25, 0.5, 0.75])
        print(f"{name:40s} {truth:9.5f} {within:11.0%} {q[0]:10.2f} {q[1]:7.2f} {q[2]:6.2f}"
              f"   ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
