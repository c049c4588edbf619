"""compare's policies (issue 37): ties within the Study's tolerance, held-constant levels,
failed runs as an explicit choice (the Study's worst tier by default), per-block scales."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from genexpy_nb import GenexpyInputError, Study
from genexpy_nb import significance as sig
from genexpy_nb.cli import main
from genexpy_nb.significance import compare


def _rounded(n=30, k=5, seed=0):
    """Scores on a grid of 0.01 (many exact ties), as a wide matrix."""
    rng = np.random.default_rng(seed)
    x = np.round(0.7 + 0.02 * np.arange(k) + rng.normal(0, 0.03, (n, k)), 2)
    return x


def _long(x, names=None, blocks=None):
    n, k = x.shape
    names = names or [f"m{j}" for j in range(k)]
    blocks = blocks or [f"d{i:03d}" for i in range(n)]
    rows = [(blocks[i], names[j], float(x[i, j])) for i in range(n) for j in range(k)
            if not np.isnan(x[i, j])]
    return pl.DataFrame(rows, schema=["dataset", "model", "acc"], orient="row",
                        strict=False)


def _cmp(df, **kw):
    kw.setdefault("higher_is_better", True)
    return compare(df, alternatives="model", target="acc", blocks="dataset", **kw)


# ---- ties ------------------------------------------------------------------------------


def test_float_noise_is_a_tie_as_in_the_study():
    x = _rounded()
    rng = np.random.default_rng(1)
    noisy = x + rng.choice([-1e-13, 0.0, 1e-13], size=x.shape)  # e.g. another summing order
    assert (noisy != x).any()
    exact_ties = sum(len(r) - len(set(r)) for r in x.tolist())
    assert exact_ties > 5  # the grid has ties for the noise to break
    a, b = _cmp(_long(x)), _cmp(_long(noisy))
    assert a.omnibus.statistic == b.omnibus.statistic
    assert a.omnibus.pvalue == b.omnibus.pvalue
    assert a.mean_ranks.equals(b.mean_ranks) and a.posthoc.equals(b.posthoc)
    # the rounded scores: the public test on the raw scores, bit for bit
    fr = sig.friedman(x, higher_is_better=True)
    assert a.omnibus.statistic == fr.statistic
    # exact equality (tie_rtol = tie_atol = 0) lets the noise break the ties
    c = _cmp(_long(noisy), tie_rtol=0.0, tie_atol=0.0)
    assert c.omnibus.statistic == sig.friedman(noisy, higher_is_better=True, tie_rtol=0.0,
                                               tie_atol=0.0).statistic
    assert c.omnibus.statistic != a.omnibus.statistic
    # a direct call ranks with the Study's tolerance too: the noise is a tie there as well
    assert sig.friedman(noisy, higher_is_better=True).statistic == a.omnibus.statistic
    # said in every output
    assert "tied in every rank test" in a.summary().splitlines()[0]
    assert "tied in every rank test" in a.to_markdown()


def test_near_ties_with_missing_results_rank_among_the_available_as_the_rounded():
    x = _rounded(seed=3)
    x[[1, 4, 7], [0, 2, 3]] = np.nan
    noisy = x + 1e-13 * (np.arange(x.size).reshape(x.shape) % 3 - 1)
    kw = dict(missing="available", tol_missing_alternatives=1.0,
              tol_missing_conditions=1.0)
    a, b = _cmp(_long(x), **kw), _cmp(_long(noisy), **kw)
    assert a.omnibus.test == "Skillings-Mack"
    assert a.omnibus.statistic == b.omnibus.statistic
    assert a.omnibus.statistic == sig.skillings_mack(x, higher_is_better=True).statistic


def test_ranks_are_the_studys_tiers():
    x = _rounded(seed=4)
    x[2, 1] = np.nan
    df = _long(x)
    res = _cmp(df, tol_missing_alternatives=1.0, tol_missing_conditions=1.0)
    s = next(Study(df, alternatives="model", target="acc", generalize="dataset",
                   higher_is_better=True, tol_missing_alternatives=1.0,
                   tol_missing_conditions=1.0).samples())
    # default policy: the Study's rankings (a missing result is the worst tier), Friedman
    fr = sig.friedman(s.rankings.astype(float), higher_is_better=False)
    assert res.omnibus.test == "Friedman"
    assert (res.omnibus.statistic, res.omnibus.pvalue) == (fr.statistic, fr.pvalue)


def test_rank_tests_do_not_depend_on_each_blocks_scale():
    x = _rounded(seed=5)
    scaled = x * np.logspace(-1, 4, x.shape[0])[:, None]
    a, b = _cmp(_long(x)), _cmp(_long(scaled))
    assert a.omnibus.statistic == b.omnibus.statistic
    assert a.mean_ranks.equals(b.mean_ranks)


# ---- held constant -----------------------------------------------------------------------


def _metrics():
    x = _rounded(seed=6)
    acc = _long(x).with_columns(pl.lit("accuracy").alias("metric"))
    f1 = _long(x[:, ::-1].copy()).with_columns(pl.lit("f1").alias("metric"))
    return pl.concat([acc, f1]), x


def test_held_constant_keeps_one_level():
    df, x = _metrics()
    with pytest.raises(GenexpyInputError, match="several results per cell"):
        _cmp(df)
    res = _cmp(df, held_constant={"metric": "accuracy"})
    ref = _cmp(df.filter(pl.col("metric") == "accuracy"))
    assert res.omnibus.statistic == ref.omnibus.statistic
    assert res.mean_ranks.equals(ref.mean_ranks)
    assert res.held_constant == {"metric": "accuracy"}
    assert "held constant: metric = accuracy" in res.summary().splitlines()[0]
    with pytest.raises(GenexpyInputError, match="level 'auc' not found"):
        _cmp(df, held_constant={"metric": "auc"})


def test_cli_held_constant(tmp_path, capsys):
    df, _ = _metrics()
    df.write_csv(tmp_path / "m.csv")
    argv = ["compare", str(tmp_path / "m.csv"), "--alternatives", "model", "--target", "acc",
            "--blocks", "dataset", "--higher-is-better", "--figures", ""]
    assert main([*argv, "--held-constant", "metric=f1", "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("policy: ") and "metric = f1" in out
    assert main([*argv, "--held-constant", "metric=auc", "--out", str(tmp_path / "p")]) == 1
    assert "--held-constant" in capsys.readouterr().err


# ---- failed runs -------------------------------------------------------------------------


def _failing():
    """m4 is the best where it ran and failed on 4 of 30 blocks."""
    x = _rounded(n=30, seed=7)
    x[:, 4] += 0.05
    x[[3, 9, 15, 21], 4] = np.nan
    return _long(x)


def test_failed_runs_lose_by_default_as_in_nstar():
    df = _failing()
    study = _cmp(df)
    avail = _cmp(df, missing="available")
    drop = _cmp(df, missing="drop-block")
    assert study.missing == "study" and study.omnibus.test == "Friedman"
    assert avail.omnibus.test == "Skillings-Mack" and drop.n_blocks == 26
    assert study.n_blocks == avail.n_blocks == 30 and study.n_missing == 4
    mr = {r.missing: dict(r.mean_ranks.select("alternative", "mean_rank").iter_rows())
          for r in (study, avail, drop)}
    assert mr["study"]["m4"] > mr["available"]["m4"]  # a failure counts as a loss
    # the failed pairs by name, with what was done
    for res, how in ((study, "counted as the worst tier of its block"),
                     (avail, "ranked among the available alternatives of its block"),
                     (drop, "its block left out of the tests")):
        assert res.failed.rows() == [(b, "m4", how) for b in ("d003", "d009", "d015",
                                                                  "d021")]
        assert res.tables()["failed_results"].height == 4
    line = study.summary().splitlines()[0]
    assert line.startswith("policy: failed or missing runs count as the worst tier")
    assert 'missing="study"' in line
    assert "runs count as the worst tier" in study.to_markdown().split("## Data")[0]
    assert "Policy: failed or missing runs drop their dataset" in drop.to_markdown()
    with pytest.raises(GenexpyInputError, match="missing"):
        _cmp(df, missing="worst")


def test_failed_runs_cli(tmp_path, capsys):
    _failing().write_csv(tmp_path / "f.csv")
    argv = ["compare", str(tmp_path / "f.csv"), "--alternatives", "model", "--target", "acc",
            "--blocks", "dataset", "--higher-is-better", "--figures", ""]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("policy: failed or missing runs count as the worst")
    assert "--missing study" in out.splitlines()[0]
    failed = pl.read_csv(tmp_path / "a" / "failed_results.csv")
    assert failed.columns == ["block", "alternative", "handled"] and failed.height == 4
    assert main([*argv, "--missing", "available", "--out", str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert "Skillings-Mack" in out.splitlines()[1]


# ---- scales ------------------------------------------------------------------------------


def _mixed_scales():
    """RMSE-like errors from 0.1 to 10^4: block b's scores are about 10^(b % 6 - 1)."""
    rng = np.random.default_rng(8)
    n, k = 30, 5
    scale = 10.0 ** (np.arange(n) % 6 - 1)
    x = scale[:, None] * (1 + 0.1 * np.arange(k) + rng.normal(0, 0.05, (n, k)))
    return _long(x), x


def test_mixed_scales_normalise_the_aggregates_and_say_so():
    df, x = _mixed_scales()
    res = _cmp(df, higher_is_better=False)
    assert res.normalize == "minmax" and "more than 100" in res.normalize_reason
    u = res.scores_used
    lo, hi = x.min(axis=1, keepdims=True), x.max(axis=1, keepdims=True)
    np.testing.assert_allclose(u, (x - lo) / (hi - lo), rtol=0, atol=1e-15)
    assert np.array_equal(res.values, x)  # the raw scores are kept
    line = res.summary().splitlines()[0]
    assert "min-max normalised per dataset" in line and "scale-free" not in line
    assert "unchanged by any rescaling of one dataset's scores" in line
    raw = _cmp(df, higher_is_better=False, normalize="none")
    assert raw.normalize == "none" and raw.scores_used is raw.values
    assert "raw scores" in raw.summary().splitlines()[0] and "as asked" in raw.normalize_reason
    # the rank tests do not change with the choice
    assert raw.omnibus.statistic == res.omnibus.statistic
    from genexpy_nb.answers.beyond_sections import aggregates_section, bayesian_section

    agg = aggregates_section(res, reps=200).tables["aggregates"]
    assert agg["estimate"].max() <= 1.0
    assert "min-max normalised" in res.with_section(aggregates_section(
        res, reps=200)).to_markdown()
    bay = res.with_section(bayesian_section(res, rope=0.01, nsamples=500)).to_markdown()
    assert "±0.01 on scores min-max normalised per dataset" in bay


def test_one_scale_stays_raw_and_all_equal_blocks_are_the_middle():
    x = _rounded(seed=9)
    res = _cmp(_long(x))
    assert res.normalize == "none" and res.scores_used is res.values
    assert "at most 100" in res.normalize_reason
    x[0] = 0.8
    res = _cmp(_long(x), normalize="minmax")
    assert (res.scores_used[res.blocks.index("d000")] == 0.5).all()
    assert np.nanmin(res.scores_used) == 0.0 and np.nanmax(res.scores_used) == 1.0
    with pytest.raises(GenexpyInputError, match="normalize"):
        _cmp(_long(x), normalize="zscore")


def test_cli_normalize(tmp_path, capsys):
    df, _ = _mixed_scales()
    df.write_csv(tmp_path / "s.csv")
    argv = ["compare", str(tmp_path / "s.csv"), "--alternatives", "model", "--target", "acc",
            "--blocks", "dataset", "--lower-is-better", "--figures", "", "--aggregates"]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "min-max normalised per dataset" in first and "--normalize none" in first
    assert main([*argv, "--normalize", "none", "--out", str(tmp_path / "b")]) == 0
    assert "raw scores: as asked (--normalize none)" in capsys.readouterr().out


def test_printed_lines_of_the_rope_and_the_aggregates_say_which_scores():
    from genexpy_nb.answers.beyond_sections import (
        aggregates_section,
        bayesian_section,
        summary_lines,
    )

    df, _ = _mixed_scales()
    for normalize, words in (("auto", "min-max normalised per dataset"),
                             ("none", "raw scores, in the target's units")):
        res = _cmp(df, higher_is_better=False, normalize=normalize)
        more = res.with_section(bayesian_section(res, rope=0.01, nsamples=500)).with_section(
            aggregates_section(res, reps=200))
        lines = summary_lines(more)
        assert len(lines) == 2 and all(words in ln for ln in lines), lines


def test_aggregates_say_why_they_use_fewer_blocks_than_the_rank_tests():
    from genexpy_nb.answers.beyond_sections import aggregates_section, summary_lines

    res = _cmp(_failing())
    more = res.with_section(aggregates_section(res, reps=200))
    md = more.to_markdown()
    assert "Aggregates over the 26 complete datasets" in md
    assert "the rank tests count them as losses over all 30 datasets" in md
    assert "over the 26 of 30 complete datasets" in summary_lines(more)[0]


def test_the_best_is_ranked_over_every_block_unless_ranked_among_the_available():
    df = _failing()
    assert "datasets where it has a result" not in _cmp(df).summary()
    assert "datasets where it has a result" in _cmp(df, missing="available").summary()
