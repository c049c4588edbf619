"""Speed of gx.conclusions against the paper's n* on the same studies (issue 35).

Run from the repository root::

    GENEXPY_NB_DATA_DIR=../shared/data python benchmarks/bench_conclusions.py

Prints (asserts nothing: speed is measured, not tested), warm, median of repeats, the two
timed interleaved:

* a simulated study of 20 alternatives x 200 conditions: ``gx.conclusions`` (best, top 3,
  190 pairs, the order) against ``gx.analyze`` with the four research questions;
* the encoder study (48 configurations): the same two calls;
* their ratio (the paper's n* time / the conclusions' time);
* the plan (issue 47: "needs k more" from the predictive simulation of the whole table) on a
  60-alternative x 400-condition table at the default 600 draws (Monte Carlo error of the
  probability of holding at most 0.016 < 0.02): the conclusions with their plan against the
  same call with the plan left out, interleaved; the plan's share = (with - without) /
  without (at most 2 wanted). ``--plan-only`` runs this part alone.
"""

from __future__ import annotations

import importlib
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import genexpy_nb as gx


def timed(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def simulated(na: int = 20, n: int = 200, seed: int = 0) -> gx.Study:
    rng = np.random.default_rng(seed)
    means = np.linspace(1.0, 0.0, na)
    scores = means + rng.standard_normal((n, 1)) + rng.standard_normal((n, na))
    df = pl.DataFrame({"dataset": np.repeat([f"d{j}" for j in range(n)], na),
                       "model": [f"m{i:02d}" for i in range(na)] * n,
                       "score": scores.ravel()})
    return gx.Study(df, alternatives="model", target="score", generalize="dataset",
                    higher_is_better=True)


def compare(name: str, study: gx.Study, repeats: int) -> None:
    kernels = [gx.Jaccard(k=1), gx.Mallows(), gx.Borda(study.alternatives[0]), gx.RBF()]
    gx.conclusions(study)
    gx.analyze(study, kernels, seed=0)
    tc, ta = [], []
    for _ in range(repeats):  # interleaved
        tc.append(timed(lambda: gx.conclusions(study), 1))
        ta.append(timed(lambda: gx.analyze(study, kernels, seed=0), 1))
    c, a = statistics.median(tc), statistics.median(ta)
    rows = gx.conclusions(study).height
    print(f"{name:34s} conclusions {c:7.3f} s ({rows} rows)   paper's n* (4 questions) "
          f"{a:7.3f} s   ratio {a / c:5.1f}x", flush=True)


def _rows(study: gx.Study, plan: bool) -> list:
    """gx.conclusions' own code on the one configuration, with or without the plan."""
    C = importlib.import_module("genexpy_nb.generalizability.conclusions")
    rule = C._check_plan(0.95, "holm", 0.90, 0.8, False, None, None)
    rule.plan = plan
    s = study.sample(0)
    from genexpy_nb._validation import child_seed

    return C._configuration_rows(
        s, kinds=C.KINDS, top_k=(3,), delta=0.05, margin=None, budget=None, draws=2000,
        rng=child_seed(0, 0), plan_rng=child_seed(0, 0, C._PLAN_STREAM), rule=rule,
        order=None, progress=False)


def plan_cost(na: int = 60, n: int = 400, repeats: int = 5) -> None:
    """The plan's time against the conclusions' own on one large table (interleaved)."""
    study = simulated(na, n)
    rows = _rows(study, True)
    _rows(study, False)
    with_plan, without = [], []
    for _ in range(repeats):
        with_plan.append(timed(lambda: _rows(study, True), 1))
        without.append(timed(lambda: _rows(study, False), 1))
    w, wo = statistics.median(with_plan), statistics.median(without)
    open_rows = sum(r["verdict"].startswith("needs") for r in rows)
    print(f"plan on {na} x {n} ({len(rows)} rows, {open_rows} needing more, 600 draws): "
          f"conclusions with the plan {w:6.3f} s, without {wo:6.3f} s; the plan "
          f"{w - wo:6.3f} s = {(w - wo) / wo:4.2f} x the conclusions' own time", flush=True)
    # the fused kernel against the NumPy route of the same rule (the same events, tested)
    from genexpy_nb import config

    with config.force_route("numpy"):
        _rows(study, True)
    fused, numpy_route = [], []
    for _ in range(max(3, repeats // 2)):
        fused.append(timed(lambda: _rows(study, True), 1))
        with config.force_route("numpy"):
            numpy_route.append(timed(lambda: _rows(study, True), 1))
    f, np_ = statistics.median(fused), statistics.median(numpy_route)
    print(f"  the plan through the fused kernel {f - wo:6.3f} s, through NumPy "
          f"{np_ - wo:6.3f} s: {(np_ - wo) / max(f - wo, 1e-9):4.1f}x", flush=True)


def main() -> int:
    if "--plan-only" in sys.argv:
        plan_cost()
        return 0
    plan_cost()
    compare("simulated 20 x 200", simulated(), 5)
    enc = gx.Study(gx.load_encoders(), alternatives="encoder", target="cv_score",
                   higher_is_better=True, generalize="dataset",
                   design=["model", "tuning", "scoring"])
    compare(f"encoders ({len(enc)} configurations)", enc, 3)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
