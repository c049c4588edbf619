"""``--missing``: one option, one default, one help text in ``compare``, ``nstar`` and ``report``.

A table of 7 regressors x 12 datasets where SVR failed on 2 datasets (blank target):
``study`` ranks a failed run last everywhere, ``drop-block`` leaves those datasets out
everywhere, ``available`` is refused by ``nstar`` (n* needs complete rankings) and used by
``report`` for the classical tests only; each output says which at its top.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import genexpy_nb as gx
from genexpy_nb.cli import build_parser, main

MODELS = ["Ridge", "Lasso", "RandomForest", "XGBoost", "KNN", "SVR", "MLP"]
FAILED = (2, 9)  # 2 of 12: within the 20 % tolerance, so SVR is kept


def _table() -> pl.DataFrame:
    rng = np.random.default_rng(3)
    rows = []
    for i in range(12):
        scale = 10.0 ** rng.uniform(-1, 4)
        for j, m in enumerate(MODELS):
            v = None if (m == "SVR" and i in FAILED) else float(
                scale * (1 + 0.1 * j + 0.3 * rng.random()))
            rows.append((f"ds{i:02d}", m, v))
    return pl.DataFrame(rows, schema=["dataset", "model", "rmse"], orient="row")


ROLES = ["--alternatives", "model", "--target", "rmse", "--generalize", "dataset",
         "--lower-is-better", "--invalid-target", "drop"]


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "rmse.csv"
    _table().write_csv(path)
    return path


def _option(command: str):
    sub = next(a for a in build_parser()._actions if hasattr(a, "choices")
               and isinstance(a.choices, dict))
    return next(a for a in sub.choices[command]._actions if "--missing" in a.option_strings)


def test_one_option_one_default_everywhere():
    opts = {c: _option(c) for c in ("compare", "nstar", "report")}
    assert {tuple(o.choices) for o in opts.values()} == {("study", "drop-block", "available")}
    assert {o.default for o in opts.values()} == {"study"}
    # the same help, in each command's word for a row of the rankings
    assert opts["nstar"].help == opts["report"].help
    assert opts["compare"].help == opts["nstar"].help.replace("condition", "block")


def test_nstar_refuses_available_naming_the_option_and_the_fix(table, tmp_path, capsys):
    rc = main(["nstar", str(table), *ROLES, "--missing", "available", "--rep", "20",
               "--out", str(tmp_path / "n.parquet")])
    err = capsys.readouterr().err
    assert rc != 0
    assert "--missing available" in err and "--missing study" in err
    assert "--missing drop-block" in err
    assert not (tmp_path / "n.parquet").exists()


@pytest.mark.parametrize("missing, n_conditions", [("study", 12), ("drop-block", 10)])
def test_nstar_says_its_policy_first_and_applies_it(table, tmp_path, capsys, missing,
                                                    n_conditions):
    out = tmp_path / "n.parquet"
    rc = main(["nstar", str(table), *ROLES, "--missing", missing, "--rep", "20",
               "--estimators", "resample", "--out", str(out)])
    assert rc == 0
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first.startswith("missing results:") and f"--missing {missing}" in first
    concl = pl.read_parquet(tmp_path / "conclusions.parquet")
    assert set(concl["N"].to_list()) == {n_conditions}


@pytest.mark.parametrize("missing", ["study", "drop-block", "available"])
def test_report_states_and_applies_the_policy(table, tmp_path, capsys, missing):
    out = tmp_path / "rep"
    rc = main(["report", str(table), *ROLES, "--missing", missing, "--rep", "20",
               "--out", str(out)])
    assert rc == 0
    assert capsys.readouterr().err.splitlines()[0].startswith("Missing results:")
    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    # stated at the top: the line right under the title
    assert md.split("\n\n")[1].startswith("**Missing results:")
    # in the words of the command that wrote the page (a flag it has: issue 48)
    assert f"(--missing {missing})" in md.split("\n\n")[1]
    assert html.index("class=\"policy\"") < html.index("<section")
    failed = pl.read_csv(out / "failed_runs.csv")
    assert sorted(failed["condition"].to_list()) == [f"ds{i:02d}" for i in FAILED]
    assert set(failed["alternative"]) == {"SVR"}
    n_ranked = pl.read_csv(out / "classical" / "config_0" / "mean_ranks.csv")
    assert n_ranked.height == len(MODELS)
    concl = pl.read_csv(out / "conclusions.csv")
    assert set(concl["N"].to_list()) == {10 if missing == "drop-block" else 12}
    if missing == "drop-block":
        assert set(failed["status"]) == {"condition left out (missing = drop-block)"}
    else:
        assert set(failed["status"]) == {"imputed as the worst tier"}


def test_gx_report_missing_matches_the_classical_tests():
    df = _table()
    kw = dict(alternatives="model", target="rmse", generalize="dataset",
              higher_is_better=False, invalid_target="drop", rep=20, progress=False)
    study = gx.report(df, **kw)
    avail = gx.report(df, missing="available", **kw)
    assert study.missing == "study" and study.comparisons[0].missing == "study"
    assert avail.comparisons[0].missing == "available"
    # the conclusions keep the worst tier under "available" (complete rankings), said so
    assert avail.conclusions.equals(study.conclusions)
    assert "worst tier" in avail.policy
    with pytest.raises(gx.GenexpyInputError, match="missing"):
        gx.report(df, missing="drop", **kw)
