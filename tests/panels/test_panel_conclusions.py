"""The generalizability explorer leads with the selected configuration's conclusions, driven
as data: widgets set, the conclusions frame and the HTML they produce asserted on."""

from __future__ import annotations

import polars as pl
import pytest
from test_panels import REP, make_study

import genexpy_nb as gx
import genexpy_nb.generalizability as gen
from genexpy_nb.generalizability import GeneralizabilityAnalysis
from genexpy_nb.panels import GeneralizabilityExplorer
from genexpy_nb.panels import views as panel_views


@pytest.fixture(autouse=True)
def mimebundle_backend(monkeypatch):
    monkeypatch.setattr(panel_views, "CHART_BACKEND", "mimebundle")


@pytest.fixture(scope="module")
def study():
    return make_study()


@pytest.fixture(scope="module")
def analysis(study):
    return GeneralizabilityAnalysis(study, [gx.Jaccard(k=1)], rep=REP, seed=0,
                                    progress=False)


@pytest.fixture
def panel(study, analysis):
    return GeneralizabilityExplorer(study, analysis=analysis, progress=False)


def test_conclusions_at_the_top_are_the_direct_api(panel, study):
    direct = gx.conclusions(study, config_id=0, seed=0)
    assert panel.conclusions.equals(direct)
    best = direct.filter(pl.col("kind") == "best").row(0, named=True)
    box = panel.conclusions_box.value
    assert f"Best: {best['members'][0]} — {best['verdict']}" in box
    assert "Do this configuration&#x27;s conclusions hold?" in box or \
        "Do this configuration's conclusions hold?" in box
    # they come first: right under the controls, before the paper's n*
    kids = panel.widget.children
    assert kids.index(panel.conclusions_box) < kids.index(panel.summary)
    assert "How consistent are the per-cond rankings?" in kids[2].value


def test_computed_once_per_configuration_then_cached(panel, study, monkeypatch):
    first = panel.conclusions
    panel.select({"model": "hard", "metric": "acc"})
    cid = study.config_id({"model": "hard", "metric": "acc"})
    assert panel.conclusions["config_id"].unique().to_list() == [cid]
    assert panel.conclusions.equals(gx.conclusions(study, config_id=cid, seed=0))

    def boom(*a, **k):
        raise AssertionError("conclusions computed again")

    monkeypatch.setattr(gen, "conclusions", boom)
    panel.select(0)  # back to the first: from the cache
    assert panel.conclusions.equals(first)
    panel.family.value = "jaccard"  # another question: the conclusions do not change
    assert panel.conclusions.equals(first)


def test_thresholds_are_those_the_panel_was_opened_with(study, analysis, monkeypatch, panel):
    p = GeneralizabilityExplorer(study, analysis=analysis, progress=False, alpha=0.8,
                                 delta=0.2)
    direct = gx.conclusions(study, config_id=0, alpha=0.8, delta=0.2, seed=0)
    assert p.conclusions.equals(direct)
    assert "at alpha* = 0.8," in p.conclusions_box.value

    def boom(*a, **k):
        raise AssertionError("a slider move recomputed the conclusions")

    monkeypatch.setattr(gen, "conclusions", boom)
    p.alpha.value = 0.9  # the sliders set the paper's n*; the conclusions stay cached
    assert p.conclusions.equals(direct)
    out = p.export("conclusions")
    assert out.height == direct.height and set(out["alpha"]) == {0.8}
    with pytest.raises(gx.GenexpyInputError, match="conclusions"):
        panel.export("everything")


def test_too_few_conditions_and_no_configuration(panel):
    panel.select({"model": "tiny", "metric": "acc"})
    assert not panel.conclusions["reliable"].any()
    assert "too few to judge" in panel.conclusions_box.value
    panel._busy = True  # levels that match no configuration
    panel.factor_widgets["model"].value = "hard"
    panel.factor_widgets["metric"].value = "f1"
    panel._busy = False
    panel.refresh()
    assert panel.config_id is None and panel.conclusions.height == 0
    assert panel.conclusions_box.value == ""


def test_names_from_data_are_escaped():
    rows = [{"cond": f"c{c}", "alt": a, "score": float(s)}
            for c in range(8) for a, s in (("<b>x</b>", 3 + c % 2), ("y&z", 1), ("w", 0))]
    st = gx.Study(pl.DataFrame(rows), alternatives="alt", target="score", generalize="cond",
                  higher_is_better=True)
    p = GeneralizabilityExplorer(st, kernels=[gx.Mallows()], rep=REP, progress=False)
    box = p.conclusions_box.value
    assert "<b>x</b>" not in box and "&lt;b&gt;x&lt;/b&gt;" in box and "y&amp;z" in box
