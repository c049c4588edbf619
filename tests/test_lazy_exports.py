"""The panels are reachable from the top level, and ``import genexpy_nb`` stays light."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_panels_at_top_level_loaded_lazily():
    code = (
        "import sys, genexpy_nb as gx\n"
        "heavy = [m for m in ('altair', 'ipywidgets', 'anywidget', 'torch', 'dask')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "from genexpy_nb.panels import GeneralizabilityExplorer, SeedVariabilityExplorer\n"
        "assert gx.GeneralizabilityExplorer is GeneralizabilityExplorer\n"
        "assert gx.SeedVariabilityExplorer is SeedVariabilityExplorer\n"
        "assert 'GeneralizabilityExplorer' in dir(gx) and 'altair' in sys.modules\n"
        "try:\n"
        "    gx.NoSuchThing\n"
        "except AttributeError as e:\n"
        "    assert 'NoSuchThing' in str(e)\n"
        "else:\n"
        "    raise SystemExit('no AttributeError')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
