"""The repository's notebooks in a real JupyterLab, driven by headless Chromium, network off.

Used by ``tests/test_browser.py`` (and ``benchmarks/bench_browser_panels.py``); run it by hand
to look at the screenshots::

    PYTHONPATH=$PWD GENEXPY_NB_DATA_DIR=/path/to/data python scripts/browser_check.py \\
        --chromium /usr/bin/chromium --out browser_out \\
        notebooks/00_quickstart.ipynb notebooks/03_cnn_seeds.ipynb

For each notebook: copy it into a temporary folder (the repository's files are never
written), start ``jupyter lab`` on a free local port with a random token, open the notebook
in Chromium with every request that does not go to 127.0.0.1 aborted (as on a machine
without network), run all cells, then check that

- no cell raised (an error output fails the check, with its message);
- every chart drew: each Vega output (``.jp-RenderedVega5``, the frontend's own renderer)
  and each vega-embed view (``.vega-embed``, Altair's JupyterChart widgets in the panels)
  holds a ``canvas`` or an ``svg``, and no "Error loading script" text is on the page;
- no page error (uncaught JavaScript exception) happened;

and save a full-page screenshot per notebook under ``--out``. Prints one line per notebook
(``OK name: N charts drawn, T s``) and exits with 1 when any check failed.

JupyterLab runs with autosave off and notebook windowing off (every cell is rendered, so
that charts far down the page are checked too), through a temporary user-settings folder.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Chromium flags: headless, no sandbox (containers run as root), no background traffic
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
#: what counts as a chart on the page, and what counts as drawn
CHART_SELECTOR = ".jp-RenderedVega5, .vega-embed:not(.jp-RenderedVega5 .vega-embed)"
_CHART_STATE_JS = """() => {
  const charts = Array.from(document.querySelectorAll('CHARTS'));
  const drawn = charts.filter(e => e.querySelector('canvas, svg.marks, svg'));
  const errors = Array.from(document.querySelectorAll('.jp-OutputArea-output'))
      .map(e => e.innerText).filter(t => t.includes('Error loading script')
                                         || t.includes('Javascript Error'));
  return {n: charts.length, drawn: drawn.length, errors};
}""".replace("CHARTS", CHART_SELECTOR)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_settings(folder: Path) -> None:
    """User settings: no autosave, every cell rendered (no windowing)."""
    for plugin, values in (
        ("@jupyterlab/docmanager-extension/plugin", {"autosave": False}),
        ("@jupyterlab/notebook-extension/tracker", {"windowingMode": "none"}),
        ("@jupyterlab/apputils-extension/notification",
         {"fetchNews": "false", "checkForUpdates": False}),
    ):
        path = folder / (plugin + ".jupyterlab-settings")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


def start_lab(folder: Path, port: int, token: str, settings: Path) -> subprocess.Popen:
    """``jupyter lab`` serving ``folder``; returns once it answers."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)
    env["JUPYTER_CONFIG_DIR"] = str(settings / "config")  # no user config of this machine
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
           "--ip=127.0.0.1", f"--ServerApp.token={token}", f"--ServerApp.root_dir={folder}",
           "--LabApp.expose_app_in_browser=True", "--ServerApp.disable_check_xsrf=True",
           "--LabApp.news_url=", "--LabServerApp.announcements_url="]
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # containers and CI often run as root
        cmd.append("--allow-root")
    log = open(settings / "lab.log", "wb")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/api/status?token={token}"
    deadline = time.monotonic() + 600  # a busy machine starts JupyterLab slowly
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("jupyter lab exited early:\n"
                             + (settings / "lab.log").read_text(errors="replace")[-3000:])
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise SystemExit("jupyter lab did not answer within 600 s")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


def launch(p, chromium: str | None, headed: bool = False):
    """A Chromium page that can reach 127.0.0.1 only (everything else is aborted)."""
    browser = p.chromium.launch(headless=not headed, executable_path=chromium,
                                args=[a for a in CHROMIUM_ARGS
                                      if not (headed and a == "--headless")])
    context = browser.new_context(viewport={"width": 1500, "height": 1100})
    blocked: list[str] = []

    def route(r):
        url = r.request.url
        if url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")):
            r.continue_()
        else:
            blocked.append(url)
            r.abort()

    context.route("**/*", route)
    return browser, context, blocked


def open_notebook(page, port: int, token: str, rel: str, timeout_s: float) -> None:
    """Open ``rel`` in JupyterLab and wait until its kernel is ready."""
    # ?reset: a fresh workspace, so that the notebooks opened before are not restored beside
    # this one (their kernels would start again, and the current tab could be another one)
    page.goto(f"http://127.0.0.1:{port}/lab/tree/{rel}?reset&token={token}")
    page.wait_for_function("window.jupyterapp !== undefined", timeout=timeout_s * 1000)
    name = json.dumps(Path(rel).name)
    page.wait_for_function(
        "(() => { const w = window.jupyterapp.shell.currentWidget;"
        f" return !!(w && w.context && w.context.path.endsWith({name})"
        " && w.content && w.content.widgets && w.sessionContext"
        " && w.sessionContext.session && w.sessionContext.session.kernel"
        " && w.sessionContext.session.kernel.connectionStatus === 'connected'); })()",
        timeout=timeout_s * 1000)
    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.ready")


def run_all(page, timeout_s: float) -> dict:
    """Run all cells; returns {'errors': [...], 'pending': n} once the kernel is done."""
    page.evaluate("() => { window.__runAll = window.jupyterapp.commands"
                  ".execute('notebook:run-all-cells'); }")
    page.wait_for_function(
        """() => { const w = window.jupyterapp.shell.currentWidget;
          const k = w.sessionContext.session.kernel;
          const cells = w.content.widgets.filter(c => c.model.type === 'code');
          const errs = cells.some(c => c.model.outputs.toJSON()
                                   .some(o => o.output_type === 'error'));
          const running = cells.some(c => c.promptNode
                                     && c.promptNode.textContent.includes('*'));
          return k.status === 'idle' && !running
                 && (errs || cells.every(c => c.model.executionCount !== null)); }""",
        timeout=timeout_s * 1000, polling=500)
    return page.evaluate(
        """() => { const w = window.jupyterapp.shell.currentWidget;
          const cells = w.content.widgets.filter(c => c.model.type === 'code');
          const errors = [];
          cells.forEach((c, i) => c.model.outputs.toJSON().forEach(o => {
            if (o.output_type === 'error') errors.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
          }));
          return {errors, pending: cells.filter(c => c.model.executionCount === null)
                                        .length, cells: cells.length}; }""")


def chart_state(page) -> dict:
    return page.evaluate(_CHART_STATE_JS)


def check_notebook(page, port, token, rel, out: Path, timeout_s: float) -> tuple[bool, str]:
    t0 = time.perf_counter()
    open_notebook(page, port, token, rel, timeout_s)
    res = run_all(page, timeout_s)
    # give the frontend time to draw what the kernel sent: every chart has a canvas/svg (as
    # long as a notebook may take: returns as soon as they are drawn, slow on a busy machine)
    try:
        page.wait_for_function(
            f"(() => {{ const s = ({_CHART_STATE_JS})(); return s.n > 0 && s.n === s.drawn; }})()",
            timeout=timeout_s * 1000, polling=250)
    except Exception:  # reported below, with the counts
        pass
    page.wait_for_timeout(300)
    st = chart_state(page)
    name = Path(rel).stem
    screenshot(page, out / f"{name}.png")
    dt = time.perf_counter() - t0
    problems = list(res["errors"])
    if res["pending"]:
        problems.append(f"{res['pending']} of {res['cells']} code cells did not run")
    if st["n"] == 0:
        problems.append("no chart on the page")
    if st["drawn"] < st["n"]:
        problems.append(f"only {st['drawn']} of {st['n']} charts drew a canvas or svg")
    problems += [f"chart error: {e[:200]}" for e in st["errors"]]
    if problems:
        return False, f"FAIL {name}: " + "; ".join(problems) + f" ({dt:.0f} s)"
    return True, f"OK {name}: {st['n']} charts drawn, {res['cells']} code cells, {dt:.0f} s"


def screenshot(page, path: Path) -> None:
    """The whole notebook (it scrolls inside its panel): a viewport as tall as the notebook."""
    h = page.evaluate("() => { const n = window.jupyterapp.shell.currentWidget.content.node;"
                      " const o = n.querySelector('.jp-WindowedPanel-outer');"
                      " return Math.max(n.scrollHeight, o ? o.scrollHeight : 0); }")
    vp = page.viewport_size
    page.set_viewport_size({"width": vp["width"], "height": int(min(h + 200, 16000))})
    page.evaluate("() => { const n = window.jupyterapp.shell.currentWidget.content.node;"
                  " for (const e of [n, n.querySelector('.jp-WindowedPanel-outer')])"
                  " if (e) e.scrollTop = 0; }")
    page.wait_for_timeout(500)
    page.screenshot(path=str(path))
    page.set_viewport_size(vp)
    charts = page.locator(CHART_SELECTOR)
    for i in range(min(charts.count(), 12)):  # each chart on its own, for a closer look
        try:
            charts.nth(i).screenshot(path=str(path.with_name(f"{path.stem}_chart{i}.png")),
                                     timeout=10_000)
        except Exception:  # a chart nested in another, or hidden: the page shot has it
            pass


def prepare_folder(tmp: Path, notebooks: list[Path]) -> list[str]:
    """Copy the notebooks (and the repository's data/) into ``tmp``; their relative paths."""
    (tmp / "notebooks").mkdir()
    if (ROOT / "data").is_dir():
        (tmp / "data").symlink_to(ROOT / "data")
    rels = []
    for nb in notebooks:
        shutil.copy2(nb, tmp / "notebooks" / nb.name)
        rels.append(f"notebooks/{nb.name}")
    return rels


def run(notebooks: list[Path], chromium: str | None, out: Path, timeout_s: float,
        headed: bool = False) -> int:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise SystemExit("needs Playwright: pip install playwright") from None
    out.mkdir(parents=True, exist_ok=True)
    ok_all = True
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        rels = prepare_folder(tmp, notebooks)
        settings = tmp / ".settings"
        _write_settings(settings)
        port, token = free_port(), secrets.token_hex(16)
        lab = start_lab(tmp, port, token, settings)
        try:
            with sync_playwright() as p:
                browser, context, blocked = launch(p, chromium, headed)
                for rel in rels:
                    page = context.new_page()
                    page_errors: list[str] = []
                    page.on("pageerror", lambda e, pe=page_errors: pe.append(str(e)))
                    try:
                        ok, line = check_notebook(page, port, token, rel, out, timeout_s)
                    except Exception as exc:  # a timeout: report it with a screenshot
                        page.screenshot(path=str(out / f"{Path(rel).stem}_failure.png"),
                                        full_page=True)
                        ok, line = False, f"FAIL {Path(rel).stem}: {type(exc).__name__}: {exc}"
                    if page_errors:
                        ok = False
                        line += " | page errors: " + "; ".join(e[:200] for e in page_errors)
                    print(line, flush=True)
                    ok_all &= ok
                    # shut this notebook's kernel down before the next one (2 cores in CI)
                    page.evaluate("() => window.jupyterapp.shell.currentWidget"
                                  ".sessionContext.shutdown()")
                    page.close()
                browser.close()
                outside = sorted({u.split("/")[2] for u in blocked if "://" in u})
                print(f"requests outside 127.0.0.1 blocked: {len(blocked)} "
                      f"({', '.join(outside) or 'none'})")
        finally:
            stop(lab)
    return 0 if ok_all else 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="+", type=Path, help="notebooks to run")
    ap.add_argument("--chromium", default=shutil.which("chromium"),
                    help="Chromium executable (default: chromium on PATH)")
    ap.add_argument("--headed", action="store_true", help="show the browser window")
    ap.add_argument("--out", default="browser_check_out", type=Path,
                    help="folder for the screenshots")
    ap.add_argument("--timeout", default=300.0, type=float, help="seconds per notebook")
    args = ap.parse_args()
    sys.exit(run([nb.resolve() for nb in args.notebooks], args.chromium, args.out,
                 args.timeout, args.headed))


if __name__ == "__main__":
    main()
