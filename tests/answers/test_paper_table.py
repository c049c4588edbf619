"""The table a paper can use (significance.paper_table): values against numpy/scipy, escaping."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from genexpy_nb.answers.paper_table import _oriented_delta, paper_table, paper_table_section
from genexpy_nb.significance import compare

PAYLOAD = ['<script>alert(1)</script>', "a|b*_c", "=HYPERLINK(1)", "50% & $x$ #1 {y} \\z ~^",
           "line\nbreak"]


def _frame(names, n=11, seed=0, drop=None):
    """datasets x models of an error (lower is better), model j worse by 0.05 j on average."""
    rng = np.random.default_rng(seed)
    rows = [(f"d{i:02d}", a, float(np.round(1 + 0.05 * j + rng.normal(0, 0.08), 3)))
            for i in range(n) for j, a in enumerate(names)]
    rows = [r for r in rows if (r[0], r[1]) != drop]
    return pl.DataFrame(rows, schema=["dataset", "model", "err"], orient="row")


def _romano(d):
    a = abs(d)
    return ("negligible" if a < 0.147 else "small" if a < 0.33 else "medium" if a < 0.474
            else "large")


def test_values_against_an_independent_computation():
    names = ["m0", "m1", "m2", "m3", "m4"]
    df = _frame(names, drop=("d03", "m2"))
    res = compare(df, alternatives="model", target="err", blocks="dataset",
                  higher_is_better=False, tol_missing_alternatives=1.0,
                  tol_missing_conditions=1.0)
    t = paper_table(res)
    assert t["alternative"].to_list() == res.mean_ranks["alternative"].to_list()
    assert t["mean_rank"].to_list() == res.mean_ranks["mean_rank"].to_list()
    best = res.best[0]
    wide = {a: df.filter(pl.col("model") == a)["err"].to_numpy() for a in names}
    for r in t.iter_rows(named=True):
        x = wide[r["alternative"]]
        assert r["median"] == pytest.approx(np.median(x), abs=1e-12)
        assert r["mad"] == pytest.approx(stats.median_abs_deviation(x), abs=1e-12)
        assert r["against"] == best
        if r["alternative"] == best:
            assert r["cliffs_delta"] is None and r["magnitude"] is None
            continue
        # Cliff's delta from Mann-Whitney's U of the best: 2U/(nm) - 1 = P(b > a) - P(b < a);
        # lower is better, so the best is better where its error is smaller: negated
        u = stats.mannwhitneyu(wide[best], x).statistic
        delta = -(2 * u / (wide[best].size * x.size) - 1)
        assert r["cliffs_delta"] == pytest.approx(delta, abs=1e-12)
        assert r["magnitude"] == _romano(delta)
    assert t["n_blocks"].to_list() == res.mean_ranks["n_blocks"].to_list()
    assert t["group"].to_list() == res.mean_ranks["group"].to_list()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=12),
       st.lists(st.integers(0, 5), min_size=1, max_size=12), st.booleans())
def test_oriented_delta_is_the_pair_count(b, a, hib):
    b, a = np.array(b, float), np.array(a, float)
    win = sum((x > y) if hib else (x < y) for x in b for y in a)
    loss = sum((x < y) if hib else (x > y) for x in b for y in a)
    # counted from the sorted scores: the very ratio of the pair counts, bit for bit
    assert _oriented_delta(b, a, hib) == (win - loss) / (b.size * a.size)
    assert _oriented_delta(a, b, hib) == -_oriented_delta(b, a, hib)


def test_hostile_names_escaped_in_markdown_and_latex(tmp_path):
    df = _frame(PAYLOAD, n=9, seed=3)
    res = compare(df, alternatives="model", target="err", blocks="dataset",
                  higher_is_better=False)
    more = res.with_section(paper_table_section(res))
    md = more.to_markdown()
    part = md[md.index("## A table for a paper"):]
    assert "<script>" not in part and "&lt;script&gt;" in part and "a\\|b\\*\\_c" in part
    head = part.splitlines()[2]
    for line in part.splitlines()[2:2 + 2 + len(PAYLOAD)]:
        assert line.count(" | ") == head.count(" | ")  # every row keeps its columns
    html = more.to_html()
    assert "<script>" not in html
    tex = paper_table_section(res).latex
    assert "50\\% \\& \\$x\\$ \\#1 \\{y\\} \\textbackslash{}z" in tex
    rows = [r for r in tex[tex.index("\\midrule"):tex.index("\\bottomrule")].splitlines()[1:]
            if r.strip()]
    assert len(rows) == len(PAYLOAD)
    for row in rows:
        assert len(re.findall(r"(?<!\\)&", row)) == 6  # 7 columns: the data's & escaped
    assert "\\toprule" in tex and "Romano et al." in tex and "\n" not in tex.split(
        "\\caption{")[1].split("}\n")[0]
    more.save(tmp_path / "o")
    saved = pl.read_csv(tmp_path / "o" / "paper_table.csv")
    assert "'=HYPERLINK(1)" in saved["alternative"].to_list()
    assert (tmp_path / "o" / "mean_ranks.tex").read_text().count("\\begin{tabular}") == 2


def test_normalised_scores_when_compare_normalises():
    """Blocks on scales 0.1 to 10^4: the table's numbers are of the min-max normalised
    scores, as compare's normalize says, and the notes say so."""
    names = ["m0", "m1", "m2"]
    df = _frame(names, n=8, seed=9).with_columns(
        pl.col("err") * 10.0 ** (pl.col("dataset").str.slice(1).cast(pl.Int64) % 6 - 1))
    res = compare(df, alternatives="model", target="err", blocks="dataset",
                  higher_is_better=False, normalize="minmax")
    w = df.pivot(on="model", index="dataset", values="err").sort("dataset")
    v = w.select(names).to_numpy()
    norm = (v - v.min(axis=1, keepdims=True)) / np.ptp(v, axis=1, keepdims=True)
    t = paper_table(res)
    for r in t.iter_rows(named=True):
        x = norm[:, names.index(r["alternative"])]
        assert r["median"] == pytest.approx(np.median(x), abs=1e-12)
        assert r["mad"] == pytest.approx(stats.median_abs_deviation(x), abs=1e-12)
    assert t["scores"].unique().to_list() == ["minmax"]
    sec = paper_table_section(res)
    assert "min-max normalised per dataset" in sec.latex
    assert paper_table(compare(df, alternatives="model", target="err", blocks="dataset",
                               higher_is_better=False, normalize="none"))["scores"][0] == "raw"


def test_cd_value_and_control():
    names = ["m0", "m1", "m2", "m3"]
    df = _frame(names, n=12, seed=5)
    res = compare(df, alternatives="model", target="err", blocks="dataset",
                  higher_is_better=False, posthoc="nemenyi")
    sec = paper_table_section(res)
    assert f"CD $= {res.cd:.2f}$" in sec.latex  # a difference of mean ranks, as they are
    assert paper_table(res)["cd"].unique().to_list() == [res.cd]
    ctl = compare(df, alternatives="model", target="err", blocks="dataset",
                  higher_is_better=False, control="m3")
    t = paper_table(ctl)
    assert "pvalue_vs_control" in t.columns and "group" not in t.columns
    assert "control" in paper_table_section(ctl).latex
