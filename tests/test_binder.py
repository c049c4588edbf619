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


def test_the_lock_pins_every_package_and_every_dependency(tmp_path, monkeypatch):
    """binder/requirements.txt is an exact lock (scripts/binder_lock.py): one ``name==version``
    per line, the package's dependencies and its lab extra all in it at versions their
    specifiers allow, made with runtime.txt's Python; the check can fail."""
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    import binder_lock

    assert binder_lock.check() == []
    reqs = [Requirement(ln) for ln in _lines(BINDER / "requirements.txt")
            if ln and not ln.startswith("#")]
    assert len(reqs) > 50  # the dependencies' dependencies too, not only the direct ones
    assert all(len(r.specifier) == 1 and next(iter(r.specifier)).operator == "=="
               for r in reqs)
    # the check fails on a loose pin, a missing dependency and a version out of range
    text = (BINDER / "requirements.txt").read_text()
    for bad in (re.sub(r"(?m)^numba==.*$", "numba>=0.59", text),
                re.sub(r"(?m)^polars==.*\n", "", text),
                re.sub(r"(?m)^scipy==.*$", "scipy==1.0.0", text)):
        (tmp_path / "requirements.txt").write_text(bad)
        monkeypatch.setattr(binder_lock, "LOCK", tmp_path / "requirements.txt")
        assert binder_lock.check()


def _commands(path: Path) -> list[str]:
    return [ln for ln in _lines(path) if ln and not ln.startswith("#")]


def test_postbuild_installs_this_checkout_against_the_lock():
    path = BINDER / "postBuild"
    assert os.access(path, os.X_OK), "binder/postBuild must be executable"
    lines = _lines(path)
    assert lines[0].startswith("#!") and "bash" in lines[0]
    cmds = _commands(path)
    assert cmds[0] == "set -e"
    # this checkout, without its dependencies (the lock has them), then pip checks the lock
    assert cmds[1] == "python -m pip install --no-cache-dir --no-deps ."
    assert cmds[2] == "python -m pip check"


def test_postbuild_uses_public_paths_only():
    """No module path that the package has moved (they go in 0.4) in Binder's scripts."""
    from genexpy_nb._lazy import MOVED_MODULES, MOVED_NAMES

    for name in ("postBuild", "start", "check_notebooks.py"):
        text = (BINDER / name).read_text()
        used = [old for old in [*MOVED_MODULES, *MOVED_NAMES]
                if re.search(re.escape(old) + r"\b", text)]
        assert not used, (name, used)


def test_postbuild_checks_every_notebook_and_bakes_data_and_kernels():
    cmds = _commands(BINDER / "postBuild")
    order = {c: i for i, c in enumerate(cmds)}
    generic = order["export NUMBA_CPU_NAME=generic"]
    check = order["python binder/check_notebooks.py"]
    data = order["python scripts/public_data.py --into-cache"]
    pre = next(i for i, c in enumerate(cmds) if c.startswith("genexpy-nb precompile"))
    assert 2 < generic < pre and 2 < check and 2 < data  # after installing
    # the kernels are compiled for a generic CPU, at build and at launch (binder/start)
    start = BINDER / "start"
    assert os.access(start, os.X_OK), "binder/start must be executable"
    scmds = _commands(start)
    assert "export NUMBA_CPU_NAME=generic" in scmds and scmds[-1] == 'exec "$@"'


def test_the_notebook_check_finds_every_import_and_fails_on_a_bad_one(tmp_path):
    sys.path.insert(0, str(BINDER))
    try:
        import check_notebooks
    finally:
        sys.path.remove(str(BINDER))
    found = check_notebooks.notebook_imports(REPO / "notebooks" / "08_comparing_models.ipynb")
    assert {"genexpy_nb", "sklearn.model_selection", "numpy"} <= found
    env = dict(os.environ, PYTHONPATH=str(REPO))
    ok = subprocess.run([sys.executable, str(BINDER / "check_notebooks.py")], cwd=REPO,
                        capture_output=True, text=True, env=env, check=False)
    assert ok.returncode == 0, ok.stderr
    assert "all import" in ok.stdout
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import genexpy_nb.example_study\nimport no_such_mod")]
    nbformat.write(nb, tmp_path / "x.ipynb")
    bad = subprocess.run([sys.executable, str(BINDER / "check_notebooks.py"), str(tmp_path)],
                         cwd=REPO, capture_output=True, text=True, env=env, check=False)
    assert bad.returncode == 1
    assert "genexpy_nb.example_study (imported by x.ipynb): DeprecationWarning" in bad.stderr
    assert "no_such_mod (imported by x.ipynb): ModuleNotFoundError" in bad.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_postbuild_is_valid_bash():
    res = subprocess.run(["bash", "-n", str(BINDER / "postBuild")], capture_output=True,
                         text=True, check=False)
    assert res.returncode == 0, res.stderr


def test_postbuild_precompiles_the_kernels_after_installing():
    """The image holds the compiled kernels: no first call on Binder pauses to compile."""
    lines = _lines(BINDER / "postBuild")
    install = next(i for i, ln in enumerate(lines) if re.search(r"\bpip install\b", ln))
    pre = [i for i, ln in enumerate(lines) if ln.startswith("genexpy-nb precompile")]
    assert pre and pre[0] > install
