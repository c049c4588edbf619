"""Progress bars: drawn in a terminal and in notebooks, left out of logs (stderr not a TTY)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from genexpy_nb import _progress

ROOT = Path(__file__).resolve().parent.parent


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


@pytest.mark.parametrize(("tty", "env", "progress", "shown"), [
    (True, None, True, True), (False, None, True, False), (False, "1", True, True),
    (True, "0", True, False), (True, None, False, False), (False, "1", False, False)])
def test_where_bars_are_drawn(monkeypatch, tty, env, progress, shown):
    stream = _Stream(tty)
    monkeypatch.setattr(sys, "stderr", stream)
    if env is None:
        monkeypatch.delenv("GENEXPY_NB_PROGRESS", raising=False)
    else:
        monkeypatch.setenv("GENEXPY_NB_PROGRESS", env)
    assert list(_progress.tqdm(range(3), disable=not progress, desc="steps", file=stream,
                               mininterval=0)) == [0, 1, 2]
    assert ("steps" in stream.getvalue()) is shown


def test_every_bar_of_the_package_goes_through_the_policy():
    """No module makes a tqdm bar of its own (it would draw into logs)."""
    uses = re.compile(r"^\s*(from tqdm\b|import tqdm\b)", re.M)
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "genexpy_nb").rglob("*.py")
                 if p.name != "_progress.py" and uses.search(p.read_text())]
    assert offenders == []


def _logged(tmp_path, **env_extra):
    env = {k: v for k, v in os.environ.items() if k != "GENEXPY_NB_PROGRESS"}
    env.update(PYTHONPATH=str(ROOT), **env_extra)
    with open(tmp_path / "log.txt", "w") as log:
        rc = subprocess.run([sys.executable, "-m", "genexpy_nb", "nstar", "r.csv",
                             "--alternatives", "method", "--target", "score",
                             "--higher-is-better", "--generalize", "dataset", "--design",
                             "model", "--kernel", "jaccard:k=1", "--rep", "20", "--out",
                             "n.csv"], cwd=tmp_path, env=env, stdout=log,
                            stderr=subprocess.STDOUT, timeout=600).returncode
    text = (tmp_path / "log.txt").read_text()
    assert rc == 0, text
    return text


def test_a_logged_command_holds_the_answer_without_bars(tmp_path):
    """stdout and stderr into one log file: the answer, and no bar in between."""
    rng = np.random.default_rng(0)
    pl.DataFrame([{"dataset": f"d{d}", "model": mo, "method": f"m{m}",
                   "score": m * 0.1 + rng.normal()}
                  for d in range(12) for m in range(4) for mo in ("a", "b")]
                 ).write_csv(tmp_path / "r.csv")
    text = _logged(tmp_path)
    assert "%|" not in text and "\r" not in text and "MMD distributions" not in text, text
    assert "n*" in text
    # asked for (GENEXPY_NB_PROGRESS=1), the same command draws its bar into the log
    assert "MMD distributions" in _logged(tmp_path, GENEXPY_NB_PROGRESS="1")
