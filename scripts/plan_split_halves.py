"""Do the plan's promises come true on real tables? Split halves of public results tables.

For each table and each of ``--splits`` random splits of its conditions into two halves A and
B (a random order of B's conditions too), ``gx.conclusions`` (fixed mode, its own code) is run
on half A, and then:

* **promises**: of A's conclusions that say "needs k more" with N/2 + k <= N, how often the
  conclusion (same alternatives, same direction) "holds" on A plus the first k conditions of B
  (the promise itself: k more conditions), and on the full table (A plus all of B: at least k
  more). Wanted: near the assurance (0.8), at most the share the simulation calibrates;
* **reversals**: of A's pair conclusions that "hold", the share whose direction the other half
  B reverses (B's mean-rank difference has the opposite sign): at most 1 %;
* **holds**: the share of A's conclusions that hold under the rule of issue 47, and under the
  earlier rule (which also asked the agreement n* <= N): not rarer than before.

The tables (public, each from a pinned commit; read from a local git mirror when
``--mirrors`` has one, else downloaded from GitHub's raw files; nothing is shipped):

* ``amlb``: the OpenML AutoML Benchmark, 4 h budget (Gijsbers et al. 2019): 7 frameworks x 39
  tasks, the score averaged over 10 folds (AUC for binary tasks, minus log-loss for
  multiclass; higher is better). MIT licence.
* ``tsc``: the time-series classification bake-off redux (Middlehurst, Schäfer & Bagnall
  2024): the univariate classifiers' accuracy on the UCR datasets, averaged over 30
  resamples (the datasets most classifiers ran, then the classifiers missing on more than
  10 % of them dropped, then incomplete datasets). BSD-3-Clause.
* ``tser``: the time-series extrinsic regression bake-off (Guijo-Rubio et al. 2024): 23
  regressors' RMSE (lower is better) on 63 datasets, averaged over 30 resamples.
  BSD-3-Clause.
* ``mbpp``: a per-item code-LLM board: MBPP+ (EvalPlus), pass@1 of 59 models on 378 items,
  from eval-arena (Wang et al. 2024). MIT licence.

    python scripts/plan_split_halves.py --splits 100                 # the docs' table
    python scripts/plan_split_halves.py --tables amlb,tsc --splits 10 # quick
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import math
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import genexpy_nb as gx

C = importlib.import_module("genexpy_nb.generalizability.conclusions")

#: name -> (repository, commit, paths, reader, higher_is_better)
SOURCES = {
    "amlb": ("openml/automlbenchmark", "6d36c9899ae8dee1e5bb9a3178a555f0f99ef238",
             ["reports/tables/4h/all_results.csv"], "amlb", True),
    "tsc": ("time-series-machine-learning/tsml-eval", "b71665415853fae7a6a109a4245487608dbf88a0",
            "results/classification/Univariate/*_accuracy.csv", "tsml", True),
    "tser": ("time-series-machine-learning/tsml-eval",
             "b71665415853fae7a6a109a4245487608dbf88a0", "results/regression/*_rmse.csv",
             "tsml", False),
    "mbpp": ("crux-eval/eval-arena", "7f92b6e0a1efb5a77243c3eb62ba27cfb9f9587d",
             ["data/mbpp+.jsonl"], "arena", True),
}


# ---- reading the public files -------------------------------------------------------------
def _git(mirror: Path, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(mirror), *args], check=True,
                          capture_output=True).stdout


def _files(name: str, mirrors: Path | None) -> dict[str, bytes]:
    repo, commit, paths, _, _ = SOURCES[name]
    mirror = None
    if mirrors is not None:
        cand = mirrors / repo.replace("/", "+") / "repo"
        mirror = cand if cand.exists() else None
    if isinstance(paths, str):  # a glob within a folder
        folder, pattern = paths.rsplit("/", 1)
        if mirror is None:
            raise SystemExit(f"{name}: listing {folder} needs a git mirror (--mirrors)")
        names = _git(mirror, "ls-tree", "--name-only", commit, folder + "/").decode().split()
        suffix = pattern.lstrip("*")
        paths = [p for p in names if p.endswith(suffix)]
    out = {}
    for p in paths:
        if mirror is not None:
            out[p] = _git(mirror, "show", f"{commit}:{p}")
        else:
            url = f"https://raw.githubusercontent.com/{repo}/{commit}/{p}"
            with urllib.request.urlopen(url, timeout=60) as f:
                out[p] = f.read()
    return out


def load_table(name: str, mirrors: Path | None) -> tuple[np.ndarray, list[str], bool]:
    """The table as a complete (conditions x alternatives) score matrix."""
    _, _, _, reader, higher = SOURCES[name]
    files = _files(name, mirrors)
    if reader == "amlb":
        df = pl.read_csv(io.BytesIO(next(iter(files.values()))), infer_schema_length=100_000)
        long = df.group_by("task", "framework").agg(pl.col("score").mean())
        cond, alt, val = "task", "framework", "score"
    elif reader == "arena":
        df = pl.read_ndjson(io.BytesIO(next(iter(files.values()))))
        long = df.select(pl.col("example_id").alias("item"), "model",
                         pl.col("pass1").cast(pl.Float64))
        cond, alt, val = "item", "model", "pass1"
    else:  # tsml: one file per estimator, datasets x resamples
        parts = []
        for p, raw in files.items():
            est = Path(p).name.rsplit("_", 1)[0]
            t = pl.read_csv(io.BytesIO(raw), has_header=False, skip_rows=1)
            vals = t.select(t.columns[1:]).cast(pl.Float64, strict=False)
            parts.append(pl.DataFrame({"dataset": t[t.columns[0]],
                                       "estimator": [est] * t.height,
                                       "score": vals.mean_horizontal()}))
        long = pl.concat(parts)
        cond, alt, val = "dataset", "estimator", "score"
    wide = long.pivot(on=alt, index=cond, values=val, aggregate_function="mean")
    names = [c for c in wide.columns if c != cond]
    M = wide.select(names).to_numpy().astype(float)
    M = M[np.isnan(M).mean(axis=1) <= 0.5]  # conditions most estimators ran (the UCR 112)
    keep = np.isnan(M).mean(axis=0) <= 0.10
    M = M[:, keep]
    names = [n for n, k in zip(names, keep, strict=True) if k]
    M = M[~np.isnan(M).any(axis=1)]
    return M, names, higher


# ---- the checks -----------------------------------------------------------------------------
def study_of(M: np.ndarray, names: list[str], higher: bool) -> gx.Study:
    n, na = M.shape
    df = pl.DataFrame({"condition": np.repeat([f"c{j:05d}" for j in range(n)], na),
                       "alternative": names * n, "score": M.ravel()})
    return gx.Study(df, alternatives="alternative", target="score", generalize="condition",
                    higher_is_better=higher)


def rows_of(M, names, higher, *, plan: bool, seed: int) -> list[dict]:
    st = study_of(M, names, higher)
    rule = C._check_plan(0.95, "holm", 0.90, 0.8, False, None, None)
    rule.plan = rule.agreement = plan
    s = st.sample(0)
    return C._configuration_rows(
        s, kinds=("best", "pair"), top_k=(3,), delta=0.05, margin=None, budget=None,
        draws=400, rng=np.random.default_rng(seed), plan_rng=np.random.default_rng(seed + 1),
        rule=rule, order=None, progress=False)


def key(r: dict) -> tuple:
    return (r["kind"], r["observed"])


def mean_ranks(M: np.ndarray, higher: bool) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(-M if higher else M, axis=1, method="average").mean(axis=0)


def split_once(M, names, higher, rng, max_checks: int) -> dict:
    N = M.shape[0]
    perm = rng.permutation(N)
    A, B = M[perm[: N // 2]], M[perm[N // 2:]]
    half = rows_of(A, names, higher, plan=True, seed=int(rng.integers(2**31)))
    full = {key(r): r["verdict"] for r in rows_of(M, names, higher, plan=False, seed=0)}
    rB = mean_ranks(B, higher)
    idx = {a: i for i, a in enumerate(names)}
    out = {"holds": 0, "holds_old": 0, "rows": len(half), "pair_holds": 0, "reversed": 0,
           "promised": 0, "full_holds": 0, "checked": 0, "k_holds": 0}
    for r in half:
        if r["verdict"] == "holds":
            out["holds"] += 1
            out["holds_old"] += bool(r["nstar"] <= r["N"])
            if r["kind"] == "pair":
                out["pair_holds"] += 1
                a, b = (idx[m] for m in r["members"])
                out["reversed"] += bool(rB[a] > rB[b])  # B ranks the first named behind
    promised = [r for r in half if r["more"] is not None and N // 2 + r["more"] <= N]
    out["promised"] = len(promised)
    out["full_holds"] = sum(full.get(key(r)) == "holds" for r in promised)
    # the promise itself: A + the first k of B, for up to max_checks distinct k
    ks = sorted({r["more"] for r in promised})
    if len(ks) > max_checks:
        ks = sorted(rng.choice(ks, size=max_checks, replace=False).tolist())
    for k in ks:
        res = {key(r): r["verdict"]
               for r in rows_of(np.vstack([A, B[:k]]), names, higher, plan=False, seed=0)}
        for r in promised:
            if r["more"] == k:
                out["checked"] += 1
                out["k_holds"] += res.get(key(r)) == "holds"
    return out


def run_table(name: str, splits: int, seed: int, mirrors: Path | None, max_checks: int
              ) -> dict:
    M, names, higher = load_table(name, mirrors)
    rng = np.random.default_rng(seed)
    tot: dict[str, int] = {}
    t0 = time.time()
    for _ in range(splits):
        for k, v in split_once(M, names, higher, rng, max_checks).items():
            tot[k] = tot.get(k, 0) + int(v)

    def share(a: str, b: str) -> float:
        return tot[a] / tot[b] if tot[b] else math.nan

    return {"table": name, "N": M.shape[0], "alternatives": M.shape[1], "splits": splits,
            "promises": tot["promised"],
            "full_table_holds": share("full_holds", "promised"),
            "promises_checked_at_k": tot["checked"],
            "holds_after_k": share("k_holds", "checked"),
            "pair_holds": tot["pair_holds"], "reversed": share("reversed", "pair_holds"),
            "holds_share": share("holds", "rows"),
            "holds_share_earlier_rule": share("holds_old", "rows"),
            "seconds": round(time.time() - t0)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", default="amlb,tsc,tser,mbpp")
    ap.add_argument("--splits", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-checks", type=int, default=8,
                    help="distinct k checked at exactly N/2 + k per split (the full table is "
                         "checked for every promise)")
    ap.add_argument("--mirrors", default=None,
                    help="a folder of git mirrors (owner+name/repo); default: download")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    mirrors = Path(args.mirrors) if args.mirrors else None
    rows = []
    for n, name in enumerate(args.tables.split(",")):
        rows.append(run_table(name, args.splits, args.seed + n, mirrors, args.max_checks))
        print(json.dumps(rows[-1]), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
