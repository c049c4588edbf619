"""Binder's environment built from binder/'s files alone, as repo2docker does, then the
first cell of every notebook run in it.

repo2docker (Binder's builder) makes a Python environment, installs
``binder/requirements.txt``, then runs ``binder/postBuild`` from the repository's root (which
installs this checkout with the ``lab`` extra and precompiles the kernels). The closest thing
that runs here, without Docker: a fresh virtual environment (this machine's Python, not
necessarily runtime.txt's version), ``pip install -r binder/requirements.txt``, then
``bash binder/postBuild`` in a copy of the checkout with that environment first on PATH and
a home of its own. Nothing else is installed: a notebook whose first cell imports something
Binder's files do not bring (torch, ...) fails here as it would on Binder.

Affordable: the environment is kept between runs, keyed by Binder's files and the package's
dependencies (``~/.cache/genexpy_nb/test-binder/<key>``, or ``GENEXPY_NB_BINDER_VENV``), so
that a later run only re-runs postBuild (the checkout reinstalled, the kernels found in the
cache); the first run downloads the packages from the registry, as Binder does.

``scripts/binder_check.py`` goes further, once, as a script: the same environment, then every
notebook executed whole with the network off.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"

#: run the first code cell of each notebook, each in a namespace of its own, in one process
FIRST_CELLS = """
import json, sys, traceback
failed = {}
for name, code in json.load(open(sys.argv[1])).items():
    try:
        exec(compile(code, name, "exec"), {"__name__": "__main__"})
    except Exception:
        failed[name] = traceback.format_exc(limit=3)[-1500:]
print(json.dumps(failed))
"""


def _key() -> str:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        project = tomllib.load(fh)["project"]
    h = hashlib.sha256()
    for f in sorted(BINDER.iterdir()):
        h.update(f.name.encode() + f.read_bytes())
    h.update(json.dumps([project["dependencies"], project["optional-dependencies"]["lab"],
                         sys.version]).encode())
    return h.hexdigest()[:16]


def _venv() -> Path:
    chosen = os.environ.get("GENEXPY_NB_BINDER_VENV")
    if chosen:
        return Path(chosen)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("genexpy_nb")) / "test-binder" / _key()


def _run(args, step, **kw):
    out = subprocess.run(args, capture_output=True, text=True, timeout=1800, **kw)
    assert out.returncode == 0, (f"{step}: exited {out.returncode}\n{out.stdout[-2000:]}\n"
                                 f"{out.stderr[-3000:]}")
    return out.stdout


def test_binder_files_alone_build_an_environment_that_runs_the_notebooks(tmp_path):
    venv = _venv()
    if not (venv / "complete").is_file():  # made once per version of Binder's files
        shutil.rmtree(venv, ignore_errors=True)
        _run([sys.executable, "-m", "venv", str(venv)], "python -m venv")
        _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-r",
              str(BINDER / "requirements.txt")], "pip install -r binder/requirements.txt")
    clone = tmp_path / "repo"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        if (ROOT / rel).is_file():
            (clone / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, clone / rel)
    home = tmp_path / "home"
    home.mkdir()
    # the public data: postBuild copies them into the image's cache folder from where
    # scripts/test.sh found them (Binder itself downloads them)
    if os.environ.get("GENEXPY_NB_NO_DATA"):
        pytest.skip("binder/postBuild bakes the public data files into the image: not here")
    keep = ("LANG", "LC_ALL", "TMPDIR", "PIP_INDEX_URL", "PIP_FIND_LINKS",
            "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "PIP_CERT", "SSL_CERT_FILE",
            "GENEXPY_NB_DATA_DIR")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(PATH=f"{venv / 'bin'}:/usr/bin:/bin", HOME=str(home),
               XDG_CACHE_HOME=str(venv / "cache"), VIRTUAL_ENV=str(venv),
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    # postBuild as repo2docker runs it: bash, from the repository's root
    _run(["bash", str(clone / "binder" / "postBuild")], "binder/postBuild", cwd=clone,
         env=env)
    (venv / "complete").write_text("built from binder/ and postBuild\n")
    assert "lab/tree/notebooks" in (home / ".jupyter" / "jupyter_server_config.py").read_text()
    # the first cell of every notebook (imports, settings, the data they start from)
    first = {}
    for path in sorted((clone / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        first[path.name] = next(c.source for c in nb.cells if c.cell_type == "code")
    cells = tmp_path / "first_cells.json"
    cells.write_text(json.dumps(first))
    # as at launch: through binder/start, without the data folder (the image holds the data)
    env.pop("GENEXPY_NB_DATA_DIR", None)
    out = _run(["bash", str(clone / "binder" / "start"), str(venv / "bin" / "python"), "-c",
                FIRST_CELLS, str(cells)],
               "the notebooks' first cells", cwd=clone / "notebooks", env=env)
    failed = json.loads(out.strip().splitlines()[-1])
    assert not failed, failed
    assert len(first) >= 10
