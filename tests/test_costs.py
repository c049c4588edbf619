"""Costs known up front: estimates from the shape, the limit, and the grid chosen by cost.

Every analysis that can run for minutes estimates its time from the shape of its input
(``genexpy_nb.config.COSTS``) before it starts and refuses beyond the limit in force
(``genexpy_nb.config.LIMITS``, ``GENEXPY_NB_MAX_SECONDS``, ``--max-seconds``). How close
the estimates come to the time taken is measured in ``benchmarks/bench_costs.py`` and
``benchmarks/bench_report.py``, never asserted here.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError, config
from genexpy_nb._progress import check_cost, duration_text
from genexpy_nb.generalizability import large
from genexpy_nb.generalizability.kernels import Jaccard, Mallows


def _board(na, nc, seed=0):
    rng = np.random.default_rng(seed)
    S = rng.normal(size=(nc, na)) + np.linspace(1.0, 0.0, na)
    return pl.DataFrame({"dataset": np.repeat([f"d{i:04d}" for i in range(nc)], na),
                         "model": [f"m{j:03d}" for j in range(na)] * nc,
                         "acc": S.ravel()})


def test_check_cost_refuses_beyond_the_limit_and_says_how_to_lift_it(monkeypatch):
    monkeypatch.delenv("GENEXPY_NB_MAX_SECONDS", raising=False)
    assert check_cost("x", 10.0) == 10.0
    with config.allow_seconds(5.0), pytest.raises(GenexpyInputError) as err:
        check_cost("the thing of 3 configurations", 10.0, lift="Ask for less.")
    text = str(err.value)
    for words in ("the thing of 3 configurations", "10 s", "5.0 s", "Ask for less.",
                  "LIMITS.max_seconds", "allow_seconds", "GENEXPY_NB_MAX_SECONDS",
                  "--max-seconds"):
        assert words in text, words
    with config.allow_seconds(math.inf):
        assert check_cost("x", 1e9) == 1e9
    assert config.max_seconds() == config.DEFAULT_MAX_SECONDS  # restored


@pytest.mark.parametrize("raw, ok", [("120", 120.0), ("inf", math.inf), (" 2.5 ", 2.5),
                                     ("0", None), ("-3", None), ("nan", None),
                                     ("ten", None)])
def test_the_limit_from_the_environment_is_checked(monkeypatch, raw, ok):
    monkeypatch.setenv("GENEXPY_NB_MAX_SECONDS", raw)
    if ok is None:
        with pytest.raises(GenexpyInputError, match="GENEXPY_NB_MAX_SECONDS"):
            check_cost("x", 1.0)
    else:
        assert config.max_seconds() == ok
        with config.allow_seconds(3.0):  # the setting in code wins
            assert config.max_seconds() == 3.0


def test_allow_seconds_rejects_nonsense():
    for bad in (0, -1, float("nan")):
        with pytest.raises(ValueError), config.allow_seconds(bad):
            pass


def test_duration_words():
    assert [duration_text(s) for s in (0.42, 12.4, 300, 9000)] == [
        "0.4 s", "12 s", "5.0 min", "2.5 h"]


def test_analyses_refuse_before_they_start():
    study = gx.Study(_board(6, 40), alternatives="model", target="acc",
                     generalize="dataset", higher_is_better=True)
    with config.allow_seconds(1e-9):
        with pytest.raises(GenexpyInputError, match="the n\\* analysis of 1 configuration"):
            gx.analyze(study, [Jaccard(k=1)], progress=False)
        with pytest.raises(GenexpyInputError, match="the conclusions of 1 configuration"):
            gx.conclusions(study, progress=False)
        with pytest.raises(GenexpyInputError, match="the report of 1 configuration"):
            gx.report(study, progress=False)
    ga = gx.GeneralizabilityAnalysis(study, [Jaccard(k=1)], progress=False)
    assert 0 < ga.estimated_seconds < 5


def test_the_command_line_refuses_with_max_seconds(tmp_path, capsys):
    from genexpy_nb.cli import main

    _board(5, 30).write_csv(tmp_path / "r.csv")
    code = main(["report", str(tmp_path / "r.csv"), "--alternatives", "model", "--target",
                 "acc", "--generalize", "dataset", "--higher-is-better", "--quiet",
                 "--max-seconds", "0.000001", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 1 and "estimated to take" in err and "--max-seconds" in err
    assert not (tmp_path / "o").exists()
    assert main(["report", str(tmp_path / "r.csv"), "--max-seconds", "-2"]) == 2


def test_report_steps_estimated_from_the_shape():
    from genexpy_nb.answers.report_page import estimate_steps

    small = gx.Study(_board(5, 30), alternatives="model", target="acc",
                     generalize="dataset", higher_is_better=True)
    wide = gx.Study(_board(200, 30), alternatives="model", target="acc",
                    generalize="dataset", higher_is_better=True)
    a, b = estimate_steps(small), estimate_steps(wide)
    assert set(a) == {"conclusions", "classical tests", "beyond p-values", "n*", "the page"}
    assert all(v >= 0 and isinstance(v, float) for v in a.values())
    # the pairs of 200 alternatives make the conclusions the step that grows
    assert b["conclusions"] > 100 * a["conclusions"]


# ---- the grid of the n* analysis, chosen by its cost -----------------------------------------
def _shapes(N, na=20, names=("mallows",)):
    return [large.KernelShape(k, N if k in ("mallows", "rbf") else min(N, na), na)
            for k in names]


def test_small_studies_keep_the_papers_full_grid():
    # the sizes of the public case studies (tens of conditions) never change path
    for N in (10, 50, 120, 199):
        for na in (5, 32, 300):
            p = large.plan_grid(N, _shapes(N, na, ("jaccard", "mallows")), 200, True, None,
                                True, False)
            assert not p.thinned
            assert np.array_equal(p.ns, np.arange(2, N // 2, 2))


def test_a_grid_of_ones_own_or_another_mode_is_never_thinned():
    for grid, disjoint, replace in (([2, 4, 100], True, False), (None, True, True),
                                    (None, False, False)):
        p = large.plan_grid(5000, _shapes(5000), 200, True, grid, disjoint, replace)
        assert not p.thinned


def test_the_grid_fills_the_budget_and_its_cost_is_smooth_in_N():
    Ns = list(range(300, 4001, 50)) + [999, 1000, 1001, 1002]
    for names, na in ((("mallows",), 20), (("jaccard",), 8),
                      (("jaccard", "borda", "mallows", "rbf"), 8)):
        plans = {N: large.plan_grid(N, _shapes(N, na, names), 200, True, None, True, False)
                 for N in sorted(Ns)}
        budget = config.ROUTES.grid_budget_s
        for N, p in plans.items():
            if p.thinned and p.ns.size > large.LARGE_GRID_SIZES:
                assert p.seconds <= budget  # as many sizes as fit
            if not p.thinned:
                assert p.seconds <= budget and N <= config.ROUTES.large_study_min_N
            assert p.ns[0] == 2 and np.all(np.diff(p.ns) > 0) and 2 * p.ns[-1] <= N
        for N in (999, 1000, 1001):
            assert 1 / 1.5 < plans[N + 1].seconds / plans[N].seconds < 1.5
        assert plans[4000].seconds <= 8 * plans[1001].seconds  # at most N^1.5


def test_the_same_shape_takes_the_same_path_whatever_the_machine():
    # the plan reads the cost model's constants, never a clock or the machine's state
    a = large.plan_grid(800, _shapes(800), 200, True, None, True, False)
    config.LIMITS.speed, old = 7.0, config.LIMITS.speed
    try:
        b = large.plan_grid(800, _shapes(800), 200, True, None, True, False)
    finally:
        config.LIMITS.speed = old
    assert np.array_equal(a.ns, b.ns) and a.thinned == b.thinned and a.seconds == b.seconds


def test_a_costly_full_grid_below_the_bound_is_thinned_and_agrees_with_it():
    st = gx.Study(_board(7, 300, seed=3), alternatives="model", target="acc",
                  generalize="dataset", higher_is_better=True)
    ks = [Jaccard(k=1), Mallows()]
    kw = dict(alphas=[0.95], deltas=[0.05], estimators=["resample"], progress=False)
    full = gx.analyze(st, ks, **kw)
    with config.force_route(grid_budget_s=0.0):
        thin = gx.analyze(st, ks, **kw)
    assert "grid" not in full.columns
    assert thin["grid"].to_list() == ["thinned grid: 50 sizes up to 148"] * 2
    ratio = (thin["nstar"] / full["nstar"]).to_numpy()
    assert np.all(np.abs(np.log(ratio)) < np.log(1.2)), ratio
