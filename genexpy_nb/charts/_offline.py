"""Charts that draw without network in notebooks: an Altair renderer that needs no CDN.

Altair's default renderer writes HTML that loads Vega, Vega-Lite and vega-embed from a CDN,
so without internet (clusters, trains, air-gapped machines) every chart shows "Error loading
script". JupyterLab 4, Notebook 7, VS Code and nteract instead draw Vega *specifications*
themselves, with the Vega runtime they bundle, from the MIME type
``application/vnd.vega.v5+json`` (they have no renderer for Vega-Lite 6, Altair's current
output). This renderer therefore compiles each chart's Vega-Lite spec to Vega in the kernel
with vl-convert (the Vega-Lite 6 compiler that Altair itself uses to save charts; a few
milliseconds per chart) and hands the frontend that Vega spec.

Why this and not the alternatives (measured on the repository's notebooks):

- inlining the Vega JavaScript (``vl_convert.javascript_bundle``) into each output costs
  ~1 MB per chart in the saved notebook, and scripts in outputs only run in trusted
  notebooks; once per page is fragile (clear or re-run the first chart's cell, reload, and
  the later charts lose their script);
- Altair's ``jupyter`` renderer (``JupyterChart``, offline) needs a running kernel to show
  anything: a saved notebook reopens with "model not found" instead of its charts, and each
  widget carries the ~1 MB bundle over the comm;
- a Vega spec is as small as the chart's data, is drawn without a kernel and without trust,
  and is stored in the notebook as data, not code.

Importing :mod:`genexpy_nb.charts` enables this renderer (named ``"genexpy_nb"``) when
Altair's default renderer is active, so every Altair chart displayed in that kernel
afterwards (also charts you build yourself) draws offline. A renderer you chose yourself is
left alone; ``alt.renderers.enable("default")`` goes back to Altair's (CDN) renderer.
Frontends without a Vega renderer (classic Notebook 6, GitHub's notebook preview) show the
text fallback; save such charts with ``chart.save("fig.html", inline=True)`` (the Vega
JavaScript inlined) or as PNG / SVG (:func:`genexpy_nb.charts.save_chart`).
"""

from __future__ import annotations

import json
from typing import Any

import altair as alt

#: the name the renderer is registered under in ``alt.renderers``
RENDERER_NAME = "genexpy_nb"
#: the MIME type the frontends (JupyterLab 4, Notebook 7, VS Code, nteract) draw offline
VEGA_MIME = "application/vnd.vega.v5+json"
_VEGA5_SCHEMA = "https://vega.github.io/schema/vega/v5.json"


def to_vega(spec: dict, schema_v5: bool = True) -> dict:
    """Compile a Vega-Lite spec (``chart.to_dict()``) to a Vega spec, with vl-convert.

    Parameters
    ----------
    spec : dict
        The Vega-Lite spec, e.g. ``chart.to_dict()``.
    schema_v5 : bool, default True
        Label the result Vega 5, the runtime the notebook frontends bundle (Vega-Lite 6's
        output uses nothing newer, and the browser test checks every chart of the
        notebooks draws); False keeps Vega 6 (for Altair's JupyterChart, which bundles
        Vega 6).

    Returns
    -------
    dict
        The Vega spec.
    """
    import vl_convert as vlc
    from altair.utils._importers import vl_version_for_vl_convert

    vega = vlc.vegalite_to_vega(spec, vl_version=vl_version_for_vl_convert())
    if schema_v5:
        vega["$schema"] = _VEGA5_SCHEMA
    return vega


def offline_renderer(spec: dict, **metadata: Any) -> tuple[dict, dict]:
    """Render a chart as a Vega spec that the notebook frontend draws itself (Altair renderer).

    Parameters
    ----------
    spec : dict
        The chart's Vega-Lite spec, as Altair hands it to a renderer.
    **metadata
        Renderer options from Altair; ``embed_options`` (else those of
        ``alt.renderers.options``) are passed on to the frontend.

    Returns
    -------
    tuple of dict
        The MIME bundle - the Vega spec under ``application/vnd.vega.v5+json`` and a text
        fallback under ``text/plain`` - and its metadata (the embed options, if any). When
        no JavaScript engine can start, only a text line saying why the chart is not drawn
        and how to save it.
    """
    from .._io import js_engine_problem

    if (problem := js_engine_problem()) is not None:  # the engine would abort the kernel
        return {"text/plain": f"<chart not drawn: {problem}; or save it: save_chart(chart, "
                              "'fig.html')>"}, {}
    vega = to_vega(spec)
    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    if isinstance(title, list):
        title = " ".join(map(str, title))
    text = (f"<Vega chart{': ' + str(title) if title else ''} - shown by JupyterLab, "
            "Notebook 7 and VS Code; elsewhere save it: chart.save('fig.html', inline=True)>")
    bundle = {VEGA_MIME: vega, "text/plain": text}
    meta: dict = {}
    embed = metadata.get("embed_options")
    if embed is None:
        embed = alt.renderers.options.get("embed_options")
    if embed:
        meta[VEGA_MIME] = {"embed_options": json.loads(json.dumps(embed))}
    return bundle, meta


def enable_offline_charts(force: bool = False) -> bool:
    """Register the offline renderer and enable it when Altair's default one is active.

    Parameters
    ----------
    force : bool, default False
        Enable it even when another renderer was chosen.

    Returns
    -------
    bool
        Whether the offline renderer is active afterwards.
    """
    if RENDERER_NAME not in alt.renderers.names():
        alt.renderers.register(RENDERER_NAME, offline_renderer)
    if force or alt.renderers.active == "default":
        alt.renderers.enable(RENDERER_NAME)
    return alt.renderers.active == RENDERER_NAME


# Importing this module (through genexpy_nb.charts) enables the renderer, as importing the
# package always did; the package's import hook leaves it to this line when this module
# is the one that imports Altair first.
enable_offline_charts()
