"""``genexpy-nb compare``: argparse -> significance.compare -> files; the answer printed.

In-process ``main(argv)`` calls (fast); one subprocess run sees what a shell sees.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from genexpy_nb.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """8 algorithms x 60 datasets; 'sparse' ran on 6 of them; 'nn' failed (NaN) on 5 of
    those 6 (so that no block misses more than one of the 8 kept alternatives)."""
    rng = np.random.default_rng(0)
    rows = []
    for d in range(60):
        base = rng.normal(0.75, 0.05)
        for j in range(8):
            acc = base + 0.015 * j + rng.normal(0, 0.02)
            name = "nn" if j == 3 else f"alg{j}"
            failed = name == "nn" and d % 10 == 0 and d > 0
            rows.append((f"ds{d:02d}", name, float("nan") if failed else acc))
        if d % 10 == 0:
            rows.append((f"ds{d:02d}", "sparse", base + 0.3))
    folder = tmp_path_factory.mktemp("cmp")
    df = pl.DataFrame(rows, schema=["dataset", "algorithm", "accuracy"], orient="row")
    df.write_csv(folder / "failed.csv")
    df.filter(pl.col("accuracy").is_not_nan()).write_csv(folder / "ok.csv")
    df.filter((pl.col("algorithm") != "sparse")
              & ~pl.col("dataset").is_in([f"ds{d}" for d in range(10, 60, 10)])).write_csv(
        folder / "complete.csv")
    folds = pl.DataFrame([(t, f, m, 0.6 + 0.05 * m + 0.01 * rng.normal())
                          for t in range(10) for f in range(5) for m in range(4)],
                         schema=["task", "fold", "model", "auc"], orient="row")
    folds.write_csv(folder / "folds.csv")
    return folder


ARGS = ["--alternatives", "algorithm", "--target", "accuracy", "--blocks", "dataset",
        "--higher-is-better"]


def test_failed_runs_are_refused_in_flags_then_dropped_and_reported(tables, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["compare", str(tables / "failed.csv"), *ARGS, "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert "--invalid-target drop" in err and "\n" not in err
    assert not re.search(r"\b[a-z_]+=", err), err
    assert not out.exists()
    assert main(["compare", str(tables / "failed.csv"), *ARGS, "--invalid-target", "drop",
                 "--missing", "available", "--out", str(out)]) == 0
    cap = capsys.readouterr()
    assert cap.out.splitlines()[0].startswith(
        "policy: failed or missing runs are left out of their dataset's ranking")
    lines = cap.out.splitlines()[1:]
    # which test, over how many blocks; post-hoc and correction; the best and its group
    assert lines[0].startswith("Skillings-Mack test over 60 datasets x 8 alternatives "
                               "(5 missing results ranked among the available")
    assert lines[1].startswith("post-hoc: Siegel–Castellan z-tests of mean ranks among the "
                               "available alternatives over all 28 pairs, Holm's correction")
    assert lines[2].startswith("best: alg7 has the best mean rank")
    assert "not significantly different from it: alg6" in lines[2]
    # the sparse algorithm: dropped by the policy, said so
    assert ("policy (--tol-missing-alternatives 0.2, --tol-missing-conditions 0.2)" in lines[3]
            and "(sparse)" in lines[3])
    assert "mean ranks with ties averaged (--ties average)" in cap.out
    assert cap.err.startswith("wrote ") and str(out) in cap.err
    names = {p.name for p in out.iterdir()}
    assert {"report.md", "mean_ranks.tex", "omnibus.csv", "posthoc.csv", "mean_ranks.csv",
            "missing_results.csv", "cd_diagram.html", "cd_diagram.png"} <= names
    omni = pl.read_csv(out / "omnibus.csv")
    assert omni["n_blocks"].item() == 60 and omni["n_missing"].item() == 5
    ranks = pl.read_csv(out / "mean_ranks.csv")
    assert ranks["test"][0] == ("Siegel-Castellan z (ranks among available), Holm's "
                                "correction")
    assert dict(ranks.select("alternative", "n_blocks").iter_rows())["nn"] == 55
    report = (out / "report.md").read_text()
    assert "## A paragraph for a paper" in report and "**alg7**" in report
    tex = (out / "mean_ranks.tex").read_text()
    assert "\\begin{tabular}" in tex and "alg7 & \\textbf{" in tex


def test_keeping_the_sparse_algorithm_keeps_the_others_order(tables, tmp_path, capsys):
    base, kept = tmp_path / "a", tmp_path / "b"
    assert main(["compare", str(tables / "ok.csv"), *ARGS, "--figures", "", "--out",
                 str(base)]) == 0
    assert main(["compare", str(tables / "ok.csv"), *ARGS, "--figures", "",
                 "--tol-missing-alternatives", "1", "--tol-missing-conditions", "1",
                 "--out", str(kept)]) == 0
    capsys.readouterr()
    a = pl.read_csv(base / "mean_ranks.csv")["alternative"].to_list()
    b = pl.read_csv(kept / "mean_ranks.csv")["alternative"].to_list()
    assert "sparse" not in a and "sparse" in b
    assert [x for x in b if x != "sparse"] == a


def test_options_control_top_ties_nemenyi(tables, tmp_path, capsys):
    out = tmp_path / "c"
    assert main(["compare", str(tables / "complete.csv"), *ARGS,
                 "--control", "alg0", "--posthoc", "conover", "--p-adjust", "bonferroni",
                 "--top", "3", "--ties", "min", "--figures", "svg", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Conover–Iman t-tests on rank sums over the 7 comparisons with the control, " \
           "Bonferroni's correction" in text
    assert "against the control alg0" in text
    assert "ties given the lowest rank of their group (--ties min)" in text
    post = pl.read_csv(out / "posthoc.csv")
    assert post.height == 7 and set(post["alternative_1"]) == {"alg0"}
    svg = (out / "cd_diagram.svg").read_text()
    assert "showing the 4 best of 8 alternatives" in svg  # the 3 best and the control
    assert "Friedman test over 55 datasets x 8 alternatives" in text
    out2 = tmp_path / "n"
    assert main(["compare", str(tables / "complete.csv"), *ARGS,
                 "--posthoc", "nemenyi", "--figures", "", "--out", str(out2)]) == 0
    assert "no correction needed (Nemenyi), alpha = 0.05; CD = " in capsys.readouterr().out
    assert pl.read_csv(out2 / "mean_ranks.csv")["cd"].n_unique() == 1


def test_folds_as_blocks_get_a_note_and_quiet_prints_nothing(tables, tmp_path, capsys):
    argv = ["compare", str(tables / "folds.csv"), "--alternatives", "model", "--target", "auc",
            "--blocks", "task,fold", "--higher-is-better", "--figures", ""]
    assert main([*argv, "--out", str(tmp_path / "f")]) == 0
    out = capsys.readouterr().out
    assert "note: the blocks include 'fold': folds or seeds of one dataset are not " \
           "independent datasets" in out and "--average-over fold" in out
    assert main([*argv, "--quiet", "--out", str(tmp_path / "q")]) == 0
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err == ""


ERRORS = [
    (["--target", "accuracyy"], "--target: column(s) ['accuracyy'] not in the table"),
    (["--posthoc", "conover", "--invalid-target", "drop", "--tol-missing-alternatives", "1",
      "--missing", "available"], "--posthoc siegel"),
    (["--control", "zz", "--invalid-target", "drop"], "--control zz"),
    (["--control", "alg1", "--posthoc", "nemenyi", "--invalid-target", "drop"],
     "--posthoc siegel"),
    (["--p-adjust", "magic", "--invalid-target", "drop"], "--p-adjust must be one of"),
    (["--average-over", "algorithm"], "two roles"),
    (["--blocks", "algorithm", "--invalid-target", "drop"], "two roles"),
    (["--tol-missing-alternatives", "0", "--invalid-target", "drop"],
     "Raise --tol-missing-alternatives"),
    (["--figures", "gif"], "--figures"),
]


@pytest.mark.parametrize("extra,msg", ERRORS)
def test_errors_are_one_line_in_flags(tables, tmp_path, capsys, extra, msg):
    argv = ["compare", str(tables / "failed.csv"), *ARGS, "--out", str(tmp_path / "o")]
    if "--blocks" in extra:  # replaces the default role
        i = argv.index("--blocks")
        argv = argv[:i] + argv[i + 2:]
    assert main([*argv, *extra]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("genexpy-nb compare: error:") and "\n" not in err, err
    assert msg in err, err
    assert not re.search(r"\b[a-z_]+=|\w+\(\.\.\.\)|\[\.\.\.\]", err), err
    assert not (tmp_path / "o").exists()


def test_a_shell_sees_the_answer_on_stdout(tables, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH",
                                                                                ""))
    proc = subprocess.run([sys.executable, "-m", "genexpy_nb", "compare",
                           str(tables / "ok.csv"), *ARGS, "--out", str(tmp_path / "s")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("policy: ")
    assert proc.stdout.splitlines()[3].startswith("best: alg7")
    assert proc.stderr.startswith("wrote ")


def test_bayesian_rope_and_aggregates_in_the_report(tables, tmp_path, capsys):
    """--bayesian-rope and --aggregates add their sections to report.md and their tables,
    equal to the library's functions on the same blocks."""
    from genexpy_nb import aggregates as ag
    from genexpy_nb.significance import bayesian_signed_rank, compare

    out = tmp_path / "b"
    assert main(["compare", str(tables / "complete.csv"), *ARGS, "--control", "alg0",
                 "--bayesian-rope", "0.01", "--aggregates", "--figures", "",
                 "--out", str(out), "--quiet"]) == 0
    report = (out / "report.md").read_text()
    assert "Bayesian comparison" in report and "Robust aggregates" in report
    assert "region of practical equivalence ±0.01" in report
    bay = pl.read_csv(out / "bayesian_signed_rank.csv")
    assert bay.height == 7 and set(bay["against"]) == {"alg0"}
    df = pl.read_csv(tables / "complete.csv")
    wide = df.pivot(on="algorithm", index="dataset", values="accuracy").sort("dataset")
    want = bayesian_signed_rank(wide["alg7"], wide["alg0"], rope=0.01, higher_is_better=True)
    row = bay.filter(pl.col("alternative") == "alg7").row(0, named=True)
    np.testing.assert_allclose(
        [row["p_alternative_better"], row["p_rope"], row["p_against_better"]], want.probs,
        atol=1e-12)
    k = int(np.argmax(want.probs))
    assert row["decision"] == (("alg7 better", "practically equivalent", "alg0 better")[k]
                               if want.probs[k] > 0.95 else "no decision")
    agg = pl.read_csv(out / "aggregates.csv")
    cmp = compare(df, alternatives="algorithm", target="accuracy", blocks="dataset",
                  higher_is_better=True)
    i = list(cmp.alternatives).index("alg4")
    x = cmp.values[:, i]
    iqm = agg.filter((pl.col("alternative") == "alg4") & (pl.col("aggregate") == "iqm"))
    np.testing.assert_allclose(iqm["estimate"].item(), ag.iqm({"a": x[None, :]}, reps=10,
                               task_bootstrap=True)["estimate"].item(), rtol=1e-12)
    med = agg.filter((pl.col("alternative") == "alg4") & (pl.col("aggregate") == "median"))
    assert med["estimate"].item() == pytest.approx(float(np.median(x)), rel=1e-12)
    assert (agg["low"] <= agg["estimate"]).all() and (agg["estimate"] <= agg["high"]).all()
    assert (agg["high"] > agg["low"]).all()  # the blocks are resampled: intervals have width


def test_missing_results_and_dropped_rows_are_counted_each_in_its_unit(tmp_path, capsys):
    """1 result missing because its 3 seeds' rows had no target: never '3 of them rows'."""
    rng = np.random.default_rng(0)
    df = pl.DataFrame([dict(dataset=f"d{d}", method=f"m{m}", seed=s,
                            score=None if (d, m) == (1, 2) else float(m * 0.1 + rng.normal()))
                       for d in range(12) for m in range(4) for s in range(3)])
    df.write_csv(tmp_path / "t.csv")
    assert main(["compare", str(tmp_path / "t.csv"), "--alternatives", "method", "--target",
                 "score", "--higher-is-better", "--blocks", "dataset", "--average-over",
                 "seed", "--invalid-target", "drop", "--figures", "", "--out",
                 str(tmp_path / "o")]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert ("1 of 48 results missing (4 alternatives x 12 datasets); 3 rows of the table with "
            "an empty, NaN or infinite target were dropped before averaging;") in text
    assert "of them rows" not in text
