"""The Binder set-up (binder/): parseable, installs this checkout, fails loudly."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

REPO = Path(__file__).resolve().parent.parent

BINDER = REPO / "binder"


def _lines(path):
    return [ln.strip() for ln in path.read_text().splitlines()]


def _pyproject():
    with open(REPO / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)


def test_runtime_python_satisfies_the_package():
    lines = [ln for ln in _lines(BINDER / "runtime.txt") if ln]
    assert len(lines) == 1
    m = re.fullmatch(r"python-(\d+)\.(\d+)", lines[0])
    assert m, f"runtime.txt must read python-X.Y, got {lines[0]!r}"
    requires = SpecifierSet(_pyproject()["project"]["requires-python"])
    assert f"{m[1]}.{m[2]}" in requires


def test_requirements_parse():
    reqs = [Requirement(ln) for ln in _lines(BINDER / "requirements.txt")
            if ln and not ln.startswith("#")]
    names = {r.name.lower() for r in reqs}
    assert "jupyterlab" in names
    assert "scikit-learn" in names  # the example study runs live on Binder


def test_postbuild_fails_fast_and_installs_this_checkout():
    path = BINDER / "postBuild"
    assert os.access(path, os.X_OK), "binder/postBuild must be executable"
    lines = _lines(path)
    assert lines[0].startswith("#!") and "bash" in lines[0]
    first_command = next(ln for ln in lines[1:] if ln and not ln.startswith("#"))
    assert first_command == "set -e"
    installs = [ln for ln in lines if re.search(r"\bpip install\b", ln)]
    assert installs, "postBuild must pip install the checkout"
    m = re.search(r"""pip install\b.*?\s["']?\.(\[([\w,-]+)\])?["']?(\s|$)""", installs[0])
    assert m, f"postBuild must install '.' (this checkout), got {installs[0]!r}"
    extras = set(_pyproject()["project"]["optional-dependencies"])
    for extra in (m[2] or "").split(","):
        assert not extra or extra in extras, f"unknown extra {extra!r}"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_postbuild_is_valid_bash():
    res = subprocess.run(["bash", "-n", str(BINDER / "postBuild")], capture_output=True,
                         text=True, check=False)
    assert res.returncode == 0, res.stderr


def test_postbuild_check_runs_here():
    """The import check at the end of postBuild works in this environment."""
    line = next(ln for ln in _lines(BINDER / "postBuild") if ln.startswith("python -c"))
    code = re.fullmatch(r'python -c "(.*)"', line)[1]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=REPO, check=False)
    assert res.returncode == 0, res.stderr


def test_postbuild_precompiles_the_kernels_after_installing():
    """The image holds the compiled kernels: no first call on Binder pauses to compile."""
    lines = _lines(BINDER / "postBuild")
    install = next(i for i, ln in enumerate(lines) if re.search(r"\bpip install\b", ln))
    pre = [i for i, ln in enumerate(lines) if ln.startswith("genexpy-nb precompile")]
    assert pre and pre[0] > install
