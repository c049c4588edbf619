"""Calibration of gx.conclusions against the truth of known generating models (SPEC A14).

Studies are drawn from ``score[condition, a] = m[a] + c[condition] + noise`` (normal condition
effect and noise, sd 1; higher is better), in five scenarios of six alternatives:

* ``clear``: one winner whose true n* for "best" is at most N/4;
* ``hard``: a winner whose true n* is well above N;
* ``identical``: two alternatives with identical distributions at the top, the rest clearly
  behind (the pair of twins must not be called settled);
* ``noise``: no alternative better than another;
* ``staircase``: evenly spaced means (many pairs of different difficulty).

The *true* G(n) of a conclusion is computed by Monte Carlo from the generating model
(``--truth-studies`` independent studies of n conditions per n) and the true n* is the
smallest n with G(m) >= alpha* for every larger m (found by bisection: G is monotone here).
Then ``--studies`` observed studies of N conditions are drawn per scenario and
``gx.conclusions`` is run on each. Printed, with Monte Carlo standard errors:

* the coverage of [nstar_lo, nstar_hi] for the true n* (nominal 0.90), for the best and for
  every pair whose true n* is finite;
* the median ratio estimated n* / true n*;
* how often the best is called "holds", per scenario (clear: >= 0.9 wanted; hard: low);
* how often the identical pair is called "holds" (at most 1 - alpha* wanted);
* how often pure noise yields any "holds" (at most 1 - alpha* wanted).

    python scripts/conclusions_calibration.py                 # the full run (a few minutes)
    python scripts/conclusions_calibration.py --studies 40 --truth-studies 2000   # quick
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

ALTS = [f"A{i}" for i in range(6)]
SCENARIOS = {
    "clear": [1.4, 0.0, 0.0, 0.0, 0.0, 0.0],
    "hard": [0.25, 0.0, 0.0, 0.0, 0.0, 0.0],
    "identical": [1.5, 1.5, 0.0, 0.0, 0.0, 0.0],
    "noise": [0.0] * 6,
    "staircase": [1.0, 0.8, 0.6, 0.4, 0.2, 0.0],
}


def draw_scores(m: np.ndarray, studies: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Scores of ``studies`` studies of ``n`` conditions: (studies, n, na)."""
    na = m.size
    cond = rng.standard_normal((studies, n, 1))
    return m + cond + rng.standard_normal((studies, n, na))


def mean_ranks(scores: np.ndarray) -> np.ndarray:
    """Mean over conditions of the within-condition ranks (1 = best, higher score better)."""
    order = np.argsort(-scores, axis=-1)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, scores.shape[-1] + 1), axis=-1)
    return ranks.mean(axis=1)


def true_agreement(m: np.ndarray, n: int, kind: str, rng: np.random.Generator,
                   studies: int, pair: tuple[int, int] = (0, 1), k: int = 3) -> float:
    """G(n) of one conclusion from the generating model, by Monte Carlo."""
    done, chunks = 0, []
    per = max(1, 3_000_000 // (n * m.size))
    while done < studies:
        s = min(per, studies - done)
        chunks.append(mean_ranks(draw_scores(m, s, n, rng)))
        done += s
    mr = np.concatenate(chunks)
    if kind == "pair":
        d = mr[:, pair[0]] - mr[:, pair[1]]
        p = np.array([np.mean(d < 0), np.mean(d == 0), np.mean(d > 0)])
        return float(np.sum(p * p))
    if kind == "best":
        keys = np.packbits(mr <= mr.min(axis=1, keepdims=True) + 1e-12, axis=1)
    else:
        kth = np.partition(mr, k - 1, axis=1)[:, k - 1: k]
        keys = np.packbits(mr <= kth + 1e-12, axis=1)
    _, c = np.unique(keys, axis=0, return_counts=True)
    c = c.astype(float)
    return float((np.sum(c * c) - len(mr)) / (len(mr) * (len(mr) - 1)))


def first_crossing(G, alpha: float, n_max: int = 4096) -> float:
    """Smallest n with G(n) >= alpha, G monotone in n: doubling, then bisection; or inf."""
    if G(1) >= alpha:
        return 1.0
    lo, hi = 1, 2
    while G(hi) < alpha:
        lo, hi = hi, hi * 2
        if hi > n_max:
            return math.inf
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if G(mid) >= alpha:
            hi = mid
        else:
            lo = mid
    return float(hi)


def true_nstar_best(m: np.ndarray, alpha: float, seed: int, studies: int) -> float:
    """True n* of "the best" by Monte Carlo from the generating model."""
    return first_crossing(lambda n: true_agreement(
        m, n, "best", np.random.default_rng([seed, n]), studies), alpha)


def pair_pmfs(m: np.ndarray, rng: np.random.Generator, conditions: int = 2_000_000
              ) -> dict[tuple[int, int], np.ndarray]:
    """The distribution of every pair's within-condition rank difference (-(na-1)..na-1)."""
    na = m.size
    ranks = mean_ranks(draw_scores(m, conditions, 1, rng)[:, :, :].reshape(-1, 1, na))
    out = {}
    for i in range(na):
        for j in range(i + 1, na):
            d = (ranks[:, i] - ranks[:, j]).astype(int) + (na - 1)
            out[(i, j)] = np.bincount(d, minlength=2 * na - 1) / conditions
    return out


def pair_agreement_exact(pmf: np.ndarray, n: int) -> float:
    """G(n) of a pair: P(sum of n iid differences < 0)^2 + P(= 0)^2 + P(> 0)^2 (by FFT)."""
    half = (pmf.size - 1) // 2
    size = 1 << int(math.ceil(math.log2(n * (pmf.size - 1) + 1)))
    f = np.fft.rfft(pmf, size)
    dist = np.clip(np.fft.irfft(f ** n, size)[: n * (pmf.size - 1) + 1], 0, None)
    dist /= dist.sum()
    zero = n * half  # the index of a sum of 0
    p = np.array([dist[:zero].sum(), dist[zero], dist[zero + 1:].sum()])
    return float(np.sum(p * p))


def study_frame(scores: np.ndarray) -> pl.DataFrame:
    n, na = scores.shape
    return pl.DataFrame({
        "dataset": np.repeat([f"d{j:04d}" for j in range(n)], na),
        "model": ALTS * n,
        "score": scores.ravel(),
    })


def covers(lo: float, hi: float, truth: float) -> bool:
    """Whether [lo, hi] (rounded up, as n* is a whole number of conditions) holds truth."""
    return math.ceil(lo) <= truth <= (math.ceil(hi) if math.isfinite(hi) else math.inf)


def rate(x: list[bool]) -> tuple[float, float]:
    """Mean and Monte Carlo standard error of a rate."""
    a = np.asarray(x, dtype=float)
    if a.size == 0:
        return math.nan, math.nan
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(a.size)) if a.size > 1 else 0.0


def run(N: int, studies: int, truth_studies: int, alpha: float, seed: int) -> dict:
    out: dict = {"N": N, "studies": studies, "alpha": alpha, "scenarios": {}}
    for si, (name, means) in enumerate(SCENARIOS.items()):
        t0 = time.perf_counter()
        m = np.asarray(means)
        truth_best = true_nstar_best(m, alpha, seed + 100 * si, truth_studies)
        pmfs = pair_pmfs(m, np.random.default_rng([seed, si, 1]))
        truth_pair = {p: first_crossing(lambda n, f=f: pair_agreement_exact(f, n), alpha)
                      for p, f in pmfs.items()}
        rng = np.random.default_rng([seed, si])
        best_holds, best_cov, best_ratio = [], [], []
        pair_cov, any_holds, twin_holds = [], [], []
        for _ in range(studies):
            scores = draw_scores(m, 1, N, rng)[0]
            study = gx.Study(study_frame(scores), alternatives="model", target="score",
                             generalize="dataset", higher_is_better=True)
            res = gx.conclusions(study, kinds=["best", "pair"], alpha=alpha, seed=0)
            best = res.filter(pl.col("kind") == "best").row(0, named=True)
            best_holds.append(best["verdict"] == "holds")
            any_holds.append(bool((res["verdict"] == "holds").any()))
            if math.isfinite(truth_best):
                best_cov.append(covers(best["nstar_lo"], best["nstar_hi"], truth_best))
                best_ratio.append(best["nstar"] / truth_best)
            for row in res.filter(pl.col("kind") == "pair").iter_rows(named=True):
                a, b = sorted(ALTS.index(x) for x in row["members"])
                tn = truth_pair[(a, b)]
                if math.isfinite(tn):
                    pair_cov.append(covers(row["nstar_lo"], row["nstar_hi"], tn))
                if name == "identical" and (a, b) == (0, 1):
                    twin_holds.append(row["verdict"] == "holds")
        sc = {
            "true_nstar_best": truth_best,
            "true_nstar_pairs_finite": int(sum(math.isfinite(v) for v in truth_pair.values())),
            "best_holds": rate(best_holds),
            "best_coverage": rate(best_cov),
            "best_median_ratio": float(np.median(best_ratio)) if best_ratio else math.nan,
            "pair_coverage": rate(pair_cov),
            "any_holds": rate(any_holds),
            "seconds": time.perf_counter() - t0,
        }
        if twin_holds:
            sc["identical_pair_holds"] = rate(twin_holds)
        out["scenarios"][name] = sc
        print(f"{name:10s} true n*(best) = {truth_best:7.1f}   "
              f"best holds {sc['best_holds'][0]:.3f} +- {sc['best_holds'][1]:.3f}   "
              f"coverage best {sc['best_coverage'][0]:.3f} +- {sc['best_coverage'][1]:.3f}   "
              f"pairs {sc['pair_coverage'][0]:.3f} +- {sc['pair_coverage'][1]:.3f}   "
              f"median n*/true {sc['best_median_ratio']:.2f}   "
              f"any holds {sc['any_holds'][0]:.3f}"
              + (f"   twin pair holds {sc['identical_pair_holds'][0]:.3f} +- "
                 f"{sc['identical_pair_holds'][1]:.3f}" if twin_holds else "")
              + f"   ({sc['seconds']:.0f} s)", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--N", type=int, default=40, help="conditions per observed study")
    ap.add_argument("--studies", type=int, default=200, help="observed studies per scenario")
    ap.add_argument("--truth-studies", type=int, default=6000,
                    help="Monte Carlo studies per n for the true G(n)")
    ap.add_argument("--alpha", type=float, default=0.95)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, help="write the figures as JSON here")
    a = ap.parse_args(argv)
    res = run(a.N, a.studies, a.truth_studies, a.alpha, a.seed)
    if a.out:
        a.out.write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
