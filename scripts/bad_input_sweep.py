"""The hostile-input sweep outside pytest: every case of ``tests/test_hostile_sweep.py`` and
``tests/test_hostile_sweep3.py``, classified, with the counts per outcome, the findings per
class of problem (the third sweep's classes) and the time of each crafted-file refusal.

Outcomes: ``clear`` (an error naming the parameter or column, and the fix), ``correct``
(accepted, the right answer); anything else (``traceback``, ``hang``, ``silent``, ``input
changed``, ``code ran``, ``vague error``, ``wrong answer``, ``unescaped``: a command line
that printed a control character or wrote a file with a data string not escaped for its
format, ...) is a finding, listed.

Run from the repository root::

    PYTHONPATH=. python scripts/bad_input_sweep.py [--verbose] [--limit-as KB]

``--limit-as 4000000`` runs every case under a 4 GB address-space limit (``ulimit -v``);
``--files-only`` runs only the cases that read crafted or damaged files; ``--package DIR``
runs the cases against the ``genexpy_nb`` of another checkout (an earlier commit, say:
``git archive COMMIT | tar -x -C DIR``), to count the findings before and after a change.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the groups whose cases read crafted or damaged files
FILE_GROUPS = ("read_results", "load_pool", "cifar", "weights", "resume")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verbose", action="store_true", help="print every case")
    ap.add_argument("--limit-as", type=int, default=None, metavar="KB",
                    help="address-space limit for this process, as ulimit -v")
    ap.add_argument("--files-only", action="store_true",
                    help="only the cases that read crafted or damaged files")
    ap.add_argument("--package", default=None, metavar="DIR",
                    help="run against the genexpy_nb of this checkout (before/after counts)")
    args = ap.parse_args(argv)
    if args.limit_as:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (args.limit_as * 1024, resource.RLIM_INFINITY))
    package = str(Path(args.package).resolve()) if args.package else str(ROOT)
    os.environ["GENEXPY_SWEEP_PACKAGE"] = package  # the cases that start a process
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, package)
    import test_hostile_sweep as sweep
    import test_hostile_sweep3 as sweep3

    sweep.build_inputs(Path(tempfile.mkdtemp(prefix="genexpy_sweep_inputs_")))
    counts: dict[str, int] = {}
    by_class: dict[str, list[int]] = {}
    slowest: list[tuple[float, str]] = []
    findings = 0
    t_all = time.perf_counter()
    cases = [c for c in sweep.CASES + sweep3.CASES
             if not args.files_only or c.group in FILE_GROUPS]
    for case in cases:
        folder = Path(tempfile.mkdtemp(prefix="genexpy_sweep_"))
        klass = sweep3.CLASSES.get(case.id)
        sweep.CASE_TIMEOUT = sweep3.CASE_TIMEOUT if klass else 30
        t = time.perf_counter()
        kind, msg = sweep.outcome(case, folder)
        dt = time.perf_counter() - t
        counts[kind] = counts.get(kind, 0) + 1
        if case.group in FILE_GROUPS and case.expect == "clear":
            slowest.append((dt, case.id))
        bad = kind != case.expect
        findings += bad
        if klass:
            tally = by_class.setdefault(klass, [0, 0])
            tally[0] += 1
            tally[1] += bad
        if args.verbose or bad:
            print(f"[{kind:9s}] {dt:6.3f} s  {case.id}: {msg[:160]}", flush=True)
    slowest.sort(reverse=True)
    print(f"crafted and damaged files: {len(slowest)} refused, the slowest in "
          f"{slowest[0][0] * 1000:.0f} ms ({slowest[0][1]}), median "
          f"{sorted(d for d, _ in slowest)[len(slowest) // 2] * 1000:.1f} ms")
    print("third sweep, findings by class (cases):")
    for klass, (n, bad) in sorted(by_class.items()):
        print(f"  {bad:3d} of {n:3d}  {klass}")
    print(json.dumps({"cases": len(cases), **dict(sorted(counts.items())),
                      "findings": findings,
                      "seconds": round(time.perf_counter() - t_all, 1)}))
    return 1 if findings else 0


if __name__ == "__main__":
    code = main()
    # a case that hung may have left a worker thread computing: do not wait for it
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
