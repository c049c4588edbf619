"""The no-signal baseline of n* by simulation: coverage on pure noise, power with a winner.

For every scenario, ``--studies`` simulated studies of N conditions x na alternatives are
analysed with the public API (``Study`` + ``GeneralizabilityAnalysis``, the default grid,
rep = 200, the four research questions Jaccard(k=1), Mallows, Borda() with a* chosen from
the data, and RBF) at alpha* = 0.95, delta* = 0.05. Scores are
``condition effect (sd 2) + alternative shift + noise (sd 1)``:

* ``noise``: no shift (no alternative systematically better): the user's n* should lie in
  the band ``[nstar_null_lo, nstar_null_hi]`` (the issue's criterion: in at least 90 % of
  100 studies);
* ``noise_ties``: the same, scores rounded to integers (rankings with many ties);
* ``dominant``: alternative 0 shifted so that it wins 89 % of the conditions (the share of
  the issue's dominant winner): n* should lie far below the baseline;
* ``moderate``: a shift with which alternative 0 wins 40 % of the conditions.

For each study and band level (0.90, 0.95, 0.99) it records n*, the baseline and its band.
Writes the per-study rows to ``--raw`` (not shipped) and the summary (share of studies with n*
inside / below / above the band, median ratio n* / nstar_null, per scenario, na, N, kernel,
level) to ``--out``.

Run from the repository root (about 10 minutes on one core)::

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=. python scripts/null_baseline.py \\
        --studies 100 --out data/null_baseline.parquet
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import polars as pl

import genexpy_nb as gx

LEVELS = (0.90, 0.95, 0.99)
KERNELS = ("jaccard", "mallows", "borda", "rbf")


def shift_for_win_share(share: float, na: int, draws: int = 400_000, seed: int = 0) -> float:
    """The shift of alternative 0 with which it has the best score in ``share`` of the
    conditions (noise N(0, 1) on every alternative), by bisection on Monte Carlo draws."""
    z = np.random.default_rng(seed).normal(size=(draws, na))
    best_other = z[:, 1:].max(axis=1)
    lo, hi = -5.0, 10.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if float(np.mean(z[:, 0] + mid > best_other)) < share:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def make_study(scores: np.ndarray) -> gx.Study:
    N, na = scores.shape
    df = pl.DataFrame({
        "condition": np.repeat(np.arange(N), na).astype(str),
        "alternative": np.tile([f"a{i}" for i in range(na)], N),
        "score": scores.ravel()})
    return gx.Study(df, alternatives="alternative", target="score", generalize="condition",
                    higher_is_better=True)


def one_study(scenario: str, N: int, na: int, shift: float, r: int, seed: int
              ) -> pl.DataFrame:
    key = ["noise", "noise_ties", "dominant", "moderate"].index(scenario)
    rng = np.random.default_rng([seed, key, N, na, r])
    scores = rng.normal(size=(N, na)) + 2.0 * rng.normal(size=(N, 1))
    scores[:, 0] += shift
    if scenario == "noise_ties":
        scores = np.round(scores)
    wins = float(np.mean(scores[:, 0] >= scores[:, 1:].max(axis=1)))
    ga = gx.GeneralizabilityAnalysis(
        make_study(scores), [gx.Jaccard(k=1), gx.Mallows(), gx.Borda(), gx.RBF()],
        seed=r, progress=False)
    parts = []
    for level in LEVELS:
        res = ga.nstar(0.95, 0.05, ["resample"], interval=False, null_level=level)
        parts.append(res.select(
            "kernel", "N", "nstar", "reliable", "nstar_null", "nstar_null_lo",
            "nstar_null_hi", "beyond_chance",
            pl.lit(level).alias("level")))
    return pl.concat(parts).with_columns(
        pl.lit(scenario).alias("scenario"), pl.lit(na).alias("na"), pl.lit(r).alias("study"),
        pl.lit(wins).alias("win_share"))


def summarise(raw: pl.DataFrame) -> pl.DataFrame:
    ok = pl.col("nstar").is_finite() & pl.col("nstar_null_lo").is_finite()
    return (raw.group_by("scenario", "na", "N", "kernel", "level")
            .agg(pl.len().alias("studies"),
                 ok.sum().alias("defined"),
                 ((pl.col("nstar") >= pl.col("nstar_null_lo"))
                  & (pl.col("nstar") <= pl.col("nstar_null_hi"))).filter(ok).mean()
                 .alias("inside"),
                 (pl.col("nstar") < pl.col("nstar_null_lo")).filter(ok).mean().alias("below"),
                 (pl.col("nstar") > pl.col("nstar_null_hi")).filter(ok).mean().alias("above"),
                 (pl.col("nstar") / pl.col("nstar_null")).filter(ok).median()
                 .alias("median_ratio"),
                 pl.col("nstar").median().alias("median_nstar"),
                 pl.col("nstar_null").median().alias("median_nstar_null"),
                 pl.col("reliable").mean().alias("reliable_share"),
                 pl.col("win_share").mean().alias("win_share"))
            .sort("scenario", "na", "N", "kernel", "level"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("data/null_baseline.parquet"))
    ap.add_argument("--raw", type=Path, default=Path("null_baseline_raw.parquet"))
    args = ap.parse_args()
    settings = [("noise", N, na) for na in (4, 8) for N in (20, 40, 80)]
    settings += [("noise_ties", 40, 6), ("dominant", 40, 6), ("dominant", 80, 6),
                 ("moderate", 40, 6), ("moderate", 80, 6)]
    frames = []
    t0 = time.perf_counter()
    for scenario, N, na in settings:
        shift = {"dominant": shift_for_win_share(0.89, na),
                 "moderate": shift_for_win_share(0.40, na)}.get(scenario, 0.0)
        for r in range(args.studies):
            frames.append(one_study(scenario, N, na, shift, r, args.seed))
        print(f"{scenario:<11} N={N:<3} na={na}  ({time.perf_counter() - t0:6.0f} s)",
              flush=True)
    raw = pl.concat(frames)
    raw.write_parquet(args.raw)
    table = summarise(raw)
    table.write_parquet(args.out, compression="zstd", compression_level=19)
    with pl.Config(tbl_rows=200, tbl_cols=20, tbl_width_chars=200):
        print(table.filter(pl.col("level") == 0.95))


if __name__ == "__main__":
    main()
