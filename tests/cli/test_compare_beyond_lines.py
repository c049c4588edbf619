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
