"""Charts tested as data: assertions on ``chart.to_dict()`` (STYLE.md practice 12)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from genexpy_nb import GenexpyInputError
from genexpy_nb.charts import (
    deficit_heatmap,
    ngen_curves,
    nstar_boxplots,
    nstar_vs_N,
    power_law_fit,
    save_chart,
)
from genexpy_nb.generalizability import GeneralizabilityAnalysis
from genexpy_nb.generalizability.kernels import Jaccard, Mallows
from genexpy_nb.generalizability.planner import plan, simulate_preliminary_study
from genexpy_nb.study import Study


# ---------------------------------------------------------------------------------------
# helpers reading a Vega-Lite spec
# ---------------------------------------------------------------------------------------
def layers(spec: dict) -> list[dict]:
    return spec["layer"] if "layer" in spec else [spec]


def mark_type(layer: dict) -> str:
    m = layer["mark"]
    return m if isinstance(m, str) else m["type"]


def marks(spec: dict) -> list[str]:
    return [mark_type(x) for x in layers(spec)]


def layer_with(spec: dict, mark: str, **enc_fields) -> dict:
    """The first layer of this mark whose encodings have the given fields."""
    for x in layers(spec):
        if mark_type(x) != mark:
            continue
        enc = x.get("encoding", {})
        if all(enc.get(ch, {}).get("field") == f for ch, f in enc_fields.items()):
            if "data" not in x and "data" in spec:  # data shared by all layers
                x = {**x, "data": spec["data"]}
            return x
    raise AssertionError(f"no {mark} layer with {enc_fields}; marks: {marks(spec)}")


def values(layer: dict) -> list[dict]:
    return layer["data"]["values"]


def tooltip_fields(layer: dict) -> list[str]:
    tt = layer["encoding"].get("tooltip", [])
    tt = tt if isinstance(tt, list) else [tt]
    return [t["field"] for t in tt]


def note_text(spec: dict) -> str:
    assert marks(spec) == ["text"]
    return values(spec)[0]["note"]


# ---------------------------------------------------------------------------------------
# a small real analysis (fast): two configurations of 5 alternatives on 30 conditions
# ---------------------------------------------------------------------------------------
def _study(N: int = 30, na: int = 5, seed: int = 0) -> Study:
    rng = np.random.default_rng(seed)
    rows = []
    for model in ("easy", "hard"):
        for c in range(N):
            base = np.arange(na, dtype=float)[::-1] if model == "easy" else rng.random(na)
            noise = rng.normal(0, 0.7 if model == "easy" else 1.0, na)
            for a in range(na):
                rows.append({"model": model, "metric": "acc", "cond": c, "alt": f"a{a}",
                             "score": base[a] + noise[a]})
    return Study(pl.DataFrame(rows), alternatives="alt", target="score", generalize="cond",
                 design=["model", "metric"], higher_is_better=True)


@pytest.fixture(scope="module")
def analysis():
    study = _study()
    ga = GeneralizabilityAnalysis(study, [Jaccard(k=1), Mallows()], rep=40, seed=1,
                                  progress=False)
    res = ga.nstar(alphas=[0.8, 0.95], deltas=[0.05, 0.2],
                   estimators=["resample", "approx"])
    return study, ga, res


CFG = {"model": "hard", "metric": "acc"}


# ---------------------------------------------------------------------------------------
# ngen_curves
# ---------------------------------------------------------------------------------------
def test_ngen_curves_marks_encodings_rules_and_data(analysis):
    _, ga, _ = analysis
    frame = ga.ngen_frame(CFG, "jaccard")
    spec = ngen_curves(frame, alpha=0.95, eps=0.3162, levels=CFG).to_dict()
    assert marks(spec).count("line") == 1 and marks(spec).count("rule") == 2
    line = layer_with(spec, "line", x="eps", y="ngen", color="n")
    assert line["encoding"]["color"]["type"] == "ordinal"
    assert line["encoding"]["y"]["scale"]["domain"] == [0, 1]
    # the data: every (n, eps) point of the frame, with the configuration levels attached
    v = values(line)
    assert len(v) == frame.height
    assert {r["n"] for r in v} == set(frame["n"].to_list())
    assert all(r["model"] == "hard" and r["metric"] == "acc" for r in v)
    assert {"model", "metric", "n", "eps", "ngen"} <= set(tooltip_fields(line))
    # the rules sit at alpha* (horizontal) and eps* (vertical)
    hr = layer_with(spec, "rule", y="alpha")
    assert values(hr)[0]["alpha"] == 0.95
    vr = layer_with(spec, "rule", x="eps")
    assert values(vr)[0]["eps"] == pytest.approx(0.3162)
    assert "model=hard" in " ".join(spec["title"]["subtitle"])


def test_ngen_curves_without_rules_and_extra_columns_in_tooltip():
    frame = pl.DataFrame({"n": [2, 2, 4, 4], "eps": [0.1, 0.5, 0.1, 0.5],
                          "ngen": [0.2, 0.9, 0.6, 1.0], "kernel": ["j"] * 4})
    spec = ngen_curves(frame, title="T").to_dict()
    assert marks(spec) == ["line"]
    assert spec["title"]["text"] == "T"
    assert "kernel" in tooltip_fields(layers(spec)[0])


def test_ngen_curves_empty_frame_gives_a_note():
    empty = pl.DataFrame({"n": [], "eps": [], "ngen": []},
                         schema={"n": pl.Int64, "eps": pl.Float64, "ngen": pl.Float64})
    assert "too few results" in note_text(ngen_curves(empty, alpha=0.9, eps=0.3).to_dict())


def test_ngen_curves_bad_input():
    with pytest.raises(GenexpyInputError, match="ngen"):
        ngen_curves(pl.DataFrame({"n": [2], "eps": [0.1]}))
    frame = pl.DataFrame({"n": [2], "eps": [0.1], "ngen": [0.5]})
    with pytest.raises(GenexpyInputError, match="alpha"):
        ngen_curves(frame, alpha=1.5)
    with pytest.raises(GenexpyInputError, match="eps"):
        ngen_curves(frame, eps=-1.0)
    with pytest.raises(GenexpyInputError, match="levels"):
        ngen_curves(frame, levels={"n": 3})
    with pytest.raises(GenexpyInputError, match="polars, pandas or pyarrow"):
        ngen_curves([1, 2, 3])


# ---------------------------------------------------------------------------------------
# power_law_fit
# ---------------------------------------------------------------------------------------
def test_power_law_fit_log_axes_fit_line_and_star(analysis):
    study, ga, res = analysis
    frame = ga.quantile_frame(CFG, "jaccard", alpha=0.95)
    row = res.filter(pl.col("model") == "hard", pl.col("kernel") == "jaccard",
                     pl.col("alpha") == 0.95, pl.col("delta") == 0.05,
                     pl.col("method") == "resample").row(0, named=True)
    spec = power_law_fit(frame, eps=row["eps"], nstar=row["nstar"], b0=row["b0"],
                         b1=row["b1"], N=row["N"], levels=CFG).to_dict()
    pts = layer_with(spec, "point", x="q", y="n", color="series")
    assert pts["encoding"]["x"]["scale"]["type"] == "log"
    assert pts["encoding"]["y"]["scale"]["type"] == "log"
    v = values(pts)
    series = {r["series"] for r in v}
    assert series == {"resampled q_n", "closed-form q_n (approx.)"}
    resampled = sorted((r["n"], r["q"]) for r in v if r["series"] == "resampled q_n")
    assert [n for n, _ in resampled] == frame["n"].cast(float).to_list()
    assert [q for _, q in resampled] == pytest.approx(frame["q"].to_list())
    assert {"model", "metric", "n", "q", "series"} <= set(tooltip_fields(pts))
    # the fitted line follows log n = b1 log q + b0
    fit = layer_with(spec, "line", x="q", y="n")
    for r in values(fit):
        assert math.log(r["n"]) == pytest.approx(row["b1"] * math.log(r["q"]) + row["b0"])
    # n* marked at (eps*, n*), eps* rule, N rule
    star = layer_with(spec, "point", x="eps", y="nstar")
    assert values(star)[0]["nstar"] == pytest.approx(row["nstar"])
    assert values(star)[0]["model"] == "hard"
    assert values(layer_with(spec, "rule", x="eps"))[0]["eps"] == pytest.approx(row["eps"])
    assert values(layer_with(spec, "rule", y="N"))[0]["N"] == row["N"]


def test_power_law_fit_refits_when_no_coefficients_given():
    n = np.array([2, 4, 6, 8, 10])
    q = 1.3 * n ** -0.5  # exact power law: log n = -2 log q + 2 log 1.3
    spec = power_law_fit(pl.DataFrame({"n": n, "q": q}), eps=0.2).to_dict()
    star = layer_with(spec, "point", x="eps", y="nstar")
    assert values(star)[0]["nstar"] == pytest.approx((1.3 / 0.2) ** 2)
    assert "slope -2" in " ".join(spec["title"]["subtitle"])


def test_power_law_fit_degenerate_and_empty():
    zeros = pl.DataFrame({"n": [2, 4, 6], "q": [0.0, 0.0, 0.0]})
    assert "n* = 1" in note_text(power_law_fit(zeros, eps=0.3).to_dict())
    empty = pl.DataFrame({"n": [], "q": []}, schema={"n": pl.Int64, "q": pl.Float64})
    assert "too few results" in note_text(power_law_fit(empty).to_dict())
    # some zero quantiles: the positive ones are plotted and the zeros reported
    some = pl.DataFrame({"n": [2, 4, 6], "q": [0.5, 0.3, 0.0]})
    spec = power_law_fit(some, eps=0.2).to_dict()
    assert len(values(layer_with(spec, "point", x="q", y="n"))) == 2
    assert "1 quantile(s) equal to 0" in " ".join(spec["title"]["subtitle"])


def test_power_law_fit_bad_input():
    with pytest.raises(GenexpyInputError, match="'q'"):
        power_law_fit(pl.DataFrame({"n": [2, 4]}))
    with pytest.raises(GenexpyInputError, match="eps"):
        power_law_fit(pl.DataFrame({"n": [2, 4], "q": [0.5, 0.3]}), eps=float("nan"))


# ---------------------------------------------------------------------------------------
# nstar_boxplots
# ---------------------------------------------------------------------------------------
def _toy_results(nstar_by_cfg: dict[str, list[float]], alphas=(0.8, 0.95), delta=0.05,
                 kernels=("Jaccard(k=1)", "Mallows")) -> pl.DataFrame:
    rows = []
    for cid, (cfg, ns) in enumerate(nstar_by_cfg.items()):
        for k in kernels:
            for a, v in zip(alphas, ns, strict=True):
                rows.append({"config_id": cid, "model": cfg, "kernel": k.lower(),
                             "kernel_label": k, "alpha": a, "delta": delta, "eps": 0.3,
                             "N": 30, "method": "resample", "nstar": v,
                             "nstar_ceil": None if math.isnan(v) else math.ceil(v),
                             "generalizable": None if math.isnan(v) else 30 >= v,
                             "reason": None})
    return pl.DataFrame(rows)


def test_nstar_boxplots_alpha(analysis):
    _, _, res = analysis
    spec = nstar_boxplots(res, vary="alpha", delta=0.05, points="all").to_dict()
    assert {"bar", "rule", "tick", "point"} <= set(marks(spec))
    box = layer_with(spec, "bar", x="alpha", y="q1")
    assert box["encoding"]["y"]["scale"]["type"] == "log"
    assert box["encoding"]["xOffset"]["field"] == "kernel_label"
    assert box["encoding"]["color"]["field"] == "kernel_label"
    assert box["encoding"]["y2"]["field"] == "q3"
    stats = values(box)
    assert {(r["alpha"], r["kernel_label"]) for r in stats} == {
        (a, k) for a in (0.8, 0.95) for k in ("Jaccard(k=1)", "Mallows")}
    # the medians are those of the frame
    sel = res.filter(pl.col("method") == "resample", pl.col("delta") == 0.05)
    for r in stats:
        exp = sel.filter(pl.col("alpha") == r["alpha"],
                         pl.col("kernel_label") == r["kernel_label"])["nstar"].median()
        assert r["median"] == pytest.approx(exp)
        assert r["lower"] <= r["q1"] <= r["median"] <= r["q3"] <= r["upper"]
    pts = layer_with(spec, "point", x="alpha", y="nstar")
    assert len(values(pts)) == sel.height  # points="all": every configuration x kernel
    assert {"model", "metric", "kernel_label", "N", "nstar"} <= set(tooltip_fields(pts))


def test_nstar_boxplots_delta_and_outliers():
    ns = {f"c{i}": [10.0 + i, 10.0 + i] for i in range(9)}
    ns["far"] = [500.0, 500.0]
    df = _toy_results(ns, alphas=(0.95, 0.95), delta=0.05)
    df = pl.concat([df, df.with_columns(pl.lit(0.2).alias("delta"),
                                        pl.col("nstar") / 4)])
    spec = nstar_boxplots(df.unique(), vary="delta", alpha=0.95).to_dict()
    box = layer_with(spec, "bar", x="delta", y="q1")
    assert {r["delta"] for r in values(box)} == {0.05, 0.2}
    out = layer_with(spec, "point", x="delta", y="nstar")
    assert {r["model"] for r in values(out)} == {"far"}  # only the outlier is a point
    assert {r["nstar"] for r in values(out)} == {500.0, 125.0}


def test_nstar_boxplots_degenerate():
    empty = pl.DataFrame(
        schema={"config_id": pl.UInt32, "kernel_label": pl.String, "alpha": pl.Float64,
                "delta": pl.Float64, "method": pl.String, "nstar": pl.Float64})
    assert "empty" in note_text(nstar_boxplots(empty).to_dict())
    nan = _toy_results({"a": [math.nan, math.nan], "b": [math.nan, math.nan]})
    assert "undefined" in note_text(nstar_boxplots(nan).to_dict())
    ones = _toy_results({"a": [1.0, 1.0], "b": [1.0, 1.0]})
    spec = nstar_boxplots(ones).to_dict()
    box = layer_with(spec, "bar", x="alpha", y="q1")
    # n* is never drawn below 1 (issue 26: the axis started at 0.5)
    assert box["encoding"]["y"]["scale"]["domain"] == [1.0, 2.0]
    assert all(r["median"] == 1.0 for r in values(box))
    assert "every n* equals 1" in " ".join(spec["title"]["subtitle"])
    # the boxes collapse (the configurations agree): their points are drawn instead
    pts = layer_with(spec, "point", x="alpha", y="nstar")
    assert len(values(pts)) == 2 * 2 * 2  # configurations x kernels x alphas


def test_nstar_boxplots_stand_alone():
    """Which configurations and questions, in the title; n* below 1 drawn at 1 and said."""
    spec = nstar_boxplots(_toy_results({"a": [0.4, 3.0], "b": [2.0, 6.0]})).to_dict()
    sub = " ".join(spec["title"]["subtitle"])
    assert "2 configurations of model" in sub
    assert "research questions: Jaccard(k=1), Mallows" in sub
    assert "2 n* below 1 drawn at 1" in sub
    box = layer_with(spec, "bar", x="alpha", y="q1")
    assert box["encoding"]["y"]["scale"]["domain"][0] >= 1.0
    assert min(r["lower"] for r in values(box)) == 1.0
    one = nstar_boxplots(_toy_results({"a": [4.0, 3.0]}, kernels=("Mallows",))).to_dict()
    assert "configuration: model=a; research question: Mallows" in " ".join(
        one["title"]["subtitle"])
    partly = _toy_results({"a": [5.0, 8.0], "b": [math.nan, math.nan]})
    spec = nstar_boxplots(partly).to_dict()
    assert "4 configuration x kernel x alpha* cells with undefined n*" in " ".join(
        spec["title"]["subtitle"])


def test_nstar_boxplots_bad_input(analysis):
    _, _, res = analysis
    with pytest.raises(GenexpyInputError, match="vary"):
        nstar_boxplots(res, vary="eps")
    with pytest.raises(GenexpyInputError, match="delta"):
        nstar_boxplots(res, delta=0.3)
    with pytest.raises(GenexpyInputError, match="method"):
        nstar_boxplots(res, method="bound")
    with pytest.raises(GenexpyInputError, match="points"):
        nstar_boxplots(res, points="some")
    with pytest.raises(GenexpyInputError, match="kernel_label"):
        nstar_boxplots(res.drop("kernel_label"))


# ---------------------------------------------------------------------------------------
# nstar_vs_N
# ---------------------------------------------------------------------------------------
def test_nstar_vs_N_points_median_and_diagonal(analysis):
    study, _, _ = analysis
    sim = simulate_preliminary_study(study, [Jaccard(k=1), Mallows()], CFG, N0=10, rep=30,
                                     seed=2, repetitions=2, progress=False)
    spec = nstar_vs_N(sim).to_dict()
    pts = layer_with(spec, "point", x="N_sub", y="nstar", color="kernel_label")
    assert len(values(pts)) == sim.filter(pl.col("nstar").is_finite()).height
    assert {"kernel_label", "N_sub", "repetition", "nstar"} <= set(tooltip_fields(pts))
    lines = [x for x in layers(spec) if mark_type(x) == "line"]
    diag = [x for x in lines if "color" not in x["encoding"]][0]
    assert all(r["N_sub"] == r["nstar"] for r in values(diag))
    med = [x for x in lines if "color" in x["encoding"]][0]
    got = {(r["kernel_label"], r["N_sub"]): r["nstar"] for r in values(med)}
    exp = sim.group_by("kernel_label", "N_sub").agg(pl.col("nstar").median())
    for k, n, v in exp.iter_rows():
        assert got[(k, n)] == pytest.approx(v)
    assert values(layer_with(spec, "rule", x="N"))[0]["N"] == 30


def test_nstar_vs_N_degenerate_and_bad_input():
    base = {"N_sub": [10, 20], "repetition": [0, 0], "kernel_label": ["J", "J"]}
    nan = pl.DataFrame({**base, "nstar": [math.nan, math.nan]})
    assert "undefined" in note_text(nstar_vs_N(nan).to_dict())
    empty = pl.DataFrame({**base, "nstar": [1.0, 1.0]}).head(0)
    assert "empty" in note_text(nstar_vs_N(empty).to_dict())
    ones = pl.DataFrame({**base, "nstar": [1.0, 1.0]})
    assert len(values(layer_with(nstar_vs_N(ones).to_dict(), "point", x="N_sub"))) == 2
    with pytest.raises(GenexpyInputError, match="nstar"):
        nstar_vs_N(pl.DataFrame(base))
    two = pl.DataFrame({**base, "nstar": [3.0, 4.0], "alpha": [0.9, 0.95],
                        "delta": [0.05, 0.05], "method": ["resample"] * 2})
    with pytest.raises(GenexpyInputError, match="several"):
        nstar_vs_N(two)
    assert len(values(layer_with(nstar_vs_N(two, alpha=0.9).to_dict(), "point",
                                 x="N_sub"))) == 1


# ---------------------------------------------------------------------------------------
# deficit_heatmap
# ---------------------------------------------------------------------------------------
def test_deficit_heatmap_from_plan(analysis):
    _, _, res = analysis
    p = plan(res, alpha=0.95, delta=0.05)
    spec = deficit_heatmap(p, x="metric", y="model").to_dict()
    assert marks(spec) == ["rect", "text"]
    rect = layer_with(spec, "rect", x="_x", y="_y")
    col = rect["encoding"]["color"]["condition"]
    assert col["field"] == "deficit"
    assert col["scale"]["domainMid"] == 0 and col["scale"]["scheme"] == "redblue"
    assert rect["encoding"]["y"]["sort"]["field"] == "deficit"
    v = values(rect)
    assert {(r["_y"], r["_x"], r["deficit"]) for r in v} == set(
        zip(p["model"], p["metric"], p["deficit"], strict=True))
    assert {"model", "metric", "N", "nstar", "deficit", "kernel_label"} <= set(
        tooltip_fields(rect))
    text = layer_with(spec, "text", x="_x", y="_y")
    assert text["encoding"]["text"]["field"] == "_text"
    assert {r["_text"] for r in values(text)} == {
        f"+{d}" if d > 0 else str(d) for d in p["deficit"]}


def test_deficit_heatmap_from_results_kernels_as_columns(analysis):
    _, _, res = analysis
    # the same study with 50 conditions fewer: cells that need more (a study where nothing
    # needs extending gets a note instead of a table, below)
    res = res.with_columns(pl.col("N") - 50, pl.col("deficit") + 50)
    spec = deficit_heatmap(res, alpha=0.8, delta=0.2).to_dict()
    rect = layer_with(spec, "rect")
    v = values(rect)
    assert {r["_x"] for r in v} == {"Jaccard(k=1)", "Mallows"}
    assert {r["_y"] for r in v} == {"easy / acc", "hard / acc"}
    sel = res.filter(pl.col("alpha") == 0.8, pl.col("delta") == 0.2,
                     pl.col("method") == "resample")
    assert sorted(r["deficit"] for r in v) == sorted(sel["deficit"].to_list())
    one = deficit_heatmap(res, alpha=0.8, delta=0.2, kernel="jaccard", top=1).to_dict()
    v1 = values(layer_with(one, "rect"))
    assert len(v1) == 1 and v1[0]["deficit"] == sel.filter(
        pl.col("kernel") == "jaccard")["deficit"].max()


def test_deficit_heatmap_degenerate_and_bad_input(analysis):
    _, _, res = analysis
    p = plan(res, alpha=0.95, delta=0.05)
    empty = p.head(0)
    assert "empty" in note_text(deficit_heatmap(empty).to_dict())
    undefined = p.with_columns(pl.lit(None, pl.Float64).alias("nstar"),
                               pl.lit(None, pl.Int64).alias("deficit"))
    spec = deficit_heatmap(undefined).to_dict()
    assert {r["_text"] for r in values(layer_with(spec, "text"))} == {"?"}
    assert "undefined everywhere" in " ".join(spec["title"]["subtitle"])
    with pytest.raises(GenexpyInputError, match="deficit"):
        deficit_heatmap(p.drop("deficit"))
    with pytest.raises(GenexpyInputError, match="nope"):
        deficit_heatmap(p, x="nope")
    with pytest.raises(GenexpyInputError, match="alpha"):
        deficit_heatmap(res, alpha=0.5)
    with pytest.raises(GenexpyInputError, match="kernel"):
        deficit_heatmap(res, kernel="rbf")
    with pytest.raises(GenexpyInputError, match="top"):
        deficit_heatmap(p, top=0)


# ---------------------------------------------------------------------------------------
# save_chart
# ---------------------------------------------------------------------------------------
def test_save_chart_html_svg_png(tmp_path, analysis):
    _, _, res = analysis
    chart = nstar_boxplots(res)
    h = save_chart(chart, tmp_path / "a.html")
    assert "vega" in h.read_text().lower() and "kernel_label" in h.read_text()
    s = save_chart(chart, tmp_path / "sub" / "a.svg")
    assert s.read_text().lstrip().startswith("<svg")
    p = save_chart(ngen_curves(pl.DataFrame({"n": [2], "eps": [0.1], "ngen": [0.5]})),
                   tmp_path / "a.png")
    assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_save_chart_bad_input(tmp_path):
    chart = ngen_curves(pl.DataFrame({"n": [2], "eps": [0.1], "ngen": [0.5]}))
    with pytest.raises(GenexpyInputError, match="suffix|.html"):
        save_chart(chart, tmp_path / "a.gif")
    with pytest.raises(GenexpyInputError, match="Altair chart"):
        save_chart({"mark": "point"}, tmp_path / "a.html")


def test_log_axes_have_readable_ticks():
    ns = {f"c{i}": [1.0 * 3**i, 2.0 * 3**i] for i in range(9)}   # n* from 1 to ~13000
    spec = nstar_boxplots(_toy_results(ns)).to_dict()
    whisk = layer_with(spec, "rule", x="alpha", y="lower")
    ticks = whisk["encoding"]["y"]["axis"]["values"]
    assert ticks == sorted(ticks) and 1.0 in ticks and 10_000.0 in ticks
    lo, hi = whisk["encoding"]["y"]["scale"]["domain"]
    assert all(lo <= t <= hi for t in ticks) and len(ticks) <= 12
    n = np.array([2, 4, 8, 16])
    pl_spec = power_law_fit(pl.DataFrame({"n": n, "q": 0.8 * n ** -0.5}), eps=0.3).to_dict()
    pts = layer_with(pl_spec, "point", x="q", y="n")
    xt = pts["encoding"]["x"]["axis"]["values"]
    assert len(xt) >= 3  # less than a decade of quantiles still gets several labels


# ---------------------------------------------------------------------------------------
# inline rows: shared by Altair's copies, never by the specs handed out
# ---------------------------------------------------------------------------------------
def test_specs_own_their_rows_and_charts_compose(analysis):
    import copy

    import altair as alt

    _, ga, res = analysis
    frame = ga.ngen_frame(CFG, "jaccard")
    chart = ngen_curves(frame, alpha=0.95, eps=0.3)
    spec = chart.to_dict()
    line = layer_with(spec, "line", x="eps")
    first = dict(values(line)[0])
    values(line)[0]["ngen"] = -1.0  # editing a spec leaves the chart as it was
    values(line).clear()
    again = chart.to_dict()
    assert values(layer_with(again, "line", x="eps"))[0] == first
    assert len(values(layer_with(again, "line", x="eps"))) == frame.height
    # copies (Altair's and Python's) draw the same rows; charts compose and validate
    assert chart.copy().to_dict() == again
    assert copy.deepcopy(chart).to_dict() == again
    wide = chart.properties(width=600).to_dict()
    assert wide["width"] == 600 and values(layer_with(wide, "line", x="eps")) == values(
        layer_with(again, "line", x="eps"))
    both = alt.hconcat(chart, deficit_heatmap(plan(res, alpha=0.95, delta=0.05))).to_dict()
    assert len(both["hconcat"]) == 2


def test_every_chart_names_its_configuration_and_question(analysis):
    """A figure that stands alone (issue 26): the configuration and the research question
    are in its title, n* is never drawn below 1."""
    study, ga, res = analysis
    frame = ga.ngen_frame(CFG, "jaccard")
    for spec in (ngen_curves(frame, levels=CFG, question="Jaccard(k=1)").to_dict(),
                 power_law_fit(ga.quantile_frame(CFG, "jaccard"), eps=0.3, levels=CFG,
                               question="Jaccard(k=1)").to_dict()):
        assert "configuration: model=hard, metric=acc; research question: Jaccard(k=1)" in \
            spec["title"]["subtitle"]
    sim = pl.DataFrame({"N_sub": [10, 20], "repetition": [0, 0],
                        "kernel_label": ["Mallows"] * 2, "nstar": [0.3, 4.0]})
    spec = nstar_vs_N(sim, levels=CFG).to_dict()
    sub = " ".join(spec["title"]["subtitle"])
    assert "configuration: model=hard, metric=acc; research question: Mallows" in sub
    assert "1 n* below 1 drawn at 1" in sub
    assert min(r["nstar"] for r in values(layer_with(spec, "point", x="N_sub",
                                                       y="nstar"))) == 1.0
    one = res.filter(pl.col("config_id") == res["config_id"][0])
    from genexpy_nb.charts import nstar_intervals

    spec = nstar_intervals(one.with_columns(pl.col("nstar_lo") * 0.01)).to_dict()
    assert "configuration: " in " ".join(spec["title"]["subtitle"])
    rule = layer_with(spec, "rule", y="nstar_lo")
    assert min(r["nstar_lo"] for r in values(rule)) >= 1.0
    spec = deficit_heatmap(plan(res)).to_dict()
    assert "research question" in " ".join(spec["title"]["subtitle"])


def test_power_law_star_never_below_one():
    n = np.array([2.0, 4.0, 8.0, 16.0])
    spec = power_law_fit(pl.DataFrame({"n": n, "q": 0.1 * n ** -0.5}), eps=0.5,
                         nstar=0.4).to_dict()
    star = next(ly for ly in spec["layer"] if ly["mark"].get("shape") == "diamond")
    assert values(star)[0]["nstar"] == 1.0 and "drawn at 1" in values(star)[0]["label"]
    assert spec["layer"][0]["encoding"]["y"]["scale"]["domain"][0] >= 1.0 / 1.25


# ---------------------------------------------------------------------------------------
# the no-signal baseline (nstar_null and its band) on the charts
# ---------------------------------------------------------------------------------------
NULL_COLS = ["nstar_null", "nstar_null_lo", "nstar_null_hi", "beyond_chance"]


def _baseline_layers(spec: dict) -> list[dict]:
    return [x for x in layers(spec)
            if x.get("encoding", {}).get("y", {}).get("field") in ("nstar_null",
                                                                  "nstar_null_lo")]


def _legend_names(spec: dict) -> set[str]:
    out = set()
    for x in layers(spec):
        for enc in x.get("encoding", {}).values():
            if isinstance(enc, dict):
                out |= set(enc.get("scale", {}).get("domain", []) or [])
    return out


def test_nstar_boxplots_draw_the_baseline_with_its_band(analysis):
    _, _, res = analysis
    assert set(NULL_COLS) <= set(res.columns)
    spec = nstar_boxplots(res, vary="alpha", delta=0.05).to_dict()
    tri = layer_with(spec, "point", x="alpha", y="nstar_null")
    assert tri["encoding"]["shape"]["scale"]["domain"] == ["no-signal baseline n*"]
    assert tri["encoding"]["xOffset"]["field"] == "kernel_label"
    band = layer_with(spec, "rule", x="alpha", y="nstar_null_lo")
    assert band["encoding"]["y2"]["field"] == "nstar_null_hi"
    sel = res.filter(pl.col("method") == "resample", pl.col("delta") == 0.05)
    got = values(tri)
    assert {(r["alpha"], r["kernel_label"]) for r in got} == {
        (a, k) for a in (0.8, 0.95) for k in ("Jaccard(k=1)", "Mallows")}
    for r in got:  # the median over the configurations, of the frame's own columns
        part = sel.filter(pl.col("alpha") == r["alpha"],
                          pl.col("kernel_label") == r["kernel_label"])
        for c in ("nstar_null", "nstar_null_lo", "nstar_null_hi"):
            assert r[c] == pytest.approx(max(part[c].median(), 1.0))
        assert r["nstar_null_lo"] <= r["nstar_null"] <= r["nstar_null_hi"]
    # inside the y domain (not clipped away)
    lo, hi = layer_with(spec, "bar", x="alpha", y="q1")["encoding"]["y"]["scale"]["domain"]
    assert all(lo <= r["nstar_null_lo"] and r["nstar_null_hi"] <= hi for r in got)
    assert "no-signal baseline" in " ".join(spec["title"]["subtitle"])


def test_nstar_boxplots_without_a_baseline_draw_none(analysis):
    _, _, res = analysis
    for frame in (res.drop(NULL_COLS),  # analysed with null=False
                  res.with_columns(pl.lit(float("nan")).alias(c) for c in NULL_COLS[:3])):
        spec = nstar_boxplots(frame, vary="delta", alpha=0.95).to_dict()
        assert _baseline_layers(spec) == []
        assert "no-signal baseline n*" not in _legend_names(spec)
    # the closed form has no baseline of its own: none drawn for it
    spec = nstar_boxplots(res, vary="alpha", method="approx").to_dict()
    assert _baseline_layers(spec) == []


def test_power_law_fit_draws_the_baseline_given(analysis):
    _, ga, res = analysis
    row = res.filter(pl.col("model") == "hard", pl.col("kernel_label") == "Jaccard(k=1)",
                     pl.col("alpha") == 0.95, pl.col("delta") == 0.05,
                     pl.col("method") == "resample").row(0, named=True)
    assert math.isfinite(row["nstar_null"])
    qf = ga.quantile_frame(row["config_id"], "Jaccard(k=1)", 0.95)
    spec = power_law_fit(qf, eps=row["eps"], nstar=row["nstar"], N=30,
                         nstar_null=row["nstar_null"], nstar_null_lo=row["nstar_null_lo"],
                         nstar_null_hi=row["nstar_null_hi"]).to_dict()
    rule = layer_with(spec, "rule", y="nstar_null")
    assert values(rule)[0]["nstar_null"] == pytest.approx(max(row["nstar_null"], 1.0))
    assert values(rule)[0]["series"] == "no-signal baseline n*"
    band = layer_with(spec, "rect", y="nstar_null_lo")
    assert values(band)[0]["nstar_null_lo"] == pytest.approx(max(row["nstar_null_lo"], 1.0))
    assert values(band)[0]["nstar_null_hi"] == pytest.approx(max(row["nstar_null_hi"], 1.0))
    pts = layer_with(spec, "point", x="q", y="n")
    assert "no-signal baseline n*" in pts["encoding"]["color"]["scale"]["domain"]
    ydom = pts["encoding"]["y"]["scale"]["domain"]
    assert ydom[0] <= values(band)[0]["nstar_null_lo"] <= values(band)[0]["nstar_null_hi"] \
        <= ydom[1]
    # none given, or NaN (null=False): no layer, no legend entry
    for kw in ({}, {"nstar_null": float("nan"), "nstar_null_lo": float("nan"),
                    "nstar_null_hi": float("nan")}):
        spec = power_law_fit(qf, eps=row["eps"], **kw).to_dict()
        assert _baseline_layers(spec) == []
        assert "no-signal baseline n*" not in _legend_names(spec)


def test_nstar_vs_N_draws_the_baseline_per_N(analysis):
    study, _, _ = analysis
    sim = simulate_preliminary_study(study, [Jaccard(k=1), Mallows()], CFG, N0=10, rep=30,
                                     seed=2, repetitions=2, progress=False)
    assert set(NULL_COLS) <= set(sim.columns)
    spec = nstar_vs_N(sim).to_dict()
    line = layer_with(spec, "line", x="N_sub", y="nstar_null", color="kernel_label")
    assert line["mark"]["strokeDash"]
    tri = layer_with(spec, "point", x="N_sub", y="nstar_null")
    assert tri["encoding"]["shape"]["scale"]["domain"] == ["no-signal baseline n*"]
    got = {(r["kernel_label"], r["N_sub"]): r["nstar_null"] for r in values(line)}
    exp = (sim.filter(pl.col("nstar_null").is_finite())
           .group_by("kernel_label", "N_sub").agg(pl.col("nstar_null").median()))
    assert len(got) == exp.height > 0
    for k, n, v in exp.iter_rows():
        assert got[(k, n)] == pytest.approx(max(v, 1.0))
    spec = nstar_vs_N(sim.drop(NULL_COLS)).to_dict()
    assert _baseline_layers(spec) == []
    assert "no-signal baseline n*" not in _legend_names(spec)


def test_eps_star_is_shown_with_the_delta_star_it_comes_from(analysis):
    """Texts speak of delta*, the charts' axis of eps*: given delta*, every eps* label names it."""
    _, ga, _ = analysis
    eps = Jaccard(k=1).eps(0.05)
    spec = ngen_curves(ga.ngen_frame(CFG, "jaccard"), alpha=0.95, eps=eps, delta=0.05,
                       levels=CFG).to_dict()
    want = f"eps* = {eps:.3g} (from delta* = 0.05)"
    assert want in " ".join(spec["title"]["subtitle"])
    assert values(layer_with(spec, "text", x="eps"))[0]["label"] == want
    q = pl.DataFrame({"n": [2, 4, 8, 16], "q": [0.8, 0.56, 0.4, 0.28]})
    spec = power_law_fit(q, eps=eps, nstar=30.0, delta=0.05).to_dict()
    assert f"n* = 30.0 at {want}" in " ".join(spec["title"]["subtitle"])
    assert "delta*" not in " ".join(power_law_fit(q, eps=eps, nstar=30.0).to_dict()
                                    ["title"]["subtitle"])


def test_deficit_heatmap_says_when_nothing_needs_extending(analysis):
    """Every cell with n* <= N: one sentence, not a table of identical blue cells."""
    _, _, res = analysis
    sel = res.filter(pl.col("alpha") == 0.8, pl.col("delta") == 0.2,
                     pl.col("method") == "resample")
    assert sel["deficit"].max() <= 0  # the fixture's study has enough conditions here
    spare = sorted({-int(sel["deficit"].max()), -int(sel["deficit"].min())})
    text = note_text(deficit_heatmap(res, alpha=0.8, delta=0.2).to_dict())
    assert text.startswith(f"Nothing needs extending: n* <= N in all {sel.height} cells (")
    assert f"{' to '.join(map(str, spare))} conditions to spare" in text


def test_one_set_of_figure_names():
    """The demo, ``genexpy-nb nstar --figures`` and the template write one name per figure."""
    import ast
    import json
    import re
    from pathlib import Path

    from genexpy_nb.charts import FIGURE_NAMES
    from genexpy_nb.example.demo import FIGURES

    assert set(FIGURES) <= set(FIGURE_NAMES)
    root = Path(__file__).resolve().parents[2]
    cli = ast.parse((root / "genexpy_nb" / "cli" / "nstar.py").read_text())
    written = {node.slice.value for node in ast.walk(cli)
               if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
               and node.value.id == "charts" and isinstance(node.slice, ast.Constant)}
    assert written and written <= set(FIGURE_NAMES), written
    nb = json.loads((root / "notebooks" / "template_your_benchmark.ipynb").read_text())
    src = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    saved = set(re.findall(r'"(\w+)": fig_\w+', src)) | set(re.findall(r'tmp / "(\w+)\.svg"', src))
    assert saved and saved <= set(FIGURE_NAMES), saved
