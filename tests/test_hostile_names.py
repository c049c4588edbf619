"""Generated hostile names through every text output: one escaping discipline, checked.

Names of alternatives, of the block and replicate columns, a ``--control`` value and every
field of a seed pool's manifest are *generated* (Hypothesis draws them from fragments that
each break one format: raw HTML, live Markdown images and links, table pipes, NUL, ESC
sequences that clear a screen or set a window's title, the C1 range, Unicode line
separators and bidirectional overrides, LaTeX specials, spreadsheet formula prefixes), and
each output is checked for its format:

* Markdown (report.md, POOLS.md, the notebook's Markdown): no control character, no raw HTML
  or image/link syntax from the data, tables keep their columns;
* LaTeX (mean_ranks.tex): no control character, data rows keep their columns, no
  unescaped special;
* CSV/TSV: no cell a spreadsheet would run as a formula;
* SVG/HTML: well-formed, no element or event handler from the data;
* the terminal (everything the command line prints, answers, notes and errors): no escape
  sequence, no control character but line feeds, tabs and the progress bars' carriage
  returns, no line or paragraph separator, no bidirectional override.

The document model itself (:mod:`genexpy_nb.answers.document`) is checked on many more
generated names than the command line, which runs a few examples (each is a whole
comparison).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from genexpy_nb._escape import display_clashes, latex_text, markdown_text, terminal_text

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_payload_corpus as corpus

#: pieces of names; each breaks some format when written raw
FRAGMENTS = [
    "<img src=x onerror=alert(1)>", "</script><script>alert(2)</script>",
    "![x](http://e.vil/p.png)", "[link](javascript:alert(3))", "|", "||", "`", "**", "_",
    "\x00", "\x07", "\x08", "\x1b[2J", "\x1b]0;owned\x07", "\x1b[31m", "\x7f", "\x85", "\x9b",
    "\r", "\n", "\t", "\u2028", "\u2029", "\u202e", "\u2066",
    "$", "\\", "&", "%", "#", "^", "~", "{", "}", "\\input{/etc/passwd}",
    "=", "+", "-", "@", "=HYPERLINK(\"http://e.vil\")", "'", '"', ";", ",",
    "ünï", "日本", "🎉",
]
WORDS = ["a", "b", "c", "model", "x1", "GPT-3", "v1.2"]


def shown(name: str) -> str:
    """How every output shows a name: what display_clashes compares."""
    return " ".join(terminal_text(name).split())


name_st = st.lists(st.sampled_from(FRAGMENTS + WORDS), min_size=1, max_size=4).map("".join)
#: names with a visible form of their own (two that show alike are refused: tested apart)
names_st = st.lists(name_st.filter(lambda n: shown(n) != ""), min_size=3, max_size=4,
                    unique_by=shown)

# a control character no text output may hold (tab, line feed and carriage return are
# checked per format)
_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_RAW_MD = re.compile(r"<[A-Za-z!/?]|(?<!\\)!(?<!\\)\[|(?<!\\)\]\(")


def check_terminal(text: str) -> None:
    """No escape sequence or control character (but \\n, \\t and the bars' \\r)."""
    bad = _BAD.search(text)
    where = "" if bad is None else text[max(0, bad.start() - 60):bad.end() + 20]
    assert bad is None, f"control character {bad.group()!r} in {where!r}"


def check_markdown(text: str) -> None:
    """No control character, no raw HTML or image/link from the data; tables intact."""
    check_terminal(text.replace("\r", ""))
    raw = _RAW_MD.search(text)
    assert raw is None, text[max(0, raw.start() - 60):raw.end() + 60]
    corpus.check_markdown(text)


def check_latex(text: str) -> None:
    """No control character; data rows keep their columns and escape every special."""
    check_terminal(text.replace("\r", ""))
    corpus.check_latex(text)


def check_delimited(text: str, sep: str) -> None:
    """No cell a spreadsheet would run as a formula (the file parsed as CSV, so that a line
    separator inside a quoted cell stays in its cell)."""
    import csv

    for row in csv.reader(io.StringIO(text, newline=""), delimiter=sep):
        for cell in row:
            if re.match(r"[\s\x00-\x1f\x7f-\x9f]*[=+\-@]|[\t\r]", cell):
                try:
                    float(cell)
                except ValueError:
                    pytest.fail(f"formula cell {cell[:60]!r}")


def check_output(p: Path) -> None:
    """Check one written file by its format."""
    s = p.suffix.lower()
    if s in (".csv", ".tsv"):
        return check_delimited(p.read_text(encoding="utf-8"), "," if s == ".csv" else "\t")
    if s == ".md":
        return check_markdown(p.read_text(encoding="utf-8"))
    if s == ".tex":
        return check_latex(p.read_text(encoding="utf-8"))
    return corpus.check_file(p)


# ---- the document model: many generated names, cheap ------------------------------------


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(names=names_st, note=name_st)
def test_every_renderer_escapes_generated_names(names, note):
    from genexpy_nb.answers.document import (
        Bullets,
        Data,
        Paragraph,
        Quote,
        ReportSection,
        Table,
        Text,
        as_data,
        latex,
        render_html,
        render_markdown,
        render_text,
    )

    rows = tuple((Data(n), "1.00", ("P(", Data(n), " better)")) for n in names)
    section = ReportSection("s", (
        Paragraph(["best: ", Data(names[0]), "."]), Quote(Text("quote ", Data(names[1]))),
        Bullets((Text("note on ", Data(names[2])), as_data(note))),
        Table(("alternative", ("P(", Data(names[0]), " better)"), "x"), rows, "lrl")))
    md = render_markdown(Text("title ", Data(names[0])), [section])
    check_markdown(md)
    for n in names:  # every name went through, escaped
        assert markdown_text(n) in md
    check_terminal(render_text([section]))
    corpus.check_html("<html><body>" + render_html(Data(names[0]), [section]) + "</body></html>")
    tex = latex(Text(*[x for n in names for x in (Data(n), " & ")]))
    check_terminal(tex)
    assert tex.count(" & ") == len(names)  # the data's own & are escaped
    for n in names:
        assert latex_text(n) in tex


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(names=st.lists(name_st, min_size=2, max_size=6))
def test_names_shown_alike_are_found(names):
    clashes = display_clashes(names)
    keys = [shown(n) for n in dict.fromkeys(names)]
    assert bool(clashes) == (len(set(keys)) < len(keys))


# ---- the command line: compare, nstar; every file and everything printed -----------------


def _table(names: list[str], block: str, rep: str, n_blocks: int = 6) -> pl.DataFrame:
    """Scores of ``names`` over ``n_blocks`` blocks; the first name has one replicate of
    two, the last misses a block (so that the notes naming alternatives are written)."""
    rng = np.random.default_rng(0)
    rows = []
    for d in range(n_blocks):
        for i, a in enumerate(names):
            if i == len(names) - 1 and d == 0:
                continue
            for r in range(1 if i == 0 else 2):
                rows.append({block: f"d{d}", "alt": a, rep: r,
                             "acc": float(0.5 + 0.05 * i + rng.normal(0, 0.02))})
    return pl.DataFrame(rows)


def _run(*argv: str) -> tuple[int, str]:
    from genexpy_nb.cli import main

    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(list(argv))
    return rc, out.getvalue() + err.getvalue()


#: whole commands per example: no shrinking (a failure prints its example as drawn)
_SLOW = dict(deadline=None, derandomize=True, database=None,
             phases=[Phase.explicit, Phase.generate],
             suppress_health_check=[HealthCheck.too_slow])


@settings(max_examples=3, **_SLOW)
@given(names=names_st, block=name_st, control=name_st)
def test_cli_outputs_escape_generated_names(names, block, control):
    # "fold": a replicate word, so that the note naming the block column is written; a
    # comma would split the name on the command line (--blocks is a list)
    block = "fold " + block.replace(",", "") + " end"
    with tempfile.TemporaryDirectory(prefix="genexpy_hostile_names_") as tmp:
        t = Path(tmp)
        src = t / "r.parquet"  # parquet: every character survives the trip
        _table(names, block, "seed\x1b[2J|").write_parquet(src)
        common = ["--alternatives", "alt", "--target", "acc", "--blocks", block,
                  "--average-over", "seed\x1b[2J|", "--higher-is-better",
                  "--tol-missing-conditions", "0.5"]
        rc, printed = _run("compare", str(src), *common, "--bayesian-rope", "0.01",
                           "--aggregates", "--figures", "html,svg", "--out", str(t / "cmp"))
        assert rc == 0, printed
        check_terminal(printed.replace("\r", ""))
        rc, printed_tsv = _run("compare", str(src), *common, "--figures", "", "--format",
                               "tsv", "--quiet", "--out", str(t / "tsv"))
        assert rc == 0, printed_tsv
        files = [p for p in sorted((t / "cmp").iterdir()) + sorted((t / "tsv").iterdir())
                 if not p.name.startswith(".")]
        assert {p.suffix for p in files} >= {".md", ".tex", ".csv", ".tsv", ".svg", ".html"}
        for p in files:
            check_output(p)
        md = (t / "cmp" / "report.md").read_text(encoding="utf-8")
        assert markdown_text(names[-1]) in md and "P(" in md
        # an unknown --control: the error line quotes the value, safely
        if shown(control) not in {shown(n) for n in names}:
            rc, printed = _run("compare", str(src), *common, f"--control={control}",
                               "--figures", "", "--out", str(t / "ctl"))
            assert rc == 1, printed
            check_terminal(printed)
            assert "--control" in printed
        rc, printed = _run("nstar", str(src), "--alternatives", "alt", "--target", "acc",
                           "--higher-is-better", "--generalize", block, "--average-over",
                           "seed\x1b[2J|", "--rep", "10", "--estimators", "approx",
                           "--out", str(t / "n.csv"))
        assert rc == 0, printed
        check_terminal(printed.replace("\r", ""))
        corpus.check_file(t / "n.csv")


def test_names_shown_alike_are_refused(tmp_path):
    src = tmp_path / "r.parquet"
    _table(["a", "a\x00\u202e", "b"], "ds", "seed").write_parquet(src)
    rc, printed = _run("compare", str(src), "--alternatives", "alt", "--target", "acc",
                       "--blocks", "ds", "--average-over", "seed", "--higher-is-better",
                       "--figures", "", "--out", str(tmp_path / "c"))
    assert rc == 1 and "show them alike" in printed and "'alt'" in printed, printed
    check_terminal(printed)


# ---- POOLS.md: every field of a pool's manifest ------------------------------------------


@settings(max_examples=5, **_SLOW)
@given(fields=st.fixed_dictionaries({k: name_st for k in (
    "kind", "description", "command", "created", "source", "version")}),
    file=name_st.map(lambda n: re.sub(r"[/\x00]", "", n)).filter(
        lambda n: n not in ("", ".", "..") and len(n.encode()) < 200))
def test_pool_manifest_escapes_generated_fields(fields, file):
    from genexpy_nb.seedpools.pools import SeedPool, save_pool, write_manifest

    m, n = 2, 5
    z = np.zeros(m, np.float32)
    pool = SeedPool(
        gaps=np.arange(m * n, dtype=np.float32).reshape(m, n), labels=np.zeros(n, np.int8),
        test_index=np.arange(n), val_accuracy=z + 0.5, test_accuracy=z + 0.5,
        val_accuracy_curve=np.zeros((m, 2), np.float32), train_loss=np.zeros((m, 2)),
        wall_time_s=z + 1, cpu_time_s=z + 1, init_seed=np.arange(m, dtype=np.uint64),
        order_seed=np.arange(m, dtype=np.uint64),
        meta={"kind": fields["kind"], "description": fields["description"],
              "command": fields["command"], "created": fields["created"],
              "config": {"source": fields["source"], "epochs": 2, "seed": 0},
              "task": {"name": fields["kind"]}, "versions": {"genexpy_nb": fields["version"]}})
    with tempfile.TemporaryDirectory(prefix="genexpy_hostile_pool_") as tmp:
        save_pool(pool, Path(tmp) / f"{file}.npz")
        jpath, mpath = write_manifest(tmp)
        md = mpath.read_text(encoding="utf-8")
        check_markdown(md)
        assert markdown_text(fields["description"]) in md
        manifest = json.loads(jpath.read_text(encoding="utf-8"))
        assert manifest["files"][0]["description"] == fields["description"]
        rc_out = io.StringIO()
        from genexpy_nb.seedpools.pools import main

        with contextlib.redirect_stdout(rc_out):
            assert main([tmp]) == 0
        check_terminal(rc_out.getvalue())


@pytest.mark.parametrize("meta, field", [
    ({"kind": 3}, "'kind'"), ({"description": ["x"]}, "'description'"),
    ({"config": "x"}, "'config'"), ({"config": {"epochs": "30"}}, "'config.epochs'"),
    ({"extra_seconds": "1"}, "'extra_seconds'"), ({"versions": [1]}, "'versions'")])
def test_pool_meta_of_the_wrong_type_is_refused(tmp_path, meta, field):
    from genexpy_nb import GenexpyInputError
    from genexpy_nb.seedpools.pools import load_pool, write_manifest

    members = _pool_members(meta=np.array(json.dumps(meta)))
    p = tmp_path / "p.npz"
    np.savez(p, **members)
    with pytest.raises(GenexpyInputError, match=re.escape(field)):
        load_pool(p)
    write_manifest(tmp_path)  # the damaged pool is skipped, not a crash
    assert json.loads((tmp_path / "POOLS.json").read_text())["files"] == []


def test_pool_of_zero_models_is_refused(tmp_path):
    from genexpy_nb import GenexpyInputError
    from genexpy_nb.seedpools.pools import PER_MODEL_KEYS, load_pool

    members = {k: np.zeros((0, 3) if k in ("gaps", "val_accuracy_curve") else 0, np.float32)
               for k in PER_MODEL_KEYS}
    members.update(labels=np.zeros(3, np.int8), test_index=np.arange(3),
                   meta=np.array(json.dumps({"config": {}})))
    p = tmp_path / "p.npz"
    np.savez(p, **members)
    with pytest.raises(GenexpyInputError, match="0 models"):
        load_pool(p)


def _pool_members(**over) -> dict:
    from genexpy_nb.seedpools.pools import PER_MODEL_KEYS

    m = {k: np.zeros((2, 3) if k in ("gaps", "val_accuracy_curve") else 2, np.float32)
         for k in PER_MODEL_KEYS}
    m.update(labels=np.zeros(3, np.int8), test_index=np.arange(3, dtype=np.int32),
             meta=np.array(json.dumps({"config": {}})))
    m.update(over)
    return m


# ---- genexpy-nb seeds: the pool's file name and metadata --------------------------------


@settings(max_examples=3, **_SLOW)
@given(fields=st.fixed_dictionaries({k: name_st for k in ("kind", "description", "source")}),
       file=name_st.map(lambda n: re.sub(r"[/\x00]", "", n)).filter(
           lambda n: n not in ("", ".", "..") and len(n.encode()) < 200))
def test_seeds_escapes_the_pool_name_and_metadata(fields, file):
    """A pool carries no model names: its file name (printed) and metadata reach the run;
    the printed text and the written CSV hold none of it raw."""
    from genexpy_nb.seedpools.pools import SeedPool, save_pool

    m, n = 6, 40
    rng = np.random.default_rng(0)
    z = np.zeros(m, np.float32)
    pool = SeedPool(
        gaps=rng.normal(size=(m, n)).astype(np.float32),
        labels=(rng.random(n) < 0.5).astype(np.int8), test_index=np.arange(n),
        val_accuracy=z + 0.5, test_accuracy=z + 0.5,
        val_accuracy_curve=np.zeros((m, 2), np.float32), train_loss=np.zeros((m, 2)),
        wall_time_s=z + 1, cpu_time_s=z + 1, init_seed=np.arange(m, dtype=np.uint64),
        order_seed=np.arange(m, dtype=np.uint64),
        meta={"kind": fields["kind"], "description": fields["description"],
              "config": {"source": fields["source"], "epochs": 2, "seed": 0},
              "task": {"name": fields["kind"]}})
    with tempfile.TemporaryDirectory(prefix="genexpy_hostile_seeds_") as tmp:
        src = Path(tmp) / f"{file}.npz"
        save_pool(pool, src)
        out = Path(tmp) / f"{file}.csv"
        rc, printed = _run("seeds", str(src), "--B", "20", "--n-jobs", "1", "--out", str(out))
        assert rc == 0, printed
        check_terminal(printed.replace("\r", ""))
        check_output(out)


# ---- genexpy-nb demo: the shipped data, and the --out path the only user string ------------


@pytest.mark.slow
@settings(max_examples=1, **_SLOW)
@given(file=name_st.map(lambda n: re.sub(r"[/\x00]", "", n)).filter(
    lambda n: n not in ("", ".", "..") and len(n.encode()) < 200))
def test_demo_prints_its_output_folder_escaped(file):
    """The demo reads only the shipped study; the folder it is given is printed (escaped)."""
    with tempfile.TemporaryDirectory(prefix="genexpy_hostile_demo_") as tmp:
        out = Path(tmp) / f"d{file}"
        rc, printed = _run("demo", "--out", str(out))
        assert rc == 0, printed
        check_terminal(printed.replace("\r", ""))
        for p in sorted(out.iterdir()):
            if p.suffix in (".csv", ".md", ".tex"):
                check_output(p)
