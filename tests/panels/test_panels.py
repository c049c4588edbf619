"""Panels driven as data: set widget values, assert on state, result frames and chart specs."""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError, panels
from genexpy_nb.generalizability import GeneralizabilityAnalysis
from genexpy_nb.panels import GeneralizabilityExplorer, SeedVariabilityExplorer
from genexpy_nb.panels import views as panel_views
from genexpy_nb.panels.views import fmt_cell


@pytest.fixture(autouse=True)
def mimebundle_backend(monkeypatch):
    """Most tests read the MIME bundles the frontend gets; the JupyterChart backend is
    tested on its own below."""
    monkeypatch.setattr(panel_views, "CHART_BACKEND", "mimebundle")

REP = 30

# configurations of the synthetic study: (model, metric) -> N
#   easy: alternative a0 usually best; hard: random; same: one ranking everywhere
#   (n* = 1); tiny: N = 4, too few results for the power-law fit (n* undefined).
#   (hard|same|tiny, f1) do not exist: the dropdowns must snap to an existing one.
SPEC = {("easy", "acc"): 20, ("easy", "f1"): 20, ("hard", "acc"): 20, ("same", "acc"): 12,
        ("tiny", "acc"): 4}


def make_study(na=4, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for (model, metric), N in SPEC.items():
        for c in range(N):
            if model == "same":
                s = np.arange(na, dtype=float)[::-1]
            elif model == "easy":
                s = np.arange(na, dtype=float)[::-1] + rng.normal(0, 0.8, na)
            else:
                s = rng.random(na)
            for a in range(na):
                rows.append({"model": model, "metric": metric, "cond": f"c{c}",
                             "alt": f"a{a}", "score": float(s[a])})
    return gx.Study(pl.DataFrame(rows), alternatives="alt", target="score", generalize="cond",
                    design=["model", "metric"], higher_is_better=True)


@pytest.fixture(scope="module")
def study():
    return make_study()


@pytest.fixture(scope="module")
def analysis(study):
    return GeneralizabilityAnalysis(study, [gx.Jaccard(k=1), gx.Mallows(), gx.Borda("a0")],
                                    rep=REP, seed=0, progress=False)


@pytest.fixture
def panel(study, analysis):
    return GeneralizabilityExplorer(study, analysis=analysis, progress=False)


def is_chart(data):
    """An output bundle of a chart, whichever Altair renderer is active."""
    vega = ("application/vnd.vegalite", "application/vnd.vega.")
    return any(k.startswith(vega) for k in data) or (
        "vegaEmbed" in data.get("text/html", ""))


def layer_marks(spec):
    out = []
    for lay in spec.get("layer", [spec]):
        m = lay["mark"]
        out.append(m if isinstance(m, str) else m["type"])
    return out


def layer_values(spec, i):
    """Inline rows of layer i, whichever way the chart builder embedded them."""
    lay = spec["layer"][i]
    data = lay.get("data", spec.get("data"))
    if "values" in data:
        return data["values"]
    return spec["datasets"][data["name"]]


def rule_values(spec, field):
    """Values of ``field`` in the rule layers of a layered spec."""
    out = []
    for i, lay in enumerate(spec["layer"]):
        m = lay["mark"] if isinstance(lay["mark"], str) else lay["mark"]["type"]
        if m == "rule":
            out += [r[field] for r in layer_values(spec, i) if field in r]
    return out


def resample_row(panel):
    return panel.result.filter(pl.col("method") == "resample").row(0, named=True)


# ---- generalizability explorer ----------------------------------------------------------
def test_initial_state_and_widget(panel, study):
    st = panel.state
    assert st["config_id"] == 0 and (st["model"], st["metric"]) == ("easy", "acc")
    assert st["kernel_label"] == "Jaccard(k=1)"
    assert (st["alpha"], st["delta"]) == (0.95, 0.05)
    # one row per configuration x method for the selected question and thresholds
    assert panel.results.height == len(study) * 3
    assert set(panel.results["method"]) == {"resample", "approx", "bound"}
    assert panel.result["config_id"].unique().to_list() == [0]
    row = resample_row(panel)
    assert f"n* = {row['nstar']:.3g}" in panel.summary.value
    assert set(panel.charts) == {"ngen", "power_law", "deficit"}
    for name, view in panel.views.items():
        assert view.chart is panel.charts[name]
        (out,) = view.widget.outputs
        assert is_chart(out["data"])
    bundle = panel._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    # parameter widgets of the other kernels are hidden
    assert panel.alternative.layout.display == "none"
    assert panel.k.layout.display is None


def test_result_equals_direct_api(panel, analysis):
    panel.alpha.value = 0.9
    panel.delta.value = 0.1
    direct = analysis.nstar(0.9, 0.1, ["resample", "approx", "bound"], kernels=["Jaccard(k=1)"])
    got = panel.results.sort(["config_id", "method"])
    exp = direct.sort(["config_id", "method"])
    assert got.select("config_id", "method", "nstar_ceil", "deficit").equals(
        exp.select("config_id", "method", "nstar_ceil", "deficit"))
    np.testing.assert_allclose(got["nstar"].to_numpy(), exp["nstar"].to_numpy())
    ranking = gx.plan(direct, alpha=0.9, delta=0.1, kernel="Jaccard(k=1)")
    assert panel.ranking.select("config_id", "priority").equals(
        ranking.select("config_id", "priority"))


def test_sliders_reread_cache_without_resampling(panel, analysis, monkeypatch):
    before = {cid: cd.mmd.copy() for cid, cd in analysis.dists.items()}

    def boom(*a, **k):
        raise AssertionError("resampled on a slider move")

    monkeypatch.setattr(GeneralizabilityAnalysis, "_compute", boom)
    monkeypatch.setattr(GeneralizabilityAnalysis, "__init__", boom)
    for a in (0.8, 0.99):
        panel.alpha.value = a
        assert set(panel.results["alpha"]) == {a}
    for d in (0.3,):
        panel.delta.value = d
        assert set(panel.results["delta"]) == {d}
    panel.family.value = "mallows"  # cached kernel: no computation either
    assert resample_row(panel)["kernel_label"] == "Mallows"
    for cid, cd in analysis.dists.items():
        np.testing.assert_array_equal(cd.mmd, before[cid])
    assert set(panel.timings) == {"numbers", "charts", "total"}
    assert panel.last_update_s == pytest.approx(panel.timings["total"])


def test_chart_specs_follow_the_sliders(panel):
    panel.alpha.value = 0.9
    panel.delta.value = 0.1
    row = resample_row(panel)
    ngen = panel.charts["ngen"].to_dict()  # validates against the Vega-Lite schema
    assert "line" in layer_marks(ngen)
    assert rule_values(ngen, "alpha") == [0.9]
    assert rule_values(ngen, "eps") == [pytest.approx(row["eps"])]
    assert row["eps"] == pytest.approx(math.sqrt(2 * 0.1))  # Jaccard: eps = sqrt(2 delta)
    # at most NGEN_MAX_CURVES sample sizes drawn, all from the grid
    n_drawn = {r["n"] for r in layer_values(ngen, 0)}
    assert n_drawn <= set(range(2, 10, 2)) and len(n_drawn) >= 2
    pl_spec = panel.charts["power_law"].to_dict()
    assert rule_values(pl_spec, "eps") == [pytest.approx(row["eps"])]
    stars = [r for i in range(len(pl_spec["layer"])) for r in layer_values(pl_spec, i)
             if "nstar" in r]
    assert stars and stars[0]["nstar"] == pytest.approx(row["nstar"])
    heat = panel.charts["deficit"].to_dict()
    cells = {r["config_id"]: r["deficit"] for r in layer_values(heat, 0)}
    exp = dict(zip(panel.ranking["config_id"], panel.ranking["deficit"], strict=True))
    assert cells == exp


def test_unchanged_chart_is_not_sent_again(panel):
    """Another configuration: the heatmap (same question and thresholds) is kept as sent."""
    heat, out = panel.charts["deficit"], panel.views["deficit"].widget.outputs
    ngen_out = panel.views["ngen"].widget.outputs
    panel.select(("hard", "acc"))
    assert panel.charts["deficit"] is heat
    assert panel.views["deficit"].widget.outputs is out
    assert panel.views["ngen"].widget.outputs is not ngen_out  # its chart changed
    panel.alpha.value = 0.9  # new thresholds: a new heatmap is drawn
    assert panel.charts["deficit"] is not heat
    assert panel.views["deficit"].widget.outputs is not out
    assert panel.views["deficit"].chart is panel.charts["deficit"]


def test_configuration_with_nstar_one(panel):
    panel.select(("same", "acc"))
    assert (panel.factor_widgets["model"].value, panel.factor_widgets["metric"].value) == (
        "same", "acc")
    row = resample_row(panel)
    assert row["nstar"] == 1.0 and row["nstar_ceil"] == 1 and row["generalizable"]
    assert "agree" in row["reason"]
    assert "n* = 1" in panel.summary.value and "generalizable" in panel.summary.value
    assert "agree" in panel.summary.value
    panel.charts["power_law"].to_dict()  # all quantiles 0: the chart still builds


def test_configuration_with_too_few_results(panel):
    panel.factor_widgets["model"].value = "tiny"
    assert panel.state["config_id"] == 4
    row = resample_row(panel)
    assert row["nstar"] is None or math.isnan(row["nstar"])
    assert row["nstar_ceil"] is None and row["generalizable"] is None
    assert "needs at least" in row["reason"]
    assert "n* undefined" in panel.summary.value and "needs at least" in panel.summary.value
    # no curves to draw: the reason is shown instead of the charts
    assert "ngen" not in panel.charts and "power_law" not in panel.charts
    assert "needs at least" in panel.views["ngen"].message
    html = panel.views["ngen"].widget.outputs[0]["data"]["text/html"]
    assert "needs at least" in html
    # the undefined configuration is ranked last, with its reason
    last = panel.ranking.row(-1, named=True)
    assert last["config_id"] == 4 and "needs at least" in last["reason"]
    # the closed form and the bound still give numbers
    other = panel.result.filter(pl.col("method") == "bound")
    assert other["nstar"][0] > 0


def test_dropdowns_snap_to_an_existing_configuration(panel):
    panel.select(("hard", "acc"))
    panel.factor_widgets["metric"].value = "f1"  # (hard, f1) does not exist
    assert panel.factor_widgets["model"].value == "easy"
    assert panel.state["config_id"] == 1
    panel.factor_widgets["model"].value = "tiny"  # (tiny, f1) does not exist
    assert panel.factor_widgets["metric"].value == "acc"
    assert panel.state["config_id"] == 4


def test_kernel_switch_computes_once_and_caches(panel, study, analysis):
    panel.family.value = "borda"
    assert panel.alternative.layout.display is None and panel.k.layout.display == "none"
    assert resample_row(panel)["kernel_label"] == "Borda(a*=a0)"
    assert panel.analyses["Borda(a*=a0)"] is analysis  # precomputed: reused
    n_before = len(panel.analyses)
    panel.alternative.value = "a2"  # a new research question: computed now
    assert len(panel.analyses) == n_before + 1
    new = panel.analyses["Borda(a*=a2)"]
    assert new is not analysis and "Computed Borda(a*=a2)" in panel.status.value
    assert resample_row(panel)["kernel_label"] == "Borda(a*=a2)"
    # same seed, same resampled pairs: identical to a fresh analysis of that kernel
    fresh = GeneralizabilityAnalysis(study, [gx.Borda("a2")], rep=REP, seed=0, progress=False)
    np.testing.assert_array_equal(new.dists[0].mmd, fresh.dists[0].mmd)
    panel.alternative.value = "a0"
    panel.alternative.value = "a2"  # back and forth: nothing recomputed
    assert len(panel.analyses) == n_before + 1
    assert panel.analyses["Borda(a*=a2)"] is new
    # Jaccard k slider
    panel.family.value = "jaccard"
    panel.k.value = 2
    assert resample_row(panel)["kernel_label"] == "Jaccard(k=2)"
    assert "Jaccard(k=2)" in panel.analyses
    assert "Jaccard(k=2)" in panel.charts["ngen"].to_dict()["title"]["text"]


def test_export(panel):
    panel.select(("hard", "acc"))
    panel.alpha.value = 0.8
    out = panel.export()
    assert isinstance(out, pl.DataFrame)
    assert out.height == 3 and set(out["method"]) == {"resample", "approx", "bound"}
    assert out["config_id"].unique().to_list() == [2]
    assert set(out["alpha"]) == {0.8} and set(out["delta"]) == {0.05}
    assert {"model", "metric", "kernel_label", "nstar", "b1", "r2", "reason", "rep",
            "seed"} <= set(out.columns)
    assert out["rep"].unique().to_list() == [REP]
    rk = panel.export("ranking")
    assert rk.height == 5 and rk["priority"].to_list() == [1, 2, 3, 4, 5]
    assert set(rk["alpha"]) == {0.8}
    with pytest.raises(GenexpyInputError, match="nstar"):
        panel.export("everything")


def test_panel_computes_its_own_analysis_and_bad_input(study):
    small = gx.Study(
        pl.DataFrame({"cond": np.repeat(np.arange(12), 3).astype(str),
                      "alt": ["x", "y", "z"] * 12,
                      "score": np.tile([3.0, 2.0, 1.0], 12)
                      + np.random.default_rng(0).normal(0, 0.5, 36)}),
        alternatives="alt", target="score", generalize="cond", higher_is_better=True)
    p = GeneralizabilityExplorer(small, kernels=[gx.Mallows(), gx.Borda(1)], rep=REP,
                                 progress=False)
    assert p.factor_widgets == {}
    assert p.state["config_id"] == 0 and p.state["kernel_label"] == "Mallows"
    assert "Borda(a*=y)" in p.analyses  # Borda by index, found under the name
    p.family.value = "borda"
    p.alternative.value = "y"
    assert len({id(g) for g in p.analyses.values()}) == 1  # nothing recomputed
    with pytest.raises(GenexpyInputError, match="another Study"):
        GeneralizabilityExplorer(small, analysis=GeneralizabilityAnalysis(
            study, [gx.Mallows()], rep=REP, progress=False))
    with pytest.raises(GenexpyInputError, match="alpha must lie"):
        GeneralizabilityExplorer(small, kernels=[gx.Mallows()], rep=REP, alpha=0.3,
                                 progress=False)
    with pytest.raises(GenexpyInputError, match="Study"):
        GeneralizabilityExplorer(small.sample(0))


# ---- seed-variability explorer -------------------------------------------------------
@pytest.fixture(scope="module")
def pool():
    rng = np.random.default_rng(0)
    T = 300
    y = rng.integers(0, 2, T)
    signal = (2 * y - 1) * 1.5
    ref = signal + rng.normal(0, 1.5, (10, T))
    cand = signal + rng.normal(0, 1.5, (5, T))
    cand[4] = 3.0 * signal + rng.normal(0, 1.0, T)  # not like the others
    return ref, cand, y


@pytest.fixture(scope="module")
def var_report(pool):
    from genexpy_nb.variability import candidate_report

    ref, cand, y = pool
    return candidate_report(ref, cand, y, B=20, seed=0, progress=False)


@pytest.fixture
def vpanel(pool, var_report):
    ref, cand, y = pool
    return SeedVariabilityExplorer(ref, cand, y, report=var_report, B=20,
                                   names=[f"seed {i}" for i in range(5)], progress=False)


def test_seed_panel_initial_state(vpanel, var_report):
    st = vpanel.state
    assert st["candidate"] == 0 and st["name"] == "seed 0" and st["metric"] == "accuracy"
    assert set(vpanel.charts) == {"trimmed", "ecdf", "scatter"}
    for view in vpanel.views.values():
        assert is_chart(view.widget.outputs[0]["data"])
    assert vpanel.report["alpha_hat"].equals(var_report["alpha_hat"])
    assert "seed 0" in vpanel.summary.value and "alpha-hat" in vpanel.summary.value
    ecdf = vpanel.charts["ecdf"].to_dict()
    assert ecdf["encoding"]["color"]["scale"]["domain"] == [
        "seed 0", "reference G_M", "ensemble of 5 candidates"]


def test_seed_panel_trimming_slider(vpanel, pool):
    from genexpy_nb.variability import trimming_curve

    ref, cand, _ = pool
    curve = trimming_curve(ref, cand[0], B=20, grid=vpanel.grid, seed=0, progress=False)
    for a in (0.0, 0.1, 0.3):
        vpanel.alpha.value = a
        row = vpanel.export().row(0, named=True)
        exp = curve.filter((pl.col("alpha") - a).abs() < 1e-12).row(0, named=True)
        assert row["trim_alpha"] == a
        assert row["d_alpha"] == pytest.approx(exp["d_mean"])
        assert row["accepted"] == (exp["d_mean"] <= exp["tau"])
        spec = vpanel.charts["trimmed"].to_dict()
        assert rule_values(spec, "tau") == [pytest.approx(exp["tau"])]
        assert rule_values(spec, "alpha") == [a]
        assert ("accepted" if row["accepted"] else "rejected") in vpanel.summary.value
    assert list(vpanel.curves) == [0]  # one curve computed, re-read on every move
    d = vpanel.curves[0]["d_mean"].to_numpy()
    assert np.all(np.diff(d) <= 1e-12)  # d_alpha non-increasing in alpha


def test_seed_panel_candidate_and_metric(vpanel):
    vpanel.candidate.value = 4
    row = vpanel.export().row(0, named=True)
    assert row["name"] == "seed 4"
    assert row["alpha_hat"] == vpanel.report["alpha_hat"].max()  # the odd one out
    spec = vpanel.charts["scatter"].to_dict()
    sel = [r for r in layer_values(spec, 0) if r["selected"]]
    assert [r["candidate"] for r in sel] == [4]
    vpanel.metric.value = "ece"
    spec = vpanel.charts["scatter"].to_dict()
    assert spec["layer"][0]["encoding"]["x"]["field"] == "ece"
    assert set(vpanel.curves) == {0, 4}
    out = vpanel.export()
    assert out.height == 1
    assert {"alpha_hat", "accuracy", "ece", "trim_alpha", "d_alpha", "accepted", "eps",
            "seed"} <= set(out.columns)


def test_seed_panel_bad_input(pool, var_report):
    ref, cand, y = pool
    with pytest.raises(GenexpyInputError, match="names"):
        SeedVariabilityExplorer(ref, cand, y, report=var_report, names=["a", "a", "b", "c",
                                                                         "d"])
    with pytest.raises(GenexpyInputError, match="one row per candidate"):
        SeedVariabilityExplorer(ref, cand, y, report=var_report.head(2))
    with pytest.raises(GenexpyInputError, match="alphas"):
        SeedVariabilityExplorer(ref, cand, y, report=var_report, alphas=[0.1, 1.5])
    with pytest.raises(GenexpyInputError, match="same T"):
        SeedVariabilityExplorer(ref[:, :100], cand, y, report=var_report)


def test_jupyterchart_backend_updates_spec_in_place(monkeypatch):
    pytest.importorskip("anywidget")
    monkeypatch.setattr(panel_views, "CHART_BACKEND", "jupyterchart")
    panel = GeneralizabilityExplorer(make_study(), rep=20, progress=False)
    view = panel.views["ngen"]
    assert view.backend == "jupyterchart" and view.jchart is not None
    (out,) = view.widget.outputs
    ref = out["data"]["application/vnd.jupyter.widget-view+json"]
    assert ref["model_id"] == view.jchart.model_id
    assert view.jchart.spec == panel.charts["ngen"].to_dict(validate=False)
    # the JavaScript is bundled (no CDN import), so charts render without network
    assert alt.JupyterChart._is_offline and "cdn.jsdelivr" not in view.jchart._esm
    before = view.jchart.spec
    panel.alpha.value = 0.9
    assert view.jchart.spec != before
    assert view.jchart.spec == panel.charts["ngen"].to_dict(validate=False)
    assert view.widget.outputs[0]["data"]["application/vnd.jupyter.widget-view+json"] == ref


def test_backend_setting_validated(monkeypatch):
    monkeypatch.setattr(panel_views, "CHART_BACKEND", "svg")
    with pytest.raises(GenexpyInputError, match="GENEXPY_NB_CHARTS"):
        panels.chart_backend()


def test_headline_says_its_method_and_borda_defaults_to_the_best(panel, study):
    """Issue 26: the headline names the estimate it uses and says the bound row is a worst
    case; Borda's a* defaults to the best on average, as Borda() does everywhere."""
    from genexpy_nb.panels.generalizability import HEADLINE_NOTE

    assert "resampled estimate" in panel.summary.value
    assert "worst case" in panel.summary.value and "never the verdict" in HEADLINE_NOTE
    best = gx.best_alternative(study)
    labels = dict((v, k) for k, v in panel.alternative.options)
    assert labels[best] == f"{best} (best on average)"
    assert sum("best on average" in k for k in labels.values()) == 1
    fresh = GeneralizabilityExplorer(study, kernels=[gx.Mallows()], rep=REP, progress=False)
    assert fresh.alternative.value == best  # no Borda asked: the dropdown starts at the best


def test_headline_shows_the_no_signal_baseline(panel, study):
    """The baseline n* beside n*, and 'no more consistent than chance' exactly when the
    frame's beyond_chance is false (issue 31)."""
    from genexpy_nb.panels.generalizability import baseline_html

    seen = set()
    for family in ("jaccard", "mallows"):
        panel.family.value = family
        for cfg in (("easy", "acc"), ("hard", "acc"), ("easy", "f1")):
            panel.select(cfg)
            row = resample_row(panel)
            text = panel.summary.value
            if not math.isfinite(row["nstar_null"]):
                assert "No-signal baseline" not in text
                continue
            assert f"No-signal baseline: n* = {fmt_cell(row['nstar_null'])}" in text
            assert f"band {fmt_cell(row['nstar_null_lo'])} to " \
                   f"{fmt_cell(row['nstar_null_hi'])}" in text
            assert ("no more consistent than chance" in text) == (
                row["beyond_chance"] is False)
            seen.add(row["beyond_chance"])
            # the table beside it carries the columns
            assert "nstar_null" in panel.table.value and "beyond_chance" in panel.table.value
    assert False in seen  # the noise configuration is within its baseline
    # the sentence follows the frame's verdict, not its own arithmetic
    row = {"nstar_null": 20.0, "nstar_null_lo": 15.0, "nstar_null_hi": 30.0}
    assert "no more consistent than chance" in baseline_html({**row, "beyond_chance": False})
    assert "more consistent than chance" in baseline_html({**row, "beyond_chance": True})
    assert "no more" not in baseline_html({**row, "beyond_chance": True})
    assert baseline_html({**row, "nstar_null": float("nan")}) == ""
    assert baseline_html({"nstar": 3.0}) == ""  # null=False: no columns, no sentence


def test_headline_without_a_baseline(study):
    a = GeneralizabilityAnalysis(study, [gx.Mallows()], rep=REP, seed=0, progress=False,
                                 null=False)
    p = GeneralizabilityExplorer(study, analysis=a, progress=False)
    assert "No-signal baseline" not in p.summary.value
    assert "chance" not in p.summary.value
    spec = p.charts["power_law"].to_dict()
    assert "no-signal baseline n*" not in str(spec)
