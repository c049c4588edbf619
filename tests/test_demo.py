import contextlib
import io
import re

import polars as pl
import pytest

import genexpy_nb.demo as demo
from genexpy_nb._io import MARKER
from genexpy_nb._validation import GenexpyInputError
from genexpy_nb.demo import FIGURES, example_study, run_demo


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
    assert {"nstar.parquet", "plan.csv", "nstar_vs_N.csv", MARKER} <= names
    for stem in FIGURES:
        assert {f"{stem}.html", f"{stem}.png", f"{stem}.svg"} <= names
    assert len(names) == 4 + 3 * len(FIGURES)  # nothing else, no temporary file
    res = pl.read_parquet(out / "nstar.parquet")
    assert res.height == 6 * 4 * 25 * 4  # configs x kernels x (alpha, delta) x methods
    head = res.filter(pl.col("alpha") == 0.95, pl.col("delta") == 0.05,
                      pl.col("method") == "resample")
    # 80 datasets answer every research question of the example study
    assert head["generalizable"].all()
    assert frames["plan"]["priority"].to_list() == list(range(1, 7))
    assert pl.read_csv(out / "plan.csv").height == 6


def test_main_job_speaks_plainly(main_job):
    out, _, text = main_job
    # all configurations generalize: one sentence, no list of negative "priorities"
    assert "Every configuration already generalizes for every research question" in text
    assert "extend them in this order" not in text and "priority" not in text
    # the columns are explained once; no table is cut by an ellipsis
    assert text.count("min_r2 = how well") == 1 and text.count("resampled estimate") == 1
    assert "…" not in text
    for cfg in ("accuracy", "balanced_accuracy", "f1"):
        assert len(re.findall(rf"│ {cfg}\s", text)) == 2  # both training sizes of each metric
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
    todo = frames["plan"]
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
