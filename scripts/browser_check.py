"""Headless-browser check of a panel in JupyterLab: open, run, move a slider, read the result.

NOT part of the test suite or CI (it needs JupyterLab, Playwright and a Chromium build).
The unit tests drive the panels as data; this script checks what only a browser can: that
the widgets and the Altair charts render in JupyterLab, and that moving a slider updates
the panel end to end (kernel round trip included).

Setup (once)::

    pip install jupyterlab playwright          # in the environment that has genexpy_nb
    python -m playwright install chromium      # or: apt-get install chromium
                                               #     and pass --chromium /usr/bin/chromium

Run from the repository root::

    PYTHONPATH=$PWD python scripts/browser_check.py [--chromium PATH] [--headed]
        [--out browser_check_out]

What it does:

1. writes a notebook (in a temporary folder) that builds a small synthetic study and
   shows ``GeneralizabilityExplorer`` with ``rep=50``;
2. starts ``jupyter lab`` on a free local port with a random token and the application
   exposed to the page (``--LabApp.expose_app_in_browser``);
3. opens the notebook in Chromium, runs all cells, waits for the panel's sliders and at
   least two rendered Vega charts (``.vega-embed``);
4. focuses the alpha* slider handle and presses ArrowLeft (one step, 0.95 -> 0.94), waits
   until the summary says ``alpha* = 0.94`` and reports how long that took (browser ->
   kernel -> browser);
5. saves screenshots before/after under ``--out`` and fails (exit status 1) on a timeout
   or on JavaScript errors in the page console.

Charts use Altair's active renderer; the default one (HTML + vega-embed) loads Vega from a
CDN, so the machine needs network access, or enable the ``mimetype`` renderer (JupyterLab
draws ``application/vnd.vegalite`` itself) by setting ``GENEXPY_ALTAIR_RENDERER=mimetype``.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

NOTEBOOK_CELLS = [
    "import os\n"
    "import altair as alt\n"
    "if os.environ.get('GENEXPY_ALTAIR_RENDERER'):\n"
    "    alt.renderers.enable(os.environ['GENEXPY_ALTAIR_RENDERER'])\n"
    "import numpy as np, polars as pl\n"
    "import genexpy_nb as gx\n"
    "from genexpy_nb.panels import GeneralizabilityExplorer",
    "rng = np.random.default_rng(0)\n"
    "rows = []\n"
    "for model, noise in (('easy', 0.5), ('hard', 2.0)):\n"
    "    for c in range(30):\n"
    "        s = np.arange(5.0)[::-1] + rng.normal(0, noise, 5)\n"
    "        rows += [(model, f'd{c}', f'a{a}', float(s[a])) for a in range(5)]\n"
    "df = pl.DataFrame(rows, schema=['model', 'dataset', 'alt', 'score'], orient='row')\n"
    "study = gx.Study(df, alternatives='alt', target='score', generalize='dataset',\n"
    "                 design='model', higher_is_better=True)",
    "panel = GeneralizabilityExplorer(study, rep=50, seed=0)\npanel",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_notebook(folder: Path) -> Path:
    nb = {
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                   "outputs": [], "source": src} for src in NOTEBOOK_CELLS],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    path = folder / "panel_check.ipynb"
    path.write_text(json.dumps(nb, indent=1))
    return path


def _start_lab(folder: Path, port: int, token: str) -> subprocess.Popen:
    env = dict(os.environ)
    repo = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (repo, env.get("PYTHONPATH")) if p)
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
           "--ip=127.0.0.1", f"--ServerApp.token={token}", f"--ServerApp.root_dir={folder}",
           "--LabApp.expose_app_in_browser=True", "--ServerApp.disable_check_xsrf=True"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # containers and CI often run as root
        cmd.append("--allow-root")
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/api/status?token={token}"
    for _ in range(120):
        if proc.poll() is not None:
            out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
            raise SystemExit(f"jupyter lab exited early:\n{out[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise SystemExit("jupyter lab did not answer within 60 s")


def _summary_text(page) -> str:
    """The panel's summary line (the HTML widget that states n*)."""
    loc = page.locator(".widget-html", has_text="n* ").first
    return loc.inner_text() if loc.count() else ""


def run(chromium: str | None, headed: bool, out: Path, timeout_s: float) -> int:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise SystemExit("needs Playwright: pip install playwright && "
                         "python -m playwright install chromium") from None
    out.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        nb = _write_notebook(folder)
        port, token = _free_port(), secrets.token_hex(16)
        lab = _start_lab(folder, port, token)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    headless=not headed, executable_path=chromium,
                    # no background traffic: the check must work on a machine without network
                    args=["--disable-background-networking", "--disable-component-update",
                          "--disable-sync", "--no-first-run", "--disable-quic"])
                page = browser.new_page(viewport={"width": 1400, "height": 1800})
                page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
                page.on("console", lambda m: errors.append(f"console: {m.text}")
                        if m.type == "error" else None)
                try:
                    return_code = _drive(page, port, token, nb, out, timeout_s, lambda s_: s_)
                except Exception:
                    page.screenshot(path=str(out / "failure.png"), full_page=True)
                    print(f"failed; screenshot in {out / 'failure.png'}", file=sys.stderr)
                    raise
                browser.close()
                if return_code:
                    return return_code
        finally:
            lab.terminate()
            try:
                lab.wait(timeout=10)
            except subprocess.TimeoutExpired:
                lab.kill()
    # third-party noise (e.g. favicon 404s) is reported but only page errors fail the check
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if any(e.startswith("pageerror") for e in errors) else 0


def _drive(page, port, token, nb, out, timeout_s, _step) -> int:
    """Open the notebook, run it, move the slider; 0 when the panel updated."""
    if True:
        if True:
            if True:
                page.goto(f"http://127.0.0.1:{port}/lab/tree/{nb.name}?token={token}")
                page.wait_for_function("window.jupyterapp !== undefined",
                                       timeout=timeout_s * 1000)
                page.wait_for_selector(".jp-Notebook", timeout=timeout_s * 1000)
                # wait for the notebook's kernel session, then run everything
                page.wait_for_function(
                    "(() => { const w = window.jupyterapp.shell.currentWidget;"
                    " return !!(w && w.sessionContext && w.sessionContext.session"
                    " && w.sessionContext.session.kernel); })()",
                    timeout=timeout_s * 1000)
                page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext"
                              ".ready")
                page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
                slider = page.locator(".widget-slider", has_text="alpha*").first
                slider.wait_for(timeout=timeout_s * 1000)
                page.wait_for_function(
                    "document.querySelectorAll('.vega-embed').length >= 2",
                    timeout=timeout_s * 1000)
                before = _summary_text(page)
                print("before:", before)
                page.screenshot(path=str(out / "panel_before.png"), full_page=True)
                if "alpha* = 0.95" not in before:
                    print("unexpected summary before the move", file=sys.stderr)
                    return 1
                handle = slider.locator(".noUi-handle").first
                handle.focus()
                t0 = time.perf_counter()
                handle.press("ArrowLeft")
                page.wait_for_function(
                    "Array.from(document.querySelectorAll('.widget-html'))"
                    ".some(e => e.innerText.includes('alpha* = 0.94'))",
                    timeout=timeout_s * 1000)
                dt = time.perf_counter() - t0
                after = _summary_text(page)
                print("after: ", after)
                print(f"slider move -> updated summary in the page: {dt * 1e3:.0f} ms")
                page.wait_for_timeout(500)  # let the charts redraw for the screenshot
                page.screenshot(path=str(out / "panel_after.png"), full_page=True)
                return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chromium", default=None, help="path to a Chromium executable "
                    "(default: Playwright's own build)")
    ap.add_argument("--headed", action="store_true", help="show the browser window")
    ap.add_argument("--out", default="browser_check_out", type=Path,
                    help="folder for the screenshots")
    ap.add_argument("--timeout", default=120.0, type=float, help="seconds per wait")
    args = ap.parse_args()
    sys.exit(run(args.chromium, args.headed, args.out, args.timeout))


if __name__ == "__main__":
    main()
