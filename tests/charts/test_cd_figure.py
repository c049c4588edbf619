"""The CD diagram drawn without Vega (significance/cd_figure.py) against the Vega drawing.

The SVG of :func:`cd_diagram_svg` must put every point, label and colour where Vega puts
those of :func:`cd_diagram`'s chart (vl-convert renders the latter here as the oracle), and
:func:`critical_difference`'s scipy midranks must equal friedman()'s numba ones to the bit.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import vl_convert as vlc
from hypothesis import given, settings
from hypothesis import strategies as st

from genexpy_nb import GenexpyInputError
from genexpy_nb import significance as sig
from genexpy_nb.charts import cd_diagram, cd_diagram_svg, save_cd_diagram
from genexpy_nb.charts.export import vega_lite_spec as _spec
from genexpy_nb.charts.export import vl_version as _vl_version
from genexpy_nb.significance.rank_tests import _friedman_core

_NUM = r"(-?[\d.e+-]+)"


def _vega_svg(chart) -> str:
    return vlc.vegalite_to_svg(_spec(chart), vl_version=_vl_version())


def _vega_marks(svg: str):
    """Points (x, y, fill) and text marks {text: (x, y, anchor, fill)} of a Vega SVG."""
    points = [(float(x), float(y), fill) for x, y, fill in re.findall(
        rf'aria-roledescription="point" transform="translate\({_NUM},{_NUM}\)"[^>]*'
        r'fill="([^"]*)"', svg)]
    texts = {t: (float(x), float(y), a, fill) for a, x, y, fill, t in re.findall(
        rf'aria-roledescription="text mark" text-anchor="(\w+)" transform="translate\('
        rf'{_NUM},{_NUM}\)"[^>]*fill="([^"]*)"[^>]*>([^<]*)</text>', svg)}
    return points, texts


def _our_marks(svg: str):
    root = ET.fromstring(svg)  # also checks it is well-formed XML
    ns = "{http://www.w3.org/2000/svg}"
    points = [(float(c.get("cx")), float(c.get("cy")), c.get("fill"))
              for c in root.iter(f"{ns}circle")]
    texts = {t.text: (float(t.get("x")), float(t.get("y")), t.get("text-anchor"),
                      t.get("fill")) for t in root.iter(f"{ns}text")}
    return points, texts


def _scores(n, k, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((n, k)) + np.linspace(0.0, 0.4, k)


@pytest.mark.parametrize("kw", [
    {},
    {"reverse": True, "colors": "tableau10", "title": "reversed"},
    {"colors": "category10", "show_ranks": False, "width": 380, "row_height": 22},
    {"colors": "set1", "order": [f"m{j}" for j in (3, 1, 5, 0, 2, 4, 6)]},
    {"colors": "dark2", "alpha": 0.1},
])
def test_svg_marks_sit_where_vega_puts_them(kw):
    x = _scores(40, 7, seed=1)
    names = [f"m{j}" for j in range(7)]
    args = dict(higher_is_better=True, alternatives=names, **kw)
    ours_p, ours_t = _our_marks(cd_diagram_svg(x, **args))
    vega_p, vega_t = _vega_marks(_vega_svg(cd_diagram(x, **args)))
    assert len(ours_p) == len(vega_p) == 7
    # same plot coordinates (both relative to the plot's top-left corner), same colours
    colour = {"black": "black"}
    for (xo, yo, fo), (xv, yv, fv) in zip(ours_p, vega_p):
        assert xo == pytest.approx(xv, abs=0.01) and yo == pytest.approx(yv, abs=0.01)
        assert colour.get(fo, fo).lower() == fv.lower()
    assert len(vega_t) == 8  # the 7 labels and the CD text
    assert set(vega_t) <= set(ours_t)  # every label and the CD text (ours adds the axis)
    for label, (xv, yv, av, fv) in vega_t.items():
        xo, yo, ao, fo = ours_t[label]
        assert (xo, yo) == pytest.approx((xv, yv), abs=0.01), label
        assert ao == av and fo.lower() == fv.lower(), label


def test_pairwise_cliques_and_no_cd_bar_like_vega():
    x = _scores(25, 5, seed=4)
    pw = sig.posthoc_conover(x, p_adjust="holm", higher_is_better=True)
    ours = cd_diagram_svg(x, pairwise=pw, higher_is_better=True)
    vega = _vega_svg(cd_diagram(x, pairwise=pw, higher_is_better=True))
    assert "CD = " not in ours and "CD = " not in vega
    n_cliques = sig.cliques(sig.critical_difference(x, higher_is_better=True),
                            pairwise=pw).height
    assert ours.count('stroke-width="4"') == n_cliques
    assert vega.count('stroke-width="4"') == n_cliques


def test_png_matches_vega_size_and_files(tmp_path):
    x = _scores(50, 10)
    names = [f"model_{j}" for j in range(10)]
    kw = dict(higher_is_better=True, alternatives=names, title="t")
    paths = save_cd_diagram(x, [tmp_path / "a.png", tmp_path / "a.svg", tmp_path / "a.pdf"],
                            **kw)
    assert [p.name for p in paths] == ["a.png", "a.svg", "a.pdf"]
    png = (tmp_path / "a.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "a.pdf").read_bytes()[:4] == b"%PDF"
    assert (tmp_path / "a.svg").read_text().startswith("<svg")
    vega_png = vlc.vegalite_to_png(_spec(cd_diagram(x, **kw)), vl_version=_vl_version())

    def size(b):
        return int.from_bytes(b[16:20], "big"), int.from_bytes(b[20:24], "big")

    (w, h), (wv, hv) = size(png), size(vega_png)
    # the canvas fits the labels with upper-estimate text widths: a little wider, never less
    assert wv <= w <= wv + 60 and hv - 2 <= h <= hv + 6
    big = save_cd_diagram(x, tmp_path / "b.png", scale=2, **kw).read_bytes()
    assert size(big) == (2 * w, 2 * h)


def test_unlisted_scheme_is_drawn_by_vega_and_names_are_escaped():
    x = _scores(20, 4, seed=2)
    names = ["a<b", "c&d", 'e"f', "g"]
    svg = cd_diagram_svg(x, higher_is_better=True, alternatives=names)
    _, texts = _our_marks(svg)
    assert {"a<b", "c&d", 'e"f', "g"} <= {t.split(" (")[0] for t in texts}
    pastel = cd_diagram_svg(x, higher_is_better=True, alternatives=names, colors="pastel1")
    assert 'aria-roledescription="point"' in pastel  # Vega's SVG


def test_errors_are_named():
    x = _scores(20, 4)
    with pytest.raises(GenexpyInputError, match="higher_is_better"):
        cd_diagram_svg(x)
    with pytest.raises(GenexpyInputError, match="order"):
        cd_diagram_svg(x, order=["0", "1"], higher_is_better=False)
    with pytest.raises(GenexpyInputError, match="colour"):
        cd_diagram_svg(x, colors={"0": "red"}, higher_is_better=False)
    with pytest.raises(GenexpyInputError, match=r"\.png, \.svg, \.pdf or \.html"):
        save_cd_diagram(x, "cd.json", higher_is_better=False)
    with pytest.raises(GenexpyInputError, match="scale"):
        save_cd_diagram(x, "cd.png", scale=0, higher_is_better=False)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(2, 9), st.integers(1, 6), st.booleans(),
       st.integers(0, 2**31 - 1))
def test_mean_ranks_equal_friedman_core_bit_for_bit(n, k, levels, hib, seed):
    x = np.random.default_rng(seed).integers(0, levels, size=(n, k)).astype(float)
    frame = sig.critical_difference(x, higher_is_better=hib)
    _, mean_ranks, _, _, _ = _friedman_core(np.ascontiguousarray(-x if hib else x))
    order = np.argsort(mean_ranks, kind="stable")
    assert frame["mean_rank"].to_numpy().tobytes() == mean_ranks[order].tobytes()
    assert frame["alternative"].to_list() == [str(j) for j in order]


# ---- the diagram of a comparison: what it draws is said on it ----------------------------


def _comparison(k=12, n=40, seed=5, **kw):
    import polars as pl

    rng = np.random.default_rng(seed)
    acc = rng.random((n, k)) + np.linspace(0.0, 1.2, k)
    df = pl.DataFrame([(f"d{i}", f"alg_{j}", float(acc[i, j])) for i in range(n)
                       for j in range(k)], schema=["dataset", "model", "acc"], orient="row")
    return sig.compare(df, alternatives="model", target="acc", blocks="dataset",
                       higher_is_better=True, **kw)


@pytest.mark.parametrize("kw", [{}, {"top": 5}, {"control": "alg_6"},
                                {"posthoc": "nemenyi", "top": 4}])
def test_comparison_diagram_like_vega_and_names_its_test(kw):
    res = _comparison(**kw)
    ours = cd_diagram_svg(res, colors="tableau10", title="t")
    _, texts = _our_marks(ours)
    vega_p, vega_t = _vega_marks(_vega_svg(cd_diagram(res, colors="tableau10", title="t")))
    ours_p, _ = _our_marks(ours)
    assert len(ours_p) == len(vega_p)
    for (xo, yo, _), (xv, yv, _) in zip(ours_p, vega_p):
        assert (xo, yo) == pytest.approx((xv, yv), abs=0.01)
    for label, (xv, yv, _, _) in vega_t.items():
        assert (texts[label][0], texts[label][1]) == pytest.approx((xv, yv), abs=0.01)
    caption = " ".join(t for t in texts if "α = 0.05" in t or "bar" in t)
    if kw.get("posthoc") == "nemenyi":
        assert "Nemenyi (Friedman)" in caption and "CD = " in " ".join(texts)
    elif "control" in kw:
        assert ("Conover–Iman (Friedman), Holm's correction over the 11 comparisons with the "
                "control, α = 0.05, 40 datasets") in caption
    else:
        assert "Conover–Iman (Friedman), Holm's correction, α = 0.05, 40 datasets" in caption
    if "top" in kw:
        shown = kw["top"]
        assert len(ours_p) == shown
        assert f"showing the {shown} best of 12 alternatives; the other {12 - shown}" in \
            " ".join(texts)
    if "control" in kw:
        assert "comparisons with the control" in caption
        assert 'font-weight="bold" fill="#' in ours and 'stroke="black" stroke-width="2"' in ours
        assert res.cliques.height <= 1


def test_comparison_files_html_png_and_tooltips(tmp_path):
    from genexpy_nb.charts import save_comparison

    res = _comparison(top=6)
    paths = save_comparison(res, tmp_path / "out", figures=("html", "png", "svg"))
    names = [p.name for p in paths]
    assert {"cd_diagram.html", "cd_diagram.png", "cd_diagram.svg", "report.md",
            "mean_ranks.tex", "mean_ranks.csv"} <= set(names)
    html = (tmp_path / "out" / "cd_diagram.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html and "<script" not in html
    assert "<title>alg_11: mean rank" in html and "Answer</h4>" in html
    assert (tmp_path / "out" / "cd_diagram.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(GenexpyInputError, match="figures"):
        save_comparison(res, tmp_path / "x", figures=("gif",))


def test_bars_of_a_posthoc_frame_are_named_on_the_diagram():
    x = _scores(25, 5, seed=4)
    pw = sig.posthoc_conover(x, p_adjust="holm", higher_is_better=True)
    svg = cd_diagram_svg(x, pairwise=pw, higher_is_better=True)
    assert "bars: no significant difference within (Conover–Iman (Friedman), Holm&#x27;s " \
           "correction, α = 0.05)" in svg
    plain = cd_diagram_svg(x, higher_is_better=True)
    assert "mean ranks within the critical difference (Nemenyi, α = 0.05); 25 blocks" in plain
