"""The panels in a real JupyterLab, driven by headless Chromium (scripts/browser_check.py).

Needs the ``browser`` extra (jupyterlab, playwright) and a Chromium (``apt-get install
chromium``); CI installs both. Skipped, with the reason, where they are missing.
"""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium (apt-get install chromium)")
@pytest.mark.skipif(importlib.util.find_spec("playwright") is None
                    or importlib.util.find_spec("jupyterlab") is None,
                    reason="needs the browser extra: pip install genexpy_nb[browser]")
def test_panel_slider_updates_in_jupyterlab(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("GENEXPY_ALTAIR_RENDERER", None)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "browser_check.py"), "--chromium", CHROMIUM,
         "--out", str(tmp_path), "--timeout", "180"],
        capture_output=True, text=True, timeout=600, env=env, cwd=ROOT,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert "alpha* = 0.95" in out and "alpha* = 0.94" in out
    assert "slider move -> updated summary in the page" in out
    assert (tmp_path / "panel_before.png").stat().st_size > 10_000
    assert (tmp_path / "panel_after.png").stat().st_size > 10_000
