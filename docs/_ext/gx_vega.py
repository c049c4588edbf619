"""Charts drawn offline in the site: Vega bundled with the site, and the home page's figure.

- ``_static/vendor/vega-bundle.js`` is written at ``builder-inited`` from vl-convert's
  :func:`vl_convert.javascript_bundle` (Vega, Vega-Lite and vega-embed, no network), wrapped
  in a function so that its top-level names stay out of the page's global scope; it defines
  ``window.vegaEmbed``. Pages that hold a chart (an element ``.gx-vega``, written by
  :mod:`gx_notebooks`) load it and ``_static/genexpy_vega.js``, which draws each chart from
  its spec; no page loads a script from another site.
- ``_generated/home_figure.md`` (included by the home page) and its SVG are computed from the
  public encoder benchmark (``GENEXPY_NB_DATA_DIR``) at every build, with the package's own
  :func:`genexpy_nb.analyze`, so the numbers in its caption are the package's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

BUNDLE = Path("_static") / "vendor" / "vega-bundle.js"


def write_bundle(srcdir: Path) -> None:
    import vl_convert as vlc

    target = srcdir / BUNDLE
    head = f"/* Vega, Vega-Lite and vega-embed, bundled by vl-convert {vlc.__version__} */\n"
    if target.is_file():
        with target.open(encoding="utf-8") as f:
            if f.readline() == head:
                return
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.write_text(head + "(function () {\n" + vlc.javascript_bundle() + "\n})();\n",
                   encoding="utf-8")
    tmp.replace(target)


def add_chart_scripts(app: Sphinx, pagename: str, templatename: str, context: dict,
                      doctree: Any) -> None:
    """Load Vega and the drawing script on the pages that hold a chart."""
    if 'class="gx-vega"' in context.get("body", ""):
        app.add_js_file("vendor/vega-bundle.js", defer="defer")
        app.add_js_file("genexpy_vega.js", defer="defer")


# --------------------------------------------------------------------------------------
# the home page's figure

QUESTIONS = {"Mallows": "ranked in a consistent order?",
             "Jaccard(k=1)": "the same best encoder?"}


def home_figure(srcdir: Path) -> None:
    """The encoder benchmark's n* per configuration against the datasets it has."""
    import altair as alt
    import polars as pl
    import vl_convert as vlc

    import genexpy_nb as gx

    out_md = srcdir / "_generated" / "home_figure.md"
    out_svg = srcdir / "_static" / "generated" / "home_nstar.svg"
    out_md.parent.mkdir(parents=True, exist_ok=True)
    out_svg.parent.mkdir(parents=True, exist_ok=True)
    study = gx.Study(gx.load_encoders(), alternatives="encoder", target="cv_score",
                     higher_is_better=True, generalize="dataset",
                     design=["model", "tuning", "scoring"])
    res = gx.analyze(study, [gx.Mallows(), gx.Jaccard(k=1)], alphas=0.95, deltas=0.05,
                     estimators=["resample"], seed=0, progress=False)
    res = res.with_columns(
        pl.concat_str("model", "tuning", "scoring", separator=" · ").alias("configuration"),
        pl.col("kernel_label").replace_strict(QUESTIONS).alias("question"),
    )
    order = (res.filter(pl.col("kernel_label") == "Jaccard(k=1)").sort("nstar")
             ["configuration"].to_list())
    has_null = "nstar_null" in res.columns
    base = alt.Chart(res).encode(
        y=alt.Y("configuration:N", sort=order, title=None,
                axis=alt.Axis(labelFontSize=9)),
    )
    color = alt.Color("question:N", title="Are the encoders …",
                      scale=alt.Scale(domain=list(QUESTIONS.values()),
                                      range=["#4c78a8", "#e45756"]),
                      legend=alt.Legend(orient="top"))
    scale = alt.Scale(type="log", domain=[4, 80])
    x = alt.X("nstar:Q", title="n*: datasets needed (90 % interval)", scale=scale)
    layers = []
    if has_null:
        layers.append(base.mark_rule(color="#bbbbbb", size=6, opacity=0.6).encode(
            x="nstar_null_lo:Q", x2="nstar_null_hi:Q"))
    layers += [
        base.mark_rule(size=1.5).encode(x=alt.X("nstar_lo:Q", scale=scale), x2="nstar_hi:Q",
                                        color=color),
        base.mark_point(filled=True, size=30).encode(x=x, color=color),
        base.mark_tick(color="black", thickness=2, size=10).encode(x="N:Q"),
    ]
    chart = alt.layer(*layers).properties(width=520, height=alt.Step(11)).configure_view(
        stroke=None)
    from altair.utils._importers import vl_version_for_vl_convert

    svg = vlc.vegalite_to_svg(chart.to_dict(), vl_version=vl_version_for_vl_convert())
    if not out_svg.is_file() or out_svg.read_text(encoding="utf-8") != svg:
        out_svg.write_text(svg, encoding="utf-8")

    jac = res.filter(pl.col("kernel_label") == "Jaccard(k=1)")
    mal = res.filter(pl.col("kernel_label") == "Mallows")
    n_cfg = jac.height
    g_jac = int(jac["generalizable"].sum())
    g_mal = int(mal["generalizable"].sum())
    n_lo, n_hi = int(res["N"].min()), int(res["N"].max())
    null_text = ""
    if has_null and "beyond_chance" in res.columns:
        bc = int(jac["beyond_chance"].fill_null(False).sum())
        null_text = (
            f" The grey bars are the no-signal baseline: the n* the same configuration would "
            f"have if the scores were exchanged at random among the encoders on each dataset. "
            f"For the best encoder, {bc} of {n_cfg} configurations are consistent beyond what "
            f"chance alone would give.")
    text = f"""```{{figure}} /_static/generated/home_nstar.svg
:alt: n* of every configuration of the categorical-encoder benchmark for two research \
questions, against the number of datasets each configuration has
:width: 100%

**What the categorical-encoder benchmark can conclude.** Each row is one configuration
(model · tuning · quality metric) of the benchmark of Matteucci et al. (2023), which compares
{study.na} encoders on {n_lo} to {n_hi} datasets per configuration (the black tick). A dot is
n\\*, the
number of datasets needed for two studies like it to agree on the question with probability
0.95 (alpha\\* = 0.95, delta\\* = 0.05), with its 90 % interval. Left of the tick: the datasets
at hand suffice. "Are the encoders ranked in a consistent order?" holds for {g_mal} of
{n_cfg} configurations; "is the best encoder the same?" for {g_jac} of {n_cfg}.{null_text}
```
"""
    if not out_md.is_file() or out_md.read_text(encoding="utf-8") != text:
        out_md.write_text(text, encoding="utf-8")


def generate(app: Sphinx) -> None:
    srcdir = Path(app.srcdir)
    write_bundle(srcdir)
    home_figure(srcdir)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", generate, priority=400)
    app.connect("html-page-context", add_chart_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
