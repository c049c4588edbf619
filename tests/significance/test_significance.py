"""Tests of genexpy_nb.significance and genexpy_nb.charts.significance.

Oracles: scipy (Friedman, Wilcoxon, Mann–Whitney, Kruskal–Wallis, t-tests), scikit-posthocs
(Conover–Iman and Nemenyi after Friedman), statsmodels (p-value adjustment), the slow twins
in tests/naive.py, hand-computed values and a published Skillings–Mack example.
"""

from __future__ import annotations

import math

import naive
import numpy as np
import pandas as pd
import polars as pl
import pytest
import scikit_posthocs as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats
from statsmodels.stats.multitest import multipletests

from genexpy_nb import GenexpyInputError
from genexpy_nb import significance as sig
from genexpy_nb.charts.significance import cd_diagram
from genexpy_nb.significance._ranks import rank_rows as _rank_rows
from genexpy_nb.significance.corrections import _adjust

RNG_SHAPES = [(6, 3), (10, 4), (25, 5), (40, 8)]


def _matrix(seed, n, k, ties=False):
    rng = np.random.default_rng(seed)
    if ties:
        return rng.integers(0, 4, size=(n, k)).astype(float)
    return rng.normal(size=(n, k))


def _upper(df_square: pd.DataFrame) -> np.ndarray:
    a = df_square.to_numpy()
    i, j = np.triu_indices(a.shape[0], 1)
    return a[i, j]


# =====================================================================================
# Result objects
# =====================================================================================


def test_result_unpacks_like_scipy():
    res = sig.friedman(_matrix(0, 8, 4), higher_is_better=False)
    stat, p = res
    assert (stat, p) == (res.statistic, res.pvalue)
    assert len(res) == 2 and res[0] == stat and res[1] == p and res[-1] == p
    assert res.test == "Friedman" and res.df == 3.0 and res.n == 8 and res.k == 4
    assert "Friedman" in repr(res)


# =====================================================================================
# Within-condition ranks (NumPy vs naive twin)
# =====================================================================================


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 8), st.integers(1, 6), st.integers(0, 2**31 - 1), st.floats(0.0, 0.5))
def test_rank_rows_matches_naive(n, k, seed, p_missing):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, size=(n, k)).astype(float)  # many ties
    x[rng.random((n, k)) < p_missing] = np.nan
    r, c, t = _rank_rows(x)
    r0, c0, t0 = naive.rank_rows(x)
    assert_allclose(r, r0)
    assert np.array_equal(c, c0)
    assert_allclose(t, t0)


#: the tests over conditions whose role keywords come from takes_table_roles
ROLE_TESTS = ["rank_within_conditions", "friedman", "skillings_mack", "posthoc_conover",
              "posthoc_nemenyi", "posthoc_siegel_castellan", "posthoc_nemenyi_missing",
              "critical_difference", "win_tie_loss", "pairwise_wilcoxon",
              "pairwise_corrected_ttest"]


@pytest.mark.parametrize("name", ROLE_TESTS)
def test_role_keywords_are_in_the_signature_and_the_docstring(name):
    import inspect

    fn = getattr(sig, name)
    params = inspect.signature(fn).parameters
    roles = ["target", "blocks", "alternatives", "order", "y_col", "block_col", "group_col"]
    ties = name not in ("pairwise_wilcoxon", "pairwise_corrected_ttest")
    assert [p for p in params if p in roles + ["tie_rtol", "tie_atol"]] == roles + (
        ["tie_rtol", "tie_atol"] if ties else [])
    assert all(params[p].kind is inspect.Parameter.KEYWORD_ONLY for p in roles)
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    assert "{roles}" not in fn.__doc__
    assert "    target, blocks, alternatives : str, optional\n" in fn.__doc__
    assert ("tie_rtol, tie_atol : float" in fn.__doc__) is ties
    kw = {"n_train": 8, "n_test": 2} if name == "pairwise_corrected_ttest" else {}
    kw |= {} if name.startswith("pairwise_") else {"higher_is_better": True}
    x = [[0.8, 0.7, 0.6], [0.9, 0.7, 0.5], [0.7, 0.8, 0.6]]
    with pytest.raises(TypeError, match=f"{name}\\(\\) got an unexpected keyword argument 'trget'"):
        fn(x, trget="score", **kw)
    if not ties:
        with pytest.raises(TypeError, match="'tie_rtol'"):
            fn(x, tie_rtol=0.0, **kw)


def test_rank_within_conditions_orientation():
    x = np.array([[0.9, 0.7, 0.9], [0.1, 0.2, np.nan]])
    low = sig.rank_within_conditions(x, higher_is_better=False)
    high = sig.rank_within_conditions(x, higher_is_better=True)
    assert low.row(0) == (2.5, 1.0, 2.5)
    assert high.row(0) == (1.5, 3.0, 1.5)
    assert high.row(1) == (2.0, 1.0, None)


# =====================================================================================
# Friedman
# =====================================================================================


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("shape", RNG_SHAPES)
def test_friedman_equals_scipy(shape, ties):
    x = _matrix(sum(shape) + ties, *shape, ties=ties)
    res = sig.friedman(x, higher_is_better=False)
    ref = stats.friedmanchisquare(*x.T)
    assert_allclose(res.statistic, ref.statistic, rtol=1e-10)
    assert_allclose(res.pvalue, ref.pvalue, rtol=1e-8)
    assert_allclose(res.statistic, naive.friedman_statistic(x), rtol=1e-10)
    # the direction changes mean ranks, not the test
    hi = sig.friedman(x, higher_is_better=True)
    assert_allclose(hi.statistic, res.statistic)
    assert_allclose(np.add(hi.mean_ranks, res.mean_ranks), shape[1] + 1)


def test_friedman_hand_example_and_extras():
    x = [[1, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3]]
    res = sig.friedman(x, higher_is_better=False)
    # rank sums 5, 8, 11; chi2 = 12 / (4*3*4) * (9 + 0 + 9) = 4.5
    assert res.statistic == pytest.approx(4.5)
    assert res.mean_ranks == (1.25, 2.0, 2.75)
    assert res.kendall_w == pytest.approx(4.5 / (4 * 2))
    f = 3 * 4.5 / (4 * 2 - 4.5)
    assert res.iman_davenport_statistic == pytest.approx(f)
    assert res.iman_davenport_df == (2.0, 6.0)
    assert res.iman_davenport_pvalue == pytest.approx(stats.f.sf(f, 2, 6))
    frame = res.ranks_frame()
    assert frame["mean_rank"].to_list() == [1.25, 2.0, 2.75]


def test_friedman_perfect_agreement_and_all_ties():
    x = np.tile([1.0, 2.0, 3.0, 4.0], (6, 1))
    res = sig.friedman(x, higher_is_better=False)
    assert res.kendall_w == pytest.approx(1.0)
    assert res.statistic == pytest.approx(6 * 3)
    assert math.isinf(res.iman_davenport_statistic) and res.iman_davenport_pvalue == 0.0
    # all ties: scipy gives NaN; here a documented degenerate result, with a warning
    with pytest.warns(sig.DegenerateTestWarning, match="ties all alternatives"):
        tied = sig.friedman(np.ones((5, 3)), higher_is_better=False)
    assert (tied.statistic, tied.pvalue) == (0.0, 1.0) and tied.kendall_w == 0.0
    assert "ties all alternatives" in tied.note and "note=" in repr(tied)
    with pytest.warns(RuntimeWarning):  # what scipy does: a bare NaN
        assert math.isnan(stats.friedmanchisquare(*np.ones((5, 3)).T).statistic)


def test_friedman_two_alternatives_is_allowed():
    res = sig.friedman(_matrix(3, 12, 2), higher_is_better=False)
    assert res.k == 2 and 0 <= res.pvalue <= 1


def test_friedman_nan_policy():
    x = _matrix(4, 10, 4)
    x[2, 1] = np.nan
    assert math.isnan(sig.friedman(x, higher_is_better=False).pvalue)
    with pytest.raises(GenexpyInputError, match="nan_policy='omit'"):
        sig.friedman(x, nan_policy="raise", higher_is_better=False)
    omitted = sig.friedman(x, nan_policy="omit", higher_is_better=False)
    ref = sig.friedman(np.delete(x, 2, axis=0), higher_is_better=False)
    assert omitted.statistic == ref.statistic and omitted.n_dropped == 1 and omitted.n == 9
    with pytest.raises(GenexpyInputError, match="nan_policy"):
        sig.friedman(x, nan_policy="ignore", higher_is_better=False)


# =====================================================================================
# Input formats
# =====================================================================================


def _long(x: np.ndarray, names) -> pl.DataFrame:
    n, k = x.shape
    return pl.DataFrame(
        {
            "dataset": np.repeat([f"d{i}" for i in range(n)], k),
            "model": np.tile(names, n),
            "score": x.ravel(),
        }
    )


def test_wide_long_pandas_numpy_agree():
    x = _matrix(5, 9, 4, ties=True)
    names = ["a", "b", "c", "d"]
    ref = sig.friedman(x, order=names, higher_is_better=False)
    wide = pl.DataFrame(
        {"dataset": [f"d{i}" for i in range(9)], **{nm: x[:, j] for j, nm in enumerate(names)}}
    )
    long = _long(x, names)
    variants = [
        sig.friedman(wide, block_col="dataset", higher_is_better=False),
        sig.friedman(wide.drop("dataset"), higher_is_better=False),
        sig.friedman(wide.drop("dataset").to_pandas(), higher_is_better=False),
        sig.friedman(x.tolist(), order=names, higher_is_better=False),
        sig.friedman(
            long, y_col="score", block_col="dataset", group_col="model", higher_is_better=False
        ),
        sig.friedman(
            long.to_pandas(),
            y_col="score",
            block_col="dataset",
            group_col="model",
            higher_is_better=False,
        ),
        sig.friedman(
            long.sample(fraction=1.0, shuffle=True, seed=1),
            y_col="score",
            block_col="dataset",
            group_col="model",
            order=names,
            higher_is_better=False,
        ),
    ]
    for v in variants:
        assert v.alternatives == tuple(names)
        assert_allclose(v.statistic, ref.statistic, rtol=1e-12)
        assert_allclose(v.mean_ranks, ref.mean_ranks, rtol=1e-12)
    # alternatives selects and orders
    sub = sig.friedman(
        wide, block_col="dataset", order=["c", "a", "b"], higher_is_better=False
    )
    assert sub.alternatives == ("c", "a", "b")
    assert_allclose(sub.statistic, sig.friedman(x[:, [2, 0, 1]], higher_is_better=False).statistic)


def test_long_missing_rows_become_nan():
    x = _matrix(6, 8, 4)
    long = _long(x, ["a", "b", "c", "d"]).filter(
        ~((pl.col("dataset") == "d3") & (pl.col("model") == "b"))
    )
    x2 = x.copy()
    x2[3, 1] = np.nan
    a = sig.skillings_mack(
        long, y_col="score", block_col="dataset", group_col="model", higher_is_better=False
    )
    b = sig.skillings_mack(x2, higher_is_better=False)
    assert_allclose(a.statistic, b.statistic, rtol=1e-12)
    assert a.n_missing == 1


# =====================================================================================
# Bad input -> GenexpyInputError, one test each
# =====================================================================================


def test_ragged_matrix_rejected():
    with pytest.raises(GenexpyInputError, match="ragged"):
        sig.friedman([[1, 2, 3], [1, 2]], higher_is_better=False)


def test_one_dimensional_rejected():
    with pytest.raises(GenexpyInputError, match="2-d"):
        sig.friedman([1.0, 2.0, 3.0], higher_is_better=False)


def test_fewer_than_two_alternatives_rejected():
    with pytest.raises(GenexpyInputError, match="at least 2 are needed to compare"):
        sig.friedman(np.ones((5, 1)), higher_is_better=False)
    with pytest.raises(GenexpyInputError, match="alternative"):
        sig.skillings_mack(np.ones((5, 1)), higher_is_better=False)


def test_fewer_than_two_conditions_rejected():
    with pytest.raises(GenexpyInputError, match="condition"):
        sig.friedman([[1.0, 2.0, 3.0]], higher_is_better=False)
    with pytest.raises(GenexpyInputError, match="condition"):
        sig.posthoc_conover([[1.0, 2.0, 3.0]], higher_is_better=False)


def test_nan_where_not_allowed_rejected():
    x = _matrix(7, 6, 3)
    x[0, 0] = np.nan
    with pytest.raises(GenexpyInputError, match="missing"):
        sig.posthoc_conover(x, nan_policy="raise", higher_is_better=False)
    with pytest.raises(GenexpyInputError, match="missing"):
        sig.critical_difference(x, higher_is_better=False)  # nan_policy="raise" by default
    with pytest.raises(GenexpyInputError, match="NaN"):
        sig.corrected_ttest([0.1, np.nan, 0.2], n_train=9, n_test=1, nan_policy="raise")


def test_infinite_values_rejected():
    x = _matrix(8, 6, 3)
    x[1, 1] = np.inf
    with pytest.raises(GenexpyInputError, match="infinite"):
        sig.friedman(x, higher_is_better=False)


def test_unknown_p_adjust_rejected():
    with pytest.raises(GenexpyInputError, match="p_adjust='holmes'"):
        sig.posthoc_conover(_matrix(9, 6, 3), p_adjust="holmes", higher_is_better=False)
    with pytest.raises(GenexpyInputError, match="p_adjust"):
        sig.adjust_pvalues([0.01, 0.2], "BH")


def test_omit_leaving_too_few_conditions_rejected():
    x = _matrix(10, 3, 3)
    x[0, 0] = x[1, 1] = np.nan
    with pytest.raises(GenexpyInputError, match="skillings_mack"):
        sig.friedman(x, nan_policy="omit", higher_is_better=False)


def test_long_duplicates_rejected():
    long = _long(_matrix(11, 4, 3), ["a", "b", "c"])
    with pytest.raises(GenexpyInputError, match="several rows"):
        sig.friedman(
            pl.concat([long, long.head(1)]),
            y_col="score",
            block_col="dataset",
            group_col="model",
            higher_is_better=False,
        )


def test_long_missing_role_rejected():
    long = _long(_matrix(12, 4, 3), ["a", "b", "c"])
    with pytest.raises(GenexpyInputError, match="blocks"):
        sig.friedman(long, y_col="score", group_col="model", higher_is_better=False)


def test_long_unknown_column_rejected():
    long = _long(_matrix(12, 4, 3), ["a", "b", "c"])
    with pytest.raises(GenexpyInputError, match="not found"):
        sig.friedman(
            long, y_col="acc", block_col="dataset", group_col="model", higher_is_better=False
        )


def test_wide_non_numeric_column_rejected():
    wide = pl.DataFrame({"dataset": ["x", "y", "z"], "a": [1.0, 2, 3], "b": [2.0, 1, 3]})
    with pytest.raises(GenexpyInputError, match="blocks="):
        sig.friedman(wide, higher_is_better=False)


def test_unknown_alternative_rejected():
    with pytest.raises(GenexpyInputError, match="order"):
        sig.friedman(np.ones((4, 3)), order=["a", "b"], higher_is_better=False)
    long = _long(_matrix(13, 4, 3), ["a", "b", "c"])
    with pytest.raises(GenexpyInputError, match="not found"):
        sig.friedman(
            long,
            y_col="score",
            block_col="dataset",
            group_col="model",
            order=["a", "z"],
            higher_is_better=False,
        )


def test_bad_alternative_keyword_rejected():
    with pytest.raises(GenexpyInputError, match="alternative"):
        sig.wilcoxon([1.0, 2.0, 3.0], alternative="bigger")


def test_higher_is_better_must_be_bool():
    with pytest.raises(GenexpyInputError, match="higher_is_better"):
        sig.friedman(np.ones((4, 3)), higher_is_better="yes")


RANKING_FUNCTIONS = [
    sig.friedman,
    sig.skillings_mack,
    sig.posthoc_conover,
    sig.posthoc_nemenyi,
    sig.critical_difference,
    sig.rank_within_conditions,
    cd_diagram,
]


@pytest.mark.parametrize("func", RANKING_FUNCTIONS, ids=lambda f: f.__name__)
def test_direction_is_required_wherever_ranks_are_taken(func):
    x = _matrix(31, 6, 3)
    with pytest.raises(GenexpyInputError, match=rf"{func.__name__}\(data, higher_is_better=True\)"):
        func(x)
    func(x, higher_is_better=True)  # said: runs


def test_accuracy_table_ranks_the_best_model_first():
    # the case that went wrong when the direction defaulted to lower-is-better
    acc = np.array([[0.95, 0.80, 0.60], [0.91, 0.85, 0.55], [0.97, 0.70, 0.65], [0.93, 0.82, 0.61]])
    cd = sig.critical_difference(acc, higher_is_better=True, order=["good", "mid", "bad"])
    assert cd["alternative"].to_list() == ["good", "mid", "bad"]
    assert cd["mean_rank"].to_list() == [1.0, 2.0, 3.0]
    err = sig.critical_difference(
        1 - acc, higher_is_better=False, order=["good", "mid", "bad"]
    )
    assert err["alternative"].to_list() == ["good", "mid", "bad"]


# =====================================================================================
# Skillings–Mack
# =====================================================================================


@pytest.mark.parametrize("shape", RNG_SHAPES)
def test_skillings_mack_equals_friedman_on_complete_data(shape):
    x = _matrix(100 + sum(shape), *shape)  # continuous: no ties
    sm = sig.skillings_mack(x, higher_is_better=False)
    fr = sig.friedman(x, higher_is_better=False)
    assert_allclose(sm.statistic, fr.statistic, rtol=1e-9)
    assert_allclose(sm.pvalue, fr.pvalue, rtol=1e-8)
    assert sm.df == fr.df and sm.n_missing == 0


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 15), st.integers(2, 7), st.integers(0, 2**31 - 1))
def test_skillings_mack_equals_friedman_property(n, k, seed):
    x = np.random.default_rng(seed).permutation(n * k).reshape(n, k).astype(float)
    assert_allclose(
        sig.skillings_mack(x, higher_is_better=False).statistic,
        sig.friedman(x, higher_is_better=False).statistic,
        rtol=1e-9,
        atol=1e-9,
    )


def test_skillings_mack_published_example():
    # Skillings.Mack R package example (Chatfield & Mander 2009): 4 methods, 9 blocks with
    # missing values; SM = 15.493049 on 3 dof, p = 0.001440.
    y = [
        [3.2, 4.1, 3.8, 4.2],
        [3.1, 3.9, 3.4, 4.0],
        [4.3, 3.5, 4.6, 4.8],
        [3.5, 3.6, 3.9, 4.0],
        [3.6, 4.2, 3.7, 3.9],
        [4.5, 4.7, 3.7, np.nan],
        [np.nan, 4.2, 3.4, np.nan],
        [4.3, 4.6, 4.4, 4.9],
        [3.5, np.nan, 3.7, 3.9],
    ]
    res = sig.skillings_mack(y, order=["A", "B", "C", "D"], higher_is_better=False)
    assert res.statistic == pytest.approx(15.493049, abs=5e-6)
    assert res.pvalue == pytest.approx(0.001440296302, rel=1e-6)
    assert res.df == 3.0 and res.n == 9 and res.n_missing == 4


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 12), st.integers(2, 6), st.integers(0, 2**31 - 1))
def test_skillings_mack_matches_naive_with_missing(n, k, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 5, size=(n, k)).astype(float)
    x[rng.random((n, k)) < 0.25] = np.nan
    try:
        res = sig.skillings_mack(x, higher_is_better=False)
    except GenexpyInputError:
        return  # disconnected design or too few usable conditions: tested separately
    assert_allclose(res.statistic, naive.skillings_mack_statistic(x), rtol=1e-8, atol=1e-8)
    # invariant under permutations of conditions and of alternatives
    perm_r, perm_c = rng.permutation(n), rng.permutation(k)
    again = sig.skillings_mack(x[perm_r][:, perm_c], higher_is_better=False)
    assert_allclose(again.statistic, res.statistic, rtol=1e-8, atol=1e-8)


def test_skillings_mack_disconnected_design_rejected():
    x = np.array(
        [
            [1.0, 2.0, np.nan, np.nan],
            [2.0, 1.0, np.nan, np.nan],
            [np.nan, np.nan, 1.0, 2.0],
            [np.nan, np.nan, 3.0, 1.0],
        ]
    )
    with pytest.raises(GenexpyInputError, match="disconnected"):
        sig.skillings_mack(x, higher_is_better=False)


def test_skillings_mack_too_few_usable_conditions_rejected():
    x = np.array([[1.0, 2.0, 3.0], [np.nan, np.nan, 1.0], [2.0, np.nan, np.nan]])
    with pytest.raises(GenexpyInputError, match="at least two observed"):
        sig.skillings_mack(x, higher_is_better=False)


# =====================================================================================
# Post-hoc tests
# =====================================================================================


@pytest.mark.parametrize(
    ("shape", "ties", "p_adjust"),
    [(s, t, a) for s in RNG_SHAPES for t in (False, True) for a in (None, "fdr_bh")]
    + [((25, 5), True, "holm")],  # statsmodels' holm calls gc.collect(): once is enough
)
def test_conover_equals_scikit_posthocs(shape, ties, p_adjust):
    x = _matrix(200 + sum(shape) + ties, *shape, ties=ties)
    res = sig.posthoc_conover(x, p_adjust=p_adjust, higher_is_better=False)
    ref = sp.posthoc_conover_friedman(x, p_adjust=p_adjust)
    assert res.height == shape[1] * (shape[1] - 1) // 2
    assert_allclose(res["pvalue"].to_numpy(), _upper(ref), rtol=1e-9, atol=1e-14)
    assert res["p_adjust"][0] == (p_adjust or "none")
    assert (res["significant"] == (res["pvalue"] < 0.05)).all()


@pytest.mark.parametrize("shape", RNG_SHAPES)
def test_nemenyi_equals_scikit_posthocs_and_cd(shape):
    x = _matrix(300 + sum(shape), *shape)
    res = sig.posthoc_nemenyi(x, higher_is_better=False)
    ref = sp.posthoc_nemenyi_friedman(x)
    assert_allclose(res["pvalue"].to_numpy(), _upper(ref), rtol=1e-7, atol=1e-12)
    # a pair is significant exactly when its mean ranks differ by more than the CD
    cd = sig.nemenyi_cd(shape[1], shape[0], 0.05)
    diff = (res["mean_rank_1"] - res["mean_rank_2"]).abs().to_numpy()
    assert np.array_equal(res["significant"].to_numpy(), diff > cd)


def test_nemenyi_cd_matches_demsar_table():
    # Demšar (2006) Table 5(a): q_0.05 = 2.569 (k=4), 2.728 (k=5), 3.164 (k=10)
    for k, q in [(4, 2.569), (5, 2.728), (10, 3.164)]:
        n = 20
        cd = sig.nemenyi_cd(k, n, 0.05)
        assert cd / math.sqrt(k * (k + 1) / (6 * n)) == pytest.approx(q, abs=1e-3)


def test_conover_degenerate_identical_rankings():
    x = np.tile([1.0, 2.0, 2.0, 3.0], (5, 1))
    res = sig.posthoc_conover(x, higher_is_better=False)
    p = dict(zip(zip(res["alternative_1"], res["alternative_2"]), res["pvalue"]))
    assert p[("1", "2")] == 1.0 and p[("0", "3")] == 0.0


def test_posthoc_propagates_nan():
    x = _matrix(14, 6, 3)
    x[0, 0] = np.nan
    res = sig.posthoc_conover(x, higher_is_better=False)
    assert res["pvalue"].is_nan().all() and res["significant"].is_null().all()


def test_holm_step_down_equals_statsmodels():
    rng = np.random.default_rng(24)
    for m in (2, 25):
        p = rng.random(m) ** 3
        p[-1] = p[0]  # a tie
        adj, reject = _adjust(p, "holm", 0.05)
        rej_ref, adj_ref, _, _ = multipletests(p, alpha=0.05, method="holm")
        assert_allclose(adj, adj_ref, rtol=0, atol=1e-15)
        assert np.array_equal(reject, rej_ref)


def test_adjust_pvalues_equals_statsmodels():
    p = np.array([0.001, 0.02, 0.04, 0.3, np.nan, 0.011])
    for method in sig.P_ADJUST_METHODS:
        out = sig.adjust_pvalues(p, method)
        ref = multipletests(p[~np.isnan(p)], alpha=0.05, method=method)[1]
        assert_allclose(out[~np.isnan(p)], ref)
        assert np.isnan(out[4])


# =====================================================================================
# Wilcoxon, Mann–Whitney, Kruskal–Wallis
# =====================================================================================


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_two_sample_tests_equal_scipy(alternative):
    rng = np.random.default_rng(15)
    x, y = rng.normal(size=20), rng.normal(0.5, size=20)
    w = sig.wilcoxon(x, y, alternative=alternative)
    wr = stats.wilcoxon(x, y, alternative=alternative)
    assert (w.statistic, w.pvalue) == pytest.approx((wr.statistic, wr.pvalue))
    assert sig.wilcoxon(x - y, alternative=alternative).pvalue == pytest.approx(wr.pvalue)
    u = sig.mannwhitneyu(x, y[:15], alternative=alternative)
    ur = stats.mannwhitneyu(x, y[:15], alternative=alternative)
    assert (u.statistic, u.pvalue) == pytest.approx((ur.statistic, ur.pvalue))
    assert u.n == 35


def test_kruskal_equals_scipy_all_inputs():
    rng = np.random.default_rng(16)
    groups = [rng.normal(size=8), rng.normal(1, size=10), rng.normal(size=6)]
    ref = stats.kruskal(*groups)
    a = sig.kruskal(*groups)
    long = pl.DataFrame({"g": np.repeat(["u", "v", "w"], [8, 10, 6]), "y": np.concatenate(groups)})
    b = sig.kruskal(data=long, y_col="y", group_col="g")
    wide = np.full((10, 3), np.nan)
    for j, g in enumerate(groups):
        wide[: g.size, j] = g
    c = sig.kruskal(data=wide, nan_policy="omit")
    for r in (a, b, c):
        assert (r.statistic, r.pvalue) == pytest.approx((ref.statistic, ref.pvalue))
        assert r.df == 2.0 and r.n == 24 and r.k == 3
    assert math.isnan(sig.kruskal(data=wide).pvalue)  # propagate
    with pytest.warns(sig.DegenerateTestWarning, match="all 4 values are equal"):
        same = sig.kruskal([1.0, 1.0], [1.0, 1.0])
    assert (same.statistic, same.pvalue) == (0.0, 1.0) and "equal" in same.note


def test_wilcoxon_nan_policy_and_degenerate():
    x = np.array([1.0, 2.0, np.nan, 4.0, 5.0, 7.0])
    y = np.zeros(6)
    assert math.isnan(sig.wilcoxon(x, y).pvalue)
    om = sig.wilcoxon(x, y, nan_policy="omit")
    ref = stats.wilcoxon(np.delete(x, 2), np.delete(y, 2))
    assert om.pvalue == pytest.approx(ref.pvalue) and om.n == 5
    with pytest.warns(sig.DegenerateTestWarning, match="differences are zero"):
        zero = sig.wilcoxon([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    # scipy returns the same (0, 1) for all-zero differences (with a RuntimeWarning)
    with pytest.warns(RuntimeWarning):
        ref = stats.wilcoxon(np.zeros(3))
    assert (zero.statistic, zero.pvalue) == (ref.statistic, ref.pvalue) == (0.0, 1.0)
    with pytest.raises(GenexpyInputError, match="paired"):
        sig.wilcoxon([1.0, 2.0], [1.0, 2.0, 3.0])


@pytest.mark.parametrize("p_adjust", [None, "holm"])
def test_pairwise_wilcoxon_equals_scipy(p_adjust):
    x = _matrix(17, 15, 4)
    res = sig.pairwise_wilcoxon(x, p_adjust=p_adjust)
    raw = [stats.wilcoxon(x[:, i], x[:, j]).pvalue for i, j in zip(*np.triu_indices(4, 1))]
    assert_allclose(res["pvalue_raw"].to_numpy(), raw)
    exp = raw if p_adjust is None else multipletests(raw, method="holm")[1]
    assert_allclose(res["pvalue"].to_numpy(), exp)
    assert_allclose(res["mean_difference"][0], np.mean(x[:, 0] - x[:, 1]))


@pytest.mark.filterwarnings("ignore::genexpy_nb.significance._results.DegenerateTestWarning")
@pytest.mark.parametrize("n", [6, 12, 30, 112])
@pytest.mark.parametrize("nan_policy", ["propagate", "omit"])
def test_pairwise_wilcoxon_all_pairs_at_once_equals_one_test_per_pair(n, nan_policy):
    # the pairs tested in one vectorised pass give scipy's numbers bit for bit: ties,
    # zero differences, identical alternatives, missing values (left out or propagated)
    rng = np.random.default_rng(n)
    x = np.round(rng.normal(size=(n, 6)) + np.arange(6) * 0.2, 1)  # ties and zeros
    x[:, 5] = x[:, 4]  # a pair of identical alternatives: no difference at all
    x[1, 2] = np.nan
    res = sig.pairwise_wilcoxon(x, nan_policy=nan_policy)
    for q, (i, j) in enumerate(zip(*np.triu_indices(6, 1), strict=True)):
        one = sig.wilcoxon(x[:, i], x[:, j], nan_policy=nan_policy)
        got = res.row(q, named=True)
        for key, want in (("statistic", one.statistic), ("pvalue_raw", one.pvalue),
                          ("n", one.n)):
            assert (got[key] == want) or (np.isnan(got[key]) and np.isnan(want)), (i, j, key)


# =====================================================================================
# Nadeau–Bengio corrected resampled t-test
# =====================================================================================


def test_corrected_ttest_hand_example():
    # d = (0.1, 0.3, 0.2, 0.4): mean 0.25, s^2 = 0.05 / 3; n1 = 90, n2 = 10, J = 4
    # var = (1/4 + 10/90) * 0.05/3 = 13/2160; t = 0.25 / sqrt(13/2160) = 3.222517...
    res = sig.corrected_ttest([0.1, 0.3, 0.2, 0.4], n_train=90, n_test=10)
    assert res.sample_variance == pytest.approx(0.05 / 3, rel=1e-12)
    assert res.variance == pytest.approx(13 / 2160, rel=1e-12)
    assert res.std_error == pytest.approx(math.sqrt(13 / 2160), rel=1e-12)
    assert res.statistic == pytest.approx(0.25 / math.sqrt(13 / 2160), rel=1e-12)
    assert res.statistic == pytest.approx(3.2225169, rel=1e-7)
    assert res.df == 3.0 and res.n == 4
    assert res.pvalue == pytest.approx(2 * stats.t.sf(3.2225169, 3), rel=1e-6)
    # the wrong versions a published implementation shipped are far away
    assert abs(res.statistic - 0.25 / res.variance) > 30
    assert abs(res.statistic - 0.25 / math.sqrt(math.sqrt(res.variance))) > 2
    t0, v0 = naive.corrected_ttest([0.1, 0.3, 0.2, 0.4], 90, 10)
    assert (res.statistic, res.variance) == pytest.approx((t0, v0), rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_corrected_ttest_without_correction_is_paired_ttest(alternative):
    rng = np.random.default_rng(18)
    x, y = rng.normal(0.8, 0.05, size=50), rng.normal(0.79, 0.05, size=50)
    res = sig.corrected_ttest(x, y, n_train=900, n_test=0, alternative=alternative)
    ref = stats.ttest_rel(x, y, alternative=alternative)
    ref1 = stats.ttest_1samp(x - y, 0.0, alternative=alternative)
    # variance first, then the statistic, then the p-value
    assert res.variance == pytest.approx(np.var(x - y, ddof=1) / 50, rel=1e-12)
    assert res.variance == pytest.approx(res.uncorrected_variance, rel=1e-12)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert res.statistic == pytest.approx(ref1.statistic, rel=1e-10)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    assert res.df == ref.df
    ci, ci_ref = res.confidence_interval(0.9), ref1.confidence_interval(0.9)
    assert (ci.low, ci.high) == pytest.approx((ci_ref.low, ci_ref.high), rel=1e-9)


def test_corrected_ttest_limit_and_scaling():
    rng = np.random.default_rng(19)
    d = rng.normal(0.01, 0.02, size=100)
    ref = stats.ttest_1samp(d, 0.0)
    near = sig.corrected_ttest(d, n_train=1e12, n_test=1.0)  # n2/n1 -> 0
    assert near.variance == pytest.approx(np.var(d, ddof=1) / 100, rel=1e-8)
    assert near.statistic == pytest.approx(ref.statistic, rel=1e-8)
    # 10 x 10 CV on 1000 points: n1 = 900, n2 = 100: var grows by 1 + J n2/n1 = 1 + 100/9
    res = sig.corrected_ttest(d, n_train=900, n_test=100)
    assert res.variance / res.uncorrected_variance == pytest.approx(1 + 100 / 9, rel=1e-12)
    assert res.statistic == pytest.approx(ref.statistic / math.sqrt(1 + 100 / 9), rel=1e-10)
    assert res.pvalue > ref.pvalue


def test_corrected_ttest_degenerate_and_bad_sizes():
    with pytest.warns(sig.DegenerateTestWarning, match="differences are zero"):
        zero = sig.corrected_ttest([0.0, 0.0, 0.0], n_train=9, n_test=1)
    assert (zero.statistic, zero.pvalue) == (0.0, 1.0) and zero.note
    with pytest.warns(sig.DegenerateTestWarning, match="zero variance"):
        const = sig.corrected_ttest([0.1, 0.1, 0.1], n_train=9, n_test=1)
    assert math.isinf(const.statistic) and const.pvalue == 0.0 and const.note
    with pytest.warns(sig.DegenerateTestWarning):
        less = sig.corrected_ttest([0.1, 0.1, 0.1], n_train=9, n_test=1, alternative="less")
    assert less.pvalue == 1.0
    with pytest.raises(GenexpyInputError, match="n_train"):
        sig.corrected_ttest([0.1, 0.2], n_train=0, n_test=1)
    with pytest.raises(GenexpyInputError, match="n_test"):
        sig.corrected_ttest([0.1, 0.2], n_train=9, n_test=-1)
    with pytest.raises(GenexpyInputError, match="at least 2 splits"):
        sig.corrected_ttest([0.1], n_train=9, n_test=1)


def test_pairwise_corrected_ttest_matches_single_tests():
    x = _matrix(20, 30, 3) * 0.01 + 0.8
    res = sig.pairwise_corrected_ttest(x, n_train=90, n_test=10, p_adjust="bonferroni")
    one = sig.corrected_ttest(x[:, 0], x[:, 2], n_train=90, n_test=10)
    row = res.filter((pl.col("alternative_1") == "0") & (pl.col("alternative_2") == "2"))
    assert row["statistic"][0] == pytest.approx(one.statistic)
    assert row["pvalue_raw"][0] == pytest.approx(one.pvalue)
    assert row["pvalue"][0] == pytest.approx(min(3 * one.pvalue, 1.0))
    assert row["std_error"][0] == pytest.approx(one.std_error)


def test_repeated_kfold_splits():
    splits = sig.repeated_kfold_splits(103, n_splits=10, n_repeats=3, seed=7)
    assert len(splits) == 30
    for rep in range(3):
        tests = [splits[rep * 10 + f][1] for f in range(10)]
        assert np.array_equal(np.sort(np.concatenate(tests)), np.arange(103))
        assert {t.size for t in tests} == {10, 11}
        for f in range(10):
            train, test = splits[rep * 10 + f]
            assert np.intersect1d(train, test).size == 0 and train.size + test.size == 103
    again = sig.repeated_kfold_splits(103, n_splits=10, n_repeats=3, seed=7)
    assert all(
        np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(splits, again)
    )
    other = sig.repeated_kfold_splits(103, n_splits=10, n_repeats=3, seed=8)
    assert not np.array_equal(splits[0][1], other[0][1])
    assert not np.array_equal(splits[0][1], splits[10][1])  # repetitions reshuffle
    with pytest.raises(GenexpyInputError, match="n_splits"):
        sig.repeated_kfold_splits(5, n_splits=10)


# =====================================================================================
# Critical difference, cliques, CD diagram
# =====================================================================================


def test_critical_difference_and_cliques():
    ranks = pl.DataFrame(
        {"alternative": ["a", "b", "c", "d", "e"], "mean_rank": [1.0, 1.5, 2.4, 3.0, 4.5]}
    )
    cl = sig.cliques(ranks, cd=1.0)
    # a..b (2.4 - 1.0 > 1), b..c, c..d; e alone
    assert cl["members"].to_list() == [["a", "b"], ["b", "c"], ["c", "d"]]
    cl2 = sig.cliques(ranks, cd=1.5)
    # cd=1.5: d-e differ by exactly 1.5 (not significant: |diff| <= cd)
    assert cl2["members"].to_list() == [["a", "b", "c"], ["b", "c", "d"], ["d", "e"]]
    assert sig.cliques(ranks, cd=0.1).height == 0
    pw = pl.DataFrame(
        {"alternative_1": ["a", "a"], "alternative_2": ["e", "d"], "significant": [True, True]}
    )
    cl3 = sig.cliques(ranks, pairwise=pw)
    assert cl3["members"].to_list() == [["a", "b", "c"], ["b", "c", "d", "e"]]


def test_critical_difference_frame():
    x = _matrix(21, 20, 5) + np.arange(5)
    cd = sig.critical_difference(x, higher_is_better=True)
    assert cd["alternative"].to_list() == ["4", "3", "2", "1", "0"]
    assert cd["cd"][0] == pytest.approx(sig.nemenyi_cd(5, 20))
    assert cd["mean_rank"].is_sorted()


def _layer_values(spec: dict, i: int) -> list[dict]:
    data = spec["layer"][i]["data"]
    return spec["datasets"][data["name"]] if "name" in data else data["values"]


def test_cd_diagram_as_data():
    x = _matrix(22, 20, 5) + np.array([0.0, 0.1, 1.5, 1.6, 3.0])
    names = ["A", "B", "C", "D", "E"]
    frame = sig.critical_difference(x, higher_is_better=True, order=names)
    spec = cd_diagram(frame, title="t").to_dict()
    assert len(spec["layer"]) == 9
    pts = {r["alternative"]: r["mean_rank"] for r in _layer_values(spec, 1)}
    assert pts == pytest.approx(dict(zip(frame["alternative"], frame["mean_rank"])))
    cliq = _layer_values(spec, 6)
    assert len(cliq) == sig.cliques(frame).height
    cd_rows = _layer_values(spec, 7)
    assert cd_rows[0]["x2"] - cd_rows[0]["x"] == pytest.approx(frame["cd"][0])
    assert "CD = " in _layer_values(spec, 8)[0]["text"]
    axis = spec["layer"][0]["encoding"]["x"]
    assert axis["scale"]["domain"] == [1, 5] and axis["axis"]["values"] == [1, 2, 3, 4, 5]
    # the same diagram straight from the matrix
    spec2 = cd_diagram(x, higher_is_better=True, alternatives=names, title="t").to_dict()
    assert _layer_values(spec2, 1) == _layer_values(spec, 1)


def test_cd_diagram_order_colour_reverse():
    x = _matrix(23, 15, 4)
    names = ["w", "x", "y", "z"]
    colours = {"w": "red", "x": "blue", "y": "green", "z": "black"}
    spec = cd_diagram(
        x,
        alternatives=names,
        order=["z", "y", "x", "w"],
        colors=colours,
        reverse=True,
        higher_is_better=False,
    ).to_dict()
    rows = {r["alternative"]: r["y_label"] for r in _layer_values(spec, 1)}
    assert rows["z"] < rows["y"] < rows["x"] < rows["w"]
    col = spec["layer"][1]["encoding"]["color"]
    assert dict(zip(col["scale"]["domain"], col["scale"]["range"])) == colours
    assert spec["layer"][0]["encoding"]["x"]["scale"]["reverse"] is True
    scheme = cd_diagram(x, colors="tableau10", higher_is_better=False).to_dict()
    assert scheme["layer"][1]["encoding"]["color"]["scale"]["scheme"] == "tableau10"
    pw = sig.posthoc_conover(x, p_adjust="holm", higher_is_better=False)
    with_pw = cd_diagram(x, pairwise=pw, higher_is_better=False).to_dict()
    assert _layer_values(with_pw, 7) == [] and _layer_values(with_pw, 8) == []
    assert (
        len(_layer_values(with_pw, 6))
        == sig.cliques(sig.critical_difference(x, higher_is_better=False), pairwise=pw).height
    )
    plain = cd_diagram(x, higher_is_better=False).to_dict()
    assert plain["layer"][1]["encoding"]["color"] == {"value": "black"}
    with pytest.raises(GenexpyInputError, match="order"):
        cd_diagram(x, order=["0", "1"], higher_is_better=False)
    with pytest.raises(GenexpyInputError, match="colour"):
        cd_diagram(x, colors={"0": "red"}, higher_is_better=False)


def test_public_names_are_stable():
    # names other modules, the command line and notebooks import from genexpy_nb.significance
    old = ["P_ADJUST_METHODS", "SignificanceResult", "FriedmanResult", "SkillingsMackResult",
           "CorrectedTTestResult", "ConfidenceInterval", "friedman", "skillings_mack",
           "posthoc_conover", "posthoc_nemenyi", "pairwise_wilcoxon",
           "pairwise_corrected_ttest", "nemenyi_cd", "critical_difference", "cliques",
           "wilcoxon", "mannwhitneyu", "kruskal", "corrected_ttest", "repeated_kfold_splits",
           "adjust_pvalues", "rank_within_conditions"]
    for name in old + sig.__all__:
        assert hasattr(sig, name), name
    assert set(old) <= set(sig.__all__)


def test_roles_one_vocabulary_aliases_and_old_list():
    """target/blocks/alternatives, scikit-posthocs' names as aliases, order= for the levels."""
    long = _long(_matrix(13, 4, 3), ["a", "b", "c"])
    new = sig.friedman(long, target="score", blocks="dataset", alternatives="model",
                       order=["c", "a"], higher_is_better=False)
    old = sig.friedman(long, y_col="score", block_col="dataset", group_col="model",
                       order=["c", "a"], higher_is_better=False)
    assert repr(new) == repr(old) and new.k == 2
    with pytest.warns(DeprecationWarning, match=r"pass the levels as order=\.\.\."):
        listed = sig.friedman(long, target="score", blocks="dataset", group_col="model",
                              alternatives=["c", "a"], higher_is_better=False)
    assert repr(listed) == repr(new)
    with pytest.raises(GenexpyInputError, match="alias y_col"):
        sig.friedman(long, target="score", y_col="other", blocks="dataset",
                     alternatives="model", higher_is_better=False)
    h = sig.kruskal(data=long, target="score", alternatives="model")
    assert repr(h) == repr(sig.kruskal(data=long, y_col="score", group_col="model"))


def test_compare_takes_generalize_as_the_alias_of_blocks():
    long = _long(_matrix(13, 4, 3), ["a", "b", "c"])
    kw = dict(alternatives="model", target="score", higher_is_better=False)
    a = sig.compare(long, blocks="dataset", **kw)
    b = sig.compare(long, generalize="dataset", **kw)
    assert a.mean_ranks.equals(b.mean_ranks) and a.posthoc.equals(b.posthoc)
