"""``genexpy-nb compare``: the table a paper can use, and the printed lines of the aggregates
and of the Bayesian test (numbers from the saved frames)."""

from __future__ import annotations

import numpy as np
import polars as pl

from genexpy_nb.answers.numbers import interval, number
from genexpy_nb.cli import main


def test_compare_prints_aggregates_and_bayesian_lines(tmp_path, capsys):
    rng = np.random.default_rng(7)
    rows = [(f"d{i:02d}", f"m{j}", float(0.7 + 0.03 * j + rng.normal(0, 0.02)))
            for i in range(15) for j in range(4)]
    path = tmp_path / "r.csv"
    pl.DataFrame(rows, schema=["dataset", "model", "acc"], orient="row").write_csv(path)
    out = tmp_path / "cmp"
    assert main(["compare", str(path), "--alternatives", "model", "--target", "acc",
                 "--blocks", "dataset", "--higher-is-better", "--figures", "",
                 "--aggregates", "--bayesian-rope", "0.01", "--out", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    bayes = next(line for line in printed if line.startswith("Bayesian signed-rank against"))
    iqm = next(line for line in printed if line.startswith("IQM over the 15 complete datasets"))
    b = pl.read_csv(out / "bayesian_signed_rank.csv")
    n_worse = b.filter(pl.col("decision") == "m3 better").height
    assert f"m3 better than {n_worse} of {b.height}" in bayes and "+-0.01" in bayes
    a = pl.read_csv(out / "aggregates.csv").filter(pl.col("aggregate") == "iqm").sort(
        "estimate", descending=True)
    top = a.row(0, named=True)
    # the numbers of the file, written by the one formatter
    assert (f"{top['alternative']} {number(top['estimate'])} "
            f"{interval(top['low'], top['high'])}") in iqm
    paper = pl.read_csv(out / "paper_table.csv")
    assert paper["alternative"][0] == "m3" and paper["cliffs_delta"][0] is None
    assert set(paper["magnitude"].drop_nulls()) <= {"negligible", "small", "medium", "large"}
    tex = (out / "mean_ranks.tex").read_text()
    assert tex.count("\\begin{tabular}") == 2 and "Cliff's $\\delta$" in tex
    assert "## A table for a paper" in (out / "report.md").read_text()


def test_compare_rank_sets_line_file_and_report(tmp_path, capsys):
    """--rank-sets: the tiers printed are those of the saved table (gx.rank_sets' frame)."""
    import genexpy_nb as gx

    rng = np.random.default_rng(3)
    rows = [(f"d{i:02d}", f"m{j}", float(0.1 * j + rng.normal(0, 0.05)))
            for i in range(20) for j in range(5)]
    df = pl.DataFrame(rows, schema=["dataset", "model", "acc"], orient="row")
    path = tmp_path / "r.csv"
    df.write_csv(path)
    out = tmp_path / "cmp"
    assert main(["compare", str(path), "--alternatives", "model", "--target", "acc",
                 "--blocks", "dataset", "--higher-is-better", "--figures", "",
                 "--rank-sets", "--seed", "4", "--out", str(out)]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("Tiers ("))
    sets = pl.read_csv(out / "rank_sets.csv")
    groups = [", ".join(g["alternative"].to_list())
              for _, g in sets.group_by("tier", maintain_order=True)]
    assert line.endswith(" | ".join(groups)) and "95% simultaneous" in line
    study = gx.Study(df, alternatives="model", target="acc", generalize="dataset",
                     higher_is_better=True)
    want = gx.rank_sets(study, seed=4)
    assert sets["rank_lo"].to_list() == want["rank_lo"].to_list()
    assert sets["alternative"].to_list() == want["alternative"].to_list()
    assert "## Rank sets and tiers" in (out / "report.md").read_text()
