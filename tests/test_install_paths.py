"""The README's set-ups one after the other, in every order, in a copy of the checkout.

The main job installs the package (``pip install .``) and precompiles; the test command
(``scripts/test.sh``) and the documentation build (``scripts/docs.sh``) install it editable
(``pip install -e .``), the latter precompiling too. A user may run them in any order in the
same clone. Once, numba's cache files written inside the installed package were left behind
by pip when the editable install replaced it, and the left-over folder shadowed the package:
the installed command failed from any folder. This runs the sequence main job -> test
command -> main job -> documentation -> main job (every transition the README allows) in one
virtual environment, and after each step runs ``genexpy-nb nstar``, ``compare
--bayesian-rope`` and ``seeds`` from a folder outside the copy.

Affordable: the package alone is installed, offline, without build isolation
(``--no-deps --no-build-isolation --no-index``); its dependencies come from the environment
running the tests (a path file), and the numba cache is a fresh folder of its own.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
PIP = ["-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index"]


def _copy_checkout(dst: Path) -> None:
    """Copy what a clone holds: the tracked and the not-ignored files of the working tree."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = ROOT / rel
        if src.is_file():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / rel)


class _Env:
    """A virtual environment with the package alone; its dependencies from the test's one."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.clone = tmp / "clone"
        self.elsewhere = tmp / "elsewhere"
        self.venv = tmp / "venv"
        self.elsewhere.mkdir()
        _copy_checkout(self.clone)
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(self.venv)],
                       check=True)
        self.py = str(self.venv / "bin" / "python")
        self.site = Path(subprocess.run(
            [self.py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True).stdout.strip())
        # after the package's own path files (sorted by name): pip, numba, polars, ...
        (self.site / "zzz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH", "VIRTUAL_ENV")}
        self.env.update({"XDG_CACHE_HOME": str(tmp / "cache"), "GENEXPY_NB_NUMBA_CACHE": "1",
                         "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONNOUSERSITE": "1"})

    def run(self, args, cwd, step, extra_env=None):
        out = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600,
                             env={**self.env, **(extra_env or {})})
        assert out.returncode == 0, (f"{step}: {' '.join(map(str, args))} exited "
                                     f"{out.returncode}\n{out.stdout[-2000:]}\n"
                                     f"{out.stderr[-3000:]}")
        return out.stdout

    def main_job(self):
        """``pip install .`` then ``genexpy-nb precompile`` (the README's main job)."""
        self.run([self.py, *PIP, "."], self.clone, "main job: pip install .")
        self.run([str(self.venv / "bin" / "genexpy-nb"), "precompile", "--quiet"],
                 self.clone, "main job: precompile")

    def editable(self, docs: bool):
        """What scripts/test.sh and scripts/docs.sh do to the package: ``pip install -e``."""
        self.run([self.py, *PIP, "-e", "."], self.clone, "pip install -e .")
        if docs:  # scripts/docs.sh precompiles the checkout's package before the notebooks
            self.run([self.py, "-m", "genexpy_nb", "precompile", "--quiet"], self.clone,
                     "docs: precompile", {"PYTHONPATH": str(self.clone)})

    def nothing_left_behind(self, step, editable):
        """The installed package's folder holds what pip recorded, and no more."""
        pkg = self.site / "genexpy_nb"
        if editable:
            assert not pkg.exists(), f"{step}: a left-over {pkg}: {sorted(pkg.rglob('*'))}"
            return
        record = next(self.site.glob("genexpy_nb-*.dist-info")) / "RECORD"
        recorded = {ln.split(",")[0] for ln in record.read_text().splitlines()}
        extra = [str(p.relative_to(self.site)) for p in pkg.rglob("*")
                 if p.is_file() and str(p.relative_to(self.site)) not in recorded]
        assert not extra, f"{step}: files pip does not know about: {extra[:10]}"

    def commands(self, step, data):
        """The installed command, from a folder outside the checkout."""
        exe = str(self.venv / "bin" / "genexpy-nb")
        out = self.elsewhere
        self.run([exe, "nstar", str(data), "--alternatives", "method", "--target", "score",
                  "--higher-is-better", "--generalize", "dataset", "--kernel", "jaccard:k=1",
                  "--rep", "20", "--quiet", "--out", str(out / "nstar.csv")], out,
                 f"{step}: nstar")
        assert pl.read_csv(out / "nstar.csv").height > 0
        self.run([exe, "compare", str(data), "--alternatives", "method", "--target", "score",
                  "--higher-is-better", "--blocks", "dataset", "--bayesian-rope", "0.01",
                  "--figures", "", "--quiet", "--out", str(out / "cmp")], out,
                 f"{step}: compare --bayesian-rope")
        assert pl.read_csv(out / "cmp" / "bayesian_signed_rank.csv").height == 3
        self.run([exe, "seeds", "transfer_digits.npz", "--n-reference", "86", "--B", "2",
                  "--quiet", "--out", str(out / "seeds.csv")], out, f"{step}: seeds")
        assert pl.read_csv(out / "seeds.csv")["model"].to_list() == [86, 87, 88, 89]
        where = self.run([self.py, "-c", "import genexpy_nb; print(genexpy_nb.__file__)"],
                         out, f"{step}: import")
        return Path(where.strip()).parent


def test_the_scripts_install_the_package_as_this_test_does():
    """The README's main job installs with ``pip install .``; both scripts with ``-e``."""
    readme = (ROOT / "README.md").read_text()
    assert ".venv/bin/pip install . && .venv/bin/genexpy-nb precompile" in readme
    for script in ("test.sh", "docs.sh"):
        assert '-m pip install -q -e ".[' in (ROOT / "scripts" / script).read_text()
    assert "genexpy_nb precompile" in (ROOT / "scripts" / "docs.sh").read_text()


def test_the_setups_in_any_order_leave_a_working_command(tmp_path):
    env = _Env(tmp_path)
    rng = np.random.default_rng(0)
    data = tmp_path / "results.csv"
    pl.DataFrame([{"dataset": f"d{d}", "method": f"m{m}", "score": m * 0.1 + rng.normal()}
                  for d in range(12) for m in range(4)]).write_csv(data)

    env.main_job()
    env.nothing_left_behind("main job", editable=False)
    assert env.commands("main job", data) == env.site / "genexpy_nb"

    steps = [("main job, then the test command", lambda: env.editable(docs=False), True),
             ("test command, then the main job", env.main_job, False),
             ("main job, then the documentation", lambda: env.editable(docs=True), True),
             ("documentation, then the main job", env.main_job, False)]
    for step, do, editable in steps:
        do()
        env.nothing_left_behind(step, editable)
        where = env.commands(step, data)
        assert where == (env.clone / "genexpy_nb" if editable else env.site / "genexpy_nb"), (
            f"{step}: genexpy_nb imported from {where}")
    # numba's cache is in the user's cache folder, one sub-folder per installed copy
    cache = tmp_path / "cache" / "genexpy_nb" / "numba"
    assert len({p.parent for p in cache.rglob("*.nbi")}) >= 2
    assert not list(env.clone.rglob("*.nbi"))


def test_the_documentation_build_installs_what_its_check_imports():
    """``bash scripts/docs.sh`` alone installs ``.[docs,train,cluster]`` and then runs
    tests/test_docs_site.py: every module that check imports must come with those extras
    (it once failed after the whole build for want of pytest)."""
    import ast
    import tomllib
    from importlib.metadata import packages_distributions

    from packaging.requirements import Requirement

    with open(ROOT / "pyproject.toml", "rb") as fh:
        project = tomllib.load(fh)["project"]
    docs = (ROOT / "scripts" / "docs.sh").read_text()
    extras = re.search(r'pip install -q -e "\.\[([a-z,]+)\]"', docs)[1].split(",")
    reqs = project["dependencies"] + [r for e in extras
                                      for r in project["optional-dependencies"][e]]
    names = {Requirement(r).name.lower().replace("_", "-") for r in reqs}
    tree = ast.parse((ROOT / "tests" / "test_docs_site.py").read_text())
    tops = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
            for a in n.names}
    tops |= {n.module.split(".")[0] for n in ast.walk(tree)
             if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    # the docs' extensions, the package and the tests' own helpers (conftest: pytest loads
    # it for every test anyway) are not installed by pip
    local = ({p.stem for p in (ROOT / "docs" / "_ext").glob("*.py")} | {"genexpy_nb"}
             | {p.stem for p in (ROOT / "tests").glob("*.py")})
    dists = packages_distributions()
    third = {t for t in tops - local - set(sys.stdlib_module_names)}
    assert third, "found no import in tests/test_docs_site.py"
    for mod in sorted(third):
        assert {d.lower().replace("_", "-") for d in dists.get(mod, [mod])} & names, (
            f"tests/test_docs_site.py imports {mod}, which scripts/docs.sh's extras "
            f"({', '.join(extras)}) do not install")
