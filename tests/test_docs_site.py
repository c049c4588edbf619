"""The documentation site: its build tools, and the built site in docs/_build/html.

The tools are tested on small made-up inputs (always). The built site (``bash
scripts/docs.sh``; ``scripts/test.sh`` builds it before the suite runs) is checked for what a
reader needs: a page per notebook holding every chart of that notebook, a page per public
name of the API with its anchor, every subcommand on the command-line page, no script or
stylesheet from another site anywhere — and, in headless Chromium with every request that
leaves the file system aborted, that a notebook page draws all its charts and that the
search page finds "alpha-hat". Where the site is not built, those tests are skipped, except
in CI (``CI`` set), where they fail: CI must build and check it. The browser check needs
Chromium and Playwright (the ``browser`` extra), with the same rule.

Screenshots of the home page and of a notebook page are left in
``docs/_build/screenshots/`` to be looked at.
"""

from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SITE = DOCS / "_build" / "html"
sys.path.insert(0, str(DOCS / "_ext"))

IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: the modules whose every public name the API reference must cover (the issue's list)
REQUIRED_MODULES = ("genexpy_nb", "genexpy_nb.variability", "genexpy_nb.significance",
                    "genexpy_nb.charts", "genexpy_nb.seedpools", "genexpy_nb.distributed")


def _skip_or_fail(why: str) -> None:
    if IN_CI:
        pytest.fail(f"{why}; in CI scripts/test.sh builds the site (scripts/docs.sh)")
    pytest.skip(why)


@pytest.fixture(scope="module")
def site() -> Path:
    if not (SITE / "index.html").is_file():
        _skip_or_fail("the site is not built (bash scripts/docs.sh)")
    return SITE


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


# --------------------------------------------------------------------------------------
# the build's tools, on made-up inputs


def _nb(outputs: list[dict], widgets: dict | None = None):
    import nbformat

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    nb.cells = [nbformat.v4.new_markdown_cell("# t"), cell]
    if widgets is not None:
        nb.metadata["widgets"] = {
            "application/vnd.jupyter.widget-state+json": {"state": widgets,
                                                          "version_major": 2,
                                                          "version_minor": 0}}
    return nb


def _spec(name: str) -> dict:
    return {"$schema": "https://vega.github.io/schema/vega/v5.json",
            "data": [{"name": "d", "values": [{"a": name}]}], "marks": []}


def _specs_in(text: str) -> list[dict]:
    found = re.findall(r'<script type="application/json" class="gx-vega-spec">(.*?)</script>',
                       text, flags=re.S)
    return [json.loads(s) for s in found]


def test_chart_outputs_become_escaped_specs():
    from gx_notebooks import VEGA_MIME, static_outputs

    evil = "</script><script>alert(1)</script>"
    nb = _nb([{"output_type": "display_data", "metadata": {},
               "data": {VEGA_MIME: _spec(evil), "text/plain": "<Vega chart>",
                        "application/x-unknown": "?"}}])
    out = static_outputs(nb).cells[1].outputs
    assert len(out) == 1 and set(out[0].data) == {"text/html"}
    page = out[0].data["text/html"]
    assert "</script><script>" not in page  # the name cannot end the script element
    assert _specs_in(page) == [_spec(evil)]  # ... and the spec is unchanged
    assert 'class="gx-vega"' in page


def test_panels_become_snapshots_and_progress_bars_go():
    from gx_notebooks import VEGA_MIME, WIDGET_VIEW, static_outputs

    def model(name, **state):
        return {"model_name": name, "model_module": "@jupyter-widgets/controls",
                "model_module_version": "2.0.0", "state": state}

    widgets = {
        "bar": model("HBoxModel", children=["IPY_MODEL_h", "IPY_MODEL_p"]),
        "h": model("HTMLModel", value="MMD 3/3"),
        "p": model("FloatProgressModel", value=3.0),
        "panel": model("VBoxModel", children=["IPY_MODEL_dd", "IPY_MODEL_out",
                                              "IPY_MODEL_chart"]),
        "dd": model("DropdownModel", description="metric", index=1,
                    _options_labels=["acc", "<f1>"]),
        "out": {"model_name": "OutputModel", "model_module": "@jupyter-widgets/output",
                "model_module_version": "1.0.0",
                "state": {"outputs": [{"output_type": "display_data", "metadata": {},
                                       "data": {VEGA_MIME: _spec("in output")}}]}},
        "chart": model("AnyModel", spec={
            "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
            "data": {"values": [{"x": 1}]}, "mark": "point",
            "encoding": {"x": {"field": "x", "type": "quantitative"}}}),
    }
    nb = _nb([{"output_type": "display_data", "metadata": {},
               "data": {WIDGET_VIEW: {"model_id": "bar"}, "text/plain": "HBox()"}},
              {"output_type": "execute_result", "metadata": {}, "execution_count": 1,
               "data": {WIDGET_VIEW: {"model_id": "panel"}, "text/plain": "VBox()"}}],
             widgets)
    page = static_outputs(nb)
    assert "widgets" not in page.metadata  # the state (megabytes of JavaScript) is gone
    out = page.cells[1].outputs
    assert len(out) == 1  # the progress bar is dropped
    snap = out[0].data["text/html"]
    assert "&lt;f1&gt;" in snap and "<f1>" not in snap  # the control's value, escaped
    specs = _specs_in(snap)
    assert len(specs) == 2  # the Output widget's chart and the JupyterChart, compiled
    assert all("vega/v" in s["$schema"] and "vega-lite" not in s["$schema"] for s in specs)


def test_a_panel_snapshot_is_its_first_state_and_lean():
    """Issue 51: the quickstart's panel snapshot showed alpha* 0.9 (set by a later cell)
    under text saying 0.95. The snapshot is the state its own cell left, without anywidget's
    JavaScript; the notebook-wide state (every model's last state) is not used then."""
    from gx_notebooks import SNAPSHOT_KEY, WIDGET_VIEW, static_outputs, widget_snapshot

    live = {
        "panel": {"_model_name": "VBoxModel", "_model_module": "@jupyter-widgets/controls",
                  "_model_module_version": "2.0.0",
                  "children": ["IPY_MODEL_alpha", "IPY_MODEL_chart", "IPY_MODEL_out"]},
        # an Output widget showing a chart's view (referred to by its model_id only)
        "out": {"_model_name": "OutputModel", "outputs": [
            {"output_type": "display_data", "metadata": {},
             "data": {WIDGET_VIEW: {"model_id": "chart2", "version_major": 2}}}]},
        "chart2": {"_model_name": "AnyModel", "_esm": "z" * 1000,
                   "spec": {"data": {"values": [{"x": 1}]}, "mark": "bar"}},
        "alpha": {"_model_name": "FloatSliderModel", "description": "alpha*", "value": 0.95},
        "chart": {"_model_name": "AnyModel", "_esm": "x" * 100_000, "_css": "y",
                  "spec": {"data": {"values": [{"x": 1}]}, "mark": "point"}},
        "other": {"_model_name": "HTMLModel", "value": "not part of the panel"},
    }
    snap = widget_snapshot(live, "panel")
    assert set(snap) == {"panel", "alpha", "chart", "out", "chart2"}
    assert "_esm" not in snap["chart"]["state"] and len(json.dumps(snap)) < 2_000
    live["alpha"]["value"] = 0.9  # a later cell moves the slider
    assert snap["alpha"]["state"]["value"] == 0.95
    nb = _nb([{"output_type": "display_data", "metadata": {SNAPSHOT_KEY: snap},
               "data": {WIDGET_VIEW: {"model_id": "panel"}, "text/plain": "VBox()"}}],
             widgets={k: {"model_name": v["_model_name"], "state": v}
                      for k, v in live.items()})
    page = static_outputs(nb).cells[1].outputs[0].data["text/html"]
    assert "0.95" in page and "0.9<" not in page
    assert page.count('class="gx-vega"') == 2  # both charts, the one in the Output too
    assert "widgets" not in static_outputs(nb).metadata


def test_cache_key_follows_the_code_and_the_package():
    from gx_notebooks import notebook_key

    a = _nb([])
    b = _nb([])
    b.cells[0].source = "# another title"  # markdown does not change the outputs
    assert notebook_key(a, "p1") == notebook_key(b, "p1")
    assert notebook_key(a, "p1") != notebook_key(a, "p2")
    b.cells[1].source = "y"
    assert notebook_key(a, "p1") != notebook_key(b, "p1")


def test_test_pins_are_kept_off_the_page():
    """Cells of checks get MyST-NB's remove-cell tag; other cells lose their asserts from the
    code shown; a cell whose names a later cell reads stays whole; nbval runs the notebook
    itself, untouched."""
    import nbformat
    from gx_notebooks import hide_checks

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in (
        "res = run()\nassert res.height == 3  # pinned\nres",
        "assert res.height == 3\nfor r in res.rows():\n    x = r[0]\n    assert x > 0",
        "np.testing.assert_allclose(res['a'], 1)",
        "share = res['a'].mean()\nassert share > 0.5",
        "print(share)",
        "%time run()",
    )]
    out = hide_checks(nb)
    tags = [c.metadata.get("tags", []) for c in out.cells]
    assert tags == [[], ["remove-cell"], ["remove-cell"], [], [], []]
    assert out.cells[0].source == "res = run()\nres"
    assert out.cells[3].source == "share = res['a'].mean()"  # share is printed later
    assert out.cells[5].source == "%time run()"
    assert [c.source for c in nb.cells][1].startswith("assert")  # the input is untouched


def test_polars_string_cells_lose_their_quotes():
    from gx_notebooks import unquote_strings

    table = ('<small>shape: (1, 3)</small><table border="1" class="dataframe"><tbody><tr>'
             '<td>&quot;SVM &quot;RBF&quot;&quot;</td><td>1</td>'
             '<td>[&quot;a&quot;, &quot;b&quot;]</td></tr></tbody></table>')
    assert unquote_strings(table) == table.replace(
        "<td>&quot;SVM &quot;RBF&quot;&quot;</td>", "<td>SVM &quot;RBF&quot;</td>")
    other = "<table><td>&quot;quoted on purpose&quot;</td></table>"  # not a polars table
    assert unquote_strings(other) == other


def test_docstring_checker_finds_missing_sections(tmp_path, monkeypatch):
    mod = tmp_path / "gx_doc_probe.py"
    mod.write_text('''
def good(x):
    """Add one.

    Parameters
    ----------
    x : int
        A number.

    Returns
    -------
    int
        ``x + 1``.
    """
    return x + 1


def no_params(x, y):
    """Add.

    Returns
    -------
    int
        The sum.
    """
    return x + y


def no_returns(x):
    """Twice.

    Parameters
    ----------
    x : int
        A number.
    """
    return 2 * x


def nothing(x):
    return x
''')
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = importlib.util.spec_from_file_location("check_docstrings",
                                                  ROOT / "scripts" / "check_docstrings.py")
    cd = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cd)
    names = {"gx_doc_probe": [(n, "function") for n in
                              ("good", "no_params", "no_returns", "nothing")]}
    lacking, per_module, checked = cd.report(names)
    assert lacking == {"gx_doc_probe.no_params": ["Parameters"],
                       "gx_doc_probe.no_returns": ["Returns"],
                       "gx_doc_probe.nothing": ["summary", "Parameters", "Returns"]}
    assert per_module["gx_doc_probe"] == 3 and checked["gx_doc_probe"] == 4


def test_docs_script_pins_torch_as_the_test_script():
    pins = [re.findall(r"torch==[0-9.]+", (ROOT / "scripts" / s).read_text())
            for s in ("test.sh", "docs.sh")]
    assert pins[0] and set(pins[0]) == set(pins[1])


def test_docs_script_makes_a_relative_data_dir_absolute(tmp_path):
    """scripts/docs.sh resolves GENEXPY_NB_DATA_DIR against the folder it was run from."""
    import subprocess

    script = (ROOT / "scripts" / "docs.sh").read_text()
    head = script.split('cd "$(dirname "$0")/.."')[0]  # the part before the cd
    (tmp_path / "d").mkdir()
    out = subprocess.run(["bash", "-c", head + 'echo "$GENEXPY_NB_DATA_DIR"'], cwd=tmp_path,
                         env={"PATH": "/usr/bin:/bin", "GENEXPY_NB_DATA_DIR": "d/../d"},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == str((tmp_path / "d").resolve())


def test_api_reference_covers_the_required_modules():
    from gx_api import documented_modules

    assert set(REQUIRED_MODULES) <= set(documented_modules())


# --------------------------------------------------------------------------------------
# the built site


def test_every_notebook_has_a_page_with_its_charts(site):
    assert NOTEBOOKS
    index = (site / "examples.html").read_text(encoding="utf-8")
    for nb in NOTEBOOKS:
        page = site / "notebooks" / f"{nb.stem}.html"
        assert page.is_file(), f"no page for {nb.name}"
        assert f'href="notebooks/{nb.stem}.html"' in index, f"{nb.name} not in the index"
        text = page.read_text(encoding="utf-8")
        # the executed copy the page was made from says how many charts the notebook drew
        copy = (DOCS / "notebooks" / nb.name).read_text(encoding="utf-8")
        expected = copy.count('class=\\"gx-vega\\"')
        specs = _specs_in(text)
        assert len(specs) == expected == text.count('class="gx-vega"'), nb.name
        for s in specs:
            assert s.get("$schema", "").startswith("https://vega.github.io/schema/vega/v")
            assert s.get("marks") or s.get("data"), nb.name
        assert "&lt;Vega chart" not in text, f"{nb.name}: a chart shown as its text fallback"
        # the Binder button opens the repository's notebook
        assert (f"mybinder.org/v2/gh/genexpy-nb/genexpy_nb/HEAD?urlpath=lab/tree/notebooks/"
                f"{nb.stem}.ipynb") in html.unescape(text), nb.name
    charted = [nb.stem for nb in NOTEBOOKS
               if (site / "notebooks" / f"{nb.stem}.html").read_text(encoding="utf-8")
               .count('class="gx-vega"')]
    # every notebook that draws a chart in JupyterLab draws it here (all but two do);
    # offline, the notebooks that read the public data files are not executed
    from conftest import NO_DATA, reads_public_data

    offline = [nb for nb in NOTEBOOKS if NO_DATA and reads_public_data(nb)]
    assert len(charted) >= len(NOTEBOOKS) - 2 - len(offline), charted


_REMOTE = re.compile(r"""<(script|link|iframe|img)\b[^>]*\b(src|href)\s*=\s*["']?"""
                     r"""(https?:)?//""", re.I)


def test_no_page_loads_anything_from_another_site(site):
    remote = []
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        # a link (<a href>) to another site is fine; a script, stylesheet, frame or image
        # that the page loads from one is not
        remote += [f"{page.relative_to(site)}: {text[m.start():m.start() + 160]}"
                   for m in _REMOTE.finditer(text)]
        assert "mathjax" not in text.lower(), page  # no math: no MathJax from a CDN
    assert not remote, remote[:5]
    bundle = site / "_static" / "vendor" / "vega-bundle.js"
    assert bundle.stat().st_size > 300_000  # Vega itself ships with the site


def test_api_pages_cover_every_public_name(site):
    from gx_api import all_public_names

    names = all_public_names()
    assert set(REQUIRED_MODULES) <= set(names)
    n = 0
    for module, items in names.items():
        mod_page = site / "api" / f"{module}.html"
        assert mod_page.is_file(), module
        for name, kind in items:
            if kind == "module":
                continue
            full = f"{module}.{name}"
            page = site / "api" / "generated" / f"{full}.html"
            assert page.is_file(), f"no API page for {full}"
            assert f'id="{full}"' in page.read_text(encoding="utf-8"), f"no anchor #{full}"
            n += 1
    assert n > 150
    analyze = (site / "api" / "generated" / "genexpy_nb.analyze.html").read_text("utf-8")
    assert 'id="genexpy_nb.analyze"' in analyze


def test_cli_page_lists_every_subcommand(site):
    from gx_api import subcommands

    from genexpy_nb.cli import build_parser

    text = (site / "cli.html").read_text(encoding="utf-8")
    subs = subcommands(build_parser())
    assert len(subs) >= 5
    for name, sub in subs.items():
        assert f'id="cli-{name}"' in text, name
        assert html.escape(f"usage: genexpy-nb {name}") in text, name
        for action in sub._actions:  # every option of every command is on the page
            for opt in action.option_strings:
                assert opt in text, (name, opt)


def test_guide_pages_and_search_index(site):
    for page in ("index", "install", "guide/study", "guide/questions", "guide/generalizability",
                 "guide/nstar", "guide/seeds", "guide/comparing", "cite", "changelog"):
        assert (site / f"{page}.html").is_file(), page
    nstar = (site / "guide" / "nstar.html").read_text(encoding="utf-8")
    for word in ("nstar_lo", "nstar_hi", "reliable", "reason", "nstar_null", "nstar_null_lo",
                 "nstar_null_hi", "beyond_chance"):
        assert word in nstar, word
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "home_nstar.svg" in home and (site / "_images" / "home_nstar.svg").is_file()
    assert (site / "searchindex.js").is_file()


# --------------------------------------------------------------------------------------
# in a browser, offline


@pytest.fixture(scope="module")
def browser_page(site):
    if CHROMIUM is None:
        _skip_or_fail("no Chromium on PATH (apt-get install chromium)")
    if importlib.util.find_spec("playwright") is None:
        _skip_or_fail("playwright is not installed (pip install 'genexpy_nb[browser]')")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update"],
            # scroll bars drawn as a reader sees them (Playwright hides them by default)
            ignore_default_args=["--hide-scrollbars"])
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        blocked: list[str] = []

        def route(r):
            if r.request.url.startswith(("file:", "data:", "blob:")):
                r.continue_()
            else:  # the network is off
                blocked.append(r.request.url)
                r.abort()

        context.route("**/*", route)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        # every console warning or error, whatever page logs it (Vega's "spec uses Vega v5"
        # warning, a failed fetch, ...): the site's pages log none
        console: list[str] = []
        page.on("console", lambda m: console.append(f"{m.type}: {m.text}")
                if m.type in ("warning", "error") else None)
        page.console_messages = console
        yield page, blocked, errors
        browser.close()


def _shot(page, name: str) -> None:
    out = SITE.parent / "screenshots"
    out.mkdir(exist_ok=True)
    page.screenshot(path=str(out / f"{name}.png"), full_page=True)


def test_notebook_page_draws_its_charts_offline(browser_page):
    page, blocked, errors = browser_page
    for name in ("03_cnn_seeds", "00_quickstart"):
        page.goto((SITE / "notebooks" / f"{name}.html").as_uri())
        n = page.evaluate("document.querySelectorAll('.gx-vega').length")
        assert n > 0, name
        page.wait_for_function(
            "() => Array.from(document.querySelectorAll('.gx-vega'))"
            ".every(e => e.querySelector('svg.marks, canvas'))", timeout=60_000)
        assert page.evaluate("document.querySelectorAll('.gx-vega-error').length") == 0
        drawn = page.evaluate("document.querySelectorAll('.gx-vega svg.marks').length")
        assert drawn == n, (name, drawn, n)
        _shot(page, f"notebook_{name}")
    assert not errors, errors
    assert not blocked, blocked[:5]


def test_home_page_and_search_work_offline(browser_page):
    page, blocked, errors = browser_page
    page.goto((SITE / "index.html").as_uri())
    page.wait_for_load_state("load")
    assert page.evaluate("document.querySelector('img[src*=\"home_nstar\"]').naturalWidth") > 0
    _shot(page, "home")
    page.goto((SITE / "search.html").as_uri() + "?q=alpha-hat")
    page.wait_for_function(
        "() => document.querySelectorAll('#search-results ul.search li').length > 0",
        timeout=60_000)
    hits = page.evaluate("Array.from(document.querySelectorAll('#search-results ul.search li"
                         " a')).map(a => a.getAttribute('href'))")
    assert any("guide/seeds" in h for h in hits), hits
    # opened from a file, no page is fetched for a snippet (a browser refuses it there, an
    # error per hit): the page says how to serve the folder for snippets instead
    note = page.evaluate("document.querySelector('.gx-search-note').textContent")
    assert "python -m http.server" in note, note
    _shot(page, "search")
    assert not errors, errors
    assert not page.console_messages, page.console_messages[:5]
    assert not blocked, blocked[:5]


def test_no_page_logs_a_console_warning_or_error(browser_page, site):
    """Every page of the site, opened offline: nothing in the console, every chart drawn.
    Screenshots of the home page, a case study, the CNN-seeds page and the API index."""
    page, blocked, errors = browser_page
    errors.clear()  # what earlier tests' pages logged is theirs
    shots = {"index": "tour_home", "notebooks/01_categorical_encoders": "tour_case_study",
             "notebooks/03_cnn_seeds": "tour_cnn_seeds", "api/index": "tour_api"}
    bad = {}
    for path in _pages(site):
        name = path.relative_to(site).with_suffix("").as_posix()
        if name.startswith("_"):  # the theme's and the build's fragments, not pages
            continue
        page.console_messages.clear()
        page.goto(path.as_uri(), wait_until="load")
        if page.evaluate("document.querySelectorAll('.gx-vega').length"):
            page.wait_for_function(
                "() => Array.from(document.querySelectorAll('.gx-vega'))"
                ".every(e => e.querySelector('svg.marks, canvas, .gx-vega-error'))",
                timeout=120_000)
        if page.console_messages or errors:
            bad[name] = [*page.console_messages, *errors]
            errors.clear()
        if name in shots:
            _shot(page, shots[name])
    assert not bad, {k: v[:3] for k, v in list(bad.items())[:10]}
    assert not blocked, blocked[:5]


#: what is checked for being cut at the page's width: the content's blocks
_WIDE = ", ".join(f"article {s}" for s in (
    "pre", "table", "div.highlight", "div.cell_output", "div.output", ".gx-vega", ".gx-panel",
    "img", "th", "td", "dl", "blockquote"))

#: for every block of the page's content wider than its box: where it is cut (nothing scrolls
#: it, or the box that clips it shows no scroll bar); a list of "what: why" lines
_CUT_JS = """(sel) => {
  const bad = [];
  const main = document.querySelector('article') || document.querySelector('main');
  if (!main) return bad;
  const right = main.getBoundingClientRect().right;
  const say = (el) => (el.tagName.toLowerCase() + (el.className && typeof el.className ===
      'string' ? '.' + el.className.trim().split(/\\s+/).slice(0, 2).join('.') : '') + ' "'
      + (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 50) + '"');
  for (const el of document.querySelectorAll(sel)) {
    if (!el.getClientRects().length) continue;  // not shown
    let box = el;
    while (box && box !== main.parentElement) {  // the nearest box that clips or scrolls
      if (getComputedStyle(box).overflowX !== 'visible') break;
      box = box.parentElement;
    }
    if (!box || box === main.parentElement) {
      if (el.getBoundingClientRect().right > right + 1)
        bad.push(say(el) + ': wider than the page, nothing scrolls it');
      continue;
    }
    if (box.scrollWidth <= box.clientWidth + 1) continue;  // it fits its box
    const ov = getComputedStyle(box).overflowX;
    const cs = getComputedStyle(box);
    const bar = box.offsetHeight - box.clientHeight - parseFloat(cs.borderTopWidth)
      - parseFloat(cs.borderBottomWidth);
    if ((ov === 'auto' || ov === 'scroll') && bar > 0) continue;  // a visible scroll bar
    bad.push(say(el) + ': cut (' + box.scrollWidth + ' px in ' + box.clientWidth
             + ' px, overflow ' + ov + (ov === 'hidden' || ov === 'clip' ? '' :
             ', no scroll bar shown') + ')');
  }
  return [...new Set(bad)];
}"""


def test_nothing_is_cut_at_the_page_width(browser_page, site):
    """Issue 51: at 1280 px, no table, code block, output or chart of any page is cut: it
    fits, or the box that holds it shows a scroll bar (the quickstart's table of the best
    classifier was cut at "N ve...", the conclusions guide's first code block at its
    comments)."""
    page, blocked, errors = browser_page
    page.set_viewport_size({"width": 1280, "height": 900})
    try:
        cut = {}
        for path in _pages(site):
            name = path.relative_to(site).with_suffix("").as_posix()
            if name.startswith("_"):
                continue
            page.goto(path.as_uri(), wait_until="load")
            if page.evaluate("document.querySelectorAll('.gx-vega').length"):
                page.wait_for_function(
                    "() => Array.from(document.querySelectorAll('.gx-vega'))"
                    ".every(e => e.querySelector('svg.marks, canvas, .gx-vega-error'))",
                    timeout=120_000)
            found = page.evaluate(_CUT_JS, _WIDE)
            if found:
                cut[name] = found
            if name in ("notebooks/00_quickstart", "guide/conclusions"):
                _shot(page, f"width_1280_{name.replace('/', '_')}")
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})
    assert not cut, {k: v[:4] for k, v in list(cut.items())[:12]}


def test_the_width_check_can_fail(browser_page, tmp_path):
    """The check above finds a cut block: a table in a box that clips it, a code block whose
    scroll bar is hidden; and passes a wide block that scrolls with its bar shown."""
    page, _, _ = browser_page
    wide = "x" * 400
    (tmp_path / "p.html").write_text(
        "<html><body><main><article style='width:600px'>"
        f"<div style='overflow:hidden'><table><tr><td>{wide}</td></tr></table></div>"
        f"<pre style='overflow-x:auto;scrollbar-width:none'>{wide}</pre>"
        f"<div class='ok' style='overflow-x:auto'><pre>{wide}</pre></div>"
        "</article></main></body></html>")
    page.goto((tmp_path / "p.html").as_uri())
    found = page.evaluate(_CUT_JS, _WIDE)
    assert any(f.startswith("table") and "overflow hidden" in f for f in found), found
    assert any(f.startswith("pre") and "no scroll bar shown" in f for f in found), found
    assert len([f for f in found if f.startswith("pre")]) == 1, found
