"""The command line: exit codes, one-line messages, no tracebacks, tidy outputs.

Most checks call ``main(argv)`` in-process (fast); a few run ``python -m genexpy_nb`` in a
subprocess to see what a shell sees (exit code, stderr, Ctrl-C). One small table is shared.
"""

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from genexpy_nb.answers.numbers import prob
from genexpy_nb.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """5 methods x 15 datasets x 2 metrics x 2 seeds; method M4 is best, M0 worst."""
    rng = np.random.default_rng(0)
    rows = [dict(dataset=f"d{d:02d}", method=f"M{m}", metric=metric, seed=s,
                 score=float(0.5 + 0.05 * m + rng.normal(0, 0.04)))
            for d in range(15) for m in range(5) for metric in ("acc", "f1") for s in range(2)]
    folder = tmp_path_factory.mktemp("cli")
    df = pl.DataFrame(rows)
    df.write_csv(folder / "t.csv")
    df.write_parquet(folder / "t.parquet")
    # M2 has no result on one (dataset, metric) block
    df.filter(~((pl.col("dataset") == "d03") & (pl.col("method") == "M2")
                & (pl.col("metric") == "acc"))).write_csv(folder / "missing.csv")
    return folder


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "genexpy_nb", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env=_env(), timeout=300)


NSTAR = ["--alternatives", "method", "--target", "score", "--higher-is-better",
         "--generalize", "dataset", "--design", "metric", "--average-over", "seed"]
COMPARE = ["--alternatives", "method", "--target", "score", "--blocks", "dataset,metric",
           "--average-over", "seed", "--higher-is-better"]


# ---- help, version, usage (exit 0 / 2) ----------------------------------------------------


def test_every_option_has_help_and_shows_its_default():
    parser = build_parser()
    subs = next(a for a in parser._actions if a.dest == "command").choices
    assert set(subs) == {"demo", "nstar", "seeds", "compare", "precompile",
                         "report"}
    for name, sub in subs.items():
        text = " ".join(sub.format_help().split())
        for action in sub._actions:
            assert action.help, f"{name} {action.option_strings or action.dest} has no help"
            shows = (action.required or action.nargs == 0 or action.default is None
                     or not action.option_strings)
            if not shows:
                assert "(default:" in sub._get_formatter()._get_help_string(action), (
                    name, action.dest)
        assert "(default: 200)" in text or name in ("seeds", "compare", "precompile")


def test_help_version_and_usage_errors_in_a_shell(tmp_path, table):
    r = _run("nstar", "--help", cwd=tmp_path)
    assert r.returncode == 0 and "(default: nstar.parquet)" in " ".join(r.stdout.split())
    assert "--lower-is-better" in r.stdout
    r = _run("--version", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("genexpy-nb ")
    r = _run("nstar", table / "t.csv", "--alternatives", "method", cwd=tmp_path)  # usage
    assert r.returncode == 2 and "required" in r.stderr and "Traceback" not in r.stderr
    r = _run("nstar", table / "t.csv", *NSTAR, "--out", "o.xlsx", cwd=tmp_path)  # input
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip().count("\n") == 0 and ".xlsx" in r.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [
    ["nstar", "x.csv", "--alternatives", "a", "--target", "t", "--generalize", "g"],  # direction
    ["compare", "x.csv", "--alternatives", "a", "--target", "t", "--blocks", "b"],
    ["nstar", "x.csv", *NSTAR, "--kernel", "cosine"],
    ["nstar", "x.csv", *NSTAR, "--alpha", "x"],
    ["nstar", "x.csv", *NSTAR, "--held-constant", "oops"],
    ["nstar", "x.csv", *NSTAR, "--rep", "0"],
    ["compare", "x.csv", *COMPARE, "--alpha", "1.5"],
    ["seeds"],
    ["frobnicate"],
])
def test_usage_errors_exit_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "usage:" in err and "Traceback" not in err


# ---- input errors (exit 1, one line, before the analysis) --------------------------------


def _bad_files(folder: Path) -> dict[str, Path]:
    out = {}
    (folder / "empty.csv").write_text("")
    out["empty csv"] = folder / "empty.csv"
    (folder / "header.csv").write_text("dataset,method,metric,seed,score\n")
    out["header-only csv"] = folder / "header.csv"
    good = (folder / "good.parquet")
    pl.DataFrame({"a": range(100)}).write_parquet(good)
    (folder / "trunc.parquet").write_bytes(good.read_bytes()[:60])
    out["truncated parquet"] = folder / "trunc.parquet"
    (folder / "garbage.parquet").write_bytes(os.urandom(500))
    out["garbage parquet"] = folder / "garbage.parquet"
    (folder / "bin.csv").write_bytes(b"\x00\xff\xfe" * 50)
    out["binary csv"] = folder / "bin.csv"
    (folder / "t.xlsx").write_text("x")
    out["unsupported suffix"] = folder / "t.xlsx"
    (folder / "semi.csv").write_text("dataset;method;score\nd0;M0;0.5\n")
    out["semicolons"] = folder / "semi.csv"
    out["missing file"] = folder / "nope.csv"
    return out


MESSAGES = {"empty csv": "the table is empty", "header-only csv": "the table is empty",
            "truncated parquet": "could not be read", "garbage parquet": "could not be read",
            "binary csv": "binary data", "unsupported suffix": "unsupported file type",
            "semicolons": "separated by ';'",
            "missing file": "not found"}


@pytest.mark.parametrize("command", ["nstar", "compare"])
def test_unreadable_tables_are_one_line_errors(tmp_path, capsys, command):
    opts = NSTAR if command == "nstar" else COMPARE
    out = tmp_path / ("o.csv" if command == "nstar" else "o")
    for what, path in _bad_files(tmp_path).items():
        rc = main([command, str(path), *opts, "--out", str(out)])
        err = capsys.readouterr().err.strip()
        assert rc == 1, (what, err)
        assert err.startswith(f"genexpy-nb {command}: error:") and "\n" not in err, (what, err)
        assert MESSAGES[what] in err, (what, err)
        assert not out.exists()


@pytest.mark.parametrize("extra,msg", [
    (["--target", "scorez"], "--target: column(s) ['scorez'] not in the table"),
    (["--design", "metrc"], "--design: column(s) ['metrc']"),
    (["--held-constant", "metric=xx"], ""),  # a level that empties the table
    (["--out", "o.txt"], "unsupported file type '.txt'"),
])
def test_nstar_input_errors(tmp_path, capsys, table, extra, msg):
    rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--out", str(tmp_path / "o.csv"),
               "--quiet", *extra])
    err = capsys.readouterr().err.strip()
    assert rc == 1 and "\n" not in err and msg in err, err
    assert list(tmp_path.iterdir()) == []


def test_uncreatable_output_folder_is_checked_first(tmp_path, capsys, table):
    (tmp_path / "afile").write_text("x")
    for argv in (["nstar", str(table / "t.csv"), *NSTAR, "--out",
                  str(tmp_path / "afile" / "sub" / "o.csv")],
                 ["compare", str(table / "t.csv"), *COMPARE, "--out",
                  str(tmp_path / "afile" / "sub")],
                 ["demo", "--out", str(tmp_path / "afile" / "demo")]):
        t0 = time.process_time()  # CPU time: the same on a busy machine
        assert main(argv) == 1
        assert time.process_time() - t0 < 5  # refused before any analysis
        err = capsys.readouterr().err.strip()
        assert "cannot create" in err and "\n" not in err, err


def test_output_folder_of_user_files_is_never_replaced(tmp_path, capsys, table):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "paper.tex").write_text("precious")
    assert main(["compare", str(table / "t.csv"), *COMPARE, "--out", str(mine)]) == 1
    assert "did not write" in capsys.readouterr().err
    assert [p.name for p in mine.iterdir()] == ["paper.tex"]


def test_empty_factor_values_are_named(tmp_path, capsys, table):
    df = pl.read_csv(table / "t.csv")
    df.with_columns(pl.when(pl.col("dataset") == "d01").then(None).otherwise(pl.col("method"))
                    .alias("method")).write_csv(tmp_path / "nulls.csv")
    for argv in (["nstar", str(tmp_path / "nulls.csv"), *NSTAR, "--out", str(tmp_path / "o.csv")],
                 ["compare", str(tmp_path / "nulls.csv"), *COMPARE, "--out",
                  str(tmp_path / "o")]):
        assert main(argv) == 1
        assert "column 'method' has 20 empty value(s)" in capsys.readouterr().err


def test_compare_all_tied_scores_is_a_documented_degenerate_result(tmp_path, capsys, table):
    pl.read_csv(table / "t.csv").with_columns(pl.lit(0.5).alias("score")).write_csv(
        tmp_path / "tied.csv")
    assert main(["compare", str(tmp_path / "tied.csv"), *COMPARE, "--figures", "", "--out",
                 str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "note: Friedman: every condition ties all alternatives" in out
    omni = pl.read_csv(tmp_path / "o" / "omnibus.csv")
    assert omni["pvalue"].item() == 1.0 and not omni["significant"].item()
    assert "ties all alternatives" in omni["note"].item()


def test_compare_table_errors(tmp_path, capsys, table):
    # several rows per (block, alternative) without --average-over
    argv = ["compare", str(table / "t.csv"), "--alternatives", "method", "--target", "score",
            "--blocks", "dataset", "--higher-is-better", "--out", str(tmp_path / "o")]
    assert main(argv) == 1
    assert "--average-over" in capsys.readouterr().err
    assert main([*argv[:5], "metric", *argv[6:]]) == 1  # --target not numeric
    assert "not numeric" in capsys.readouterr().err
    assert main([*argv, "--figures", "gif"]) == 1
    assert "--figures" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# ---- results ------------------------------------------------------------------------------


def test_nstar_end_to_end(tmp_path, capsys, table):
    out = tmp_path / "res" / "nstar.json"
    rc = main(["nstar", str(table / "t.parquet"), *NSTAR, "--kernel", "jaccard:k=2",
               "--kernel", "borda:M1", "--alpha", "0.9,0.95", "--delta", "0.1", "--rep", "20",
               "--out", str(out), "--quiet"])
    assert rc == 0, capsys.readouterr().err
    res = pl.read_json(out)
    assert set(res["kernel"]) == {"jaccard", "borda"}
    assert set(res["metric"]) == {"acc", "f1"}
    assert res.height == 2 * 2 * 2 * 1 * 3  # configs x kernels x alphas x deltas x methods
    # no temporary left; the conclusions beside the table
    assert sorted(p.name for p in out.parent.iterdir()) == ["conclusions.json", "nstar.json"]


def test_nstar_prints_the_answer_per_research_question(tmp_path, capsys, table):
    out = tmp_path / "n.csv"
    rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--kernel", "jaccard:k=1", "--kernel",
               "mallows", "--rep", "20", "--out", str(out), "--figures", str(tmp_path / "f")])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    res = pl.read_csv(out)
    head = res.filter(pl.col("alpha") == 0.95, pl.col("delta") == 0.05,
                      pl.col("method") == "resample")
    text = cap.out
    assert "n* at alpha* = 0.95, delta* = 0.05" in text
    for label in ("Jaccard(k=1)", "Mallows"):
        # the title, the question it answers in one line, then the table
        block = text.split(f"research question: {label}\n")[1].split("\n\n")[1]
        rows = head.filter(pl.col("kernel_label") == label)
        for r in rows.iter_rows(named=True):
            line = next(ln for ln in block.splitlines() if ln.startswith(r["metric"] + " "))
            # n* is a count of conditions, rounded up as in every output (the one formatter)
            assert f" {math.ceil(r['nstar'] - 1e-9)} " in line and f" {r['N']} " in line
            assert f" {math.ceil(r['nstar_null'] - 1e-9)} (" in line  # the no-signal baseline
            want = ("generalizes" if r["generalizable"] is True else
                    f"needs {r['deficit']} more" if r["generalizable"] is False else
                    f"unsure ({r['reason']})")
            assert line.rstrip().endswith(want), (line, want)
    assert f"Full results ({res.height} rows): {out}" in text
    assert "Traceback" not in cap.err
    # the figures: HTML that opens offline, PNG, SVG
    names = {p.name for p in (tmp_path / "f").iterdir() if not p.name.startswith(".")}
    assert {f"{n}.{e}" for n in ("nstar_by_alpha", "nstar_by_delta", "deficits")
            for e in ("html", "png", "svg")} == names
    html = (tmp_path / "f" / "deficits.html").read_text()
    assert "cdn.jsdelivr" not in html and "vega" in html


def test_nstar_figures_folder_is_its_own(tmp_path, capsys, table):
    rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--out", str(tmp_path / "r" / "n.csv"),
               "--figures", str(tmp_path / "r")])
    err = capsys.readouterr().err.strip()
    assert rc == 1 and "--figures" in err and "--out" in err and "\n" not in err
    assert not (tmp_path / "r" / "n.csv").exists()


def test_nstar_quiet_prints_nothing(tmp_path, capsys, table):
    rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--rep", "10", "--quiet", "--out",
               str(tmp_path / "n.csv")])
    cap = capsys.readouterr()
    assert rc == 0 and cap.out == "" and cap.err == ""


def test_nstar_summary_thresholds(tmp_path, capsys, table):
    # explicit thresholds must be computed ones: said before anything runs
    rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--alpha", "0.9", "--summary-alpha",
               "0.95", "--out", str(tmp_path / "n.csv")])
    err = capsys.readouterr().err.strip()
    assert rc == 1 and "--summary-alpha 0.95" in err and "--alpha 0.9" in err
    assert not (tmp_path / "n.csv").exists()
    # by default: the headline ones when computed, else the nearest computed
    rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--alpha", "0.8,0.9", "--delta", "0.1",
               "--estimators", "approx", "--rep", "10", "--out", str(tmp_path / "n.csv")])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    assert "n* at alpha* = 0.9, delta* = 0.1, the closed-form estimate" in cap.out
    assert "no-signal" not in cap.out  # the closed form has no baseline


def test_compare_end_to_end(tmp_path, capsys, table):
    out = tmp_path / "cmp"
    assert main(["compare", str(table / "t.csv"), *COMPARE, "--figures", "png,svg,html",
                 "--out", str(out)]) == 0
    names = {p.name for p in out.iterdir()}
    assert {"omnibus.csv", "posthoc.csv", "mean_ranks.csv", "cd_diagram.png",
            "cd_diagram.svg", "cd_diagram.html"} <= names
    assert "M4" in (out / "cd_diagram.svg").read_text()  # the models are named
    omni = pl.read_csv(out / "omnibus.csv")
    assert omni["test"].item() == "Friedman" and omni["n_blocks"].item() == 30
    assert omni["pvalue"].item() < 1e-6
    ranks = pl.read_csv(out / "mean_ranks.csv")
    assert ranks["alternative"].to_list() == ["M4", "M3", "M2", "M1", "M0"]  # best first
    post = pl.read_csv(out / "posthoc.csv")
    assert post.height == 10 and post["p_adjust"].unique().to_list() == ["holm"]
    assert (out / "cd_diagram.png").read_bytes()[:4] == b"\x89PNG"
    # the direction matters: lower-is-better reverses the ranking
    out2 = tmp_path / "cmp2"
    assert main(["compare", str(table / "t.csv"), *COMPARE[:-1], "--lower-is-better",
                 "--figures", "", "--posthoc", "nemenyi", "--out", str(out2)]) == 0
    ranks2 = pl.read_csv(out2 / "mean_ranks.csv")
    assert ranks2["alternative"].to_list() == ["M0", "M1", "M2", "M3", "M4"]
    assert pl.read_csv(out2 / "posthoc.csv")["test"][0].startswith("Nemenyi")
    capsys.readouterr()


def test_compare_with_missing_results_uses_skillings_mack(tmp_path, capsys, table):
    out = tmp_path / "cmp"
    assert main(["compare", str(table / "missing.csv"), *COMPARE, "--figures", "",
                 "--format", "parquet", "--missing", "available", "--out", str(out)]) == 0
    omni = pl.read_parquet(out / "omnibus.parquet")
    assert omni["test"].item() == "Skillings-Mack"
    assert omni["n_missing"].item() == 1
    # the mean ranks summarise the 30 blocks the test uses (issue 31: they used the 29
    # complete ones); the alternative with the missing result has 29
    ranks = pl.read_parquet(out / "mean_ranks.parquet")
    assert omni["n_blocks"].item() == 30
    assert dict(ranks.select("alternative", "n_blocks").iter_rows())["M2"] == 29
    assert "Skillings-Mack" in capsys.readouterr().out
    # the default (issue 37): the failed run is the worst of its block, as nstar
    assert main(["compare", str(table / "missing.csv"), *COMPARE, "--figures", "",
                 "--format", "parquet", "--out", str(tmp_path / "study")]) == 0
    omni = pl.read_parquet(tmp_path / "study" / "omnibus.parquet")
    assert omni["test"].item() == "Friedman" and omni["n_missing"].item() == 1
    failed = pl.read_parquet(tmp_path / "study" / "failed_results.parquet")
    assert failed.height == 1 and failed["alternative"].item() == "M2"
    assert capsys.readouterr().out.startswith("policy: failed or missing runs count as the worst")


def test_seeds_from_arrays_and_pool(tmp_path, capsys):
    rng = np.random.default_rng(1)
    T = 60
    labels = (rng.random(T) < 0.5).astype(np.int64)
    gaps = rng.normal(0, 2, size=(8, T)) + np.where(labels == 1, 1.5, -1.5)
    np.savez(tmp_path / "g.npz", gaps=gaps, labels=labels)
    out = tmp_path / "seeds.csv"
    assert main(["seeds", str(tmp_path / "g.npz"), "--B", "5", "--quiet", "--out",
                 str(out)]) == 0
    quiet = capsys.readouterr()
    assert quiet.out == "" and quiet.err == ""  # --quiet: nothing but errors
    rep = pl.read_csv(out)
    assert rep["model"].to_list() == [4, 5, 6, 7] and rep["B"].to_list() == [5] * 4
    acc = ((gaps[4:] > 0) == (labels == 1)).mean(axis=1)
    np.testing.assert_allclose(rep["accuracy"].to_numpy(), acc)
    assert rep["alpha_hat"].is_between(0, 0.5).all() and rep["ece"].is_between(0, 1).all()
    # the same numbers from reference / candidates arrays
    np.savez(tmp_path / "rc.npz", reference=gaps[:4], candidates=gaps[4:], labels=labels)
    assert main(["seeds", str(tmp_path / "rc.npz"), "--B", "5", "--quiet", "--out",
                 str(tmp_path / "rc.csv")]) == 0
    assert pl.read_csv(tmp_path / "rc.csv").equals(rep)
    # a pool shipped with the package, by name
    assert main(["seeds", "transfer_digits.npz", "--n-reference", "86", "--B", "2",
                 "--quiet", "--out", str(tmp_path / "pool.parquet")]) == 0
    assert pl.read_parquet(tmp_path / "pool.parquet")["model"].to_list() == [86, 87, 88, 89]
    capsys.readouterr()
    # without --quiet: the per-candidate summary, most representative first
    assert main(["seeds", str(tmp_path / "g.npz"), "--B", "5", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "4 candidates, most representative first" in text
    all_lines = text.splitlines()
    sep = next(i for i, ln in enumerate(all_lines) if set(ln) == {"-", " "})
    lines = all_lines[sep + 1:sep + 5]
    order = rep.with_row_index("i").sort(["alpha_hat", "i"])
    for line, r in zip(lines, order.iter_rows(named=True)):
        assert line.split()[0] == str(r["model"]) and f" {prob(r['accuracy'])} " in f"{line} ", line
    assert f"Full results (4 rows): {out}" in text


def test_seeds_input_errors(tmp_path, capsys):
    np.savez(tmp_path / "nolabels.npz", gaps=np.zeros((4, 5)))
    np.savez(tmp_path / "oned.npz", gaps=np.zeros(5), labels=np.zeros(5))
    np.savez(tmp_path / "short.npz", gaps=np.zeros((4, 5)), labels=np.zeros(3))
    (tmp_path / "trunc.npz").write_bytes((tmp_path / "nolabels.npz").read_bytes()[:40])
    np.save(tmp_path / "obj.npy", np.array([{"x": 1}], dtype=object), allow_pickle=True)
    (tmp_path / "obj.npy").rename(tmp_path / "obj.npz")
    np.savez(tmp_path / "probs.npz", gaps=np.full((4, 5), 0.7), labels=np.ones(5))
    cases = {"probs.npz": "look like probabilities", "nolabels.npz": "no 'labels'",
             "oned.npz": "2-d", "short.npz": "labels",
             "trunc.npz": "could not be read", "obj.npz": "single NumPy array (.npy)",
             "absent.npz": "not found"}
    for name, msg in cases.items():
        rc = main(["seeds", str(tmp_path / name), "--quiet", "--out", str(tmp_path / "o.csv")])
        err = capsys.readouterr().err.strip()
        assert rc == 1 and msg in err and "\n" not in err, (name, err)
    assert main(["seeds", str(tmp_path / "short.npz"), "--n-reference", "4", "--out",
                 str(tmp_path / "o.csv")]) == 1
    assert "--n-reference" in capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()


def test_ctrl_c_exits_130_with_one_line_and_no_output(tmp_path):
    out = tmp_path / "o.csv"
    # a shipped pool with a large bootstrap (about a minute of work, 1.4 GB: a larger B is
    # refused upfront for the memory it needs), interrupted after a second
    with subprocess.Popen(
        [sys.executable, "-m", "genexpy_nb", "seeds", "cnn_digits_both.npz", "--B", "20000",
         "--out", str(out)],
        cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        env=_env()) as proc:
        try:
            # the pool is described once the input is checked: the bootstrap runs now
            for line in proc.stderr:
                if "reference models" in line:
                    break
            time.sleep(1.0)
            proc.send_signal(signal.SIGINT)
            err = proc.stderr.read()
            rc = proc.wait(timeout=120)
        finally:
            proc.kill()
    assert rc == 130, err
    # (a first compile in this installation may add its note, on a busy machine before the
    # interruption: it is not an answer)
    lines = [ln for ln in err.replace("\r", "\n").splitlines()
             if ln.strip() and "alpha-hat" not in ln
             and not ln.startswith("genexpy_nb: preparing")]
    assert lines == ["genexpy-nb: interrupted (no output written)"], err
    assert list(tmp_path.iterdir()) == []


def test_unexpected_error_is_one_line_with_a_hint(tmp_path, capsys, monkeypatch, table):
    """A bug of ours: exit 3, one line saying so and how to see the traceback (--debug)."""
    import genexpy_nb.cli as cli
    import genexpy_nb.cli.seeds as seeds_command

    def boom(args):
        raise RuntimeError("kaboom\nsecond line")

    monkeypatch.setattr(seeds_command, "cmd_seeds", boom)
    monkeypatch.delenv("GENEXPY_NB_DEBUG", raising=False)
    argv = ["seeds", "x.npz", "--out", str(tmp_path / "s.csv")]
    assert cli.main(argv) == 3
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert "RuntimeError: kaboom second line" in err and "--debug" in err
    with pytest.raises(RuntimeError, match="kaboom"):
        cli.main([*argv, "--debug"])
    with pytest.raises(RuntimeError, match="kaboom"):
        cli.main(["--debug", *argv])
    monkeypatch.setenv("GENEXPY_NB_DEBUG", "1")
    with pytest.raises(RuntimeError, match="kaboom"):
        cli.main(argv)


def test_the_old_paths_of_the_command_line_are_gone():
    """0.2's modules (cli_checks, cli_conclusions, cli_report) and cli.cmd_* left in 0.4."""
    import importlib

    import genexpy_nb.cli as cli

    for name in ("cmd_demo", "cmd_precompile", "cmd_nstar", "cmd_seeds", "cmd_compare"):
        assert not hasattr(cli, name)
    for old in ("genexpy_nb.cli_checks", "genexpy_nb.cli_conclusions", "genexpy_nb.cli_report"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)
