"""The linters as part of the test command: ruff over the repository with the configuration
in ``pyproject.toml`` — pyflakes/pycodestyle/bugbear/pyupgrade/isort rules everywhere, and for
the package pydocstyle with numpydoc's convention (``D``) and a complexity limit (``C901``,
McCabe 15; the numba kernels are exempt, their flat loops are on purpose); an unused or
unknown ``noqa`` is itself an error (``RUF100``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:  # the test extra installs ruff; without it this gate cannot run
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    return [exe]


def test_the_gates_are_configured():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]
    lint = cfg["lint"]
    assert {"D", "C90", "RUF100"} <= set(lint["select"])
    assert lint["pydocstyle"]["convention"] == "numpy"
    assert lint["mccabe"]["max-complexity"] <= 15
    # only the numba kernels may exceed the complexity limit, and the package keeps D
    for pattern, rules in lint.get("per-file-ignores", {}).items():
        if pattern.startswith("genexpy_nb"):
            assert "D" not in rules, pattern
            assert "C901" not in rules or pattern == "genexpy_nb/_numba/*.py", pattern
    assert "RUF100" not in lint.get("ignore", [])


def test_ruff_finds_nothing():
    proc = subprocess.run([*_ruff(), "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


def test_ruff_would_catch_a_violation(tmp_path):
    """The gate can fail: a module with a non-imperative summary, an unused noqa and a
    function over the complexity limit, checked with the project's configuration."""
    pkg = tmp_path / "genexpy_nb"
    pkg.mkdir()
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(20))
    (pkg / "bad.py").write_text(
        '"""A module."""\n\n\ndef f(x):  # noqa: E501\n    """Returns x."""\n'
        + branches + "\n    return x\n", encoding="utf-8")
    proc = subprocess.run([*_ruff(), "check", "--no-cache", "--output-format", "concise",
                           "--config", str(ROOT / "pyproject.toml"), str(pkg)],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 1
    for code in ("D401", "RUF100", "C901"):
        assert code in proc.stdout, (code, proc.stdout)
