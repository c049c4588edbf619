"""Panels prepare the neighbouring slider positions in the background: same results, no
rebuild when the user steps there."""

import pytest
from polars.testing import assert_frame_equal
from test_panels import make_study

import genexpy_nb as gx
from genexpy_nb import panels
from genexpy_nb.generalizability import GeneralizabilityAnalysis
from genexpy_nb.panels import GeneralizabilityExplorer


@pytest.fixture(scope="module")
def analysis():
    study = make_study()
    return GeneralizabilityAnalysis(study, [gx.Jaccard(k=1), gx.Mallows()], rep=30, seed=0,
                                    progress=False)


def _state(panel):
    return (panel.summary.value, panel.table.value, panel.ranking_table.value,
            {k: c.to_dict(validate=False) for k, c in panel.charts.items()})


def test_step_to_a_prefetched_position_builds_nothing_and_matches(analysis, monkeypatch):
    panel = GeneralizabilityExplorer(analysis.study, analysis=analysis, progress=False)
    panel._chart_cache.wait()
    ga, label, a, d = panel._current
    cid = panel.config_id
    for key in (("numbers", label, 0.94, d), ("numbers", label, 0.96, d),
                ("ngen", label, cid, 0.94, d), ("deficit", label, a, 0.06)):
        assert key in panel._chart_cache, key
    builds = []
    orig = panels._payload
    monkeypatch.setattr(panels, "_payload", lambda c: builds.append(c) or orig(c))
    panel.alpha.value = 0.94
    assert builds == []  # everything came from the background thread
    got = _state(panel)
    # the same state computed from scratch, without prefetching
    monkeypatch.setattr(panels, "PREFETCH", False)
    fresh = GeneralizabilityExplorer(analysis.study, analysis=analysis, progress=False,
                                     alpha=0.94)
    assert _state(fresh) == got
    assert_frame_equal(fresh.results, panel.results)
    assert len(builds) >= 3  # built on demand this time


def test_no_prefetch_when_disabled(analysis, monkeypatch):
    monkeypatch.setattr(panels, "PREFETCH", False)
    panel = GeneralizabilityExplorer(analysis.study, analysis=analysis, progress=False)
    _, label, _, d = panel._current
    assert ("numbers", label, 0.94, d) not in panel._chart_cache
    assert panel._chart_cache._pool is None
