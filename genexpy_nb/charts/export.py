"""Saving charts: HTML that opens offline, PNG, SVG, PDF and Vega-Lite JSON.

HTML has the Vega JavaScript inlined (cached on disk); every file is written atomically;
what cannot be written on this machine degrades to what can, with a warning
(:func:`save_chart`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import altair as alt

from .._validation import GenexpyInputError

__all__ = [
    "save_chart",
    "vega_lite_spec",
    "vl_version",
    "vega_script",
    "cached_vega_script",
    "bundle_names",
    "inline_html",
    "cdn_html",
]

# ---------------------------------------------------------------------------------------
_SAVE_FORMATS = ("html", "png", "svg", "pdf", "json")


def save_chart(chart: alt.TopLevelMixin, path: str | Path | Sequence[str | Path], *,
               inline: bool = True) -> Path | list[Path]:
    """Save a chart as HTML, PNG, SVG, PDF or Vega-Lite JSON, chosen by the file suffix.

    HTML inlining, PNG, SVG and PDF use ``vl-convert-python`` (no browser needed). Every
    file is written atomically (a temporary name, then renamed): an interrupted save never
    leaves half a file.

    Parameters
    ----------
    chart : altair.TopLevelMixin
        The Altair chart to save (any top-level chart: single, layered, concatenated).
    path : str, Path or sequence of str or Path
        The file to write; its suffix (``.html``, ``.png``, ``.svg``, ``.pdf`` or
        ``.json``) chooses the format. A list of paths (e.g.
        ``["fig.html", "fig.png", "fig.svg"]``) converts the chart once and writes it in
        every format (faster than one call per file).
    inline : bool, default True
        For HTML: embed the Vega JavaScript, so the file displays offline - on a cluster,
        in a mail attachment; False loads it from a CDN (smaller file, needs network).

    Returns
    -------
    Path or list of Path
        The path written; for a list of paths, the list of paths written (those skipped
        are left out).

    Raises
    ------
    GenexpyInputError
        When ``chart`` is not an Altair chart, a suffix is not one of the formats, or
        nothing asked for can be written on this machine.

    Notes
    -----
    Where vl-convert's JavaScript engine cannot start (not installed, or an address-space
    limit such as ``ulimit -v``: see ``genexpy_nb._io.js_engine_problem``), what can be
    written still is - the JSON spec, and HTML (loading Vega from a CDN unless the bundle
    is already cached) - and an ``ExportSkippedWarning`` says what was skipped and why; a
    :class:`~genexpy_nb.GenexpyInputError` when nothing asked for can be written.
    Strings from the data are embedded with ``genexpy_nb._escape.script_json``: a name
    such as ``</script><script>...`` never runs as script.
    """
    import warnings

    from .._io import ExportSkippedWarning, atomic_write, js_engine_problem, save_targets

    if not isinstance(chart, alt.TopLevelMixin):
        raise GenexpyInputError(f"chart must be an Altair chart, got {type(chart).__name__}.")
    many, paths, fmts = save_targets(path, _SAVE_FORMATS, "cannot save as {suffix}: use a path "
                                     "ending in .html, .png, .svg, .pdf or .json.")
    needs_vlc = [f for f in fmts if f in ("png", "svg", "pdf") or (f == "html" and inline)]
    problem = js_engine_problem() if needs_vlc else None
    skipped = [p for p, f in zip(paths, fmts) if problem and f in ("png", "svg", "pdf")]
    if skipped and len(skipped) == len(paths):
        raise GenexpyInputError(
            f"cannot save {', '.join(p.name for p in skipped)}: {problem}. Save the chart as "
            ".html or .json instead.")
    bundle = None
    if "html" in fmts and inline:
        bundle = vega_script() if problem is None else cached_vega_script()
    spec = vega_lite_spec(chart)  # validated once, every data set inlined
    svg: str | None = None
    written = []
    for p, fmt in zip(paths, fmts):
        if p in skipped:
            continue
        with atomic_write(p, "wb" if fmt in ("png", "pdf") else "w") as fh:
            svg = _write_format(fh, fmt, spec, bundle, fmts, svg)
        written.append(p)
    notes = _save_notes(paths, fmts, skipped, inline=inline, bundle=bundle)
    if notes:
        warnings.warn(ExportSkippedWarning("; ".join(notes), str(problem)), stacklevel=2)
    return written if many else written[0]


def _write_format(fh: Any, fmt: str, spec: dict, bundle: str | None, fmts: list[str],
                  svg: str | None) -> str | None:
    """Write ``spec`` as ``fmt`` to the open file ``fh``; return the SVG made so far.

    ``svg`` is the SVG text already rendered for this chart (or None): when the formats
    asked for (``fmts``) include SVG, a PNG rasterizes it, so the layout is computed once.
    """
    if fmt == "html" and bundle is not None:
        fh.write(inline_html(spec, bundle))
    elif fmt == "html":
        fh.write(cdn_html(spec))
    elif fmt == "json":
        import json

        fh.write(json.dumps(spec, indent=2))
    else:
        import vl_convert as vlc

        vl = vl_version()
        if fmt == "svg" or (fmt == "png" and "svg" in fmts):
            if svg is None:
                svg = vlc.vegalite_to_svg(spec, vl_version=vl)
            # PNG rasterizes the SVG: the layout is computed once for both
            fh.write(svg if fmt == "svg" else vlc.svg_to_png(svg, scale=1))
        elif fmt == "png":
            fh.write(vlc.vegalite_to_png(spec, vl_version=vl, scale=1))
        else:
            fh.write(vlc.vegalite_to_pdf(spec, vl_version=vl, scale=1))
    return svg


def _save_notes(paths: list[Path], fmts: list[str], skipped: list[Path], *, inline: bool,
                bundle: str | None) -> list[str]:
    """Return what the warning of :func:`save_chart` says: files skipped, pages using a CDN."""
    notes = []
    if skipped:
        notes.append(f"skipped {', '.join(p.name for p in skipped)}")
    cdn = [p.name for p, f in zip(paths, fmts) if f == "html" and inline and bundle is None]
    if cdn:
        notes.append(f"{', '.join(cdn)} load(s) the Vega JavaScript from a CDN (needs network "
                     "to display)")
    return notes


def vl_version() -> str:
    """Return the Vega-Lite version that vl-convert compiles this Altair's charts with."""
    from altair.utils._importers import vl_version_for_vl_convert

    return vl_version_for_vl_convert()


def vega_lite_spec(chart: alt.TopLevelMixin) -> dict:
    """Return the chart's Vega-Lite spec as Altair's ``save`` makes it.

    All data are inlined, with no row limit; strings are cleaned of what renderers cannot
    draw (:func:`~genexpy_nb._escape.drawable`: a control character in a name aborted the
    process in vl-convert's SVG renderer).
    """
    from .._escape import drawable

    with alt.data_transformers.enable("default"), alt.data_transformers.disable_max_rows():
        return drawable(chart.to_dict(context={"pre_transform": False}))


#: the JavaScript bundle, once read or built in this process
_BUNDLE: dict[str, str] = {}


def vega_script() -> str:
    """Return the Vega + Vega-Lite + vega-embed JavaScript, bundled by vl-convert, cached on disk.

    vl-convert bundles the libraries anew in every process (about 10 s of CPU, holding the
    GIL); the bundle depends only on the vl-convert and Vega-Lite versions, so it is kept
    in the user's cache folder (pooch's ``os_cache("genexpy_nb")``) under a name holding
    both versions, and written atomically. Without a writable cache it is rebuilt each time.
    """
    import vl_convert as vlc

    from .._io import atomic_write

    name, cache = bundle_names()
    cached = cached_vega_script()
    if cached is not None:
        return cached
    script = _BUNDLE[name] = vlc.javascript_bundle(vl_version=vl_version())
    if cache is not None:
        try:
            with atomic_write(cache, "w") as fh:
                fh.write(script)
        except OSError:
            pass  # a read-only home: the HTML is still complete, only slower to make
    return script


def bundle_names() -> tuple[str, Path | None]:
    """Return (name of the bundle for these versions, its path in the user's cache or None)."""
    import vl_convert as vlc

    name = f"vega-embed-bundle_vl{vl_version()}_vlconvert{vlc.__version__}.js"
    try:
        import pooch

        return name, Path(pooch.os_cache("genexpy_nb")) / name
    except OSError:
        return name, None


def cached_vega_script() -> str | None:
    """Return the Vega JavaScript bundle if this process or the disk cache has it, else None.

    Needs no JavaScript engine: the bundle is only read, never built.
    """
    try:
        name, cache = bundle_names()
    except ImportError:  # no vl-convert
        return None
    if name in _BUNDLE:
        return _BUNDLE[name]
    try:
        if cache is not None and cache.is_file():
            _BUNDLE[name] = cache.read_text(encoding="utf-8")
            return _BUNDLE[name]
    except OSError:
        pass
    return None


def inline_html(spec: dict, bundle: str | None = None) -> str:
    """Return a standalone HTML page of a Vega-Lite spec with the Vega JavaScript inlined.

    The same page as Altair's ``chart.save(path, inline=True)`` (its inline template), with
    the JavaScript bundle taken from :func:`vega_script`'s cache, and the spec embedded
    with ``genexpy_nb._escape.script_json``: a name from the data such as
    ``</script><script>...`` stays a string of the spec instead of ending the element.
    """
    from altair.utils.html import INLINE_HTML_TEMPLATE

    from .._escape import script_json

    return INLINE_HTML_TEMPLATE.render(
        spec=script_json(spec), embed_options=script_json({"mode": "vega-lite"}),
        output_div="vis", vegalite_version=alt.VEGALITE_VERSION,
        vegaembed_script=vega_script() if bundle is None else bundle,
    )


def cdn_html(spec: dict) -> str:
    """Return the HTML page of ``chart.save(path, inline=False)`` (Vega loaded from a CDN).

    The spec is embedded by ``genexpy_nb._escape.script_json`` (Altair's own ``json.dumps``
    lets ``</script>`` in a name end the element).
    """
    from altair.utils.html import HTML_TEMPLATE

    from .._escape import script_json

    return HTML_TEMPLATE.render(
        spec=script_json(spec), embed_options=script_json({"mode": "vega-lite"}),
        mode="vega-lite", vega_version=alt.VEGA_VERSION, vegalite_version=alt.VEGALITE_VERSION,
        vegaembed_version=alt.VEGAEMBED_VERSION, base_url="https://cdn.jsdelivr.net/npm",
        output_div="vis", fullhtml=True, requirejs=False,
    )
