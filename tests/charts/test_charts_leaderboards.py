"""The rank sets' chart, tested as data, and drawn offline (Vega compiled in the kernel)."""

import numpy as np
import polars as pl
import pytest
import toys

import genexpy_nb as gx
from genexpy_nb.charts import rank_sets_chart
from genexpy_nb.charts._offline import to_vega
from genexpy_nb.charts.export import save_chart


def _sets(**kw):
    rng = np.random.default_rng(0)
    x = np.array([2.0, 1.9, 1.0, 0.0])[None, :] + rng.normal(size=(25, 4))
    return gx.rank_sets(toys.scores_study(x, True, target="acc"), reps=200, **kw)


def _rows(chart):
    return chart.to_dict()["data"]["values"]


def test_chart_draws_sets_places_and_tiers(tmp_path):
    sets = _sets()
    chart = rank_sets_chart(sets)
    rows = _rows(chart)
    assert [r["entry"] for r in rows] == sets["alternative"].to_list()
    assert [r["lo"] + 0.4 for r in rows] == sets["rank_lo"].to_list()
    assert [r["shade"] for r in rows] == (sets["tier"] % 2).to_list()
    spec = chart.to_dict()
    assert "at once" in spec["title"]["subtitle"][0] and "tiers" in spec["title"]["subtitle"][0]
    vega = to_vega(spec)  # compiles offline: no network, no CDN
    assert vega["$schema"].endswith("v5.json")
    save_chart(chart, tmp_path / "sets.svg")
    assert (tmp_path / "sets.svg").read_text().lstrip().startswith("<svg")


def test_marginal_sets_have_no_bands_and_say_so():
    chart = rank_sets_chart(_sets(simultaneous=False))
    assert "alone" in chart.to_dict()["title"]["subtitle"][0]
    assert {r["shade"] for r in _rows(chart)} == {1}


def test_bradley_terry_frame_leaves_unreliable_models_out():
    rows = [(a, b, w) for a, b in (("x", "y"), ("x", "z"), ("y", "z"))
            for w in ("model_a", "model_a", "model_b", "tie") for _ in range(10)]
    log = pl.DataFrame(rows + [("rare", "x", "model_a")],
                       schema=["model_a", "model_b", "winner"], orient="row")
    bt = gx.bradley_terry(log, reps=200)
    chart = rank_sets_chart(bt)
    assert [r["entry"] for r in _rows(chart)] == bt.filter(pl.col("reliable"))["model"].to_list()
    assert "1 unreliable" in chart.to_dict()["title"]["subtitle"][1]


def test_several_configurations_need_a_choice():
    sets = pl.concat([_sets(), _sets().with_columns(pl.lit(1, pl.UInt32).alias("config_id"))])
    with pytest.raises(gx.GenexpyInputError, match="config_id"):
        rank_sets_chart(sets)
    assert len(_rows(rank_sets_chart(sets, config_id=1))) == 4


def test_names_from_data_are_escaped_by_vega_data_not_markup():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(12, 3))
    names = ["<b>a</b>", "b\"; alert(1)", "c"]
    st = toys.scores_study(x, True, names=names, target="acc")
    rows = _rows(rank_sets_chart(gx.rank_sets(st, reps=100)))
    assert sorted(r["entry"] for r in rows) == sorted(names)
