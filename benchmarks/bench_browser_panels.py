"""Latency of the panels in a real JupyterLab: key press on a slider -> redrawn charts.

Headless Chromium (network blocked, as in tests/test_browser.py) opens a notebook that shows
``GeneralizabilityExplorer`` on the shipped example study (6 configurations, 8 classifiers,
80 datasets) and ``SeedVariabilityExplorer`` on the shipped CNN pool, focuses a slider and
presses an arrow key ``--steps`` times. For each step it records the time from the key
press until (a) the summary line shows the new value and (b) every chart of the panel has
redrawn (its canvas is a new element or its pixels changed). Prints the per-step times and
their median, and the kernel-side time of each refresh (``panel.timings``), so that the
browser's share (comm messages, Vega drawing) is the difference.

Run from the repository root (needs the browser extra and a Chromium)::

    PYTHONPATH=$PWD python benchmarks/bench_browser_panels.py [--steps 10] [--chromium PATH]

Timings depend on the machine and its load: repeat and take the median of several runs.
"""

from __future__ import annotations

import argparse
import json
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import browser_check as bc

CELLS = [
    "import json, time\n"
    "import numpy as np\n"
    "import genexpy_nb as gx\n"
    "from genexpy_nb.example.study import load_example_study\n"
    "from genexpy_nb.seedpools import load_pool\n"
    "from genexpy_nb import variability as vb",
    "df = load_example_study()\n"
    "study = gx.Study(df, alternatives='model', target='score', generalize='dataset',\n"
    "                 design=['metric', 'train_size'], higher_is_better=True,\n"
    "                 average_over='fold')\n"
    "gpanel = gx.GeneralizabilityExplorer(study, rep=REP, seed=0, progress=False)\n"
    "gtimes = []\n"
    "gpanel.alpha.observe(lambda c: gtimes.append(gpanel.timings['total']), names='value')\n"
    "gpanel",
    "pool = load_pool('cnn_digits_both.npz')\n"
    "ref, cand = pool.split()\n"
    "cand = cand[:20]\n"
    "report = vb.candidate_report(ref, cand, pool.labels, B=50, seed=0, progress=False)\n"
    "spanel = gx.SeedVariabilityExplorer(ref, cand, pool.labels, report=report, B=50,\n"
    "                                    progress=False)\n"
    "stimes = []\n"
    "spanel.alpha.observe(lambda c: stimes.append(spanel.timings['total']), names='value')\n"
    "spanel",
]

#: JavaScript: signature of each chart of the panel in output cell ``cell`` (element + pixels)
_SIG_JS = """(cell) => {
  const w = window.jupyterapp.shell.currentWidget;
  const node = w.content.widgets.filter(c => c.model.type === 'code')[cell].node;
  const charts = Array.from(node.querySelectorAll('CHARTS'));
  return charts.map(e => { const c = e.querySelector('canvas');
    if (c) { if (!c.__sigId) c.__sigId = Math.random().toString(36).slice(2);
             return c.__sigId + ':' + c.width + 'x' + c.height + ':' + c.toDataURL(); }
    const s = e.querySelector('svg'); return s ? 'svg:' + s.outerHTML : 'none'; });
}""".replace("CHARTS", bc.CHART_SELECTOR)


def _notebook(folder: Path, rep: int) -> str:
    cells = [c.replace("REP", str(rep)) for c in CELLS]
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                     "outputs": [], "source": c} for c in cells],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                      "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (folder / "notebooks").mkdir(exist_ok=True)
    (folder / "notebooks" / "bench_panels.ipynb").write_text(json.dumps(nb))
    return "notebooks/bench_panels.ipynb"


def _steps(page, cell: int, slider_text: str, key: str, steps: int, expect,
           changed: int) -> list[tuple]:
    """Press ``key`` on the slider ``steps`` times; (to summary, to charts) seconds each.

    A step counts as drawn when ``changed`` charts of the panel were redrawn (those whose
    input is the slider)."""
    node = (f"window.jupyterapp.shell.currentWidget.content.widgets"
            f".filter(c => c.model.type === 'code')[{cell}].node")
    slider = page.locator(".jp-CodeCell").nth(cell).locator(".widget-slider",
                                                            has_text=slider_text).first
    handle = slider.locator(".noUi-handle").first
    out = []
    for i in range(steps):
        before = page.evaluate(_SIG_JS, cell)
        handle.focus()
        want = expect(i)
        t0 = time.perf_counter()
        handle.press(key)
        page.wait_for_function(
            f"(w) => {node}.innerText.includes(w)", arg=want, timeout=60_000, polling="raf")
        t1 = time.perf_counter()
        page.wait_for_function(
            "([cell, before, k]) => { const now = (" + _SIG_JS + ")(cell);"
            " return now.length === before.length"
            " && now.filter((s, j) => s !== before[j]).length >= k; }",
            arg=[cell, before, changed], timeout=60_000, polling="raf")
        t2 = time.perf_counter()
        out.append((t1 - t0, t2 - t0))
        page.wait_for_timeout(300)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rep", type=int, default=100)
    ap.add_argument("--chromium", default=shutil.which("chromium"))
    ap.add_argument("--out", type=Path, default=None, help="folder for screenshots")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        rel = _notebook(tmp, args.rep)
        if (bc.ROOT / "data").is_dir():
            (tmp / "data").symlink_to(bc.ROOT / "data")
        settings = tmp / ".settings"
        bc._write_settings(settings)
        port, token = bc.free_port(), secrets.token_hex(16)
        lab = bc.start_lab(tmp, port, token, settings)
        try:
            with sync_playwright() as p:
                browser, context, _ = bc.launch(p, args.chromium)
                page = context.new_page()
                bc.open_notebook(page, port, token, rel, 300)
                res = bc.run_all(page, 600)
                if res["errors"]:
                    raise SystemExit(f"notebook failed: {res['errors']}")
                try:
                    page.wait_for_function(
                        f"(() => {{ const s = ({bc._CHART_STATE_JS})();"
                        " return s.n >= 6 && s.drawn === s.n; })()",
                        timeout=300_000, polling=1000)
                except Exception:
                    if args.out:
                        args.out.mkdir(parents=True, exist_ok=True)
                        bc.screenshot(page, args.out / "bench_failure.png")
                    raise SystemExit(f"the panels' charts did not all draw: "
                                     f"{bc.chart_state(page)}") from None
                page.wait_for_timeout(1000)
                g = _steps(page, 1, "alpha*", "ArrowLeft", args.steps,
                           lambda i: f"alpha* = {0.95 - 0.01 * (i + 1):.2f}", 3)
                s = _steps(page, 2, "trimming", "ArrowRight", args.steps,
                           lambda i: f"α = {0.05 + 0.01 * (i + 1):.2f}", 1)
                if args.out:
                    args.out.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(args.out / "bench_panels.png"))
                kern = page.evaluate(
                    "() => new Promise(r => { const k = window.jupyterapp.shell.currentWidget"
                    ".sessionContext.session.kernel; const f = k.requestExecute({code: "
                    "'print(json.dumps([gtimes, stimes]))'}); let out = '';"
                    " f.onIOPub = m => { if (m.content.text) out += m.content.text; };"
                    " f.done.then(() => r(out)); })")
                browser.close()
        finally:
            bc.stop(lab)
    gk, sk = json.loads(kern)
    for name, rows, kt in (("GeneralizabilityExplorer alpha*", g, gk),
                           ("SeedVariabilityExplorer trimming", s, sk)):
        print(f"{name}: {len(rows)} steps")
        for i, (a, b) in enumerate(rows):
            k = kt[i] if i < len(kt) else float("nan")
            print(f"  step {i + 1}: summary {a * 1e3:6.0f} ms, charts redrawn {b * 1e3:6.0f} ms"
                  f" (kernel refresh {k * 1e3:5.0f} ms)")
        print(f"  median: summary {statistics.median(a for a, _ in rows) * 1e3:.0f} ms, "
              f"charts {statistics.median(b for _, b in rows) * 1e3:.0f} ms, kernel "
              f"{statistics.median(kt) * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
