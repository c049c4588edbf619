"""The comparison workflow (genexpy_nb.significance.compare) and its report.

Oracles: the package's own tests on complete blocks (bit for bit), scikit-posthocs
(Siegel-Castellan z, Conover against a control), statsmodels (corrections over k - 1),
scipy (rankdata, distribution tails), the Study (its missing-results policy), naive twins
written here (ranks among the available alternatives, Skillings-Mack's pairwise z from
permutations), and the TabZilla-like shape of failed runs.
"""

from __future__ import annotations

import inspect
import itertools
import json
import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import scikit_posthocs as sp
from scipy import stats
from statsmodels.stats.multitest import multipletests

from genexpy_nb import GenexpyInputError, Study
from genexpy_nb import significance as sig
from genexpy_nb._words import command_line_words
from genexpy_nb.answers.document import Data, Paragraph, ReportSection, Table
from genexpy_nb.significance import compare
from genexpy_nb.significance._pvalues import chi2_sf, f_sf, norm_sf, t_sf
from genexpy_nb.significance._ranks import rank_rows

ROOT = Path(__file__).resolve().parents[2]
NAMES = [f"m{j}" for j in range(6)]


def _table(n=40, k=6, seed=0, shift=0.02, noise=0.03, missing=0.0, names=None):
    """Long table dataset/model/acc; model j is better by j * shift on average."""
    rng = np.random.default_rng(seed)
    names = names or [f"m{j}" for j in range(k)]
    acc = 0.7 + rng.normal(0, 0.05, (n, 1)) + shift * np.arange(k) + rng.normal(0, noise,
                                                                                 (n, k))
    keep = rng.random((n, k)) >= missing
    rows = [(f"d{i:03d}", names[j], float(acc[i, j])) for i in range(n) for j in range(k)
            if keep[i, j]]
    return pl.DataFrame(rows, schema=["dataset", "model", "acc"], orient="row")


def _wide(df, names=None):
    w = df.pivot(on="model", index="dataset", values="acc").sort("dataset")
    names = names or sorted(c for c in w.columns if c != "dataset")
    return w.select(names).to_numpy().astype(float), names


def _cmp(df, **kw):
    kw.setdefault("higher_is_better", True)
    return compare(df, alternatives="model", target="acc", blocks="dataset", **kw)


# ---- complete blocks: the package's tests, bit for bit ------------------------------------


def test_complete_blocks_are_friedman_and_conover_bit_for_bit():
    df = _table(seed=1)
    res = _cmp(df)
    x, names = _wide(df)
    fr = sig.friedman(x, higher_is_better=True, order=names)
    assert res.omnibus.test == "Friedman" and res.posthoc_test == "conover"
    assert (res.omnibus.statistic, res.omnibus.pvalue) == (fr.statistic, fr.pvalue)
    post = sig.posthoc_conover(x, p_adjust="holm", higher_is_better=True, order=names)
    assert res.posthoc.equals(post)
    cd = sig.critical_difference(x, higher_is_better=True, order=names)
    got = res.mean_ranks.select("alternative", "mean_rank")
    assert got.equals(cd.select("alternative", "mean_rank"))
    assert res.mean_ranks["mean_rank"].to_numpy().tobytes() == np.sort(
        np.asarray(fr.mean_ranks)).tobytes()
    assert res.cliques.equals(sig.cliques(cd, pairwise=post))
    assert res.n_blocks == 40 == res.omnibus.n and res.k == 6 and res.n_missing == 0
    assert (res.mean_ranks["n_blocks"] == 40).all()
    assert res.best == ("m5",) and res.cd is None


def test_nemenyi_bars_and_table_come_from_the_same_critical_difference():
    df = _table(seed=2)
    res = _cmp(df, posthoc="nemenyi", p_adjust="bonferroni")
    x, names = _wide(df)
    assert res.posthoc.equals(sig.posthoc_nemenyi(x, higher_is_better=True,
                                                  order=names))
    assert res.cd == sig.nemenyi_cd(6, 40, 0.05)
    assert (res.mean_ranks["cd"] == res.cd).all()
    assert res.mean_ranks["test"][0] == "Nemenyi (Friedman), no correction"
    assert res.p_adjust_used is None
    cd = sig.critical_difference(x, higher_is_better=True, order=names)
    assert res.cliques.equals(sig.cliques(cd))
    # Nemenyi's significance is |difference of mean ranks| > CD
    mr = dict(res.mean_ranks.select("alternative", "mean_rank").iter_rows())
    for a, b, s in res.posthoc.select("alternative_1", "alternative_2",
                                      "significant").iter_rows():
        assert s == (abs(mr[a] - mr[b]) > res.cd)


def test_siegel_equals_scikit_posthocs():
    df = _table(seed=3, shift=0.01)
    x, names = _wide(df)
    for p_adjust in (None, "holm", "bonferroni"):
        res = _cmp(df, posthoc="siegel", p_adjust=p_adjust)
        ref = sp.posthoc_siegel_friedman(-x, p_adjust=p_adjust).to_numpy()
        i, j = np.triu_indices(6, 1)
        np.testing.assert_allclose(res.posthoc["pvalue"].to_numpy(), ref[i, j], rtol=1e-12)
        raw = sp.posthoc_siegel_friedman(-x).to_numpy()[i, j]
        np.testing.assert_allclose(res.posthoc["pvalue_raw"].to_numpy(), raw, rtol=1e-12)


def test_control_equals_scikit_posthocs_with_k_minus_1_family():
    df = _table(seed=4, shift=0.01)
    x, names = _wide(df)
    i_c = names.index("m2")
    for posthoc, oracle in (("conover", sp.posthoc_conover_friedman),
                            ("siegel", sp.posthoc_siegel_friedman)):
        for p_adjust in ("holm", "bonferroni", "fdr_bh"):
            res = _cmp(df, posthoc=posthoc, p_adjust=p_adjust, control="m2")
            raw = oracle(-x).to_numpy()[i_c]
            others = [j for j in range(6) if j != i_c]
            want = multipletests(raw[others], method=p_adjust)[1]
            assert res.posthoc.height == 5 == res.family_size
            assert res.posthoc["alternative_1"].unique().to_list() == ["m2"]
            assert res.posthoc["alternative_2"].to_list() == [names[j] for j in others]
            np.testing.assert_allclose(res.posthoc["pvalue_raw"].to_numpy(), raw[others],
                                       rtol=1e-10)
            np.testing.assert_allclose(res.posthoc["pvalue"].to_numpy(), want, rtol=1e-10)
            # fewer tests corrected together than for all pairs: smaller adjusted p-values
            allp = _cmp(df, posthoc=posthoc, p_adjust="bonferroni")
            mine = allp.posthoc.filter((pl.col("alternative_1") == "m2")
                                       | (pl.col("alternative_2") == "m2"))
            if p_adjust == "bonferroni":
                np.testing.assert_allclose(mine["pvalue"].to_numpy(),
                                           np.minimum(res.posthoc["pvalue"].to_numpy() * 3, 1))
    res = _cmp(df, control="m2")
    mr = res.mean_ranks
    assert "pvalue_vs_control" in mr.columns and "group" not in mr.columns
    assert set(res.indistinguishable) == set(
        res.posthoc.filter(~pl.col("significant"))["alternative_2"])
    with pytest.raises(GenexpyInputError, match='posthoc="siegel"'):
        _cmp(df, control="m2", posthoc="nemenyi")
    with pytest.raises(GenexpyInputError, match="not among the compared"):
        _cmp(df, control="zz")


# ---- missing results: ranks among the available alternatives -----------------------------


def _naive_available_mean_ranks(x, hib=True, method="average"):
    n, k = x.shape
    tot, cnt = np.zeros(k), np.zeros(k)
    for row in x:
        obs = np.flatnonzero(~np.isnan(row))
        s = obs.size
        r = stats.rankdata(-row[obs] if hib else row[obs], method=method)
        for j, rj in zip(obs, r):
            tot[j] += 1 + (rj - 1) * (k - 1) / (s - 1)
            cnt[j] += 1
    return tot / cnt, cnt


def _naive_pair_z(x, hib=True):
    """z of every pair: difference of mean ranks among the available alternatives over
    its null standard deviation, term by term."""
    n, k = x.shape
    mr, cnt = _naive_available_mean_ranks(x, hib)
    z = {}
    for j, m in itertools.combinations(range(k), 2):
        var = 0.0
        for row in x:
            obs = ~np.isnan(row)
            s = obs.sum()
            c = (k - 1) / (s - 1)
            wj = obs[j] / cnt[j]
            wm = obs[m] / cnt[m]
            var += (wj ** 2 + wm ** 2) * c * c * (s * s - 1) / 12
            var -= 2 * wj * wm * (-c * c * (s + 1) / 12)
        z[j, m] = abs(mr[j] - mr[m]) / math.sqrt(var)
    return z


def test_missing_results_use_every_block_consistently():
    df = _table(n=60, seed=5, missing=0.08)
    res = _cmp(df, tol_missing_alternatives=1.0, tol_missing_conditions=1.0,
               missing="available")
    x, names = _wide(df)
    assert res.omnibus.test == "Skillings-Mack" and res.posthoc_test == "siegel"
    sm = sig.skillings_mack(x, higher_is_better=True, order=names)
    assert (res.omnibus.statistic, res.omnibus.pvalue) == (sm.statistic, sm.pvalue)
    # the same blocks everywhere
    assert res.n_blocks == 60 == res.omnibus.n and res.n_missing == int(np.isnan(x).sum())
    mr, cnt = _naive_available_mean_ranks(x)
    got = dict(res.mean_ranks.select("alternative", "mean_rank").iter_rows())
    np.testing.assert_allclose([got[a] for a in names], mr, rtol=1e-12)
    nb = dict(res.mean_ranks.select("alternative", "n_blocks").iter_rows())
    assert [nb[a] for a in names] == cnt.astype(int).tolist()
    z = _naive_pair_z(x)
    i, j = np.triu_indices(6, 1)
    np.testing.assert_allclose(res.posthoc["statistic"].to_numpy(),
                               [z[a, b] for a, b in zip(i, j)], rtol=1e-10)
    both = (~np.isnan(x)).astype(int)
    assert res.posthoc["n"].to_list() == [(both[:, a] * both[:, b]).sum() for a, b in zip(i, j)]
    with pytest.raises(GenexpyInputError, match="Conover's test needs complete blocks"):
        _cmp(df, tol_missing_alternatives=1.0, posthoc="conover", missing="available")


def test_pairwise_forms_for_missing_results_reduce_to_the_complete_tests():
    """On complete blocks the z and Nemenyi forms for missing results are Demsar's z-test
    and Nemenyi's test (the same numbers up to rounding)."""
    from genexpy_nb.significance.posthoc import _nemenyi_available_q, _siegel_castellan_z

    df = _table(seed=6)
    x, names = _wide(df)
    mid = np.asarray(sig.friedman(x, higher_is_better=True).mean_ranks)
    i, j = np.triu_indices(len(names), 1)
    full = sig.posthoc_siegel_castellan(x, higher_is_better=True, p_adjust="holm")
    assert full["test"][0] == "Siegel-Castellan z (Friedman)"
    np.testing.assert_array_equal(full["mean_rank_1"].to_numpy(), mid[i])
    # the form for missing results, forced on complete blocks
    z = np.abs(mid[i] - mid[j]) / np.sqrt(_var_diff(-x)[i, j])
    np.testing.assert_allclose(z, full["statistic"].to_numpy(), rtol=1e-9)
    z_full, _, _, _ = _siegel_castellan_z(x, -x)
    np.testing.assert_allclose(z_full, full["statistic"].to_numpy(), rtol=0)
    nem = sig.posthoc_nemenyi(x, higher_is_better=True)
    q, p, _, _ = _nemenyi_available_q(x, -x)
    miss = sig.posthoc_nemenyi_missing(x, higher_is_better=True)
    assert miss["test"][0] == "Nemenyi (ranks among available)"
    for got in (q, miss["statistic"].to_numpy()):
        np.testing.assert_allclose(got, nem["statistic"].to_numpy(), rtol=1e-9, atol=1e-15)
    for got in (p, miss["pvalue"].to_numpy()):
        np.testing.assert_allclose(got, nem["pvalue"].to_numpy(), rtol=1e-9, atol=1e-15)


def _var_diff(oriented):
    from genexpy_nb.significance._ranks import mean_rank_diff_var

    return mean_rank_diff_var(oriented)


def test_pairwise_z_is_standard_normal_under_the_null():
    """The variance the pairwise z uses is exact: permuting results within blocks (the
    null), the difference of mean ranks has the variance computed, for every pair, with
    many missing results."""
    from genexpy_nb.significance._ranks import mean_rank_diff_var as _mean_rank_diff_var
    from genexpy_nb.significance._ranks import mean_ranks_available as _mean_ranks_available

    rng = np.random.default_rng(7)
    x = rng.random((30, 5))
    x[rng.random(x.shape) < 0.3] = np.nan
    x = x[(~np.isnan(x)).sum(axis=1) >= 2]
    i, j = np.triu_indices(5, 1)
    sd = np.sqrt(_mean_rank_diff_var(x)[i, j])
    draws = []
    for _ in range(3000):
        y = x.copy()
        for row in y:
            obs = np.flatnonzero(~np.isnan(row))
            row[obs] = rng.permutation(row[obs])
        m = _mean_ranks_available(y, "average")
        draws.append((m[i] - m[j]) / sd)
    v = np.var(np.array(draws), axis=0)
    assert np.all(np.abs(v - 1) < 0.08), v  # sd of a variance of 3000 draws: ~0.026
    assert np.all(np.abs(np.mean(draws, axis=0)) < 0.06)  # unbiased: (k + 1)/2 for all


def test_an_algorithm_on_ten_percent_of_the_datasets_does_not_reorder_the_others():
    for seed in range(4):
        base = _table(n=80, k=6, seed=seed, shift=0.02, noise=0.02)
        rng = np.random.default_rng(100 + seed)
        sparse = pl.DataFrame({"dataset": [f"d{i:03d}" for i in range(0, 80, 10)],
                               "model": "sparse", "acc": rng.uniform(0.9, 1.0, 8)})
        more = pl.concat([base, sparse])
        order = _cmp(base).mean_ranks["alternative"].to_list()
        # the default policy drops it (missing in 90 % of the datasets), with a word
        res = _cmp(more)
        assert res.mean_ranks["alternative"].to_list() == order
        assert res.policy.alternatives_dropped == ("sparse",)
        assert "sparse" in res.to_markdown()
        # kept (no tolerance): ranked among the available alternatives, the others keep
        # their order and every block is still tested
        kept = _cmp(more, tol_missing_alternatives=1.0, tol_missing_conditions=1.0)
        assert kept.n_blocks == 80 and "sparse" in kept.alternatives
        assert [a for a in kept.mean_ranks["alternative"] if a != "sparse"] == order
        # whereas complete blocks only (the old behaviour) keep 8 datasets
        cb = _cmp(more, tol_missing_alternatives=0.0, tol_missing_conditions=1.0)
        assert cb.n_blocks == 8


def test_policy_is_the_studys():
    df = _table(n=50, k=6, seed=8, missing=0.12)
    for tol_a, tol_c in ((0.2, 0.2), (0.1, 0.3), (1.0, 1.0), (0.0, 1.0)):
        res = _cmp(df, tol_missing_alternatives=tol_a, tol_missing_conditions=tol_c)
        st = Study(df, alternatives="model", target="acc", generalize="dataset",
                   higher_is_better=True, tol_missing_alternatives=tol_a,
                   tol_missing_conditions=tol_c)
        s = next(st.samples())
        assert res.alternatives == s.alternatives and res.blocks == s.conditions
        assert res.n_missing == int(s.imputed.sum())
        assert res.policy == st.report


def test_nan_scores_are_refused_as_by_the_study_unless_dropped():
    df = _table(seed=9).with_columns(
        pl.when((pl.col("dataset") == "d003") & (pl.col("model") == "m1")).then(float("nan"))
        .otherwise(pl.col("acc")).alias("acc"))
    with pytest.raises(GenexpyInputError, match=r'invalid_target="drop"') as e:
        _cmp(df)
    assert "1 empty, NaN or infinite" in str(e.value)
    with pytest.raises(GenexpyInputError):
        Study(df, alternatives="model", target="acc", generalize="dataset",
              higher_is_better=True)
    with command_line_words(), pytest.raises(GenexpyInputError) as e:
        _cmp(df)
    assert "--invalid-target drop" in str(e.value) and "=" not in str(e.value)
    res = _cmp(df, invalid_target="drop", missing="available")
    assert res.policy.rows_invalid_target == 1 and res.n_missing == 1
    assert res.omnibus.test == "Skillings-Mack"
    # the default: the failed run is the worst of its block (as n*), Friedman's test
    res = _cmp(df, invalid_target="drop")
    assert res.n_missing == 1 and res.omnibus.test == "Friedman"
    assert res.failed.rows() == [("d003", "m1", "counted as the worst tier of its block")]


def test_blocks_of_several_columns_and_folds_get_a_note():
    rows = [(t, f, m, 0.5 + 0.1 * (m == "b") + 0.01 * f + 0.02 * (t % 3))
            for t in range(6) for f in range(5) for m in "abc"]
    df = pl.DataFrame(rows, schema=["task", "fold", "model", "acc"], orient="row")
    res = compare(df, alternatives="model", target="acc", blocks=["task", "fold"],
                  higher_is_better=True)
    assert res.n_blocks == 30
    assert any("not independent datasets" in n for n in res.notes)
    assert "average_over=['fold']" in " ".join(res.notes)
    avg = compare(df, alternatives="model", target="acc", blocks="task",
                  average_over="fold", higher_is_better=True)
    assert avg.n_blocks == 6 and not any("independent" in n for n in avg.notes)


@pytest.mark.skipif("require_complete_replicates" not in inspect.signature(Study).parameters,
                    reason="the Study does not report replicates yet (issue 31, item 4)")
def test_unequal_replicates_are_reported_and_can_be_refused():
    rows = [(t, f, m, 0.5 + 0.1 * (m == "b") + 0.01 * f)
            for t in range(8) for f in range(4) for m in "abc" if not (m == "c" and f >= 2)]
    df = pl.DataFrame(rows, schema=["task", "fold", "model", "acc"], orient="row")
    res = compare(df, alternatives="model", target="acc", blocks="task", average_over="fold",
                  higher_is_better=True)
    assert res.replicates is not None and res.replicates["alternative"].to_list() == ["c"]
    note = next(n for n in res.notes if "fewer than 4 replicates" in n)
    assert "c (8 results over 2)" in note
    assert "replicates" in res.tables()
    with pytest.raises(GenexpyInputError, match="require_complete_replicates"):
        compare(df, alternatives="model", target="acc", blocks="task", average_over="fold",
                higher_is_better=True, require_complete_replicates=True)


# ---- ties, top, report -------------------------------------------------------------------


def test_min_ties_change_the_reported_ranks_not_the_tests():
    rng = np.random.default_rng(10)
    x = rng.integers(0, 3, (30, 5)).astype(float)
    df = pl.DataFrame([(f"d{i}", f"m{j}", x[i, j]) for i in range(30) for j in range(5)],
                      schema=["dataset", "model", "acc"], orient="row")
    avg = _cmp(df)
    mn = _cmp(df, ties="min")
    assert mn.posthoc.equals(avg.posthoc) and mn.omnibus.statistic == avg.omnibus.statistic
    want = stats.rankdata(-x, axis=1, method="min").mean(axis=0)
    got = dict(mn.mean_ranks.select("alternative", "mean_rank").iter_rows())
    np.testing.assert_allclose([got[f"m{j}"] for j in range(5)], want, rtol=1e-14)
    assert any('ties="min"' in n for n in mn.notes)
    cd = sig.critical_difference(x, higher_is_better=True, ties="min")
    np.testing.assert_allclose(sorted(cd["mean_rank"]), sorted(want), rtol=1e-14)
    # the helper against scipy, with missing values
    y = x.copy()
    y[rng.random(y.shape) < 0.2] = np.nan
    r = rank_rows(y, "min")[0]
    for row, rr in zip(y, r):
        obs = ~np.isnan(row)
        np.testing.assert_array_equal(rr[obs], stats.rankdata(row[obs], method="min"))
        assert np.isnan(rr[~obs]).all()


def test_report_names_the_test_the_winner_and_quotes_numbers_from_the_data():
    df = _table(seed=11, shift=0.03)
    res = _cmp(df)
    md = res.to_markdown()
    om = res.omnibus
    assert "Friedman" in md and f"{om.statistic:.4g}" in md and f"χ²({om.df:g})" in md
    assert "Conover–Iman" in md and "Holm's correction" in md
    assert f"**{res.best[0]}** has the best mean rank ({res.mean_ranks['mean_rank'][0]:.2f})" in md
    for a in res.indistinguishable:
        assert a in md.split("## Answer")[1].split("##")[0]
    assert "> We compared 6 alternatives on 40 datasets" in md
    n_sig = int(res.posthoc["significant"].sum())
    assert f"found {n_sig} of 15 differences significant" in md
    html = res._repr_html_()
    assert "<table>" in html and res.best[0] in html
    tex = res.to_latex()
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    assert f"$\\chi^2({om.df:g}) = {om.statistic:.2f}$" in tex
    assert tex.count(" \\\\\n") == 7  # header + 6 alternatives
    s = res.summary()
    assert s.splitlines()[0].startswith("policy: failed or missing runs count as the worst")
    assert s.splitlines()[1].startswith("Friedman test over 40 datasets x 6 alternatives")
    assert "post-hoc: Conover–Iman" in s and f"best: {res.best[0]}" in s


PAYLOAD = ['<script>alert(1)</script>', "a|b*_c", "=HYPERLINK(1)", "50% & $x$ #1 {y} \\z ~^",
           "line\nbreak", "\x1b[31mred"]


def test_names_from_data_are_escaped_everywhere(tmp_path):
    df = _table(k=6, seed=12, names=PAYLOAD)
    res = _cmp(df)
    md = res.to_markdown()
    assert "<script>" not in md and "&lt;script&gt;" in md and "a\\|b\\*\\_c" in md
    html = res.to_html()
    assert "<script>" not in html and "&lt;script&gt;" in html
    tex = res.to_latex()
    assert "50\\% \\& \\$x\\$ \\#1 \\{y\\} \\textbackslash{}z" in tex
    assert "\x1b" not in res.summary()
    paths = res.save(tmp_path / "out")
    names = sorted(p.name for p in paths)
    assert names == ["mean_ranks.csv", "mean_ranks.tex", "missing_results.csv",
                     "omnibus.csv", "posthoc.csv", "report.md"]
    ranks = pl.read_csv(tmp_path / "out" / "mean_ranks.csv")
    assert "'=HYPERLINK(1)" in ranks["alternative"].to_list()


def test_with_section_adds_text_tables_and_latex(tmp_path):
    res = _cmp(_table(seed=13))
    sec = ReportSection("Bayesian signed-rank", (
        Paragraph(["P(", Data("m5"), " better) = 0.93"]),
        Table(("pair", "left"), ((Data("m5 vs m4"), "0.93"),), "lr")),
        tables={"bayes": pl.DataFrame({"a": [1]})}, latex="% bayes table")
    more = res.with_section(sec)
    md = more.to_markdown()
    assert md.index("## Bayesian signed-rank") < md.index("## A paragraph for a paper")
    assert "bayes" in more.tables() and more.to_latex().rstrip().endswith("% bayes table")
    assert "## Bayesian" not in res.to_markdown()  # a copy
    assert "bayes.csv" in [p.name for p in more.save(tmp_path / "o")]
    with pytest.raises(GenexpyInputError):
        res.with_section("text")


def test_degenerate_all_ties_is_a_note_and_a_warning():
    df = _table(seed=14).with_columns(pl.lit(0.5).alias("acc"))
    with pytest.warns(sig.DegenerateTestWarning):
        res = _cmp(df)
    assert (res.omnibus.statistic, res.omnibus.pvalue) == (0.0, 1.0)
    assert any("ties all alternatives" in n for n in res.notes)
    assert len(res.indistinguishable) == 5


# ---- errors in the caller's words ---------------------------------------------------------

_PYTHON_SYNTAX = re.compile(r"\b[a-z_]+=|\w+\(\.\.\.\)|\[\.\.\.\]")


def _error_cases():
    df = _table(seed=15)
    nan = df.with_columns(pl.when(pl.col("model") == "m1").then(None).otherwise(
        pl.col("acc")).alias("acc"))
    sparse = _table(seed=15, missing=0.5)
    sparser = _table(seed=15, missing=0.7)
    return [
        (df, dict(target="zz")),
        (df, dict(blocks=["dataset", "zz"])),
        (df, dict(average_over="model")),
        (df, dict(higher_is_better="yes")),
        (df.with_columns(pl.col("acc").cast(pl.String)), {}),
        (nan, {}),
        (pl.concat([df, df]), {}),
        (df, dict(posthoc="tukey")),
        (df, dict(ties="max")),
        (df, dict(p_adjust="magic")),
        (df, dict(alpha=2.0)),
        (df, dict(top=0)),
        (df, dict(control="zz")),
        (df, dict(control="m1", posthoc="nemenyi")),
        (sparse, dict(tol_missing_alternatives=1.0, tol_missing_conditions=1.0,
                      posthoc="conover", missing="available")),
        (df, dict(missing="impute")),
        (df, dict(held_constant={"zz": 1})),
        (df, dict(held_constant={"dataset": "d001"})),
        (df, dict(held_constant=["acc"])),
        (df, dict(tie_rtol=-1.0)),
        (sparser, dict(tol_missing_alternatives=0.0)),
        (sparse, dict(tol_missing_conditions=0.0, tol_missing_alternatives=0.5)),
        (df, dict(tol_missing_conditions=1.5)),
    ]


def test_errors_speak_python_in_python_and_flags_on_the_command_line():
    for df, kw in _error_cases():
        kw = {"alternatives": "model", "target": "acc", "blocks": "dataset",
              "higher_is_better": True, **kw}
        with pytest.raises(GenexpyInputError) as py:
            compare(df, **kw)
        with command_line_words(), pytest.raises(GenexpyInputError) as cli:
            compare(df, **kw)
        msg = str(cli.value)
        assert not _PYTHON_SYNTAX.search(msg), (kw, msg)
        assert "--" in msg or "column" in msg, (kw, msg)
        if "invalid" in str(py.value) or "posthoc=" in str(py.value):
            assert "=" in str(py.value)


def test_direction_is_required():
    with pytest.raises(GenexpyInputError, match="higher_is_better=True"):
        compare(_table(), alternatives="model", target="acc", blocks="dataset")


# ---- building blocks ------------------------------------------------------------------------


def test_pvalue_helpers_equal_scipy_stats_bit_for_bit():
    xs = np.array([0.0, 1e-300, 1e-8, 0.3, 1.0, 2.5, 17.0, 250.0, 1e4, np.inf, np.nan])
    for df in (1.0, 2.0, 3.5, 17.0, 250.0):
        assert chi2_sf(xs, df).tobytes() == stats.chi2.sf(xs, df).tobytes()
        assert t_sf(xs, df).tobytes() == stats.t.sf(xs, df).tobytes()
        assert f_sf(xs, 3.0, df).tobytes() == stats.f.sf(xs, 3.0, df).tobytes()
    assert norm_sf(xs).tobytes() == stats.norm.sf(xs).tobytes()
    assert norm_sf(-xs).tobytes() == stats.norm.sf(-xs).tobytes()
    assert float(chi2_sf(4.5, 2.0)) == float(stats.chi2.sf(4.5, 2.0))


def test_compare_and_its_drawing_import_neither_scipy_stats_nor_altair():
    code = ("import sys\n"
            "from genexpy_nb.significance import compare\n"
            "import genexpy_nb.charts.cd_figure\n"
            "bad = [m for m in ('scipy.stats', 'altair', 'sklearn', 'statsmodels')"
            " if m in sys.modules]\n"
            "assert not bad, bad\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_moved_drawing_names_still_import_with_a_deprecation_warning(tmp_path):
    from genexpy_nb.charts import cd_diagram_svg, save_cd_diagram

    with pytest.warns(DeprecationWarning, match="genexpy_nb.charts.save_cd_diagram"):
        old = sig.save_cd_diagram
    assert old is save_cd_diagram
    with pytest.warns(DeprecationWarning, match="cd_diagram_svg"):
        from genexpy_nb.significance import cd_diagram_svg as old_svg
    assert old_svg is cd_diagram_svg
    code = ("import warnings\nwarnings.simplefilter('error')\n"
            "try:\n    import genexpy_nb.significance.cd_figure\n"
            "except DeprecationWarning as e:\n    print('warned:', e)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert "warned: genexpy_nb.significance.cd_figure moved" in proc.stdout, proc.stderr


def test_scores_frame_and_json_tables(tmp_path):
    df = _table(seed=16, missing=0.05)
    res = _cmp(df, tol_missing_alternatives=1.0, tol_missing_conditions=1.0,
               missing="available")
    sf = res.scores_frame()
    assert sf.height == res.n_blocks * res.k
    assert sf["score"].null_count() == res.n_missing
    res.save(tmp_path / "j", format="json")
    cl = json.loads((tmp_path / "j" / "omnibus.json").read_text())
    assert cl[0]["test"] == "Skillings-Mack" and cl[0]["n_blocks"] == res.n_blocks
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res.save(tmp_path / "p", format="parquet")
    assert pl.read_parquet(tmp_path / "p" / "posthoc.parquet").equals(res.posthoc)


def test_functions_named_like_their_module_stay_functions():
    """significance loads its submodules on first use; importing a module sets the package
    attribute of its name to the module, which must not hide the function of that name."""
    code = ("from genexpy_nb import significance as sig\n"
            "import genexpy_nb.significance.mcnemar, genexpy_nb.significance.compare\n"
            "sig.mcnemar_table([0, 1], [0, 1], [1, 1]); sig.cliques\n"
            "for name in ('mcnemar', 'compare', 'critical_difference'):\n"
            "    assert callable(getattr(sig, name)), name\n"
            "assert sorted(sig.__all__) == sorted(set(sig.__all__))\n"
            "missing = [n for n in sig.__all__ if not hasattr(sig, n)]\n"
            "assert not missing, missing\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_the_answer_tells_near_ties_apart():
    """Two mean ranks that print alike at two decimals get as many as it takes."""
    from types import SimpleNamespace

    from genexpy_nb.answers.comparison import _best_runs, _rank_digits
    from genexpy_nb.answers.document import plain_text

    def res(ranks):
        mr = pl.DataFrame({"alternative": ["a", "b", "c"], "mean_rank": ranks,
                           "n_blocks": [10, 10, 10]})
        return SimpleNamespace(mean_ranks=mr, best=("a",), n_missing=0, control=None,
                               indistinguishable=["b"])

    assert _rank_digits(res([1.5, 2.25, 2.25])) == 2
    assert _rank_digits(res([10.722046, 10.722194, 14.9])) == 4
    assert _rank_digits(res([2.0, 2.0000001, 3.0])) == 6  # at most 6
    text = plain_text(_best_runs(res([10.722046, 10.722194, 14.9])))
    assert "(10.7220)" in text and "b (10.7222)" in text
