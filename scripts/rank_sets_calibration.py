"""Rank sets checked against the truth: joint coverage, widths, Bonferroni, csranks (issue 49).

Simulated studies with a known generating model (SPEC A14): scores = the alternative's mean
+ a condition effect + noise, higher is better; the true mean midrank of alternative k is
``1 + sum_j Phi((mu_j - mu_k) / sqrt(s_j^2 + s_k^2))`` exactly, and its true place 1 + the
number of alternatives with a strictly better one (tied alternatives share the best place).

For each scenario (alternatives K, conditions N, a pattern of means) and each of ``--studies``
studies, it records:

* whether the simultaneous sets of ``gx.rank_sets`` cover every true place (joint coverage,
  with its Monte Carlo error), and the same for the marginal sets (``simultaneous=False``),
  with the marginal sets' mean coverage one alternative at a time;
* the mean width of the sets, and of the Bonferroni projection of one-sided paired t-tests
  on the midrank differences (level (1 - level) / (K (K - 1)) each), its joint coverage,
  and the share of studies in which every simultaneous set is no wider than Bonferroni's;
* with ``--battles``, the joint coverage of ``gx.bradley_terry``'s rank sets on battle logs
  drawn from known log-strengths (tiers of equal strengths), simultaneous and marginal;
* with ``--csranks`` (R and the csranks package installed), the sets of csranks (Mogstad,
  Romano, Shaikh & Wilhelm's implementation: a parametric bootstrap from the estimates and
  their covariance ``cov(midranks) / N``) on the same studies: their width and coverage.

Run from the repository root (tens of minutes at the defaults; ``--quick`` for a smoke
run)::

    python scripts/rank_sets_calibration.py [--studies 300] [--csranks /path/to/Rlib]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from scipy import stats
from scipy.special import ndtr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from genexpy_nb.leaderboards._stepdown import ahead_matrix, places
from genexpy_nb.leaderboards.sets import (
    doubled_midranks,
    family,
    marginal_rejections,
    pair_moments,
)


def means(pattern: str, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Means and noise sds of a pattern: null, tiers (groups of equal means), close, hetero."""
    sd = np.full(K, 0.5)
    if pattern == "null":
        mu = np.zeros(K)
    elif pattern == "tiers":
        mu = np.repeat(np.arange((K + 2) // 3), 3)[:K] * 0.6
    elif pattern == "close":
        mu = np.linspace(0, 0.08 * K, K)
    else:  # hetero: close means, one alternative four times noisier
        mu = np.linspace(0, 0.08 * K, K)
        sd[K // 2] = 2.0
    return mu, sd


def truth(mu: np.ndarray, sd: np.ndarray) -> np.ndarray:
    K = mu.size
    th = np.array([1 + sum(ndtr((mu[j] - mu[k]) / math.hypot(sd[j], sd[k]))
                           for j in range(K) if j != k) for k in range(K)])
    th = np.round(th, 9)
    return 1 + (th[None, :] < th[:, None]).sum(axis=1)


def simulate(rng: np.random.Generator, N: int, mu: np.ndarray, sd: np.ndarray) -> np.ndarray:
    s = mu[None, :] + rng.standard_normal((N, 1)) + sd[None, :] * rng.standard_normal(
        (N, mu.size))
    return (s[:, None, :] > s[:, :, None]).sum(axis=2)  # tiers: 0 = best


def bonferroni(tiers: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    mr2 = doubled_midranks(tiers)
    N, K = mr2.shape
    theta, iu, ju, d, var = pair_moments(mr2)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(var > 0, d / np.sqrt(var / N), np.sign(d) * np.inf)
    t = np.where((var == 0) & (d == 0), 0.0, t)
    crit = stats.t.ppf(1 - (1 - level) / (K * (K - 1)), N - 1)
    rej = np.where(t > crit, 1, np.where(-t > crit, -1, 0)).astype(np.int8)
    return places(ahead_matrix(rej, iu, ju, K))


def csranks_sets(rlib: str, xs: list[np.ndarray], sigmas: list[np.ndarray], level: float,
                 simul: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """Run csranks on every study in one R session."""
    with tempfile.TemporaryDirectory() as tmp:
        inp = Path(tmp) / "in.json"
        out = Path(tmp) / "out.json"
        inp.write_text(json.dumps({"x": [x.tolist() for x in xs],
                                   "S": [s.tolist() for s in sigmas]}))
        code = f"""
        .libPaths(c("{rlib}", .libPaths())); suppressMessages(library(csranks))
        d <- jsonlite::fromJSON("{inp}", simplifyVector = FALSE)
        res <- lapply(seq_along(d$x), function(i) {{
          x <- unlist(d$x[[i]]); S <- do.call(rbind, lapply(d$S[[i]], unlist))
          r <- csranks(x, S, coverage = {level}, simul = {"TRUE" if simul else "FALSE"},
                       R = 1000, seed = i)
          list(L = r$L, U = r$U)}})
        writeLines(jsonlite::toJSON(res), "{out}")
        """
        subprocess.run(["Rscript", "-e", code], check=True, capture_output=True)
        res = json.loads(out.read_text())
    return [(np.array(r["L"]), np.array(r["U"])) for r in res]


def scenario(K: int, N: int, pattern: str, studies: int, reps: int, level: float,
             rlib: str | None, seed: int) -> dict:
    mu, sd = means(pattern, K)
    true = truth(mu, sd)
    rng = np.random.default_rng([seed, K, N, ["null", "tiers", "close", "hetero"].index(
        pattern)])
    joint_s = joint_m = 0
    cov_m = wid_s = wid_m = wid_b = 0.0
    not_wider = joint_b = 0
    xs, sigmas = [], []
    for s in range(studies):
        t = simulate(rng, N, mu, sd)
        fam = family(SimpleNamespace(rankings=t, alternatives=tuple(map(str, range(K)))),
                     level=level, reps=reps, rng=np.random.default_rng([seed, s]))
        lo, hi = places(ahead_matrix(fam.rej, fam.iu, fam.ju, K))
        mlo, mhi = marginal_rejections(fam)
        blo, bhi = bonferroni(t, level)
        joint_s += bool(np.all((lo <= true) & (true <= hi)))
        c = (mlo <= true) & (true <= mhi)
        joint_m += bool(np.all(c))
        cov_m += float(c.mean())
        wid_s += float(np.mean(hi - lo + 1))
        wid_m += float(np.mean(mhi - mlo + 1))
        wid_b += float(np.mean(bhi - blo + 1))
        not_wider += bool(np.all(hi - lo <= bhi - blo))
        joint_b += bool(np.all((blo <= true) & (true <= bhi)))
        if rlib:
            x = doubled_midranks(t) / 2.0
            xs.append(-x.mean(axis=0))  # csranks ranks the largest first
            sigmas.append(np.cov(x, rowvar=False) / N)
    out = {"K": K, "N": N, "pattern": pattern, "studies": studies,
           "joint_simultaneous": joint_s / studies,
           "mc_error": math.sqrt(level * (1 - level) / studies),
           "joint_marginal": joint_m / studies, "marginal_each": cov_m / studies,
           "width_simultaneous": wid_s / studies, "width_marginal": wid_m / studies,
           "width_bonferroni_t": wid_b / studies, "joint_bonferroni_t": joint_b / studies,
           "share_not_wider_than_bonferroni": not_wider / studies}
    if rlib:
        cs = csranks_sets(rlib, xs, sigmas, level, True)
        out["csranks_width_simultaneous"] = float(np.mean([np.mean(u - lo + 1)
                                                           for lo, u in cs]))
        out["csranks_joint_simultaneous"] = float(np.mean(
            [np.all((lo <= true) & (true <= u)) for lo, u in cs]))
        if K <= 10:  # csranks' marginal sets cost K of its simultaneous runs (minutes in R)
            cm = csranks_sets(rlib, xs, sigmas, level, False)
            out["csranks_width_marginal"] = float(np.mean([np.mean(u - lo + 1)
                                                           for lo, u in cm]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--studies", type=int, default=300)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--level", type=float, default=0.95)
    ap.add_argument("--csranks", default=None, metavar="RLIB",
                    help="an R library folder holding csranks (and jsonlite)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=None, help="write the rows as JSON lines here")
    ap.add_argument("--battles", action="store_true",
                    help="only the check of Bradley-Terry's rank sets on battle logs")
    ap.add_argument("--sizes", default=None,
                    help="K:N pairs to run, comma-separated (e.g. 20:30,20:100)")
    a = ap.parse_args()
    if a.battles:
        print(json.dumps(battles_check(logs=20 if a.quick else 200)), flush=True)
        return 0
    grid = ([(5, 10), (10, 30)] if a.quick else
            [(5, 10), (5, 30), (10, 10), (10, 30), (10, 100), (20, 30), (20, 100)])
    if a.sizes:
        grid = [tuple(int(v) for v in kn.split(":")) for kn in a.sizes.split(",")]
    patterns = ["null", "tiers"] if a.quick else ["null", "tiers", "close", "hetero"]
    rows = []
    for K, N in grid:
        for p in patterns:
            t = time.time()
            r = scenario(K, N, p, 40 if a.quick else a.studies, a.reps, a.level, a.csranks,
                         seed=0)
            rows.append(r)
            print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v)
                              for k, v in r.items()}), f"({time.time() - t:.0f} s)",
                  flush=True)
            if a.out:
                Path(a.out).write_text("\n".join(json.dumps(x) for x in rows) + "\n")
    low = min(r["joint_simultaneous"] for r in rows)
    print(f"lowest joint coverage of the simultaneous sets: {low:.3f} (level {a.level}, "
          f"Monte Carlo error {rows[0]['mc_error']:.3f})")
    return 0



def battles_check(logs: int = 100, K: int = 10, n: int = 3000, reps: int = 500,
                  level: float = 0.95, seed: int = 0) -> dict:
    """Joint coverage of gx.bradley_terry's rank sets on battle logs with known strengths.

    Log-strengths in tiers of equal values (0, 0, 0, 0.3, 0.3, 0.3, 0.6, ...), random pairs,
    a tie in 10 % of the battles; the true place of a model is 1 + the number of strictly
    stronger ones.
    """
    import polars as pl

    import genexpy_nb as gx

    beta = np.repeat(np.arange((K + 2) // 3), 3)[:K] * 0.3
    true = 1 + (beta[None, :] > beta[:, None]).sum(axis=1)
    names = [f"m{i:02d}" for i in range(K)]
    rng = np.random.default_rng([seed, K, n])
    joint = {True: 0, False: 0}
    for s in range(logs):
        a = rng.integers(0, K, n)
        b = (a + rng.integers(1, K, n)) % K
        p = 1 / (1 + np.exp(-(beta[a] - beta[b])))
        u = rng.random(n)
        w = np.where(u < 0.9 * p, "model_a", np.where(u < 0.9, "model_b", "tie"))
        df = pl.DataFrame({"model_a": [names[i] for i in a], "model_b": [names[i] for i in b],
                           "winner": w})
        for sim in joint:
            bt = gx.bradley_terry(df, reps=reps, seed=s, level=level, simultaneous=sim,
                                  progress=False).sort("model")
            lo, hi = bt["rank_lo"].to_numpy(), bt["rank_hi"].to_numpy()
            joint[sim] += bool(np.all((lo <= true) & (true <= hi)))
    return {"battles": n, "K": K, "logs": logs, "joint_simultaneous": joint[True] / logs,
            "joint_marginal": joint[False] / logs,
            "mc_error": math.sqrt(level * (1 - level) / logs)}


if __name__ == "__main__":
    raise SystemExit(main())
