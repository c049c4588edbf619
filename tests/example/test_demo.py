import contextlib
import io
import re

import polars as pl
import pytest

import genexpy_nb.example.demo as demo
from genexpy_nb._io import MARKER
from genexpy_nb._validation import GenexpyInputError
from genexpy_nb.answers.numbers import count
from genexpy_nb.example.demo import FIGURES, example_study, run_demo


def test_example_study_roles():
    st = example_study()
    assert st.na == 8 and len(st) == 6
    assert st.configurations["N"].to_list() == [80] * 6
    assert st.report.cells_imputed == 0


@pytest.fixture(scope="module")
def main_job(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "genexpy_demo"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        frames = run_demo(out, rep=40, seed=0, progress=False)
    return out, frames, printed.getvalue()


def test_main_job_end_to_end(main_job):
    out, frames, text = main_job
    names = {p.name for p in out.iterdir()}
    assert {"conclusions.parquet", "conclusions.csv", "nstar.parquet", "plan.csv",
            "agreement.csv", "nstar_vs_N.csv", MARKER} <= names
    for stem in FIGURES:
        assert {f"{stem}.html", f"{stem}.png", f"{stem}.svg"} <= names
    assert len(names) == 7 + 3 * len(FIGURES)  # nothing else, no temporary file
    res = pl.read_parquet(out / "nstar.parquet")
    assert res.height == 6 * 4 * 25 * 4  # configs x kernels x (alpha, delta) x methods
    head = res.filter(pl.col("alpha") == 0.95, pl.col("delta") == 0.05,
                      pl.col("method") == "resample")
    # 80 datasets answer every research question of the example study
    assert head["generalizable"].fill_null(False).all()  # a null never counts as true
    assert frames["plan"]["priority"].to_list() == list(range(1, 7))
    assert pl.read_csv(out / "plan.csv").height == 6
    assert pl.read_csv(out / "agreement.csv").height == 6


def test_the_plan_printed_is_plan_csv_the_one_plan_of_the_conclusions(main_job):
    """What to run next comes from the conclusions (issue 47): plan.csv is gx.plan of
    conclusions.parquet, and each printed number is its to_run."""
    import genexpy_nb as gx

    out, frames, text = main_job
    want = gx.plan(pl.read_parquet(out / "conclusions.parquet"))
    plan_csv = pl.read_csv(out / "plan.csv")
    assert plan_csv["to_run"].to_list() == want["to_run"].to_list()
    assert "mode" in plan_csv.columns and set(plan_csv["mode"]) == {"fixed"}
    flat = " ".join(text.split())
    assert "What to run next (plan.csv, the plan of the conclusions above):" in flat
    for r in want.iter_rows(named=True):
        label = f"metric = {r['metric']}, train_size = {r['train_size']} (80 datasets):"
        said = flat.split(label, 1)[1].split(".", 1)[0]
        if r["to_run"] > 0:
            assert said.strip().startswith(f"{r['to_run']} more datasets"), said
        else:
            assert "more datasets" not in said.split("(")[0], said


def test_main_job_speaks_plainly(main_job):
    out, _, text = main_job
    # all configurations generalize: one sentence, no list of negative "priorities"
    assert "Every configuration already generalizes for every research question" in text
    assert "extend them in this order" not in text and "priority" not in text
    # the columns are explained once; no table is cut by an ellipsis
    assert text.count("Read each table as") == 1 and text.count("no-signal n*: the n*") == 1
    assert "…" not in text
    for cfg in ("accuracy", "balanced_accuracy", "f1"):  # both sizes, for each question
        assert len(re.findall(rf"^{cfg}\s+(full|small)\s", text, re.M)) == 2 * 4
    # Borda's a* is named (derived from the data), and the figures are located
    assert re.search(r"Borda\(a\*=[^)]+\)", text) and "best on average" not in text
    assert str(out) in text and "python -m webbrowser file://" in text


def test_html_figures_display_offline(main_job):
    out, _, _ = main_job
    html = (out / "deficits.html").read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]+src=[\"']?(https?:)?//", html)  # no remote script
    assert "vegaEmbed(" in html and len(html) > 300_000  # the Vega libraries are inlined
    assert (out / "deficits.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "deficits.svg").read_text().lstrip().startswith("<svg")


@pytest.mark.parametrize("exc", [KeyboardInterrupt, RuntimeError])
def test_interrupted_demo_leaves_no_complete_looking_folder(tmp_path, monkeypatch, exc):
    """Interrupt the demo while it writes its figures: no folder appears at all."""
    from genexpy_nb.charts import generalizability as ch

    real = ch.save_chart
    calls = []

    def flaky(chart, path, **kw):
        calls.append(path[0])
        if len(calls) == 2:  # tables and the first figure's three files are already written
            raise exc("interrupted")
        return real(chart, path, **kw)

    monkeypatch.setattr(ch, "save_chart", flaky)
    out = tmp_path / "genexpy_demo"
    with pytest.raises(exc):
        run_demo(out, rep=20, seed=0, progress=False)
    assert len(calls) == 2 and calls[0].parent.name.startswith(".genexpy_demo.partial-")
    assert list(tmp_path.iterdir()) == []  # neither the folder nor its temporary


def test_demo_refuses_a_folder_of_other_files(tmp_path, monkeypatch):
    (tmp_path / "notes.txt").write_text("mine")
    called = []
    monkeypatch.setattr(demo, "example_study", lambda: called.append(1))
    with pytest.raises(GenexpyInputError, match="never overwritten"):
        run_demo(tmp_path, rep=20, progress=False)
    assert not called and [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_one_worst_configuration(main_job):
    """Both paragraphs name the same configuration: the largest deficit, ties broken by n*
    (issue 26: a tie at -44 was broken by id in one paragraph and by n* in the other)."""
    _, frames, text = main_job
    flat = " ".join(text.split())
    first = re.search(r"the largest n\* is \d+ \([^,]+, ([^)]+)\)", flat).group(1)
    second = re.search(r"the configuration that needs the most \(([^)]+)\)", flat).group(1)
    assert first == second
    todo = frames["agreement"]  # the paper's n* deficits (plan: the conclusions' plan)
    top = todo.row(0, named=True)
    assert top["deficit"] == todo["deficit"].max()
    tied = todo.filter(pl.col("deficit") == top["deficit"])
    assert top["nstar"] == tied["nstar"].max()


def test_worst_first_breaks_ties_by_nstar():
    todo = pl.DataFrame({"priority": [1, 2, 3], "config_id": [0, 1, 2],
                         "deficit": [-44, -44, -50], "nstar": [20.2, 35.9, 30.0]})
    out = demo.worst_first(todo)
    assert out["config_id"].to_list() == [1, 0, 2]
    assert out["priority"].to_list() == [1, 2, 3]


def test_figures_name_their_configuration_and_question(main_job):
    out, _, _ = main_job
    for stem in FIGURES:
        svg = (out / f"{stem}.svg").read_text()
        assert "research question" in svg, stem
        assert "configuration" in svg, stem


def test_demo_does_not_claim_exports_it_skipped(tmp_path, monkeypatch):
    """Where PNG and SVG cannot be made (no JavaScript engine), the demo says so instead of
    listing them as written."""
    import warnings

    import genexpy_nb._io as gio

    monkeypatch.setattr(gio, "js_engine_problem", lambda: "no JavaScript engine (test)")
    printed = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(printed):
        warnings.simplefilter("ignore", gio.ExportSkippedWarning)
        run_demo(tmp_path / "d", rep=20, seed=0, progress=False)
    text = " ".join(printed.getvalue().split())
    assert ".png and .svg" not in text and "no .png or .svg" in text
    names = {p.name for p in (tmp_path / "d").iterdir()}
    assert not [n for n in names if n.endswith((".png", ".svg"))]


# ---- every verdict the demo prints is the one its files hold (issue 31) -----------------
def _summary_tables(text: str) -> dict[tuple, dict[str, str]]:
    """The rows of the printed n* tables: {(question, metric, train_size): {column: cell}},
    the cells cut at the column starts of the dashed rule under the header."""
    lines = text.splitlines()
    rows: dict[tuple, dict[str, str]] = {}
    for i, ln in enumerate(lines):
        if not ln.startswith("research question: "):
            continue
        label = ln.removeprefix("research question: ")
        # the question it answers in one line, then the table: its header above the rule
        r = next(j for j in range(i + 1, i + 8) if lines[j] and set(lines[j]) <= {"-", " "})
        header, rule = lines[r - 1], lines[r]
        i = r - 2
        starts = [m.start() for m in re.finditer(r"-+", rule)]
        cut = list(zip(starts, [*starts[1:], None], strict=True))
        names = [header[a:b].strip() for a, b in cut]
        for row in lines[i + 3:]:
            if not row.strip() or re.match(r"\d+ of \d+ configuration", row):
                break
            cells = dict(zip(names, [row[a:b].strip() for a, b in cut], strict=True))
            key = (label, cells["metric"], cells["train_size"])
            assert key not in rows, f"{key} printed twice"
            rows[key] = cells
    return rows


def _box_table(text: str, first: str) -> list[dict[str, str]]:
    """The rows of the printed polars table whose first column is ``first``."""
    lines = text.splitlines()
    i = next(i for i, ln in enumerate(lines) if re.match(rf"│ {first}\s+┆", ln))
    names = [c.strip(" │") for c in lines[i].split("┆")]
    out = []
    for ln in lines[i + 2:]:
        if not ln.startswith("│"):
            break
        out.append(dict(zip(names, [c.strip(" │") for c in ln.split("┆")], strict=True)))
    return out


def _expected_word(gen, deficit) -> str:
    return "generalizes" if gen is True else f"needs {deficit} more" if gen is False \
        else "unsure"


def check_printed_verdicts(text: str, res: pl.DataFrame, todo: pl.DataFrame,
                           sim: pl.DataFrame) -> int:
    """Assert that every verdict in ``text`` (the demo's output) is the one the frames
    hold; returns how many verdicts were compared."""
    checked = 0
    head = res.filter(pl.col("alpha") == 0.95, pl.col("delta") == 0.05,
                      pl.col("method") == "resample")
    # 1. the n* tables: one row per configuration and question, each in the file
    printed = _summary_tables(text)
    assert len(printed) == head.height
    for r in head.iter_rows(named=True):
        cells = printed[(r["kernel_label"], r["metric"], r["train_size"])]
        # n* is a count of datasets, rounded up as every output writes it
        assert cells["n*"] == count(r["nstar"]) and cells["N"] == str(r["N"])
        word = _expected_word(r["generalizable"], r["deficit"])
        assert cells["verdict"].split(" (")[0] == word, (cells, r)
        assert cells["no-signal n*"].startswith(f"{count(r['nstar_null'])} ")
        assert cells["no-signal n*"].endswith("(chance)") == (r["beyond_chance"] is False)
        checked += 1
    # 2. the sentences that sum them up
    flat = " ".join(text.split())
    said_all = "Every configuration already generalizes for every research question" in flat
    assert said_all == (todo["verdict"] == "generalizable").all() == (
        head["generalizable"].fill_null(False).all())
    n_chance = int((head["beyond_chance"] == False).sum())  # noqa: E712
    m = re.search(r"For (\d+) of the (\d+) answers \(configuration x question\), n\* lies "
                  r"within the no-signal baseline's range", flat)
    assert (int(m.group(1)), int(m.group(2))) == (n_chance, head.height) if m else \
        n_chance == 0
    unsure = int(todo["generalizable"].is_null().sum())
    assert (f"{unsure} of " in flat and "unsure for at least one question" in flat) == \
        (unsure > 0)
    if "extend them in this order" in flat:
        shown = _box_table(text, "priority")
        assert [int(r["to_run"]) for r in shown] == \
            todo.filter(pl.col("to_run") > 0)["to_run"].to_list()
    # 3. the study as it grows: each question and all of them, per N_sub
    grown = _box_table(text, "N_sub")
    assert [int(r["N_sub"]) for r in grown] == sorted(set(sim["N_sub"]))
    for r in grown:
        n = int(r["N_sub"])
        rows = sim.filter(pl.col("N_sub") == n)
        for s in rows.iter_rows(named=True):
            cell = r[s["kernel_label"]]
            value, word = cell.split(": ", 1)
            assert value == count(s["nstar"])
            assert word.removesuffix(" (chance)") == _expected_word(
                s["generalizable"], s["nstar_ceil"] - n), (n, cell, s)
            assert word.endswith("(chance)") == (
                s["beyond_chance"] is False and s["generalizable"] is not None)
            checked += 1
        g = rows["generalizable"]
        every = ("generalizes" if g.fill_null(False).all() else
                 f"needs {(rows['nstar_ceil'] - n).max()} more" if (g == False).any()  # noqa: E712
                 else "unsure")
        assert r["all questions"] == every, (n, r, rows)
        checked += 1
    return checked


def test_every_printed_verdict_is_the_files(main_job):
    out, _, text = main_job
    res = pl.read_parquet(out / "nstar.parquet")
    todo = pl.read_csv(out / "agreement.csv")
    sim = pl.read_csv(out / "nstar_vs_N.csv")
    assert sim["repetition"].n_unique() == 1  # one repetition: each row is printed
    # 24 answers, 2 questions x 8 sizes and their 8 combinations
    assert check_printed_verdicts(text, res, todo, sim) == 24 + 16 + 8
    # the first size is too few for a trusted estimate: unsure, never "generalizes"
    assert sim.filter(pl.col("N_sub") == 10)["generalizable"].is_null().all()
    assert _box_table(text, "N_sub")[0]["all questions"] == "unsure"


@pytest.mark.parametrize("mutate", [
    "flip a verdict in nstar.parquet", "drop beyond_chance in nstar.parquet",
    "a null verdict read as true in nstar_vs_N.csv", "an unsure plan row",
    "the old demo's all-questions column"])
def test_the_verdict_check_fails_on_a_mismatch(main_job, mutate):
    """The check above can fail: one value changed in a file, or in the text, is caught."""
    out, _, text = main_job
    res = pl.read_parquet(out / "nstar.parquet")
    todo = pl.read_csv(out / "agreement.csv")
    sim = pl.read_csv(out / "nstar_vs_N.csv")
    first = (pl.col("config_id") == 0) & (pl.col("kernel_label") == "Mallows")
    if mutate == "flip a verdict in nstar.parquet":
        res = res.with_columns(pl.when(first).then(None).otherwise(pl.col("generalizable"))
                               .alias("generalizable"))
    elif mutate == "drop beyond_chance in nstar.parquet":
        res = res.with_columns(pl.when(first).then(True).otherwise(pl.col("beyond_chance"))
                               .alias("beyond_chance"))
    elif mutate == "a null verdict read as true in nstar_vs_N.csv":
        sim = sim.with_columns(pl.col("generalizable").fill_null(True))
    elif mutate == "an unsure plan row":
        todo = todo.with_columns(pl.when(pl.col("priority") == 3).then(pl.lit("unsure (x)"))
                                 .otherwise(pl.col("verdict")).alias("verdict"),
                                 pl.when(pl.col("priority") == 3).then(None)
                                 .otherwise(pl.col("generalizable")).alias("generalizable"))
    else:  # what polars' .all() printed before: nulls skipped, "true" at N_sub = 10
        text = re.sub(r"(│ 10 .*┆ )unsure(\s+│)", r"\1generalizes\2", text)
    with pytest.raises(AssertionError):
        check_printed_verdicts(text, res, todo, sim)


# ---- the demo leads with the study's conclusions (issue 35) ------------------------------
def check_printed_conclusions(text: str, frame: pl.DataFrame) -> int:
    """Assert that each configuration's printed best, top group and pair counts are the
    conclusions file's; returns how many sentences were compared."""
    checked = 0
    for cid in frame["config_id"].unique(maintain_order=True):
        rows = frame.filter(pl.col("config_id") == cid)
        r0 = rows.row(0, named=True)
        title = f"metric = {r0['metric']}, train_size = {r0['train_size']} ({r0['N']} datasets)"
        block = " ".join(text.split(title + "\n", 1)[1].split("\n\n", 1)[0].split())
        best = rows.filter(pl.col("kind") == "best").row(0, named=True)
        name = best["members"][0] if len(best["members"]) == 1 else \
            f"co-best {{{', '.join(best['members'])}}}"
        assert f"Best: {name} — {best['verdict']}" in block, (title, block)
        top = rows.filter(pl.col("kind") == "top_k").row(0, named=True)
        assert f"{{{', '.join(top['members'])}}}: {top['verdict']}" in block, (title, block)
        pairs = rows.filter(pl.col("kind") == "pair")
        assert f"Pairs ({pairs.height}, judged as a family, Holm): " \
               f"{int((pairs['verdict'] == 'holds').sum())} settled" in block
        checked += 3
    return checked


def test_the_demo_leads_with_its_conclusions(main_job):
    out, frames, text = main_job
    frame = pl.read_parquet(out / "conclusions.parquet")
    assert frame.equals(frames["conclusions"])
    assert pl.read_csv(out / "conclusions.csv").height == frame.height
    assert text.index("Do the study's conclusions hold?") < text.index(
        "How consistent are the per-dataset rankings? (the paper's n*, Sec. 4)") < text.index(
        "research question: ")
    assert check_printed_conclusions(text, frame) == 6 * 3
    # why "(chance)" and the conclusions are no contradiction, said once
    assert " ".join(text.split()).count("Why the paper's n* can be marked (chance)") == 1
    # the check can fail: a verdict changed in the file is caught
    wrong = frame.with_columns(pl.when(pl.col("kind") == "best").then(pl.lit("tied"))
                               .otherwise(pl.col("verdict")).alias("verdict"))
    with pytest.raises(AssertionError):
        check_printed_conclusions(text, wrong)


def test_a_plan_at_chance_level_is_said(tmp_path, monkeypatch):
    """Configurations to extend whose answer is at chance level are said to be (the example
    study needs none: the plan is made to need some here)."""
    real = demo.plan

    def needy(res, **kw):
        p = real(res, **kw)
        return p.with_columns(pl.lit(5).alias("deficit"), pl.lit(5).alias("to_run"),
                              pl.lit(False).alias("generalizable"),
                              (pl.col("config_id") % 2 == 0).alias("chance"))

    monkeypatch.setattr(demo, "plan", needy)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        run_demo(tmp_path / "d", rep=10, seed=0, progress=False)
    flat = " ".join(printed.getvalue().split())
    assert "extend them in this order" in flat
    assert "3 of them at chance level (n* within the no-signal baseline's range)" in flat


def test_no_two_adjacent_lines_read_as_a_contradiction(main_job):
    """'6 of 6 configurations generalize' above '6 of them no more consistent than chance'
    reads as a contradiction unless the line says why both hold (issue 48 item 7)."""
    from genexpy_nb.answers.summary import RECONCILE

    _, _, text = main_job
    lines = [" ".join(ln.split()) for ln in text.splitlines()]
    pairs = 0
    for a, b in zip(lines, lines[1:]):
        gen = re.search(r"\b(\d+) of (\d+) configurations? generalizes?\b", a)
        chance = re.search(r"\b(\d+) of them no more consistent than chance", b)
        if gen and chance and int(gen.group(1)) > 0:
            pairs += 1
            assert " ".join(RECONCILE.split()) in b, b
    assert pairs >= 1  # the example study has such a pair: the check ran
    # the conclusions, then what to run next for them, lead the demo's answer
    first = text.index("Do the study's conclusions hold?")
    assert first < text.index("What to run next (plan.csv") < text.index(
        "How consistent are the per-dataset rankings?")
