"""``genexpy-nb nstar`` leads with the study's conclusions: what it prints is what it writes
(conclusions table beside --out), then the paper's n* under the question it answers."""

import contextlib
import io
import re

import numpy as np
import polars as pl
import pytest

from genexpy_nb.cli import main

NSTAR = ["--alternatives", "method", "--target", "score", "--higher-is-better",
         "--generalize", "dataset", "--design", "metric", "--average-over", "seed",
         "--estimators", "approx", "--kernel", "jaccard:k=1"]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """5 methods x 30 datasets x 2 metrics x 2 seeds; M4 clearly best, M1 = M2 in law."""
    rng = np.random.default_rng(3)
    means = {0: 0.0, 1: 0.5, 2: 0.5, 3: 1.0, 4: 2.5}
    rows = [dict(dataset=f"d{d:02d}", method=f"M{m}", metric=metric, seed=s,
                 score=float(means[m] + rng.normal(0, 0.5)))
            for d in range(30) for m in range(5) for metric in ("acc", "f1") for s in range(2)]
    folder = tmp_path_factory.mktemp("cli_conclusions")
    pl.DataFrame(rows).write_csv(folder / "t.csv")
    return folder


def printed_best(text: str) -> dict[str, tuple[str, str]]:
    """Per configuration title: (the printed best, its printed verdict word)."""
    out, title = {}, None
    for ln in text.splitlines():
        if ln.startswith("metric = "):
            title = ln.split(" (")[0]
        m = re.match(r"  Best: (.+?) — (holds|unsure|tied|needs \d+ more)", ln)
        if m and title:
            out[title] = (m.group(1), m.group(2))
    return out


def check_printed_best(text: str, frame: pl.DataFrame) -> None:
    """Every configuration's printed best and verdict are the written frame's."""
    best = frame.filter(pl.col("kind") == "best")
    printed = printed_best(text)
    assert len(printed) == best.height, printed
    for r in best.iter_rows(named=True):
        name, word = printed[f"metric = {r['metric']}"]
        want = r["members"][0] if len(r["members"]) == 1 else \
            f"co-best {{{', '.join(r['members'])}}}"
        assert (name, word) == (want, r["verdict"]), (r["metric"], name, word, r["verdict"])


@pytest.fixture(scope="module")
def run(table, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "n.csv"
    buf, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--out", str(out)])
    assert rc == 0, err.getvalue()
    return out, buf.getvalue()


def test_nstar_leads_with_the_conclusions_it_writes(run):
    out, text = run
    path = out.with_name("conclusions.csv")
    frame = pl.read_csv(path).with_columns(
        pl.col("members").str.json_decode(pl.List(pl.String)))
    assert set(frame["kind"]) == {"best", "top_k", "pair", "order"}
    check_printed_best(text, frame)
    assert text.index("Do the study's conclusions hold?") < text.index(
        "How consistent are the per-dataset rankings? (the paper's n*, Sec. 4)") < text.index(
        "research question: Jaccard(k=1)")
    assert "Best: M4 — holds" in text  # M4 is far ahead in the generating model
    assert f"All conclusions ({frame.height} rows): {path}" in text
    # the pair counts printed are the frame's
    for metric in ("acc", "f1"):
        part = frame.filter(pl.col("metric") == metric, pl.col("kind") == "pair")
        block = text.split(f"metric = {metric} (")[1]
        line = next(ln for ln in block.splitlines() if "Pairs (" in ln)
        assert f"Pairs ({part.height}, judged as a family, Holm): " \
               f"{int((part['verdict'] == 'holds').sum())} settled" in line


def test_the_check_fails_on_a_contradiction(run):
    out, text = run
    frame = pl.read_csv(out.with_name("conclusions.csv")).with_columns(
        pl.col("members").str.json_decode(pl.List(pl.String)))
    wrong = frame.with_columns(pl.when(pl.col("kind") == "best").then(pl.lit("unsure"))
                               .otherwise(pl.col("verdict")).alias("verdict"))
    with pytest.raises(AssertionError):
        check_printed_best(text, wrong)
    with pytest.raises(AssertionError):
        check_printed_best(text.replace("Best: M4", "Best: M3"), frame)


def test_options_and_refusals(table, tmp_path, capsys):
    out = tmp_path / "n.parquet"
    rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--out", str(out), "--no-conclusions"])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    assert "Do the study's conclusions" not in cap.out
    assert not (tmp_path / "conclusions.parquet").exists()
    rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--out", str(out), "--top-k", "2",
               "--budget", "40", "--conclusions-out", str(tmp_path / "c.parquet")])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    frame = pl.read_parquet(tmp_path / "c.parquet")
    assert frame.filter(pl.col("kind") == "top_k")["k"].to_list() == [2, 2]
    assert "  Top 2 {" in cap.out
    # refused before anything runs, in one line naming the flag
    for bad in (["--conclusions-out", str(tmp_path / "x.csv")], ["--margin", "-1"],
                ["--top-k", "0"]):
        rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--out", str(tmp_path / "x.csv"),
                   *bad])
        err = capsys.readouterr().err.strip()
        assert rc in (1, 2) and bad[0] in err and "Traceback" not in err, (bad, err)
    assert not (tmp_path / "x.csv").exists()
    rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--out", str(tmp_path / "r" / "n.csv"),
               "--figures", str(tmp_path / "fig"), "--conclusions-out",
               str(tmp_path / "fig" / "c.csv")])
    err = capsys.readouterr().err.strip()
    assert rc == 1 and "--figures" in err and "\n" not in err


def test_quiet_writes_but_prints_nothing(table, tmp_path, capsys):
    rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--quiet", "--out",
               str(tmp_path / "n.csv")])
    cap = capsys.readouterr()
    assert rc == 0 and cap.out == "" and cap.err == ""
    assert (tmp_path / "conclusions.csv").exists()


def test_sequential_and_assurance_flags_say_which_rule(table, tmp_path, capsys):
    """--sequential: anytime-valid verdicts, said in the table and the text; the fixed run
    tells a user who looks again to use it; nstar and report give the same verdicts and k."""
    out = tmp_path / "n.csv"
    rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--out", str(out), "--sequential",
               "--assurance", "0.7"])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    frame = pl.read_csv(out.with_name("conclusions.csv"))
    assert set(frame["mode"]) == {"sequential"} and set(frame["assurance"]) == {0.7}
    assert "Sequential mode" in cap.out and "use the sequential mode" not in cap.out
    fixed = tmp_path / "f.csv"
    assert main(["nstar", str(table / "t.csv"), *NSTAR, "--out", str(fixed)]) == 0
    text = capsys.readouterr().out
    assert "Fixed-N verdicts" in text and "--sequential" in text
    # report on the same table and seed: the same verdicts and k, in the same words
    page = tmp_path / "page"
    report_args = [a for a in NSTAR if a not in ("--estimators", "approx", "--kernel",
                                                  "jaccard:k=1")]
    rc = main(["report", str(table / "t.csv"), *report_args, "--kernel", "jaccard:k=1",
               "--rep", "10", "--out", str(page)])
    rep_text = capsys.readouterr().out
    assert rc == 0
    a = pl.read_csv(fixed.with_name("conclusions.csv")).select("metric", "kind",
                                                                "alternatives", "verdict",
                                                                "more")
    b = pl.read_csv(page / "conclusions.csv").select("metric", "kind", "alternatives",
                                                     "verdict", "more")
    assert a.sort(a.columns).equals(b.sort(b.columns))
    for line in (ln for ln in text.splitlines() if ln.lstrip().startswith("Pairs (")):
        assert line in rep_text
    for bad in (["--assurance", "1.5"], ["--assurance", "x"]):
        rc = main(["nstar", str(table / "t.csv"), *NSTAR, "--out", str(tmp_path / "y.csv"),
                   *bad])
        err = capsys.readouterr().err.strip()
        assert rc in (1, 2) and "--assurance" in err and "Traceback" not in err
