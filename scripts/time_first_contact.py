"""Time what a new user runs first, in a fresh clone: the figures the README and docs quote.

Steps, each in a fresh clone of this repository in a temporary folder, with a cache folder
of its own (so numba compiles from scratch, as on a new machine):

* ``install``: ``python3 -m venv .venv && .venv/bin/pip install .`` (the README's main job,
  first part; pip's own download cache is the user's, say ``--no-pip-cache`` for none);
* ``precompile``: ``.venv/bin/genexpy-nb precompile`` (every kernel compiled into numba's
  cache);
* ``demo``: ``.venv/bin/genexpy-nb demo --out genexpy_demo`` (the main job's analysis);
* ``tests``: ``bash scripts/test.sh`` (the README's test command; ``--with-tests``, long);
* ``docs``: ``bash scripts/docs.sh`` (the documentation site; ``--with-docs``, long).

It prints the machine (processor, cores, memory, Python) and, for each step, its wall time
and the load average before and after it (another job on the cores slows every step: a
figure is only worth quoting with its load).

    python scripts/time_first_contact.py [--with-tests] [--with-docs] [--skip demo]
                                         [--json times.json] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEPS = ("install", "precompile", "demo", "tests", "docs")


def machine() -> dict:
    """Processor, cores, memory, OS and Python of this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = round(int(line.split()[1]) / 1024**2, 1)
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": mem,
            "os": f"{platform.system()} {platform.release()}",
            "python": platform.python_version()}


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _step(name: str, cmd: str, cwd: Path, env: dict, log: Path) -> dict:
    before = _load()
    t0 = time.perf_counter()
    with open(log, "w") as fh:
        rc = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, stdout=fh,
                            stderr=subprocess.STDOUT).returncode
    dt = time.perf_counter() - t0
    after = _load()
    row = {"step": name, "seconds": round(dt, 1), "exit": rc, "load_before": before,
           "load_after": after, "command": cmd}
    print(f"{name:11s} {dt:8.1f} s   exit {rc}   load {before:.1f} -> {after:.1f}   ({cmd})",
          flush=True)
    if rc != 0:
        print(f"  the last lines of its output ({log}):", flush=True)
        print("  " + "\n  ".join(log.read_text(errors="replace").splitlines()[-15:]),
              flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--with-tests", action="store_true", help="also time bash scripts/test.sh")
    ap.add_argument("--with-docs", action="store_true", help="also time bash scripts/docs.sh")
    ap.add_argument("--skip", action="append", default=[], choices=STEPS,
                    help="leave a step out (repeatable)")
    ap.add_argument("--no-pip-cache", action="store_true",
                    help="install without pip's download cache (every package downloaded)")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--keep", action="store_true", help="keep the clone")
    args = ap.parse_args(argv)

    info = machine()
    print("machine: {cpu}, {cores} cores, {memory_gib} GiB, {os}, Python {python}".format(
        **info))
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"(1, 5, 15 min) on {info['cores']} cores")
    work = Path(tempfile.mkdtemp(prefix="first-contact-"))
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone,
                          capture_output=True, text=True).stdout.strip()
    print(f"fresh clone of {ROOT} at {head} in {clone}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GENEXPY_NB_", "VIRTUAL"))
           and k not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}
    env["XDG_CACHE_HOME"] = str(work / "cache")  # numba's cache starts empty
    if args.no_pip_cache:
        env["PIP_NO_CACHE_DIR"] = "1"
    steps = {
        "install": "python3 -m venv .venv && .venv/bin/pip install -q .",
        "precompile": ".venv/bin/genexpy-nb precompile",
        "demo": ".venv/bin/genexpy-nb demo --out genexpy_demo",
        "tests": "bash scripts/test.sh",
        "docs": "bash scripts/docs.sh",
    }
    chosen = [s for s in STEPS if s not in args.skip
              and (s != "tests" or args.with_tests) and (s != "docs" or args.with_docs)]
    rows = []
    for name in chosen:
        rows.append(_step(name, steps[name], clone, env, work / f"{name}.log"))
        if rows[-1]["exit"] != 0 and name in ("install", "precompile"):
            break  # the later steps need it
    out = {"machine": info, "commit": head, "steps": rows,
           "load_at_end": [round(x, 2) for x in os.getloadavg()]}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(r["exit"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
