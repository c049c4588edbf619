"""Charts shown in notebooks draw without network: the "genexpy_nb" Altair renderer."""

import json
import subprocess
import sys
from pathlib import Path

import altair as alt
import polars as pl

from genexpy_nb import charts
from genexpy_nb.charts._offline import VEGA_MIME, enable_offline_charts, offline_renderer

ROOT = Path(__file__).resolve().parents[2]


def _chart():
    df = pl.DataFrame({"n": [2, 4, 6], "q": [0.5, 0.3, 0.2]})
    return alt.Chart(df).mark_line().encode(x="n", y="q").properties(title="quantiles")


def test_bundle_is_a_vega_spec_with_the_data_and_no_script():
    bundle, meta = offline_renderer(_chart().to_dict())
    assert set(bundle) == {VEGA_MIME, "text/plain"}  # no text/html: it would win in JupyterLab
    vega = bundle[VEGA_MIME]
    assert vega["$schema"].endswith("/vega/v5.json")
    assert any(m.get("type") == "line" for m in vega["marks"])
    values = [v for d in vega["data"] for v in d.get("values", [])]
    assert {"n": 4, "q": 0.3} in values
    text = json.dumps(bundle)
    assert "<script" not in text and "cdn.jsdelivr" not in text
    assert "quantiles" in bundle["text/plain"] and meta == {}


def test_embed_options_are_passed_to_the_frontend():
    _, meta = offline_renderer(_chart().to_dict(), embed_options={"actions": False})
    assert meta == {VEGA_MIME: {"embed_options": {"actions": False}}}


def test_charts_display_through_it_once_the_package_is_imported():
    assert charts.RENDERER_NAME == alt.renderers.active == "genexpy_nb"
    data, _ = _chart()._repr_mimebundle_()
    assert VEGA_MIME in data


def test_a_renderer_the_user_chose_is_left_alone():
    code = ("import altair as alt\nalt.renderers.enable('svg')\nimport genexpy_nb.charts\n"
            "assert alt.renderers.active == 'svg', alt.renderers.active\n"
            "from genexpy_nb.charts import enable_offline_charts\n"
            "assert enable_offline_charts(force=True) and alt.renderers.active == 'genexpy_nb'\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_default_renderer_replaced_on_import():
    prev = alt.renderers.active
    try:
        alt.renderers.enable("default")
        assert enable_offline_charts() and alt.renderers.active == "genexpy_nb"
    finally:
        alt.renderers.enable(prev)
