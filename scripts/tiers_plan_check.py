"""The tiers' plan checked by doing it: add the k conditions it asks for, count the splits.

Simulated studies with a known generating model (scores = the alternative's mean + a
condition effect + noise, higher is better). For every cut that ``gx.tiers`` says "needs k
more" (k up to ``--max-factor`` N), k more conditions are drawn from the same model and
appended, ``gx.rank_sets`` is re-run on the N + k conditions, and the cut counts as kept
when the same alternatives are all shown ahead of the rest. The share of cuts kept should lie
near the assurance (0.8): the plan integrates over the effects' uncertainty given the data,
so a single true model gives a share around it, lower where the cuts that ask for more were
selected for looking promising.

It also checks the approximation behind the plan: the critical value of the family test at
N + k is taken from the bootstrap at N moved to N + k - 1 degrees of freedom
(``t_rescale``); the script compares it with the critical value of a fresh bootstrap of the
N + k conditions (the first step's, all hypotheses standing).

Run from the repository root (minutes; ``--quick`` for a smoke run)::

    python scripts/tiers_plan_check.py [--studies 60]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import genexpy_nb as gx
from genexpy_nb.leaderboards._stepdown import kth_index, t_rescale
from genexpy_nb.leaderboards.sets import family


def frame(scores: np.ndarray, start: int = 0) -> pl.DataFrame:
    N, K = scores.shape
    return pl.DataFrame({"dataset": np.repeat([f"d{start + i}" for i in range(N)], K),
                         "model": [f"m{k:02d}" for k in range(K)] * N,
                         "acc": scores.ravel()})


def draw(rng: np.random.Generator, N: int, mu: np.ndarray) -> np.ndarray:
    return mu[None, :] + rng.standard_normal((N, 1)) + 0.5 * rng.standard_normal((N, mu.size))


def study(df: pl.DataFrame) -> gx.Study:
    return gx.Study(df, alternatives="model", target="acc", generalize="dataset",
                    higher_is_better=True)


def first_critical(fam) -> float:
    m = np.abs(fam.G).max(axis=1)
    return float(np.sort(m)[kth_index(fam.level, m.size)])


def means(K: int, gap: float, pattern: str) -> np.ndarray:
    """Evenly spaced means; groups of four equal means, groups ``4 gap`` apart; or means
    drawn once at random (uniform over a range of ``gap K``)."""
    if pattern == "groups":
        return 4 * gap * (np.arange(K) // 4)[::-1].astype(float)
    if pattern == "random":
        return np.sort(np.random.default_rng(K).uniform(0, gap * K, K))[::-1]
    return gap * np.arange(K)[::-1]


def run(K: int, N: int, gap: float, studies: int, max_factor: float, seed: int,
        pattern: str = "even") -> dict:
    mu = means(K, gap, pattern)
    rng = np.random.default_rng([seed, K, N, int(gap * 1000), len(pattern)])
    promised = kept = 0
    ratios = []
    for s in range(studies):
        x = draw(rng, N, mu)
        df = frame(x)
        st = study(df)
        plan = gx.tiers(st, seed=s, draws=500, reps=1000, progress=False)
        sets = gx.rank_sets(st, seed=s, reps=1000, progress=False)
        order = sets["alternative"].to_list()
        fam = family(st.sample(0), level=0.95, reps=1000, rng=np.random.default_rng(s))
        for r in plan.filter(pl.col("more").is_not_null()).iter_rows(named=True):
            k = int(r["more"])
            if k > max_factor * N:
                continue
            promised += 1
            more = draw(rng, k, mu)
            st2 = study(pl.concat([df, frame(more, start=N)]))
            sets2 = gx.rank_sets(st2, seed=s, reps=1000, progress=False)
            above = set(order[: r["after"]])
            top = sets2.filter(pl.col("alternative").is_in(list(above)))
            rest = sets2.filter(~pl.col("alternative").is_in(list(above)))
            kept += bool(top["rank_hi"].max() <= len(above) < rest["rank_lo"].min()
                         and top["tier"].max() < rest["tier"].min())
            fam2 = family(st2.sample(0), level=0.95, reps=1000,
                          rng=np.random.default_rng(s))
            grid = np.array([first_critical(fam)])
            predicted = float(t_rescale(grid, N - 1, N + k - 1)[0])
            ratios.append(predicted / first_critical(fam2))
    share = kept / promised if promised else math.nan
    return {"K": K, "N": N, "gap": gap, "pattern": pattern, "studies": studies,
            "cuts_planned": promised,
            "share_kept": share,
            "mc_error": math.sqrt(share * (1 - share) / promised) if promised else math.nan,
            "critical_ratio_median": float(np.median(ratios)) if ratios else math.nan,
            "critical_ratio_p10_p90": [float(np.quantile(ratios, q)) for q in (0.1, 0.9)]
            if ratios else []}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--studies", type=int, default=60)
    ap.add_argument("--max-factor", type=float, default=25.0,
                    help="skip cuts asking for more than this many times N")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default=None,
                    help="K:N:gap:pattern scenarios (pattern even, groups or random), "
                         "comma-separated")
    a = ap.parse_args()
    grid = [(6, 15, 0.25, "even")] if a.quick else [
        (6, 15, 0.25, "even"), (6, 30, 0.15, "even"), (12, 20, 0.2, "even"),
        (12, 40, 0.1, "even"), (12, 20, 0.15, "groups"), (12, 30, 0.2, "random"),
        (20, 30, 0.15, "random")]
    if a.only:
        grid = [(int(k), int(n), float(g), p) for k, n, g, p in
                (x.split(":") for x in a.only.split(","))]
    for K, N, gap, pattern in grid:
        t = time.time()
        r = run(K, N, gap, 5 if a.quick else a.studies, a.max_factor, seed=0,
                pattern=pattern)
        print(json.dumps(r), f"({time.time() - t:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
