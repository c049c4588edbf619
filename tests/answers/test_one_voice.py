"""One page, one voice (issue 48): the same figures in every output, every flag real, one
scale and one set of policies per study, outliers and imputed results named."""

from __future__ import annotations

import argparse
import re
from html import unescape

import numpy as np
import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb.answers import numbers
from genexpy_nb.answers.conclusions import conclusions_summary
from genexpy_nb.cli import build_parser, main

MODELS = ["ridge", "lasso", "forest", "boost", "knn"]
SKILL = dict(zip(MODELS, [1.0, 1.0005, 0.75, 0.6, 1.25]))


def rmse_table(n: int = 14, seed: int = 3, outlier: bool = True) -> pl.DataFrame:
    """RMSE of 5 regressors on n datasets x 3 seeds, scales 0.01 to 10^4, two failed runs."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n):
        scale = 10 ** rng.uniform(-2, 4)
        for m in MODELS:
            for s in range(3):
                v = scale * SKILL[m] * np.exp(rng.normal(0, 0.08))
                if (d, m) in ((1, "knn"), (4, "lasso")):
                    v = None  # a failed run (every seed)
                if outlier and (d, m, s) == (2, "boost", 1):
                    v = 1.35e12  # one diverged run
                rows.append((f"ds{d:02d}", m, s, v))
    return pl.DataFrame(rows, schema=["dataset", "model", "seed", "rmse"], orient="row")


ROLES = dict(alternatives="model", target="rmse", generalize="dataset",
             higher_is_better=False, average_over="seed", invalid_target="drop")
ARGS = ["--alternatives", "model", "--target", "rmse", "--generalize", "dataset",
        "--lower-is-better", "--average-over", "seed", "--invalid-target", "drop",
        "--rep", "20", "--quiet"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("voice")
    rmse_table().write_csv(tmp / "rmse.csv")
    assert main(["report", str(tmp / "rmse.csv"), *ARGS, "--out", str(tmp / "page")]) == 0
    return tmp


def _figures(r: dict) -> list[str]:
    """What every output must write for one conclusion: n* and its interval, or k more.

    A settled pair is listed by name only ("A ahead of B"); every other conclusion says its
    figures.
    """
    if r["verdict"] == "holds" and r["kind"] != "pair":
        out = [f"n* = {numbers.count(r['nstar'])}"]
        band = numbers.count_interval(r["nstar_lo"], r["nstar_hi"])
        return out + ([band] if band else [])
    if r["more"] is not None and str(r["verdict"]).startswith("needs"):
        return [f"{r['more']} more"]
    return []


def _text_of(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", html))


def test_every_conclusion_has_the_same_figures_in_every_output(folder):
    concl = pl.read_parquet(folder / "page" / "conclusions.parquet")
    s = conclusions_summary(concl, unit="dataset")
    outputs = {"terminal": s.to_text(width=0), "markdown": s.to_markdown().replace("\\", ""),
               "html": _text_of(s.to_html()), "latex": s.to_latex().replace("\\", ""),
               "page html": _text_of((folder / "page" / "report.html").read_text()),
               "page markdown": (folder / "page" / "report.md").read_text().replace("\\", "")}
    checked = 0
    for r in concl.iter_rows(named=True):
        for fig in _figures(r):
            for name, text in outputs.items():
                assert fig in " ".join(text.split()), (name, fig)
            checked += 1
    assert checked >= 2
    # the answer's table writes the best's n* with its interval as the sentence does: one
    # rounding (up) for both
    best = concl.filter(pl.col("kind") == "best").row(0, named=True)
    if best["verdict"] == "holds":
        cell = (f"{numbers.count(best['nstar'])} "
                f"({numbers.count_interval(best['nstar_lo'], best['nstar_hi'])})")
        assert cell in outputs["page markdown"]


def _flags(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]", text))


def _options(command: str) -> set[str]:
    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction)).choices[command]
    return {s for a in sub._actions for s in a.option_strings}


def test_every_flag_on_the_page_exists_on_report(folder):
    page = (folder / "page" / "report.md").read_text() + (folder / "page" /
                                                           "report.html").read_text()
    flags = _flags(page)
    assert flags, "the page names no flag: the test would prove nothing"
    assert "--normalize" in flags and "--missing" in flags
    assert flags <= _options("report"), flags - _options("report")
    # nor does the page name compare's flags it does not have (issue 48: --ties)
    assert "--ties" not in flags


def test_every_flag_in_compares_outputs_exists_on_compare(tmp_path, capsys):
    rmse_table().write_csv(tmp_path / "t.csv")
    assert main(["compare", str(tmp_path / "t.csv"), "--alternatives", "model", "--target",
                 "rmse", "--blocks", "dataset", "--lower-is-better", "--average-over",
                 "seed", "--invalid-target", "drop", "--figures", "", "--out",
                 str(tmp_path / "c")]) == 0
    text = capsys.readouterr().out + (tmp_path / "c" / "report.md").read_text()
    flags = _flags(text)
    assert {"--normalize", "--missing", "--ties"} <= flags
    assert flags <= _options("compare"), flags - _options("compare")


def test_the_rope_is_said_once_in_help_docstring_and_page(folder):
    from genexpy_nb.answers.report_page import ROPE_UNITS

    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction)).choices["report"]
    rope = next(a for a in sub._actions if "--bayesian-rope" in a.option_strings)
    assert ROPE_UNITS in rope.help
    assert " ".join(ROPE_UNITS.split()) in " ".join(gx.report.__doc__.split())
    page = gx.report(rmse_table(), **ROLES, rope=0.05, rep=10, progress=False)
    beyond = next(s for s in page.sections if s.key == "beyond")
    assert ROPE_UNITS in " ".join(beyond.markdown.split()).replace("\\", "")
    # the page works on normalised scores here, and says the rope is a share of the range
    assert page.basis == "minmax"
    assert "±0.05 in fractions of each dataset's range" in beyond.markdown


def test_one_scale_for_the_study_stated_at_the_top(folder):
    md = (folder / "page" / "report.md").read_text()
    top = md.split("## ")[0]
    assert "**Scale: scores min-max normalised per dataset" in top
    assert "ranks, and so the conclusions, the rank tests and n\\*, are scale-free" in top
    for cid in ("config_0",):
        sub = (folder / "page" / "classical" / cid / "report.md").read_text()
        assert "min-max normalised per dataset" in sub


def test_the_ratio_is_scale_free_robust_and_follows_missing():
    df = rmse_table(outlier=False)
    base = gx.report(df, **ROLES, rep=10, progress=False).replicate_spread
    # every dataset's results multiplied by its own factor: the normalised ratio is unchanged
    factor = {f"ds{d:02d}": 10.0 ** (d % 5) for d in range(14)}
    scaled = df.with_columns(pl.col("rmse") * pl.col("dataset").replace_strict(factor))
    again = gx.report(scaled, **ROLES, rep=10, progress=False).replicate_spread
    assert again["basis"][0] == "minmax"
    np.testing.assert_allclose(again["ratio"], base["ratio"], rtol=1e-9)
    # the outlier run is listed, and the ratio without it is the ratio of the table without it
    page = gx.report(rmse_table(), **ROLES, rep=10, progress=False)
    out = page.outliers
    assert out.select("condition", "alternative", "seed").rows() == [("ds02", "boost", 1)]
    clean = rmse_table().filter(~((pl.col("dataset") == "ds02") & (pl.col("model") == "boost")
                                  & (pl.col("seed") == 1)))
    want = gx.report(clean, **ROLES, rep=10, progress=False).replicate_spread["ratio"][0]
    assert page.replicate_spread["ratio"][0] == pytest.approx(want, rel=1e-9)
    assert page.replicate_spread["ratio_with_outliers"][0] != pytest.approx(want, rel=1e-3)
    data = next(s for s in page.sections if s.key == "data")
    assert "1 outlier:" in data.markdown and "ds02" in data.markdown
    # --missing drop-block leaves the datasets with a failed run out of the ratio too
    drop = gx.report(df, **ROLES, rep=10, progress=False, missing="drop-block")
    kept = df.filter(~pl.col("dataset").is_in(["ds01", "ds04"]))
    same = gx.report(kept, **ROLES, rep=10, progress=False).replicate_spread["ratio"][0]
    assert drop.replicate_spread["ratio"][0] == pytest.approx(same, rel=1e-9)
    assert drop.replicate_spread["ratio"][0] != pytest.approx(base["ratio"][0], rel=1e-6)


def test_python_and_the_command_line_give_the_same_sections(folder):
    study = gx.Study(rmse_table(), **ROLES)
    from_study = gx.report(study, rep=20, progress=False)
    from_table = gx.report(rmse_table(), **ROLES, rep=20, progress=False)
    md = (folder / "page" / "report.md").read_text()
    cli_titles = re.findall(r"^## (.+)$", md, re.M)
    assert [s.title for s in from_study.sections] == cli_titles
    assert [s.title for s in from_table.sections] == cli_titles
    saved = pl.read_csv(folder / "page" / "replicate_spread.csv")
    assert from_study.replicate_spread["ratio"][0] == pytest.approx(saved["ratio"][0])
    assert "More runs or more datasets?" in from_study.sections[1].markdown


def test_imputed_results_are_failed_runs_listed_by_name(tmp_path):
    df = rmse_table(outlier=False).with_columns(
        ((pl.col("dataset") == "ds07") & (pl.col("model") == "forest")).alias("imputed"))
    plain = gx.report(df.drop("imputed"), **ROLES, rep=10, progress=False)
    marked = gx.report(df, **ROLES, imputed="imputed", rep=10, progress=False)
    assert marked.study.report.rows_marked_imputed == 3
    assert marked.study.marked_imputed.height == 3
    got = marked.failed_runs.filter(pl.col("condition") == "ds07")
    assert got.select("alternative", "status").rows() == [("forest", "imputed as the worst tier")]
    assert not plain.failed_runs.filter(pl.col("condition") == "ds07").height
    data = next(s for s in marked.sections if s.key == "data")
    assert "3 rows marked imputed by the table's source (column imputed" in data.markdown
    # the same on the command line, and drop-block drops the dataset
    df.write_csv(tmp_path / "t.csv")
    assert main(["report", str(tmp_path / "t.csv"), *ARGS, "--imputed", "imputed",
                 "--missing", "drop-block", "--out", str(tmp_path / "o")]) == 0
    failed = pl.read_csv(tmp_path / "o" / "failed_runs.csv")
    assert ("ds07", "forest") in failed.select("condition", "alternative").rows()
    assert "--imputed imputed" in (tmp_path / "o" / "report.md").read_text()
    with pytest.raises(gx.GenexpyInputError, match="imputed column 'note' must be boolean"):
        gx.Study(df.with_columns(pl.lit("x").alias("note")), **ROLES, imputed="note")


def test_the_paper_paragraph_and_the_tables_speak_the_columns_words(folder):
    md = (folder / "page" / "classical" / "config_0" / "report.md").read_text()
    assert "We compared 5 alternatives on 14 datasets by their" in md
    assert " blocks" not in md.replace("\\", "")
    nstar = (folder / "page" / "report.md").read_text().split("(the paper's n*)")[1]
    # every research question says its question and what delta* allows, under its name
    assert "Are the best alternatives consistently the same? Two studies answer it alike" in \
        nstar.replace("\\", "")
    assert "Are the alternatives ranked in a consistent order?" in nstar
    assert "delta\\* = 5%" in nstar or "delta* = 5%" in nstar.replace("\\", "")


def test_a_conclusion_that_holds_writes_its_interval_alike_everywhere():
    """The example study's best holds in one configuration: its n* and 90 % interval are the
    same in the sentence and in the page's table (rounded up both), in every format."""
    from genexpy_nb.answers.report_page import _nstar_words
    from genexpy_nb.example.demo import example_study

    study = example_study()
    cid = study.config_id({"metric": "accuracy", "train_size": "full"})
    concl = gx.conclusions(study, config_id=cid, kinds=["best"], progress=False)
    r = concl.row(0, named=True)
    assert r["verdict"] == "holds"
    s = conclusions_summary(concl, unit="dataset")
    n, band = numbers.count(r["nstar"]), numbers.count_interval(r["nstar_lo"], r["nstar_hi"])
    sentence = f"n* = {n}, 90 % interval {band}"
    for text in (s.to_text(width=0), s.to_markdown().replace("\\", ""),
                 _text_of(s.to_html()), s.to_latex().replace("\\", "")):
        assert sentence in " ".join(text.split())
    assert _nstar_words(r) == f"{n} ({band})"


def test_compare_and_the_page_agree_where_their_policies_do(folder, tmp_path):
    """The same table, the same tolerances (the study's, 0.2) and the same missing policy:
    compare's mean ranks, Friedman statistic and aggregates are the page's."""
    assert main(["compare", str(folder / "rmse.csv"), "--alternatives", "model", "--target",
                 "rmse", "--blocks", "dataset", "--lower-is-better", "--average-over", "seed",
                 "--invalid-target", "drop", "--figures", "", "--aggregates", "--quiet",
                 "--out", str(tmp_path / "c")]) == 0
    page = folder / "page" / "classical" / "config_0"
    for name, key in (("mean_ranks.csv", "alternative"), ("omnibus.csv", "test")):
        a = pl.read_csv(tmp_path / "c" / name).sort(key)
        b = pl.read_csv(page / name).sort(key)
        num = [c for c in a.columns if a[c].dtype.is_numeric() and c in b.columns]
        for c in num:
            np.testing.assert_allclose(a[c].to_numpy(), b[c].to_numpy(), rtol=1e-12, err_msg=c)
    agg = pl.read_csv(tmp_path / "c" / "aggregates.csv").sort("alternative", "aggregate")
    mine = pl.read_csv(folder / "page" / "aggregates.csv").sort("alternative", "aggregate")
    np.testing.assert_allclose(agg["estimate"].to_numpy(), mine["estimate"].to_numpy(),
                               rtol=1e-12)


def test_one_diverged_run_does_not_choose_the_scale():
    """Datasets on one scale: raw scores, even with a run at 1.35e12 (listed, left out)."""
    rng = np.random.default_rng(0)
    rows = [(f"d{d}", m, s, float(0.5 + 0.1 * k + rng.normal(0, 0.02)))
            for d in range(12) for k, m in enumerate(MODELS) for s in range(3)]
    df = pl.DataFrame(rows, schema=["dataset", "model", "seed", "rmse"], orient="row")
    bad = df.with_columns(pl.when((pl.col("dataset") == "d3") & (pl.col("model") == "knn")
                                  & (pl.col("seed") == 0)).then(1.35e12)
                          .otherwise(pl.col("rmse")).alias("rmse"))
    page = gx.report(bad, **ROLES, rep=10, progress=False)
    assert page.outliers.height == 1 and page.basis == "none"
    assert "left out of this choice" in page.scale
