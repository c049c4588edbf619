"""Names from data never run as script, break a file or a table: a corpus of payloads fed
through every writer, each output checked for its format, the HTML pages also in headless
Chromium (no dialog opens, no script from the data runs).

The payloads are the names of alternatives, design levels, conditions, models and titles.
Every writer is one entry of ``WRITERS``: a function ``(folder, names, title) -> [paths]``
that writes its files from data holding the payloads; the checks are chosen by suffix
(``.html``, ``.svg``, ``.json``, ``.csv``, ``.tsv``, ``.md``, ``.tex``, ``.png``, ``.pdf``).
A new writer is one line in ``WRITERS``.
"""

from __future__ import annotations

import csv
import html.parser
import json
import os
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from genexpy_nb._escape import markdown_text

#: what a hostile or careless results table can name an alternative, a level or a title
PAYLOADS = [
    "</script><script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "'><svg onload=alert(3)>",
    "<!--",
    "x\u2028y\u2029z",
    "=HYPERLINK(\"http://evil.example\",\"click\")",
    "+cmd|' /C calc'!A0",
    "@SUM(A1:A2)",
    "-2+3",
    "a|b || c",
    "**bold** [link](http://x) `code` # heading",
    r"R2_score & 50% $x^2$ #1 {a} ~b \textbf{c}",
    "ünïcödé 日本語 🎉 مرحبا",
    "ctl\x01\x07\x1b[31mred\ttab",
    "line\nbreak",
    "L" * 1000,
]
#: a payload as it may legitimately come out (control characters dropped in XML)
_ALERT = re.compile(r"alert\(\d\)")


# ---- writers ------------------------------------------------------------------------------


def _study_table(names: list[str], levels: list[str], n_conditions: int = 16) -> pl.DataFrame:
    rng = np.random.default_rng(0)
    rows = [{"dataset": f"d{d}", "model": a, "metric": lev,
             "score": float(0.5 + 0.03 * i + rng.normal(0, 0.05))}
            for d in range(n_conditions) for lev in levels for i, a in enumerate(names)]
    return pl.DataFrame(rows)


def _generalizability(folder: Path, names: list[str], title: str) -> list[Path]:
    """The demo's figures and save_chart in every format, from a study named with payloads."""
    import genexpy_nb as gx
    from genexpy_nb.charts import generalizability as ch

    study = gx.Study(_study_table(names[:5], names[5:7]), alternatives="model",
                     target="score", generalize="dataset", design="metric",
                     higher_is_better=True)
    ga = gx.GeneralizabilityAnalysis(study, [gx.Jaccard(k=1), gx.Mallows()], rep=20,
                                     progress=False)
    res = ga.nstar(alphas=[0.9, 0.95], deltas=[0.05, 0.1])
    todo = gx.plan(res, alpha=0.95, delta=0.05)
    cfg = study.sample(0).config_id
    sim = gx.simulate_preliminary_study(study, [gx.Jaccard(k=1)], cfg, N0=8, rep=20,
                                        progress=False)
    charts = {
        "boxplots": ch.nstar_boxplots(res, vary="alpha").properties(title=title),
        "deficits": ch.deficit_heatmap(todo),
        "nstar_vs_N": ch.nstar_vs_N(sim),
        "ngen_curves": ch.ngen_curves(ga.ngen_frame(cfg, ga.kernels[0].label), alpha=0.95,
                                      eps=ga.kernels[0].eps(0.05)),
    }
    out = []
    for name, chart in charts.items():
        out += ch.save_chart(chart, [folder / f"{name}.{s}" for s in ("html", "svg", "json")])
    out += ch.save_chart(charts["boxplots"], [folder / "cdn.html", folder / "b.png"],
                         inline=False)
    return out


def _variability(folder: Path, names: list[str], title: str) -> list[Path]:
    from genexpy_nb.charts import save_chart
    from genexpy_nb.charts.variability import alpha_hat_scatter, ecdf_chart
    from genexpy_nb.variability import ecdf_frame

    rng = np.random.default_rng(1)
    gaps = rng.normal(size=(len(names), 50))
    ecdf = ecdf_chart(ecdf_frame(gaps, names), title=title, dashed=names[:1])
    report = pl.DataFrame({"candidate": np.arange(len(names)), "name": names,
                           "alpha_hat": rng.random(len(names)),
                           "accuracy": rng.random(len(names))})
    scatter = alpha_hat_scatter(report, "accuracy", highlight=names[0], name="name",
                                title=title)
    return (save_chart(ecdf, [folder / "ecdf.html", folder / "ecdf.svg"])
            + save_chart(scatter, [folder / "scatter.html", folder / "scatter.svg"]))


def _cd_diagram(folder: Path, names: list[str], title: str) -> list[Path]:
    from genexpy_nb.charts import cd_diagram, save_cd_diagram, save_chart
    from genexpy_nb.significance import critical_difference

    rng = np.random.default_rng(2)
    scores = rng.random((12, len(names))) + np.linspace(0, 1, len(names))
    ranks = critical_difference(scores, higher_is_better=True, order=names)
    return ([save_chart(cd_diagram(ranks, title=title), folder / "cd.html")]
            + save_cd_diagram(ranks, [folder / "cd.svg", folder / "cd.png"], title=title))


def _cli(folder: Path, names: list[str], title: str) -> list[Path]:
    """compare's folder (tables, CD diagram) and nstar's table, from a CSV of payloads."""
    from genexpy_nb.cli import main

    src = folder / "in" / "results.parquet"  # parquet: every payload survives the trip
    src.parent.mkdir()
    _study_table(names[:6], names[6:8], n_conditions=10).write_parquet(src)
    common = ["--alternatives", "model", "--target", "score", "--higher-is-better"]
    assert main(["compare", str(src), *common, "--blocks", "dataset,metric", "--figures",
                 "html,png,svg", "--out", str(folder / "cmp")]) == 0
    assert main(["compare", str(src), *common, "--blocks", "dataset,metric", "--figures",
                 "", "--format", "tsv", "--out", str(folder / "cmp_tsv")]) == 0
    assert main(["nstar", str(src), *common, "--generalize", "dataset", "--design", "metric",
                 "--rep", "20", "--quiet", "--out", str(folder / "nstar.csv")]) == 0
    return [p for p in sorted(folder.rglob("*")) if p.is_file() and "in" not in p.parts
            and not p.name.startswith(".")]


def _panels_table(folder: Path, names: list[str], title: str) -> list[Path]:
    from genexpy_nb.panels.views import html_table

    df = pl.DataFrame({names[0]: names, "value": np.arange(len(names), dtype=float)})
    page = folder / "table.html"
    page.write_text(f"<!DOCTYPE html><html><body>{html_table(df, highlight=names[1], key=names[0])}"
                    "</body></html>", encoding="utf-8")
    return [page]


def _frames(folder: Path, names: list[str], title: str) -> list[Path]:
    from genexpy_nb import write_frame

    df = pl.DataFrame({"name": names, "tags": [[n, "x"] for n in names],
                       "score": np.arange(len(names), dtype=float)})
    return [write_frame(df, folder / f"t.{s}") for s in ("csv", "tsv", "json", "parquet")]


#: every writer on this branch; a new one is one line here
WRITERS: dict[str, Callable[[Path, list[str], str], list[Path]]] = {
    "save_chart: the demo's generalizability figures (html inline and CDN, svg, png, json)":
        _generalizability,
    "save_chart: variability charts (eCDF, alpha-hat scatter)": _variability,
    "CD diagram: cd_diagram inline html, save_cd_diagram svg/png": _cd_diagram,
    "CLI: compare folder (tables, CD diagram), nstar table": _cli,
    "panels: HTML tables": _panels_table,
    "write_frame: csv, tsv, json, parquet": _frames,
}

_BUILT: dict[str, list[Path]] = {}


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("payloads")


def _outputs(writer: str, root: Path) -> list[Path]:
    if writer not in _BUILT:
        folder = root / re.sub(r"\W+", "_", writer)[:40]
        shutil.rmtree(folder, ignore_errors=True)  # a failed earlier attempt
        folder.mkdir()
        _BUILT[writer] = [Path(p) for p in WRITERS[writer](folder, list(PAYLOADS), PAYLOADS[0])]
    return _BUILT[writer]


# ---- checks by format ---------------------------------------------------------------------


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data


def check_html(text: str) -> None:
    """Parsed as a browser does: no element and no attribute from the data, and every script
    is one of the page's own (the payloads stay strings inside the embedded spec)."""
    p = _Tags()
    p.feed(text)
    tags = {t for t, _ in p.tags}
    # pages may inline their own SVG drawing (the CD diagram); a payload's <svg onload=...>
    # is caught by the event-handler check below
    assert not tags & {"img", "iframe", "object", "embed", "foreignobject"}, tags
    handlers = [(t, a) for t, attrs in p.tags for a, _ in attrs if a.lower().startswith("on")]
    assert not handlers, handlers
    for s in p.scripts:
        if _ALERT.search(s):  # only the embedded spec holds the names, as JSON strings
            assert re.search(r"\b(spec|const|var)\b", s) and "vegaEmbed" in s, s[:300]
            assert not _ALERT.search(_strip_json(s)), "a payload outside a JSON string"
    assert len(p.scripts) <= 4, len(p.scripts)


def _strip_json(script: str) -> str:
    """The script with its JSON string literals removed (what would run as code)."""
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', script)


def check_svg(text: str) -> None:
    """Well-formed XML (control characters dropped), no script, no event handler."""
    root = ET.fromstring(text)
    for el in root.iter():
        tag = el.tag.rsplit("}", 1)[-1]
        assert tag not in ("script", "foreignObject"), tag
        assert not [a for a in el.attrib if a.rsplit("}", 1)[-1].lower().startswith("on")]


def check_json(text: str) -> None:
    json.loads(text)


def check_delimited(text: str, sep: str) -> None:
    """No cell a spreadsheet would run as a formula."""
    for row in csv.reader(text.splitlines(), delimiter=sep):
        for cell in row:
            if cell[:1] in ("=", "+", "-", "@"):
                try:
                    float(cell)
                except ValueError:
                    pytest.fail(f"formula cell {cell[:60]!r}")


def check_markdown(text: str) -> None:
    """Tables keep their columns (pipes escaped), no raw HTML from the data."""
    assert "<script" not in text and "<img" not in text
    width = None
    for line in text.splitlines():
        if line.startswith("|"):
            cells = len(re.findall(r"(?<!\\)\|", line))
            width = width or cells
            assert cells == width, line[:200]
        elif width is not None:
            width = None


def check_latex(text: str) -> None:
    """Data rows keep their columns (& escaped); no unescaped special character."""
    for line in text.splitlines():
        if line.rstrip().endswith(r"\\") and "&" in line:
            stripped = re.sub(r"\\.", "", line)  # escaped characters and commands' first char
            # the table's own math: "$p$ vs. control", "$<0.001$", "$p = 0.02$", "$^{*}$"
            stripped = re.sub(r"\$(?:p|< ?0\.001|p [=<] [\d.e-]+|[\d.e-]+|\^\{\*+\})\$", "",
                              stripped)
            assert not re.search(r"[%#$_^~]", stripped), line[:200]


def check_binary(data: bytes, suffix: str) -> None:
    magic = {".png": b"\x89PNG", ".pdf": b"%PDF", ".parquet": b"PAR1"}[suffix]
    assert data.startswith(magic)


def check_file(p: Path) -> None:
    s = p.suffix.lower()
    if s in (".png", ".pdf", ".parquet"):
        return check_binary(p.read_bytes(), s)
    text = p.read_text(encoding="utf-8")
    {".html": check_html, ".svg": check_svg, ".json": check_json,
     ".csv": lambda t: check_delimited(t, ","), ".tsv": lambda t: check_delimited(t, "\t"),
     ".md": check_markdown, ".tex": check_latex,
     }[s](text)


@pytest.mark.parametrize("writer", list(WRITERS))
def test_every_writer_escapes_every_payload(writer, corpus_dir):
    files = _outputs(writer, corpus_dir)
    assert files
    for p in files:
        check_file(p)
    # the payloads went through (as data): the script one is in some text output
    texts = [p.read_text(encoding="utf-8") for p in files
             if p.suffix in (".html", ".svg", ".json", ".csv", ".tsv", ".md", ".tex")]
    assert any("alert(1)" in t for t in texts)


def test_the_checks_catch_what_they_look_for():
    """The checks above fail on the unescaped outputs they guard against."""
    bad = ("<html><body><script>const spec = {\"a\": \"</script><script>alert(1)</script>"
           "\"};vegaEmbed()</script></body></html>")
    with pytest.raises(AssertionError):
        check_html(bad)
    with pytest.raises(AssertionError):
        check_html('<div title="x"><img src=x onerror=alert(2)></div>')
    with pytest.raises(ET.ParseError):
        check_svg("<svg xmlns='http://www.w3.org/2000/svg'><text>a\x01</text></svg>")
    with pytest.raises(AssertionError):
        check_svg("<svg xmlns='http://www.w3.org/2000/svg'><text onclick='x'>alert(1)"
                  "</text></svg>")
    with pytest.raises(pytest.fail.Exception):
        check_delimited("name\n=HYPERLINK(1)\n", ",")
    with pytest.raises(AssertionError):
        check_markdown("| a | b |\n|---|---|\n| x|y | 1 |\n")
    check_markdown(f"| a | b |\n|---|---|\n| {markdown_text('x|y')} | 1 |\n")
    with pytest.raises(AssertionError):
        check_latex(r"R2_score & 50% \\")


# ---- in a browser ---------------------------------------------------------------------------


def _chromium() -> str | None:
    import importlib.util

    if importlib.util.find_spec("playwright") is None:
        return None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def test_no_script_from_the_data_runs_in_chromium(corpus_dir):
    """Every HTML page opened in headless Chromium (network blocked): no dialog opens
    (the payloads call alert), and the charts still draw. Skipped without Chromium and
    playwright, except in CI (``CI`` set), where it must run (as tests/test_browser.py)."""
    if _chromium() is None:
        why = "needs Chromium and playwright (pip install 'genexpy_nb[browser]')"
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"the browser check cannot run in CI: {why}")
        pytest.skip(why)
    from playwright.sync_api import sync_playwright

    pages = [p for w in WRITERS for p in _outputs(w, corpus_dir) if p.suffix == ".html"]
    assert len(pages) >= 8
    # a canary: the same payload written unescaped does open a dialog (the check can fail)
    canary = corpus_dir / "canary.html"
    canary.write_text(f"<html><body><script>var s = '{PAYLOADS[0].replace('1', '9')}';"
                      "</script></body></html>", encoding="utf-8")
    dialogs: list[str] = []
    drawn = 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(),
                                     args=["--no-sandbox", "--disable-gpu"])
        try:
            ctx = browser.new_context()
            ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith(
                ("file:", "data:", "blob:")) else r.abort())
            page = ctx.new_page()
            page.on("dialog", lambda d: (dialogs.append(f"{d.message}"), d.dismiss()))
            for p in [canary, *pages]:
                page.goto(p.as_uri())
                static = "vegaEmbed" not in p.read_text(encoding="utf-8")  # e.g. report.html
                if "cdn" in p.name or "table" in p.name or p == canary or static:
                    page.wait_for_timeout(200)
                    continue
                page.wait_for_selector("#vis svg, #vis canvas", timeout=30_000)
                drawn += 1
                page.wait_for_timeout(100)
        finally:
            browser.close()
    assert dialogs == ["9"], dialogs  # the canary's, none from the writers' pages
    assert drawn >= 6
