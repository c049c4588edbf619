"""Build Binder's environment from binder/'s files the way repo2docker does, then execute every
notebook in it with the network off.

repo2docker (Binder's builder) installs ``binder/requirements.txt`` (the lock) into the
Python of ``binder/runtime.txt``, runs ``binder/postBuild`` from the repository's root, and
starts every session through ``binder/start``. Where a container engine runs, ``repo2docker
--no-run .`` builds the image itself; here (no engine) the same steps run in a fresh virtual
environment of that Python, in a copy of the checkout, with a home folder of its own (where
the image keeps the downloaded data and numba's cache). Then every notebook is executed
whole (``jupyter nbconvert --execute``) through ``binder/start``, in a network namespace
without network (``unshare -n``, as root; otherwise the network stays and the report says
so), and the report says for each: passed or failed, how long it took, and whether a kernel
was compiled at launch (the package's note on stderr) instead of loaded from the image.

    python scripts/binder_check.py [--notebooks 00_quickstart,01_categorical_encoders]
                                   [--workdir DIR] [--keep]

Slow (the packages are downloaded from the registry, every notebook runs): run it once after
changing binder/ or the lock; tests/test_binder.py checks the files themselves quickly.
``GENEXPY_NB_DATA_DIR`` (if set) is where postBuild takes the public data from instead of
downloading them, as scripts/public_data.py does.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: what the package prints on stderr when a first call compiles kernels
COMPILE_NOTE = "preparing numerical kernels"


def _say(text: str) -> None:
    print(f"binder-check: {text}", flush=True)


def _run(args: list[str], step: str, **kw) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, **kw)
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        _say(f"{step} FAILED (exit {proc.returncode}) after {dt:.0f} s\n"
             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        raise SystemExit(1)
    _say(f"{step}: {dt:.0f} s")
    return dt


def _runtime_python() -> str:
    version = re.fullmatch(r"python-(\d+\.\d+)", (ROOT / "binder" / "runtime.txt").read_text()
                           .strip())[1]
    python = shutil.which(f"python{version}")
    if not python:
        raise SystemExit(f"no python{version} on PATH (binder/runtime.txt)")
    return python


def _copy_checkout(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        if (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)


def _offline_prefix() -> tuple[list[str], bool]:
    """A command prefix that cuts the network (a namespace with loopback only), if we can."""
    unshare, ip = shutil.which("unshare"), shutil.which("ip") or shutil.which("/usr/sbin/ip")
    if os.geteuid() == 0 and unshare and ip:
        probe = subprocess.run([unshare, "-n", "true"], capture_output=True)
        if probe.returncode == 0:
            return [unshare, "-n", "bash", "-c", f'{ip} link set lo up && exec "$@"', "_"], True
    return [], False


def _stderr_text(nb_path: Path) -> str:
    nb = json.loads(nb_path.read_text(encoding="utf-8"))
    return "".join("".join(o.get("text", "")) for c in nb["cells"]
                   for o in c.get("outputs", []) if o.get("name") == "stderr")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notebooks", default="", help="comma-separated names (default: all)")
    ap.add_argument("--workdir", help="where to build (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per notebook")
    args = ap.parse_args(argv)

    if shutil.which("repo2docker") and shutil.which("docker"):
        _say("repo2docker and docker are here: `repo2docker --no-run .` builds the real image; "
             "this script runs the same steps without a container")
    work = Path(args.workdir or tempfile.mkdtemp(prefix="binder-check-"))
    work.mkdir(parents=True, exist_ok=True)
    venv, repo, home = work / "venv", work / "repo", work / "home"
    for d in (venv, repo, home):
        shutil.rmtree(d, ignore_errors=True)
    home.mkdir()
    _copy_checkout(repo)
    python = _runtime_python()
    _run([python, "-m", "venv", str(venv)], f"python -m venv ({python})")
    keep = ("LANG", "LC_ALL", "TMPDIR", "PIP_INDEX_URL", "PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL",
            "PIP_TRUSTED_HOST", "PIP_CERT", "SSL_CERT_FILE", "GENEXPY_NB_DATA_DIR")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(PATH=f"{venv / 'bin'}:/usr/bin:/bin", HOME=str(home), VIRTUAL_ENV=str(venv),
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-r",
          str(repo / "binder" / "requirements.txt")], "pip install -r binder/requirements.txt",
         env=env)
    _run(["bash", "binder/postBuild"], "binder/postBuild", cwd=repo, env=env)

    # launch: binder/start, no data folder, no network
    env.pop("GENEXPY_NB_DATA_DIR", None)
    prefix, offline = _offline_prefix()
    _say("network: " + ("off (unshare -n, loopback only)" if offline else
                        "ON (not root or no unshare: the notebooks could reach the network)"))
    wanted = {s.strip().removesuffix(".ipynb") for s in args.notebooks.split(",") if s.strip()}
    notebooks = sorted(p for p in (repo / "notebooks").glob("*.ipynb")
                       if not wanted or p.stem in wanted)
    out_dir = work / "executed"
    out_dir.mkdir(exist_ok=True)
    results = []
    for nb in notebooks:
        t0 = time.perf_counter()
        proc = subprocess.run(
            [*prefix, "bash", str(repo / "binder" / "start"), str(venv / "bin" / "jupyter"),
             "nbconvert", "--to", "notebook", "--execute",
             f"--ExecutePreprocessor.timeout={args.timeout}", "--output-dir", str(out_dir),
             str(nb)], cwd=repo / "notebooks", env=env, capture_output=True, text=True)
        dt = time.perf_counter() - t0
        done = out_dir / nb.name
        compiled = done.is_file() and COMPILE_NOTE in _stderr_text(done)
        status = "passed" if proc.returncode == 0 else "FAILED"
        results.append((nb.stem, status, dt, compiled))
        _say(f"{nb.stem}: {status} in {dt:.0f} s"
             + ("; compiled kernels at launch" if compiled else ""))
        if proc.returncode != 0:
            _say(proc.stderr[-2500:])
    failed = [r for r in results if r[1] != "passed"]
    compiled = [r[0] for r in results if r[3]]
    _say(f"{len(results) - len(failed)} of {len(results)} notebooks passed with the network "
         f"{'off' if offline else 'on'}; kernels compiled at launch in: "
         f"{', '.join(compiled) or 'none'}; work folder {work}")
    if not args.keep and not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
