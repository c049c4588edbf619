"""Does "needs k more" come true? The plan of gx.conclusions checked by doing it (SPEC A15).

Studies are drawn from ``score[condition, a] = m[a] + c[condition] + noise`` (normal condition
effect and noise, sd 1; higher is better). Settings: 6, 20 and 60 alternatives; N = 20, 50,
100 observed conditions; the alternatives' true means evenly spaced over a range ``spread``
(small: most pairs need far more conditions; large: most pairs hold) or one winner ahead of
equal others.

**Promises** (``--part promises``): for every conclusion that says "needs k more" (fixed mode,
assurance 0.8), k more conditions are drawn from the same model and appended, and the verdict
rule is run on the N + k conditions: the share that then "holds" (the same conclusion, in the
same direction) is reported per setting, with its Monte Carlo standard error. It must lie in
[0.6, 0.95]. The same with only half of k added: it must come true clearly less often. Also
reported: the share of open conclusions given a k (not "needs over K more") and the median
k / N.

**Peeking** (``--part peeking``): pure noise (no alternative better), a look after every added
condition from 5 to ``--looks`` conditions: the share of studies in which any look declares
any conclusion "holds" (pairs and the best), fixed mode against sequential mode. The fixed mode
inflates it; the sequential mode must keep it at most 1 - alpha* = 0.05.

**Clear winner** (``--part winner``): a winner ahead of the others by ``d``. Fixed: the
smallest N at which one look says the best "holds" in at least 80 % of the studies (a planned
design). Sequential: conditions added one at a time until the best "holds": the N by which 80 %
of the studies have stopped, and the median. (Also the median first look at which the fixed
rule says "holds" when looked at after every condition: what peeking seems to give, invalid.)

    python scripts/plan_validation.py --part all --studies 200     # the docs' figures
    python scripts/plan_validation.py --part promises --studies 20 # quick
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import genexpy_nb as gx
from genexpy_nb.generalizability._conclusion_model import (
    _doubled_midranks,
    _pair_stats,
)

C = importlib.import_module("genexpy_nb.generalizability.conclusions")
ALPHA = 0.95


def means_of(setting: dict, rng: np.random.Generator | None = None) -> np.ndarray:
    na, spread = setting["na"], setting["spread"]
    if setting.get("shape") == "random":  # the shrinkage prior's own model
        return spread * (rng or np.random.default_rng(0)).standard_normal(na)
    if setting.get("shape") == "winner":
        m = np.zeros(na)
        m[0] = spread
        return m
    return np.linspace(spread, 0.0, na)


def draw(m: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    return m + rng.standard_normal((n, 1)) + rng.standard_normal((n, m.size))


def study_of(scores: np.ndarray) -> gx.Study:
    n, na = scores.shape
    df = pl.DataFrame({"dataset": np.repeat([f"d{j:05d}" for j in range(n)], na),
                       "model": [f"m{i:02d}" for i in range(na)] * n,
                       "score": scores.ravel()})
    return gx.Study(df, alternatives="model", target="score", generalize="dataset",
                    higher_is_better=True)


def verdicts(scores: np.ndarray, *, sequential: bool = False, kinds=("best", "pair"),
             plan: bool = True, seed: int = 0, assurance: float = 0.8) -> list[dict]:
    """The rows of gx.conclusions (its own code), with or without the plan."""
    st = study_of(scores)
    rule = C._check_plan(ALPHA, "holm", 0.90, assurance, sequential, None, None)
    rule.plan = rule.agreement = plan
    s = st.sample(0)
    return C._configuration_rows(
        s, kinds=kinds, top_k=(3,), delta=0.05, margin=None, budget=None, draws=400,
        rng=np.random.default_rng(seed), plan_rng=np.random.default_rng(seed + 1), rule=rule,
        order=C._condition_order(st, s, sequential), progress=False)


def key(r: dict) -> tuple:
    return (r["kind"], r["k"], r["observed"])


# ---- promises ------------------------------------------------------------------------------
SETTINGS = [
    {"na": 6, "N": 20, "spread": 1.0}, {"na": 6, "N": 50, "spread": 0.6},
    {"na": 6, "N": 100, "spread": 0.4}, {"na": 6, "N": 50, "spread": 0.6, "shape": "winner"},
    {"na": 20, "N": 20, "spread": 2.0}, {"na": 20, "N": 50, "spread": 1.0},
    {"na": 20, "N": 100, "spread": 1.0},
    {"na": 60, "N": 20, "spread": 3.0}, {"na": 60, "N": 50, "spread": 2.0},
    {"na": 60, "N": 100, "spread": 1.0},
]


def promises(setting: dict, studies: int, seed: int, max_total: int,
             sequential: bool = False, max_checks: int = 1000) -> dict:
    N = setting["N"]
    rng = np.random.default_rng(seed)
    m = means_of(setting, rng)
    came, came_half, given, open_rows, ratios = [], [], 0, 0, []
    for s in range(studies):
        if setting.get("shape") == "random":
            m = means_of(setting, rng)
        obs = draw(m, N, rng)
        rows = verdicts(obs, seed=seed * 1000 + s, sequential=sequential)
        need = [r for r in rows if r["verdict"].startswith("needs")]
        open_rows += len(need)
        planned = [r for r in need if r["more"] is not None and N + r["more"] <= max_total]
        given += sum(r["more"] is not None for r in need)
        if not planned:
            continue
        ks = sorted({r["more"] for r in planned})
        if len(ks) > max_checks:  # a random subset of the promises, by their k
            ks = sorted(rng.choice(ks, size=max_checks, replace=False).tolist())
            planned = [r for r in planned if r["more"] in set(ks)]
        kmax = max(r["more"] for r in planned)
        future = draw(m, kmax, rng)
        by_k: dict[int, dict] = {}
        for k in sorted(set(ks) | {max(1, k // 2) for k in ks}):
            res = verdicts(np.vstack([obs, future[:k]]), plan=False, sequential=sequential)
            by_k[k] = {key(r): r["verdict"] for r in res}
        for r in planned:
            ratios.append(r["more"] / N)
            came.append(by_k[r["more"]].get(key(r)) == "holds")
            came_half.append(by_k[max(1, r["more"] // 2)].get(key(r)) == "holds")
    n = len(came)
    share = float(np.mean(came)) if n else math.nan
    half = float(np.mean(came_half)) if n else math.nan
    small = np.asarray(ratios) <= 1.0  # the promises of at most N more conditions
    c_arr, h_arr = np.asarray(came, bool), np.asarray(came_half, bool)
    return {**setting, "mode": "sequential" if sequential else "fixed",
            "studies": studies, "promises": n,
            "holds_after_k": share,
            "se": math.sqrt(share * (1 - share) / n) if n else math.nan,
            "holds_after_half_k": half, "given_k": given / open_rows if open_rows else math.nan,
            "median_k_over_N": float(np.median(ratios)) if ratios else math.nan,
            "share_k_le_N": float(small.mean()) if n else math.nan,
            "holds_after_k_le_N": float(c_arr[small].mean()) if small.any() else math.nan,
            "holds_after_half_k_le_N": float(h_arr[small].mean()) if small.any() else math.nan}


# ---- peeking under pure noise --------------------------------------------------------------
def any_holds_path(scores: np.ndarray, sequential: bool, first: int) -> bool:
    """Whether any look (after each condition from ``first`` on) declares a "holds"."""
    rule = C._check_plan(ALPHA, "holm", 0.90, 0.8, sequential, None, None)
    for n in range(first, scores.shape[0] + 1):
        mr2 = _doubled_midranks(np.argsort(np.argsort(-scores[:n], axis=1), axis=1))
        st = _pair_stats(mr2, 0.90, ALPHA)
        sep_pairs, sep_sets, _ = C._separation(st, mr2, rule, np.arange(n))
        best = mr2.sum(axis=0)
        inside = best == best.min()
        cross = np.flatnonzero(inside[st["i"]] != inside[st["j"]])
        if sep_pairs.any() or (cross.size and sep_sets[cross].all()):
            return True
    return False


def peeking(na: int, looks: int, studies: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    fixed = seq = 0
    for _ in range(studies):
        sc = draw(np.zeros(na), looks, rng)
        fixed += any_holds_path(sc, False, 5)
        seq += any_holds_path(sc, True, 5)
    return {"na": na, "looks": f"5..{looks}", "studies": studies,
            "fixed_any_holds": fixed / studies, "sequential_any_holds": seq / studies,
            "se_seq": math.sqrt(max(seq, 1) / studies * (1 - seq / studies) / studies)}


# ---- conditions for a clear winner ---------------------------------------------------------
def _best_holds(sc: np.ndarray, n: int, rule) -> bool:
    mr2 = _doubled_midranks(np.argsort(np.argsort(-sc[:n], axis=1), axis=1))
    st = _pair_stats(mr2, 0.90, ALPHA)
    _, sep_sets, _ = C._separation(st, mr2, rule, np.arange(n))
    s = mr2.sum(axis=0)
    inside = s == s.min()
    cross = np.flatnonzero(inside[st["i"]] != inside[st["j"]])
    return bool(inside[0] and inside.sum() == 1 and sep_sets[cross].all())


def winner(na: int, d: float, studies: int, seed: int, cap: int = 300,
           assurance: float = 0.8) -> dict:
    """Conditions for the best to hold: a planned single look against a look after each."""
    rng = np.random.default_rng(seed)
    m = np.zeros(na)
    m[0] = d
    fixed = C._check_plan(ALPHA, "holm", 0.90, assurance, False, None, None)
    seq = C._check_plan(ALPHA, "holm", 0.90, assurance, True, None, None)
    sizes = np.arange(5, cap + 1)
    at_n = np.zeros((studies, sizes.size), bool)
    first_seq, first_peek = [], []
    for s in range(studies):
        sc = draw(m, cap, rng)
        at_n[s] = [_best_holds(sc, int(n), fixed) for n in sizes]
        first_peek.append(int(sizes[np.argmax(at_n[s])]) if at_n[s].any() else cap)
        got = cap
        for n in sizes:  # the sequential verdict is monotone: stop at the first "holds"
            if _best_holds(sc, int(n), seq):
                got = int(n)
                break
        first_seq.append(got)
    power = at_n.mean(axis=0)
    planned = int(sizes[np.argmax(power >= assurance)]) if (power >= assurance).any() else cap
    q_seq = float(np.quantile(first_seq, assurance, method="inverted_cdf"))
    return {"na": na, "d": d, "studies": studies,
            "fixed_planned_N": planned, "sequential_N_at_assurance": q_seq,
            "sequential_median_N": float(np.median(first_seq)),
            "fixed_peeking_median_N": float(np.median(first_peek)),
            "ratio": q_seq / planned}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", default="all", choices=["all", "promises", "peeking", "winner"])
    ap.add_argument("--studies", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--looks", type=int, default=100)
    ap.add_argument("--max-total", type=int, default=2000,
                    help="promises with N + k above this are not checked (counted apart)")
    ap.add_argument("--settings", default=None, help="indices of SETTINGS, comma-separated")
    ap.add_argument("--max-checks", type=int, default=1000,
                    help="distinct k checked per study (a random subset of the promises)")
    ap.add_argument("--sequential", action="store_true",
                    help="the promises of the sequential mode (a look after every condition)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    out: dict[str, list] = {}
    t0 = time.time()
    if args.part in ("all", "promises"):
        sel = (range(len(SETTINGS)) if args.settings is None
               else [int(x) for x in args.settings.split(",")])
        rows = []
        for n in sel:
            rows.append(promises(SETTINGS[n], args.studies, args.seed + n, args.max_total,
                                 args.sequential, args.max_checks))
            print(json.dumps(rows[-1]), f"({time.time() - t0:.0f} s)", flush=True)
        out["promises"] = rows
    if args.part in ("all", "peeking"):
        rows = [peeking(na, args.looks, args.studies, args.seed + na) for na in (6, 20)]
        for r in rows:
            print(json.dumps(r), flush=True)
        out["peeking"] = rows
    if args.part in ("all", "winner"):
        rows = [winner(na, d, max(20, args.studies // 5), args.seed + na)
                for na, d in ((6, 1.0), (20, 1.5))]
        for r in rows:
            print(json.dumps(r), flush=True)
        out["winner"] = rows
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
