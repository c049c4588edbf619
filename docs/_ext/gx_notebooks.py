"""The repository's notebooks as pages of the site: executed once, cached, charts kept.

At ``builder-inited`` every ``notebooks/*.ipynb`` of the repository is

1. executed with nbclient in a temporary folder (as ``nb_execution_in_temp`` would), or taken
   from the cache: ``docs/_build/.notebook_cache/<name>.<key>.ipynb``, where the key hashes
   the notebook's code cells, its kernel, and the package's source and shipped data (an
   executed notebook is only reused while the code that produced its outputs is the same;
   jupyter-cache, MyST-NB's own cache, keys on the notebook alone and would keep outputs of
   an older package);
2. rewritten for a static page (:func:`static_outputs`): every chart output
   (``application/vnd.vega.v5+json``, the MIME type the package's offline renderer emits) and
   every chart inside an ipywidgets panel becomes an HTML element holding its Vega spec
   (through :func:`genexpy_nb._escape.script_json`), which ``_static/genexpy_vega.js`` draws
   with the Vega bundled with the site (no CDN); a panel becomes a static snapshot of its
   first state (the lean state its cell left, kept in the output's metadata while
   executing: a later cell that moves its sliders does not change the picture); progress
   bars are dropped, and so is the widget state (megabytes of JavaScript that would need a
   CDN-hosted widget manager to do anything; the cached executed notebooks do not store it);
3. shown without its test pins (:func:`hide_checks`): a code cell that only checks results
   (``assert`` statements, ``assert_*`` calls, loops of them, and names used by nothing
   later) gets MyST-NB's ``remove-cell`` tag, and the ``assert`` statements of the other
   cells are left out of the code shown (their outputs are those of the full cell). The
   notebooks themselves keep every check, and the test suite runs them (nbval), as this
   build does; polars tables show their string cells without quotes (:func:`unquote_strings`);
4. written to ``docs/notebooks/<name>.ipynb`` (generated, not in git) only when it changed,
   so that Sphinx re-reads only what changed. MyST-NB then renders it without executing
   (``nb_execution_mode = "off"``).

A cell that raises fails the build, with the notebook, the cell and the traceback. Offline
(``GENEXPY_NB_NO_DATA`` set by ``scripts/public_data.py``), the notebooks that read the public
data files are not executed: their pages show the notebook without outputs (or the cached
ones).
``GENEXPY_NB_DOCS_NOTEBOOKS`` (comma-separated names, e.g. ``00_quickstart``) executes only
those notebooks, and ``GENEXPY_NB_DOCS_EXECUTE=0`` none: the others get their cached outputs
when the cache has them, otherwise a page without outputs (for iterating on the site; CI
executes every notebook, and the site check fails on a page without its charts).
"""

from __future__ import annotations

import ast
import base64
import copy
import hashlib
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError


def _say(text: str) -> None:
    """Progress on stderr: shown under ``sphinx -q`` too (executing takes minutes)."""
    print(f"docs: {text}", file=sys.stderr, flush=True)

VEGA_MIME = "application/vnd.vega.v5+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
#: MIME types MyST-NB renders itself (anything else in an output would be a build warning)
RENDERED = ("text/html", "image/png", "image/jpeg", "image/svg+xml", "text/markdown",
            "text/latex", "text/plain")
#: the executed notebooks' cache, next to the HTML output
CACHE_DIR = Path("_build") / ".notebook_cache"
#: seconds a cell may run (the test suite's nbval limit)
CELL_TIMEOUT = 900

PANEL_NOTE = (
    '<p class="gx-panel-note">A snapshot of an interactive panel in its first state. Its '
    "controls work in a running notebook: launch this page on Binder (the rocket at the "
    "top) or open the notebook in JupyterLab.</p>")


# --------------------------------------------------------------------------------------
# static outputs


def chart_html(vega_spec: dict, label: str | None = None) -> str:
    """An element that ``genexpy_vega.js`` turns into the chart (the spec as script JSON)."""
    from genexpy_nb._escape import html_text, script_json

    if label is None:
        title = vega_spec.get("title")
        if isinstance(title, dict):
            title = title.get("text")
        if isinstance(title, list):
            title = " ".join(map(str, title))
        label = str(title) if title else "chart"
    return (f'<div class="gx-vega" role="figure" aria-label="{html_text(label)}">'
            f'<script type="application/json" class="gx-vega-spec">{script_json(vega_spec)}'
            '</script><noscript>This chart needs JavaScript.</noscript></div>')


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "".join(map(str, value))
    return str(value)


class _Widgets:
    """A static HTML snapshot of ipywidgets views, from the notebook's saved widget state."""

    BOXES = {"VBoxModel": "vbox", "HBoxModel": "hbox", "BoxModel": "vbox",
             "GridBoxModel": "vbox", "AccordionModel": "vbox", "TabModel": "vbox",
             "StackModel": "vbox"}
    PROGRESS = {"FloatProgressModel", "IntProgressModel"}

    def __init__(self, state: dict[str, Any]):
        self.state = state

    def model(self, ref: Any) -> dict | None:
        if isinstance(ref, str) and ref.startswith("IPY_MODEL_"):
            ref = ref[len("IPY_MODEL_"):]
        return self.state.get(ref) if isinstance(ref, str) else None

    def is_progress(self, ref: Any) -> bool:
        """A progress bar (tqdm's HBox of HTML, progress, HTML), or a box of nothing else."""
        m = self.model(ref)
        if m is None:
            return False
        if m.get("model_name") in self.PROGRESS:
            return True
        if m.get("model_name") in self.BOXES:
            children = m["state"].get("children", [])
            return any(self.model(c) and self.model(c).get("model_name") in self.PROGRESS
                       for c in children)
        return False

    def html(self, ref: Any, depth: int = 0) -> str:
        from genexpy_nb._escape import html_text

        m = self.model(ref)
        if m is None or depth > 50:
            return ""
        name, st = m.get("model_name", ""), m.get("state", {})
        if name in self.BOXES:
            kids = [self.html(c, depth + 1) for c in st.get("children", [])
                    if not self.is_progress(c)]
            titles = st.get("titles") or []
            parts = []
            for i, k in enumerate(kids):
                if i < len(titles) and titles[i]:
                    parts.append(f'<div class="gx-w-title">{html_text(titles[i])}</div>')
                parts.append(k)
            return f'<div class="gx-w-{self.BOXES[name]}">{"".join(parts)}</div>'
        if name in ("HTMLModel", "HTMLMathModel"):
            # HTML the package's panel wrote (names from data escaped there), as JupyterLab
            # shows it
            return f'<div class="gx-w-html">{st.get("value", "")}</div>'
        if name == "LabelModel":
            return f'<span class="gx-w-label">{html_text(st.get("value", ""))}</span>'
        if name == "OutputModel":
            return "".join(self.output_html(o, depth + 1) for o in st.get("outputs", []))
        if name == "AnyModel" and isinstance(st.get("spec"), dict):  # Altair JupyterChart
            from genexpy_nb.charts import to_vega

            return chart_html(to_vega(st["spec"]))
        if name in self.PROGRESS:
            return ""
        if name == "ButtonModel":
            return (f'<span class="gx-w-control gx-w-button">'
                    f'{html_text(st.get("description", ""))}</span>')
        value = self.value(name, st)
        if value is None:
            return ""
        desc = st.get("description", "")
        desc_html = f'<span class="gx-w-desc">{html_text(desc)}</span> ' if desc else ""
        return (f'<span class="gx-w-control">{desc_html}'
                f'<span class="gx-w-value">{html_text(value)}</span></span>')

    @staticmethod
    def value(name: str, st: dict) -> str | None:
        """The value a control shows, as text (None: not a control)."""
        labels = st.get("_options_labels")
        if labels is not None and "index" in st:  # Dropdown, Select, SelectionSlider, ...
            idx = st["index"]
            if isinstance(idx, list | tuple):
                return ", ".join(str(labels[i]) for i in idx if 0 <= i < len(labels))
            return str(labels[idx]) if isinstance(idx, int) and 0 <= idx < len(labels) else ""
        if "value" in st and name.endswith("Model"):
            v = st["value"]
            if isinstance(v, list | tuple):
                return " – ".join(map(str, v))
            return str(v)
        return None

    def output_html(self, out: dict, depth: int = 0) -> str:
        """One nbformat output as HTML (inside a panel's Output widget)."""
        from genexpy_nb._escape import html_text

        kind = out.get("output_type")
        if kind == "stream":
            return f'<pre class="gx-w-stream">{html_text(_text(out.get("text", "")))}</pre>'
        if kind == "error":
            return (f'<pre class="gx-w-stream">{html_text(out.get("ename", ""))}: '
                    f'{html_text(out.get("evalue", ""))}</pre>')
        data = out.get("data", {})
        if VEGA_MIME in data:
            return chart_html(data[VEGA_MIME])
        if WIDGET_VIEW in data:
            ref = data[WIDGET_VIEW].get("model_id")
            return "" if self.is_progress(ref) else self.html(ref, depth + 1)
        if "text/html" in data:
            return f'<div class="gx-w-html">{_text(data["text/html"])}</div>'
        for mime in ("image/png", "image/jpeg"):
            if mime in data:
                b64 = _text(data[mime]).replace("\n", "")
                return f'<img class="gx-w-img" alt="figure" src="data:{mime};base64,{b64}"/>'
        if "image/svg+xml" in data:
            b64 = base64.b64encode(_text(data["image/svg+xml"]).encode()).decode()
            return f'<img class="gx-w-img" alt="figure" src="data:image/svg+xml;base64,{b64}"/>'
        if "text/plain" in data:
            return f'<pre class="gx-w-stream">{html_text(_text(data["text/plain"]))}</pre>'
        return ""


def static_outputs(nb: Any) -> Any:
    """A copy of an executed notebook whose outputs a static page can show (module doc)."""
    nb = copy.deepcopy(nb)
    # each view's own snapshot (its first state, :func:`execute`), else the notebook's
    # saved widget state (every model's last state)
    last = _Widgets(nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {}))
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for out in cell.get("outputs", []):
            if out.get("output_type") not in ("display_data", "execute_result"):
                outputs.append(out)
                continue
            data = out.get("data", {})
            if VEGA_MIME in data:
                out["data"] = {"text/html": chart_html(data[VEGA_MIME])}
                out["metadata"] = {}
            elif WIDGET_VIEW in data:
                ref = data[WIDGET_VIEW].get("model_id")
                snap = out.get("metadata", {}).get(SNAPSHOT_KEY)
                widgets = _Widgets(snap) if snap is not None else last
                if widgets.is_progress(ref):
                    continue
                if widgets.model(ref) is None:  # no saved state: the text fallback
                    out["data"] = {k: v for k, v in data.items() if k == "text/plain"}
                    if not out["data"]:
                        continue
                else:
                    out["data"] = {"text/html": '<div class="gx-panel">' + PANEL_NOTE
                                   + widgets.html(ref) + "</div>"}
                out["metadata"] = {}
            else:
                kept = {k: v for k, v in data.items() if k in RENDERED}
                if not kept:
                    continue
                if "text/html" in kept:
                    kept["text/html"] = unquote_strings(_text(kept["text/html"]))
                out["data"] = kept
            outputs.append(out)
        cell["outputs"] = outputs
    nb.metadata.pop("widgets", None)
    return nb


# --------------------------------------------------------------------------------------
# test pins out of the page, polars strings without quotes


def _assert_call(node: ast.stmt) -> bool:
    """``np.testing.assert_allclose(...)``, ``assert_frame_equal(...)``: a check as a call."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    f = node.value.func
    name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
    return name.startswith("assert")


def _is_check(node: ast.stmt, assignments: bool) -> bool:
    """A statement that only checks: an assert, or a block of checks (and, in a cell of
    checks, the assignments they use)."""
    if isinstance(node, ast.Assert) or _assert_call(node):
        return True
    if assignments and isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
        return True
    if isinstance(node, ast.For | ast.While | ast.If | ast.With):
        body = [*node.body, *getattr(node, "orelse", [])]
        return (all(_is_check(s, True) for s in body)
                and any(isinstance(n, ast.Assert) or _assert_call(n)
                        for n in ast.walk(node) if isinstance(n, ast.stmt)))
    return False


def _names(tree: ast.AST, ctx: type) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def _used_later(stored: set[str], later: list[ast.Module | None]) -> bool:
    """Whether a later cell reads one of ``stored`` before assigning it itself."""
    pending = set(stored)
    for tree in later:
        if tree is None or not pending:
            continue
        if pending & (_names(tree, ast.Load) - _names(tree, ast.Store)):
            return True
        pending -= _names(tree, ast.Store)
    return False


def _without_checks(source: str, tree: ast.Module) -> str:
    """The cell's code without its top-level checks (assert statements and blocks of them)."""
    lines = source.splitlines()
    drop = set()
    for node in tree.body:
        if _is_check(node, False):
            drop.update(range(node.lineno - 1, node.end_lineno))
    if not drop:
        return source
    kept = [ln for i, ln in enumerate(lines) if i not in drop]
    out: list[str] = []
    for ln in kept:  # no run of blank lines where checks were
        if ln.strip() or (out and out[-1].strip()):
            out.append(ln)
    return "\n".join(out).strip("\n")


def hide_checks(nb: Any) -> Any:
    """Keep a notebook's test pins off its page (see the module's description).

    Cells of checks only get the ``remove-cell`` tag; in the others, the assert statements
    are left out of the code shown. A cell whose names a later cell reads stays whole.
    """
    nb = copy.deepcopy(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    trees: list[ast.Module | None] = []
    for c in code:
        try:
            trees.append(ast.parse(c.source))
        except SyntaxError:  # IPython magics: shown as they are
            trees.append(None)
    for i, (cell, tree) in enumerate(zip(code, trees, strict=True)):
        if tree is None or not tree.body:
            continue
        if (all(_is_check(s, True) for s in tree.body)
                and any(_is_check(s, False) for s in tree.body)
                and not _used_later(_names(tree, ast.Store), trees[i + 1:])):
            tags = cell.metadata.setdefault("tags", [])
            if "remove-cell" not in tags:
                tags.append("remove-cell")
        else:
            cell.source = _without_checks(cell.source, tree)
    return nb


_QUOTED_CELL = re.compile(r"<td>&quot;(.*?)&quot;</td>", re.S)


def unquote_strings(html: str) -> str:
    """A polars table's string cells without the quotes polars puts around them."""
    if 'class="dataframe"' not in html or "<small>shape:" not in html:
        return html
    return _QUOTED_CELL.sub(r"<td>\1</td>", html)


# --------------------------------------------------------------------------------------
# execution and cache


def package_fingerprint(root: Path) -> str:
    """sha256 over the package's source and the data it ships (what outputs depend on)."""
    h = hashlib.sha256()
    files = sorted(p for p in (root / "genexpy_nb").rglob("*")
                   if p.is_file() and p.suffix in (".py", ".json", ".parquet", ".npz", ".csv")
                   and "__pycache__" not in p.parts)
    files += sorted(p for p in (root / "data").glob("*") if p.is_file())
    for p in files:
        h.update(str(p.relative_to(root)).encode())
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def notebook_key(nb: Any, fingerprint: str) -> str:
    """The cache key of an executed notebook: its code, its kernel and the package."""
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    kernel = nb.metadata.get("kernelspec", {}).get("name", "python3")
    blob = json.dumps({"code": code, "kernel": kernel, "package": fingerprint,
                       "python": sys.version_info[:2]})
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def merge_outputs(source: Any, executed: Any) -> Any:
    """``source`` (its markdown as it is now) with the outputs of ``executed``."""
    nb = copy.deepcopy(source)
    done = [c for c in executed.cells if c.cell_type == "code"]
    todo = [c for c in nb.cells if c.cell_type == "code"]
    for c, e in zip(todo, done, strict=True):
        c["outputs"] = e.get("outputs", [])
        c["execution_count"] = e.get("execution_count")
    nb.metadata = copy.deepcopy(executed.metadata)
    return nb


#: widget state a static snapshot never reads: anywidget's JavaScript and CSS (the Vega
#: bundle of every Altair JupyterChart, about a megabyte each), binary buffers' placeholders
LEAN_DROP = ("_esm", "_css", "_anywidget_id", "_dom_classes", "layout", "style", "tabbable",
             "tooltip", "_view_count")


def _refs(value: Any) -> list[str]:
    """The model ids a widget's state refers to: ``"IPY_MODEL_<id>"`` anywhere inside, and
    the views an Output widget's outputs display (``{"model_id": "<id>"}``)."""
    if isinstance(value, str):
        return [value[len("IPY_MODEL_"):]] if value.startswith("IPY_MODEL_") else []
    if isinstance(value, dict):
        own = [value["model_id"]] if isinstance(value.get("model_id"), str) else []
        return own + [r for v in value.values() for r in _refs(v)]
    if isinstance(value, list | tuple):
        return [r for v in value for r in _refs(v)]
    return []


def widget_snapshot(state: dict[str, dict], model_id: str) -> dict[str, dict]:
    """The saved-state entries of the view ``model_id`` and of every model it contains, lean.

    ``state`` is nbclient's live widget state (``{model_id: traits}``) at the moment the
    cell that displayed the view finished: the panel's first state, before later cells move
    its sliders. Traits no snapshot reads (:data:`LEAN_DROP`) are left out.
    """
    out: dict[str, dict] = {}
    todo = [model_id]
    while todo:
        mid = todo.pop()
        st = state.get(mid)
        if mid in out or not st or "_model_name" not in st:
            continue
        lean = {k: copy.deepcopy(v) for k, v in st.items() if k not in LEAN_DROP}
        out[mid] = {"model_name": st.get("_model_name"),
                    "model_module": st.get("_model_module"),
                    "model_module_version": st.get("_model_module_version"), "state": lean}
        todo.extend(_refs(lean))
    return out


def _snapshot_views(client: Any, cell: Any) -> None:
    """Keep, in each widget view's output of ``cell``, the lean state it shows now."""
    for out in cell.get("outputs", []):
        view = out.get("data", {}).get(WIDGET_VIEW)
        if isinstance(view, dict) and view.get("model_id"):
            out.setdefault("metadata", {})[SNAPSHOT_KEY] = widget_snapshot(
                client.widget_state, view["model_id"])


#: where an executed widget view keeps the lean state of its first moment (output metadata)
SNAPSHOT_KEY = "gx_widget_snapshot"


def execute(nb: Any, name: str) -> tuple[Any, float]:
    """Run every cell in a temporary folder; a cell that raises fails the build.

    Each widget view keeps, in its output's metadata, the lean state of the moment its cell
    finished (:func:`widget_snapshot`); the notebook-wide widget state (every model's last
    state, anywidget's JavaScript included: megabytes) is not stored.
    """
    import nbclient
    from nbclient.exceptions import CellExecutionError

    nb = copy.deepcopy(nb)
    kernel = nb.metadata.get("kernelspec", {}).get("name", "python3")
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"gx-docs-{name}-") as tmp:
        client = nbclient.NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name=kernel,
                                         resources={"metadata": {"path": tmp}})
        client.on_cell_executed = lambda cell, cell_index, execute_reply: _snapshot_views(
            client, cell)
        try:
            client.execute()
        except CellExecutionError as exc:
            raise ExtensionError(
                f"notebook {name} failed while building the site:\n{exc}") from exc
    nb.metadata.pop("widgets", None)
    return nb, time.perf_counter() - t0


#: calls by which a notebook reads the public data files (as tests/conftest.py)
DATA_CALLS = ("load_encoders(", "load_bigbench(", "fetch_public_file(", "fetch_public_data(")


def reads_public_data(nb: Any) -> bool:
    """Whether a notebook's code reads the public data files (not executed offline)."""
    return any(call in c.source for c in nb.cells if c.cell_type == "code"
               for call in DATA_CALLS)


def selected(names: list[str]) -> list[str]:
    """The notebooks to execute (``GENEXPY_NB_DOCS_NOTEBOOKS``; default all)."""
    if os.environ.get("GENEXPY_NB_DOCS_EXECUTE", "1") == "0":
        return []
    only = os.environ.get("GENEXPY_NB_DOCS_NOTEBOOKS", "").strip()
    if not only:
        return names
    want = {s.strip().removesuffix(".ipynb") for s in only.split(",") if s.strip()}
    return [n for n in names if n in want]


def prepare_notebooks(app: Sphinx) -> None:
    import nbformat

    srcdir = Path(app.srcdir)
    root = srcdir.parent
    src_nbs = sorted((root / "notebooks").glob("*.ipynb"))
    out_dir = srcdir / "notebooks"
    out_dir.mkdir(exist_ok=True)
    for stale in out_dir.glob("*.ipynb"):  # notebooks removed from the repository
        if not (root / "notebooks" / stale.name).is_file():
            stale.unlink()
    run = set(selected([p.stem for p in src_nbs]))
    cache = srcdir / CACHE_DIR
    cache.mkdir(parents=True, exist_ok=True)
    fingerprint = package_fingerprint(root)
    total = 0.0
    for path in src_nbs:
        nb = nbformat.read(path, as_version=4)
        key = notebook_key(nb, fingerprint)
        cached = cache / f"{path.stem}.{key}.ipynb"
        if cached.is_file():
            done = nbformat.read(cached, as_version=4)
            _say(f"notebook {path.stem}: outputs from the cache")
        elif path.stem in run and os.environ.get("GENEXPY_NB_NO_DATA") and reads_public_data(nb):
            done = None  # offline: the public data files are not here (scripts/public_data.py)
            _say(f"notebook {path.stem}: not executed, it reads the public data files, not "
                 f"here: {os.environ['GENEXPY_NB_NO_DATA']}")
        elif path.stem in run:
            _say(f"notebook {path.stem}: executing ...")
            done, dt = execute(nb, path.stem)
            total += dt
            _say(f"notebook {path.stem}: executed in {dt:.0f} s")
            for old in cache.glob(f"{path.stem}.*.ipynb"):
                old.unlink()
            tmp = cached.with_suffix(".tmp")
            nbformat.write(done, tmp)
            os.replace(tmp, cached)
        else:  # left out while iterating: the page shows the notebook without outputs
            done = None
            _say(f"notebook {path.stem}: not executed (GENEXPY_NB_DOCS_NOTEBOOKS / _EXECUTE)")
        page = hide_checks(nb if done is None else static_outputs(merge_outputs(nb, done)))
        text = nbformat.writes(page)
        target = out_dir / path.name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
    if total:
        _say(f"notebooks executed in {total:.0f} s in all")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", prepare_notebooks, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


__all__ = ["chart_html", "static_outputs", "widget_snapshot", "hide_checks", "unquote_strings",
           "package_fingerprint", "notebook_key", "merge_outputs", "setup"]
