"""One hostile name through every writer of every command, every file and line scanned.

The same name — raw HTML, a live Markdown image, table pipes, LaTeX specials, a formula
prefix, ESC sequences that clear a screen and set a window's title, NUL, a line separator,
the C1 range and the bidirectional override and marks — is used for the alternatives, the
conditions' column and its levels, the target column, a design factor and its levels, the
replicates' column, a held-constant filter and the results file's name. Then ``report``,
``compare`` (every figure and table format), ``nstar`` (with figures and conclusions),
``seeds`` (a pool named so) and the summaries (text, Markdown, HTML) run, and every file
written and everything printed is checked for its format (:mod:`test_hostile_names`): no
control character or bidirectional control anywhere (CSV included), no raw HTML or image in
Markdown, no element or handler from the data in HTML and SVG, LaTeX and Markdown tables
keep their columns, no formula cell.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_hostile_names as hn

from genexpy_nb._escape import INVISIBLE

#: one name that breaks every format it could land in raw
H = ("<img src=x onerror=alert(1)>![i](http://e.vil/p.png)\u202e|*_`$\\&%#^~{}"
     "\x1b[2J\x1b]0;t\x07\x00\u2028\x85\u200f\u2066")
#: a column name typed on the command line: no comma (a list), no '=' (COLUMN=LEVEL)
HC = H.replace("=", "")
ALTS = ["a" + H, "b" + H, "c"]
DS, TARGET, DESIGN, SEED, HELD = ("ds" + HC, "acc" + HC, "m" + HC, "seed" + HC, "h" + HC)


def _table() -> pl.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for d in range(8):
        for level in ("x" + H, "y" + H):
            for i, a in enumerate(ALTS):
                for s in range(2):
                    for held in ("k" + H, "other"):
                        rows.append({DS: f"d{d}" + H, DESIGN: level, "alt": a, SEED: s,
                                     HELD: held,
                                     TARGET: float(0.5 + 0.05 * i + rng.normal(0, 0.02))})
    return pl.DataFrame(rows)


def _run(*argv: str) -> tuple[int, str]:
    from genexpy_nb.cli import main

    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main([str(a) for a in argv])
    return rc, out.getvalue() + err.getvalue()


def _check_everything(folder: Path) -> list[Path]:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))
    for p in files:
        s = p.suffix.lower()
        if s not in (".csv", ".tsv", ".md", ".tex", ".svg", ".html", ".json"):
            continue
        text = p.read_text(encoding="utf-8")
        if s != ".md":
            hn.check_output(p)
        if s in (".csv", ".tsv", ".json"):
            # data files: line breaks are data (quoted), control characters and the
            # bidirectional controls are not (a terminal that prints the file runs them)
            bad = re.search(INVISIBLE, text)
            assert bad is None, (p.name, text[max(0, bad.start() - 60):bad.end() + 20])
        else:
            hn.check_terminal(text.replace("\r", ""))
        if s == ".md":  # the page's own images (its diagrams), then the data's: none
            own = re.sub(r"!\[CD diagram\]\(classical/config_\d+/cd_diagram\.svg\)", "", text)
            hn.check_markdown(own)
    return files


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    t = tmp_path_factory.mktemp("one_name")
    src = t / ("r" + H.replace("\x00", "").replace("/", "") + ".parquet")  # no NUL, no /
    _table().write_parquet(src)
    roles = ["--alternatives", "alt", "--target", TARGET, "--higher-is-better",
             "--average-over", SEED, "--held-constant", f"{HELD}=k{H}"]
    runs = {
        "report": ("report", src, *roles, "--generalize", DS, "--design", DESIGN,
                   "--rep", "10", "--bayesian-rope", "0.01", "--out", t / "report"),
        "compare": ("compare", src, *roles, "--blocks", f"{DS},{DESIGN}", "--bayesian-rope", "0.01",
                    "--aggregates", "--control", ALTS[0], "--figures", "html,svg",
                    "--out", t / "compare"),
        "compare tsv": ("compare", src, *roles, "--blocks", f"{DS},{DESIGN}", "--figures", "",
                        "--format", "tsv", "--out", t / "compare_tsv"),
        "compare json": ("compare", src, *roles, "--blocks", f"{DS},{DESIGN}", "--figures", "",
                         "--format", "json", "--out", t / "compare_json"),
        "nstar": ("nstar", src, *roles, "--generalize", DS, "--design", DESIGN, "--rep", "10",
                  "--estimators", "approx", "--figures", t / "nstar_figures",
                  "--conclusions-out", t / "nstar_out" / "conclusions.csv",
                  "--out", t / "nstar_out" / "n.csv"),
    }
    (t / "nstar_out").mkdir()
    printed = {}
    for name, argv in runs.items():
        rc, text = _run(*argv)
        assert rc == 0, (name, text[-2000:])
        printed[name] = text
    return t, printed


@pytest.mark.parametrize("command", ["report", "compare", "compare tsv", "compare json",
                                     "nstar"])
def test_every_command_escapes_the_name(written, command):
    t, printed = written
    hn.check_terminal(printed[command].replace("\r", ""))
    folder = {"report": t / "report", "compare": t / "compare",
              "compare tsv": t / "compare_tsv", "compare json": t / "compare_json",
              "nstar": t}[command]
    if command == "nstar":
        files = _check_everything(t / "nstar_out") + _check_everything(t / "nstar_figures")
    else:
        files = _check_everything(folder)
    assert files
    suffixes = {p.suffix for p in files}
    want = {"report": {".html", ".md", ".csv", ".svg", ".tex", ".parquet"},
            "compare": {".html", ".md", ".csv", ".svg", ".tex"},
            "compare tsv": {".tsv", ".md"}, "compare json": {".json", ".md"},
            "nstar": {".csv"}}[command]
    assert want <= suffixes, suffixes


def test_the_name_reaches_the_report_escaped(written):
    t, _ = written
    md = (t / "report" / "report.md").read_text(encoding="utf-8")
    # the target, the alternatives and the filter are named, escaped for Markdown
    assert hn.markdown_text(TARGET) in md
    assert hn.markdown_text(ALTS[0]) in md or hn.markdown_text(ALTS[1]) in md
    page = (t / "report" / "report.html").read_text(encoding="utf-8")
    assert "\u202e" not in page and "<img" not in page


def test_summaries_escape_the_name():
    import genexpy_nb as gx
    from genexpy_nb.answers.summary import seeds_summary

    df = _table().filter(pl.col(HELD) == "other")
    study = gx.Study(df, alternatives="alt", target=TARGET, generalize=DS, design=DESIGN,
                     average_over=SEED, held_constant={HELD: "other"}, higher_is_better=True)
    con = gx.conclusions(study, progress=False)
    res = gx.analyze(study, gx.generalizability.kernels.default_questions(),
                     estimators=["approx"], rep=10, progress=False)
    for summary in (gx.conclusions_summary(con, unit="dataset"),
                    gx.nstar_summary(res, method="approx", conclusions=con)):
        hn.check_terminal(summary.to_text())
        hn.check_markdown(summary.to_markdown())
        hn.corpus.check_html("<html><body>" + summary._repr_html_() + "</body></html>")
    seeds = pl.DataFrame({"model": ALTS, "alpha_hat": [0.1, 0.2, 0.3],
                          "accuracy": [0.9, 0.8, 0.7], "ece": [0.01, 0.02, 0.03]})
    s = seeds_summary(seeds, id_column="model")
    hn.check_terminal(s.to_text())
    hn.check_markdown(s.to_markdown())
    hn.corpus.check_html("<html><body>" + s._repr_html_() + "</body></html>")


def test_charts_svg_escape_the_name(tmp_path):
    pytest.importorskip("vl_convert")
    import genexpy_nb as gx
    from genexpy_nb.charts import cd_diagram
    from genexpy_nb.charts.cd_figure import cd_diagram_svg
    from genexpy_nb.charts.export import save_chart
    from genexpy_nb.significance import compare

    df = _table().filter(pl.col(HELD) == "other", pl.col(DESIGN) == "x" + H)
    res = compare(df.drop(HELD, DESIGN), alternatives="alt", target=TARGET, blocks=DS,
                  average_over=SEED, higher_is_better=True)
    svg = cd_diagram_svg(res)
    hn.check_terminal(svg)
    hn.corpus.check_svg(svg)
    save_chart(cd_diagram(res), tmp_path / "cd.svg")
    study = gx.Study(df.drop(HELD), alternatives="alt", target=TARGET, generalize=DS,
                     average_over=SEED, higher_is_better=True)
    from genexpy_nb.charts import deficit_heatmap, nstar_boxplots, rank_probability_heatmap

    res_n = gx.analyze(study, gx.generalizability.kernels.default_questions(), rep=10,
                       progress=False)
    save_chart(nstar_boxplots(res_n), tmp_path / "nstar.svg")
    save_chart(deficit_heatmap(gx.plan(res_n)), tmp_path / "plan.svg")
    save_chart(rank_probability_heatmap(gx.rank_probabilities(study, rep=50, seed=0)),
               tmp_path / "ranks.svg")
    for p in tmp_path.glob("*.svg"):
        text = p.read_text(encoding="utf-8")
        hn.check_terminal(text.replace("\r", ""))
        hn.corpus.check_svg(text)


def test_seeds_escapes_a_pool_named_so(tmp_path):
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
        meta={"kind": H, "description": H, "config": {"source": H, "epochs": 2, "seed": 0},
              "task": {"name": H}})
    name = H.replace("\x00", "").replace("/", "")
    src = tmp_path / f"{name}.npz"
    save_pool(pool, src)
    out = tmp_path / f"{name}.csv"
    rc, printed = _run("seeds", src, "--B", "20", "--n-jobs", "1", "--out", out)
    assert rc == 0, printed
    hn.check_terminal(printed.replace("\r", ""))
    hn.check_output(out)
    hn.check_terminal(out.read_text(encoding="utf-8"))
