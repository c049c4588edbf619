"""Record what the package prints and writes, to compare two versions bit for bit.

A release of moves (files renamed, helpers merged) must change no number and no word. This
script records, into one folder:

* the demo (``genexpy-nb demo``): its printed text and every file it writes;
* the command line on the shipped example study and the public encoder benchmark: ``nstar``,
  ``compare``, ``report`` and ``seeds`` (printed text and written files);
* every notebook, executed top to bottom: the text of each cell's outputs (streams,
  ``text/plain``, ``text/html``, errors; chart specs are compared through their text).

Run it before and after a change, then compare the two folders::

    python scripts/record_outputs.py --out /tmp/before
    ...                                           # the change
    python scripts/record_outputs.py --out /tmp/after
    python scripts/record_outputs.py --compare /tmp/before /tmp/after
    python scripts/record_outputs.py --compare /tmp/before /tmp/after --unordered

(``--unordered``: texts compared as sorted lines, for tables whose rows come from an unordered
grouping.) Record into folders whose paths have the same length: printed text wraps paths.

The comparison masks what legitimately differs between two runs: the output folders' own
paths, elapsed-time figures ("in 3.2 s"), memory addresses and the HTML ids that Altair draws
at random. Everything else must be equal byte for byte.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXE = str(Path(sys.executable).parent / "genexpy-nb")


def _data_dir() -> Path:
    d = os.environ.get("GENEXPY_NB_DATA_DIR", str(ROOT.parent / "shared" / "data"))
    return Path(d).resolve()


def _commands(out: Path) -> dict[str, list[str]]:
    example = str(ROOT / "data" / "example_study.parquet")
    enc = str(_data_dir() / "encoders_results.parquet")
    pool = str(ROOT / "data" / "cnn_digits_both.npz")
    ex_roles = ["--alternatives", "model", "--target", "score", "--higher-is-better",
                "--generalize", "dataset", "--design", "metric", "--average-over",
                "fold", "--held-constant", "train_size=small"]
    return {
        "demo": [EXE, "demo", "--out", str(out / "demo")],
        "nstar_example": [EXE, "nstar", example, *ex_roles, "--kernel", "jaccard:k=1",
                          "--kernel", "borda", "--out", str(out / "nstar_example.parquet"),
                          "--conclusions-out", str(out / "conclusions_example.parquet"),
                          "--figures", str(out / "nstar_figures")],
        "nstar_encoders": [EXE, "nstar", enc, "--alternatives", "encoder", "--target",
                           "cv_score", "--higher-is-better", "--generalize", "dataset",
                           "--design", "tuning,scoring", "--held-constant",
                           "model=DTC", "--kernel", "jaccard:k=1", "--kernel", "mallows",
                           "--out", str(out / "nstar_encoders.parquet")],
        "compare_example": [EXE, "compare", example, "--alternatives", "model", "--target",
                            "score", "--blocks", "dataset,metric,train_size",
                            "--average-over", "fold",
                            "--higher-is-better", "--aggregates", "--bayesian-rope", "0.01",
                            "--out", str(out / "compare_example")],
        "report_example": [EXE, "report", example, *ex_roles, "--out",
                           str(out / "report_example")],
        "seeds": [EXE, "seeds", pool, "--B", "30", "--out", str(out / "seeds.csv")],
    }


def _run(name: str, cmd: list[str], out: Path) -> None:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=out,
                       env={**os.environ, "PYTHONHASHSEED": "0"})
    (out / f"{name}.stdout").write_text(p.stdout)
    (out / f"{name}.stderr").write_text(p.stderr)
    (out / f"{name}.rc").write_text(str(p.returncode))
    print(f"{name}: rc {p.returncode} in {time.perf_counter() - t0:.0f} s", flush=True)


def _notebooks(out: Path, only: list[str] | None) -> None:
    import nbformat
    from nbclient import NotebookClient

    dest = out / "notebooks"
    dest.mkdir(parents=True, exist_ok=True)
    for nb_path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        if only and not any(o in nb_path.name for o in only):
            continue
        t0 = time.perf_counter()
        nb = nbformat.read(nb_path, as_version=4)
        client = NotebookClient(nb, timeout=900, kernel_name="python3",
                                resources={"metadata": {"path": str(nb_path.parent)}},
                                allow_errors=True)
        client.execute()
        lines = []
        for i, cell in enumerate(nb.cells):
            for o in cell.get("outputs", []):
                if o.get("output_type") == "stream":
                    lines.append(f"[{i}] {o['name']}: {o['text']}")
                elif o.get("output_type") == "error":
                    lines.append(f"[{i}] ERROR {o['ename']}: {o['evalue']}")
                else:
                    data = o.get("data", {})
                    for mime in ("text/plain", "text/html", "text/markdown"):
                        if mime in data:
                            lines.append(f"[{i}] {mime}: {data[mime]}")
        (dest / (nb_path.stem + ".txt")).write_text("\n".join(lines))
        print(f"{nb_path.name}: {time.perf_counter() - t0:.0f} s", flush=True)


_MASKS = [
    (re.compile(r"/tmp/[^\s'\"<>)]*"), "<TMP>"),
    (re.compile(r"\b\d+(\.\d+)?\s?(s|ms|seconds|min)\b"), "<T>"),
    (re.compile(r"0x[0-9a-f]{6,}"), "<ADDR>"),
    (re.compile(r"(vis|view|altair-viz|chart)[-_]?[0-9a-f]{8,}"), "<ID>"),
    (re.compile(r"\d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT[\d:.]+"), "<CLOCK>"),
]


def _mask(text: str) -> str:
    for rx, rep in _MASKS:
        text = rx.sub(rep, text)
    # a cell's printed text may come in one stream message or several (timing): compared as
    # one text, without the stream labels and the blank lines between messages
    text = re.sub(r"(?m)^\[\d+\] (stdout|stderr): ", "", text)
    return re.sub(r"\n\s*\n", "\n", text)


def _unordered(text: str) -> str:
    """The lines sorted, and the items of a printed dict sorted: the order of a table's rows
    or a dict's keys from an unordered grouping is not part of the answer."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^(.*)\{(.*)\}\s*$", line)
        if m and ":" in m.group(2):
            items = sorted(x.strip() for x in m.group(2).split(","))
            line = m.group(1) + "{" + ",".join(items) + "}"
        out.append(line)
    return "\n".join(sorted(out))


def _compare(a: Path, b: Path, unordered: bool = False) -> int:
    fa = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    fb = {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    bad = 0
    for rel in sorted(fa ^ fb):
        print(f"only in {'before' if rel in fa else 'after'}: {rel}")
        bad += 1
    for rel in sorted(fa & fb):
        x, y = (a / rel).read_bytes(), (b / rel).read_bytes()
        if x == y:
            continue
        try:
            tx, ty = _mask(x.decode()), _mask(y.decode())
            if unordered:
                tx, ty = _unordered(tx), _unordered(ty)
        except UnicodeDecodeError:
            print(f"DIFFERENT (binary): {rel}  {hashlib.sha256(x).hexdigest()[:12]} "
                  f"{hashlib.sha256(y).hexdigest()[:12]}")
            bad += 1
            continue
        if tx != ty:
            bad += 1
            print(f"DIFFERENT: {rel}")
            diff = difflib.unified_diff(tx.splitlines(), ty.splitlines(), lineterm="", n=1)
            for line in list(diff)[:30]:
                print("   ", line[:200])
    print(f"{len(fa & fb)} files compared, {bad} differ")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--only", nargs="*", help="commands or notebooks whose name contains these")
    ap.add_argument("--no-notebooks", action="store_true")
    ap.add_argument("--unordered", action="store_true",
                    help="compare texts as sorted lines (rows printed from an unordered grouping)")
    args = ap.parse_args()
    if args.compare:
        return _compare(*args.compare, unordered=args.unordered)
    if args.out is None:
        ap.error("--out or --compare is required")
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ["GENEXPY_NB_DATA_DIR"] = str(_data_dir())  # absolute: notebooks run elsewhere
    for name, cmd in _commands(args.out.resolve()).items():
        if args.only and not any(o in name for o in args.only):
            continue
        _run(name, cmd, args.out.resolve())
    if not args.no_notebooks:
        _notebooks(args.out.resolve(), args.only)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
