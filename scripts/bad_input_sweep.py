"""The hostile-input sweep outside pytest: every case of ``tests/test_hostile_sweep.py``,
classified, with the counts per outcome and the time of each crafted-file refusal.

Outcomes: ``clear`` (an error naming the parameter or column, and the fix), ``correct``
(accepted, the right answer); anything else (``traceback``, ``hang``, ``silent``, ``input
changed``, ``code ran``, ``vague error``, ``wrong answer``, ``unescaped``: a command line
that printed a control character or wrote a file with a data string not escaped for its
format, ...) is a finding, listed.

Run from the repository root::

    PYTHONPATH=. python scripts/bad_input_sweep.py [--verbose] [--limit-as KB]

``--limit-as 4000000`` runs every case under a 4 GB address-space limit (``ulimit -v``);
``--files-only`` runs only the cases that read crafted or damaged files.
"""

from __future__ import annotations

import argparse
import json
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
    args = ap.parse_args(argv)
    if args.limit_as:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (args.limit_as * 1024, resource.RLIM_INFINITY))
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT))
    import test_hostile_sweep as sweep

    sweep.build_inputs(Path(tempfile.mkdtemp(prefix="genexpy_sweep_inputs_")))
    counts: dict[str, int] = {}
    slowest: list[tuple[float, str]] = []
    findings = 0
    t_all = time.perf_counter()
    cases = [c for c in sweep.CASES if not args.files_only or c.group in FILE_GROUPS]
    for case in cases:
        folder = Path(tempfile.mkdtemp(prefix="genexpy_sweep_"))
        t = time.perf_counter()
        kind, msg = sweep.outcome(case, folder)
        dt = time.perf_counter() - t
        counts[kind] = counts.get(kind, 0) + 1
        if case.group in FILE_GROUPS and case.expect == "clear":
            slowest.append((dt, case.id))
        bad = kind != case.expect
        findings += bad
        if args.verbose or bad:
            print(f"[{kind:9s}] {dt:6.3f} s  {case.id}: {msg[:160]}")
    slowest.sort(reverse=True)
    print(f"crafted and damaged files: {len(slowest)} refused, the slowest in "
          f"{slowest[0][0] * 1000:.0f} ms ({slowest[0][1]}), median "
          f"{sorted(d for d, _ in slowest)[len(slowest) // 2] * 1000:.1f} ms")
    print(json.dumps({"cases": len(cases), **dict(sorted(counts.items())),
                      "findings": findings,
                      "seconds": round(time.perf_counter() - t_all, 1)}))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
