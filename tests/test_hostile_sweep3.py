"""The third hostile-input sweep (issues 50 and 54): eval logs, escaping, filters, the
environment and sizes, each case with its outcome and the class of problem it guards.

Run as the other sweep (:mod:`test_hostile_sweep`: ``clear`` — an error naming the
parameter, field, file or line; ``correct`` — accepted with the right answer). Every case
carries the class of problem the sweep found (``CLASSES``); ``python
scripts/bad_input_sweep.py`` counts the findings by class, also against another checkout
(``--package DIR``), to compare before and after a change.

A case that reads an eval log checks the rows *and* that every record skipped was said
(a ``SkippedRecordsWarning`` or another warning naming the line), so a silent drop is a
wrong answer here.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_hostile_sweep as sweep
from test_hostile_sweep import Case, CliRun, cli

import genexpy_nb as gx

CASES: list[Case] = []
#: case id -> the class of problem it guards (the issue's classes)
CLASSES: dict[str, str] = {}

LOST = "records lost or merged without a word"
FILTER = "a filter or setting the answer does not name"
ESCAPE = "escaping with holes"
TRACE = "tracebacks"
VALID = "refused valid"
BOUND = "unbounded"


def case(group: str, name: str, klass: str, expect: str, *names: str, check=None,
         warns: bool = False):
    def deco(fn):
        c = Case(group, name, fn, expect, names, check=check, warns=warns)
        CASES.append(c)
        CLASSES[c.id] = klass
        return fn
    return deco


def _write(folder: Path, name: str, content: str | bytes) -> Path:
    p = folder / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return p


def _read(reader, path):
    """The reader's frame and the warnings it gave (a skipped record must be said)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = reader(path)
    return df, " | ".join(str(w.message) for w in caught)


def _lm(doc_id, acc):
    return json.dumps({"doc_id": doc_id, "filter": "none", "metrics": ["acc"], "acc": acc})


S1, S2 = "samples_t_2024-01-01T00-00-00.jsonl", "samples_t_2024-02-01T00-00-00.jsonl"


def _lines(*xs: str) -> str:
    return "".join(x + "\n" for x in xs)


def _items(r) -> list:
    df, _ = r
    return sorted(zip(df["item"].to_list(), df["run"].to_list(), df["value"].to_list()))


# ---- lm-evaluation-harness per-sample logs ----------------------------------------------

@case("eval logs", "lm-eval: a byte-order mark before the first record", LOST, "correct",
      check=lambda r: _items(r) == [("0", 0, 1.0), ("1", 0, 0.0)])
def _(o):
    return _read(gx.read_lm_eval_samples,
                 _write(o, S1, b"\xef\xbb\xbf" + _lines(_lm(0, 1), _lm(1, 0)).encode()))


@case("eval logs", "lm-eval: a truncated last line", LOST, "correct",
      check=lambda r: _items(r) == [("0", 0, 1.0), ("1", 0, 0.0)] and "line 3" in r[1])
def _(o):
    return _read(gx.read_lm_eval_samples,
                 _write(o, S1, _lines(_lm(0, 1), _lm(1, 0)) + _lm(2, 1)[:20]))


@case("eval logs", "lm-eval: doc_id 1 and '1'", LOST, "clear", "doc_id", "line 2")
def _(o):
    return _read(gx.read_lm_eval_samples, _write(o, S1, _lines(_lm(1, 1), _lm("1", 0))))


@case("eval logs", "lm-eval: a sample without doc_id", LOST, "clear", "doc_id", "line 2")
def _(o):
    bad = json.dumps({"filter": "none", "metrics": ["acc"], "acc": 1})
    return _read(gx.read_lm_eval_samples, _write(o, S1, _lines(_lm(0, 1), bad)))


@case("eval logs", "lm-eval: a line repeated", LOST, "correct",
      check=lambda r: _items(r) == [("0", 0, 1.0), ("1", 0, 0.0)] and "repeat" in r[1])
def _(o):
    return _read(gx.read_lm_eval_samples, _write(o, S1, _lines(_lm(0, 1), _lm(1, 0),
                                                                _lm(0, 1))))


@case("eval logs", "lm-eval: a doc repeated with another value", LOST, "clear", "line 1",
      "line 2")
def _(o):
    return _read(gx.read_lm_eval_samples, _write(o, S1, _lines(_lm(0, 1), _lm(0, 0))))


@case("eval logs", "lm-eval: a rerun in a later file", LOST, "correct",
      check=lambda r: _items(r) == [("0", 0, 1.0), ("1", 0, 1.0)] and "superseded" in r[1])
def _(o):
    _write(o / "m", S1, _lines(_lm(0, 0), _lm(1, 0)))
    _write(o / "m", S2, _lines(_lm(0, 1), _lm(1, 1)))
    return _read(gx.read_lm_eval_samples, o / "m")


# ---- inspect_ai logs ----------------------------------------------------------------------

def _log(samples, created="2024-01-01T00:00:00"):
    return json.dumps({"eval": {"model": "m", "task": "t", "created": created},
                       "samples": samples})


def _s(i, v="C", epoch=None):
    d = {"id": i, "scores": {"match": {"value": v}}} if i is not None else {
        "scores": {"match": {"value": v}}}
    if epoch is not None:
        d["epoch"] = epoch
    return d


@case("eval logs", "inspect: epoch '2' written as text", LOST, "correct",
      check=lambda r: _items(r) == [("1", 1, 1.0), ("1", 2, 0.0)])
def _(o):
    return _read(gx.read_inspect_log, _write(o, "log.json", _log([_s(1, "C", 1),
                                                                  _s(1, "I", "2")])))


@case("eval logs", "inspect: samples without an id", LOST, "clear", "id", "samples[0]")
def _(o):
    return _read(gx.read_inspect_log, _write(o, "log.json", _log([_s(None), _s(None, "I")])))


@case("eval logs", "inspect: a sample repeated", LOST, "correct",
      check=lambda r: _items(r) == [("1", 1, 1.0), ("2", 1, 0.0)] and "repeat" in r[1])
def _(o):
    return _read(gx.read_inspect_log, _write(o, "log.json", _log([_s(1), _s(2, "I"),
                                                                  _s(1)])))


@case("eval logs", "inspect: a rerun in a later log", LOST, "correct",
      check=lambda r: _items(r) == [("1", 1, 1.0), ("2", 1, 1.0)] and "superseded" in r[1])
def _(o):
    _write(o / "logs", "a.json", _log([_s(1, "I"), _s(2, "I")], "2024-01-01T00:00:00"))
    _write(o / "logs", "b.json", _log([_s(1), _s(2)], "2024-02-01T00:00:00"))
    return _read(gx.read_inspect_log, o / "logs")


@case("eval logs", "inspect: an epoch of 2**70", TRACE, "clear", "epoch")
def _(o):
    return _read(gx.read_inspect_log, _write(o, "log.json", _log([_s(1, "C", 2**70)])))


# ---- Every Eval Ever instances --------------------------------------------------------------

def _inst(sid, score):
    return json.dumps({"model_id": "m", "evaluation_name": "b", "evaluation_id": "e",
                       "sample_id": sid, "evaluation": {"score": score}})


@case("eval logs", "EEE: sample_id 7 and '7'", LOST, "clear", "sample_id", "line 2")
def _(o):
    return _read(gx.read_eee_instances, _write(o, "i.jsonl", _lines(_inst(7, 1.0),
                                                                   _inst("7", 0.0))))


@case("eval logs", "EEE: a record repeated", LOST, "correct",
      check=lambda r: _items(r) == [("a", 0, 1.0), ("b", 0, 0.0)] and "repeat" in r[1])
def _(o):
    return _read(gx.read_eee_instances, _write(o, "i.jsonl", _lines(
        _inst("a", 1.0), _inst("b", 0.0), _inst("a", 1.0))))


# ---- tsml bake-off results ------------------------------------------------------------------

H = "Resamples:,0,1,2\n"


def _tsml(r) -> list:
    df, _ = r
    return sorted(zip(df["dataset"].to_list(), df["resample"].to_list(),
                      df["value"].to_list()))


@case("eval logs", "tsml: a row longer than its header", LOST, "clear", "line 3")
def _(o):
    return _read(gx.read_tsml_results, _write(o, "X_accuracy.csv",
                                              H + "A,0.9,0.8,0.7\nB,0.9,0.8,0.7,0.6\n"))


@case("eval logs", "tsml: a cell 1_0", LOST, "correct",
      check=lambda r: ("A", 1, 10.0) not in _tsml(r) and len(_tsml(r)) == 2
      and "'1_0'" in r[1])
def _(o):
    return _read(gx.read_tsml_results, _write(o, "X_accuracy.csv", H + "A,0.9,1_0,0.7\n"))


@case("eval logs", "tsml: a resample named twice", LOST, "clear", "resample", "line 1")
def _(o):
    return _read(gx.read_tsml_results, _write(o, "X_accuracy.csv",
                                              "Resamples:,0,1,1\nA,0.9,0.8,0.7\n"))


@case("eval logs", "tsml: a dataset twice with other values", LOST, "clear", "'A'")
def _(o):
    return _read(gx.read_tsml_results, _write(o, "X_accuracy.csv",
                                              H + "A,0.9,0.8,0.7\nA,0.9,0.8,0.6\n"))


@case("eval logs", "tsml: a resample header of 10**30", TRACE, "clear", "Resamples")
def _(o):
    return _read(gx.read_tsml_results, _write(o, "X_accuracy.csv",
                                              f"Resamples:,0,{10**30}\nA,0.9,0.8\n"))


@case("eval logs", "an unreadable log (permission denied)", TRACE, "clear", S1)
def _(o):
    f = _write(o, S1, _lines(_lm(0, 1)))
    real = Path.read_bytes

    def denied(self):
        if self.name == S1:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    Path.read_bytes = denied
    try:
        return _read(gx.read_lm_eval_samples, f)
    finally:
        Path.read_bytes = real


_TSML_MANY = Path(os.environ.get("GENEXPY_SWEEP_TMP", "/tmp")) / "genexpy_sweep3_tsml5000"


def _tsml_many() -> Path:
    """5,000 results files of 100 datasets x 30 resamples (15 M cells), built once."""
    done = _TSML_MANY / ".complete"
    if not done.exists():
        _TSML_MANY.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng(0)
        head = "Resamples:," + ",".join(map(str, range(30))) + "\n"
        for i in range(5000):
            v = rng.random((100, 30))
            body = "".join(f"ds{j}," + ",".join(f"{x:.4f}" for x in v[j]) + "\n"
                           for j in range(100))
            (_TSML_MANY / f"C{i}_accuracy.csv").write_text(head + body)
        done.write_text("")
    return _TSML_MANY


@case("sizes", "tsml: 5,000 files (15 M cells) under a 4 GB limit", BOUND, "correct",
      check=lambda r: r.rc == 0 and "15000000" in r.out)
def _(o):
    return _limited(4096, "from genexpy_nb.evals import read_tsml_results; "
                          f"print(read_tsml_results({str(_tsml_many())!r}).height)")


# ---- the command line and the report -----------------------------------------------------

def _held_table() -> pl.DataFrame:
    rows = []
    for d in range(8):
        for i, a in enumerate("abc"):
            for lvl in ("x", "y"):
                rows.append({"ds": f"d{d}", "alt": a, "cond": lvl,
                             "acc": 0.5 + 0.1 * i * (1 if lvl == "x" else -1)
                             + 0.01 * ((7 * d + i) % 5)})
    return pl.DataFrame(rows)


def _report(o: Path, df: pl.DataFrame, target: str = "acc", *extra: str) -> CliRun:
    src = o / "r.parquet"
    df.write_parquet(src)
    run = cli("report", src, "--alternatives", "alt", "--target", target, "--generalize",
              "ds", "--higher-is-better", "--rep", "10", *extra, "--out", o / "rep")
    run.rep = o / "rep"  # checked by the case (the page holds its own diagrams' images)
    return run


def _first_lines_name_the_filter(r: CliRun) -> bool:
    md = (r.rep / "report.md").read_text(encoding="utf-8").splitlines()[:4]
    return r.rc == 0 and any("cond = x" in ln for ln in md) and "cond = x" in r.err[:300]


@case("report", "--held-constant named in the page's first lines", FILTER, "correct",
      check=_first_lines_name_the_filter)
def _(o):
    return _report(o, _held_table(), "acc", "--held-constant", "cond=x")


def _no_raw_html(r: CliRun) -> bool:
    md = (r.rep / "report.md").read_text(encoding="utf-8")
    return r.rc == 0 and "<img" not in md and "<img" not in (
        r.rep / "report.html").read_text(encoding="utf-8")


@case("report", "a target column named <img onerror>", ESCAPE, "correct", check=_no_raw_html)
def _(o):
    t = "acc<img src=x onerror=alert(1)>"
    return _report(o, _held_table().filter(pl.col("cond") == "x").drop("cond")
                   .rename({"acc": t}), t)


@case("report", "terminal escapes in names reach no CSV file", ESCAPE, "correct",
      check=lambda r: r.rc == 0 and not any(
          "\x1b" in p.read_text(encoding="utf-8") for p in r.rep.rglob("*.csv")))
def _(o):
    df = _held_table().filter(pl.col("cond") == "x").drop("cond").with_columns(
        pl.col("alt").replace({"a": "a\x1b[2J", "b": "b\x1b]0;t\x07"}))
    return _report(o, df)


@case("report", "a right-to-left override in the CD diagram's SVG", ESCAPE, "correct",
      check=lambda svg: "\u202e" not in svg)
def _(o):
    from genexpy_nb.charts.cd_figure import cd_diagram_svg
    from genexpy_nb.significance import compare

    df = _held_table().filter(pl.col("cond") == "x").with_columns(
        pl.col("alt").replace({"a": "a\u202eevil"}))
    return cd_diagram_svg(compare(df, alternatives="alt", target="acc", blocks="ds",
                                  higher_is_better=True))


@case("cli", "alternatives 1, 1.0 and 01 in a CSV", VALID, "correct",
      check=lambda r: r.rc == 0 and pl.read_csv(
          r.folder / "mean_ranks.csv", schema_overrides={"alternative": pl.String})
      ["alternative"].sort().to_list() == ["01", "1", "1.0"])
def _(o):
    df = _held_table().filter(pl.col("cond") == "x").drop("cond").with_columns(
        pl.col("alt").replace({"a": "1", "b": "1.0", "c": "01"}))
    src = o / "r.csv"
    df.write_csv(src)
    run = cli("compare", src, "--alternatives", "alt", "--target", "acc", "--blocks", "ds",
              "--higher-is-better", "--figures", "", "--quiet", "--out", o / "c")
    run.folder = o / "c"
    return run


@case("api", "alternatives 1, 1.0 and 01 read by read_results", VALID, "correct",
      check=lambda st: st.na == 3, warns=True)
def _(o):
    df = _held_table().filter(pl.col("cond") == "x").drop("cond").with_columns(
        pl.col("alt").replace({"a": "1", "b": "1.0", "c": "01"}))
    src = o / "r.csv"
    df.write_csv(src)
    return gx.Study(gx.read_results(src), alternatives="alt", target="acc",
                    generalize="ds", higher_is_better=True)


def _study():
    return gx.Study(_held_table().filter(pl.col("cond") == "x"), alternatives="alt",
                    target="acc", generalize="ds", higher_is_better=True)


@case("api", "plan(conclusions at 0.95, alpha=0.9)", FILTER, "clear", "alpha", "0.95")
def _(o):
    return gx.plan(gx.conclusions(_study(), alpha=0.95, progress=False), alpha=0.9)


@case("api", "a summary over conclusions at two alpha*", FILTER, "clear", "0.8", "0.95")
def _(o):
    st = _study()
    both = pl.concat([gx.conclusions(st, alpha=a, progress=False) for a in (0.95, 0.8)])
    return gx.conclusions_summary(both).to_text()


@case("api", "conclusions(top_k=1.5)", TRACE, "clear", "top_k")
def _(o):
    return gx.conclusions(_study(), top_k=1.5, progress=False)


class _Env:
    """Set environment variables for one case."""

    def __init__(self, **env: str) -> None:
        self.env = env

    def __enter__(self):
        self.old = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)

    def __exit__(self, *exc):
        for k, v in self.old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _bug_with(**env: str) -> CliRun:
    """A command that hits a bug of ours, under the environment given."""
    import genexpy_nb.cli.seeds as seeds_command

    real = seeds_command.cmd_seeds

    def boom(args):
        raise RuntimeError("kaboom")

    seeds_command.cmd_seeds = boom
    try:
        with _Env(**env):
            err, out = io.StringIO(), io.StringIO()
            from genexpy_nb.cli import main

            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                rc = main(["seeds", "x.npz", "--out", "s.csv"])
            return CliRun(rc, err.getvalue(), out.getvalue())
    finally:
        seeds_command.cmd_seeds = real


@case("environment", "GENEXPY_NB_DEBUG=0 asks for no traceback", TRACE, "correct",
      check=lambda r: r == (3, False))
def _(o):
    run = _bug_with(GENEXPY_NB_DEBUG="0")  # a bug: exit 3 with one line, as asked
    return run.rc, "Traceback" in run.err


@case("environment", "GENEXPY_NB_DEBUG=maybe", TRACE, "clear", "GENEXPY_NB_DEBUG")
def _(o):
    return _bug_with(GENEXPY_NB_DEBUG="maybe")


def _subprocess(code: str, env: dict | None = None, *args: str) -> CliRun:
    root = os.environ.get("GENEXPY_SWEEP_PACKAGE") or str(Path(gx.__file__).parents[1])
    # run from the package's folder: ``python -c`` puts the current folder first
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          timeout=sweep.CASE_TIMEOUT - 2, cwd=root,
                          env={**os.environ, "PYTHONPATH": root, "GENEXPY_NB_PROGRESS": "0",
                               **(env or {})})
    return CliRun(done.returncode, done.stderr.decode("utf-8", "replace"),
                  done.stdout.decode("utf-8", "replace"))


def _limited(mb: int, code: str, *args: str) -> CliRun:
    return _subprocess(f"import resource, sys; resource.setrlimit(resource.RLIMIT_AS, "
                       f"({mb} * 2**20, resource.RLIM_INFINITY)); " + code, None, *args)


@case("environment", "report with an ASCII standard output", TRACE, "correct",
      check=lambda r: r.rc == 0 and "UnicodeEncodeError" not in r.err)
def _(o):
    src = o / "r.csv"
    _held_table().filter(pl.col("cond") == "x").write_csv(src)
    return _subprocess("import sys; from genexpy_nb.cli import main; sys.exit(main())",
                       {"PYTHONIOENCODING": "ascii"}, "report", str(src), "--alternatives",
                       "alt", "--target", "acc", "--generalize", "ds", "--higher-is-better",
                       "--rep", "10", "--out", str(o / "rep"))


# ---- sizes (issue 54) ---------------------------------------------------------------------

@case("sizes", "compare: 5,000 alternatives x 20 blocks under a 4 GB limit", BOUND, "clear",
      "12,497,500 pairs", "--control")
def _(o):
    rng = np.random.default_rng(0)
    k, n = 5000, 20
    src = o / "many.parquet"
    pl.DataFrame({"d": np.repeat([f"d{i}" for i in range(n)], k),
                  "m": np.tile([f"m{j}" for j in range(k)], n),
                  "acc": rng.random(n * k)}).write_parquet(src)
    return _limited(4096, "from genexpy_nb.cli import main; sys.exit(main(sys.argv[1:]))",
                    "compare", str(src), "--alternatives", "m", "--target", "acc",
                    "--blocks", "d", "--higher-is-better", "--figures", "", "--quiet",
                    "--out", str(o / "out"))


@case("sizes", "Bayesian signed-rank: 100,000 datasets in seconds", BOUND, "correct",
      check=lambda r: r[0].probs[2] > 0.9 and r[1] < 30)
def _(o):
    import time

    from genexpy_nb.significance import bayesian_signed_rank

    x = np.linspace(0, 1, 100_000)
    t = time.perf_counter()
    res = bayesian_signed_rank(x, x + 0.02, rope=0.01, higher_is_better=True, nsamples=2000)
    return res, time.perf_counter() - t


@case("sizes", "Bayesian signed-rank: 100,000 datasets x 5,000,000 samples", BOUND, "clear",
      "nsamples", "minutes")
def _(o):
    from genexpy_nb.significance import bayesian_signed_rank

    x = np.linspace(0, 1, 100_000)
    return bayesian_signed_rank(x, x + 0.02, rope=0.01, higher_is_better=True,
                                nsamples=5_000_000)


# ---- the test --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    sweep.build_inputs(tmp_path_factory.mktemp("hostile_inputs3"))
    return sweep.INPUTS


#: seconds a case of this sweep may take (some run a command on 15 M cells under a limit)
CASE_TIMEOUT = 150


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_third_sweep(c: Case, inputs, tmp_path, monkeypatch):
    monkeypatch.setattr(sweep, "CASE_TIMEOUT", CASE_TIMEOUT)
    kind, msg = sweep.outcome(c, tmp_path)
    assert kind == c.expect, f"{c.id}: {kind}: {msg}"


def test_every_case_has_a_class():
    assert set(CLASSES) == {c.id for c in CASES}
    assert set(CLASSES.values()) == {LOST, FILTER, ESCAPE, TRACE, VALID, BOUND}
