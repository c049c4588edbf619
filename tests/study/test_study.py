import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from genexpy_nb import GenexpyInputError
from genexpy_nb.study import Study


def toy(**over):
    rows = []
    rng = np.random.default_rng(0)
    for model in ("m1", "m2"):
        for ds in range(6):
            for alt in ("a", "b", "c"):
                for seed in range(2):
                    rows.append({"model": model, "dataset": f"d{ds}", "alt": alt, "seed": seed,
                                 "metric": "acc", "acc": float(rng.random())})
    df = pl.DataFrame(rows)
    kw = dict(alternatives="alt", target="acc", generalize="dataset", design="model",
              average_over="seed", held_constant={"metric": "acc"}, higher_is_better=True)
    kw.update(over)
    return df, kw


def test_roles_averaging_and_ranks():
    df, kw = toy()
    before = df.clone()
    st = Study(df, **kw)
    assert df.equals(before)  # never mutates the caller's frame
    assert st.configurations["N"].to_list() == [6, 6]
    s = st.sample(("m1",))
    assert s.rankings.shape == (6, 3)
    # ranks from the seed-averaged score
    sub = df.filter(pl.col("model") == "m1", pl.col("dataset") == "d0")
    means = sub.group_by("alt").agg(pl.col("acc").mean()).sort("alt")["acc"].to_numpy()
    expect = np.unique(-means, return_inverse=True)[1]
    assert s.rankings[s.conditions.index("d0")].tolist() == expect.tolist()
    assert st.sample({"model": "m2"}).config_id == 1


@pytest.mark.parametrize("convert", [lambda d: d.to_pandas(), lambda d: d.to_arrow(),
                                     lambda d: d.lazy()])
def test_accepts_pandas_arrow_lazy(convert):
    df, kw = toy()
    a = Study(df, **kw)
    b = Study(convert(df), **kw)
    np.testing.assert_array_equal(a.sample(0).rankings, b.sample(0).rankings)


def test_pandas_frame_not_mutated():
    df, kw = toy()
    pdf = df.to_pandas()
    snapshot = pdf.copy()
    Study(pdf, **kw)
    pd.testing.assert_frame_equal(pdf, snapshot)


def test_lower_is_better():
    df = pl.DataFrame({"ds": ["x"] * 3, "alt": ["a", "b", "c"], "err": [0.1, 0.3, 0.1]})
    st = Study(df, alternatives="alt", target="err", generalize="ds", higher_is_better=False)
    assert st.sample(0).rankings.tolist() == [[0, 1, 0]]


def test_several_generalizability_factors_combined():
    df = pl.DataFrame({"ds": ["x", "x", "y", "y"] * 2, "fold": [0, 0, 0, 0, 1, 1, 1, 1],
                       "alt": ["a", "b"] * 4, "s": [1.0, 2, 3, 4, 5, 6, 8, 7]})
    st = Study(df, alternatives="alt", target="s", generalize=["ds", "fold"],
               higher_is_better=True)
    assert st.sample(0).N == 4
    assert "x | 0" in st.sample(0).conditions


def missing_table():
    # 10 conditions x 5 alternatives; condition c0 misses 2/5 (dropped at tol 0.2);
    # alternative e misses 3 of the remaining 9 (> 20%: dropped); d misses 1 (imputed)
    rows = []
    for c in range(10):
        for a in "abcde":
            if c == 0 and a in "ab":
                continue
            if a == "e" and c in (1, 2, 3):
                continue
            if a == "d" and c == 4:
                continue
            rows.append({"cond": f"c{c}", "alt": a, "err": float((c * 7 + ord(a)) % 5) / 10})
    return pl.DataFrame(rows)


def test_missing_results_policy_reported():
    st = Study(missing_table(), alternatives="alt", target="err", generalize="cond",
               higher_is_better=False)
    r = st.report
    assert r.conditions_total == 10 and r.conditions_dropped == 1
    assert r.alternatives_dropped == ("e",)
    assert r.cells_imputed == 1
    assert st.alternatives == ("a", "b", "c", "d")
    s = st.sample(0)
    row = s.rankings[s.conditions.index("c4")]
    observed = row[:3]
    # lower-is-better error: the missing result is the worst tier, one below all observed
    assert row[3] == observed.max() + 1
    assert s.imputed[s.conditions.index("c4"), 3]
    # raw scores for RBF imputed with the worst observed error of the condition
    sc = s.scores[s.conditions.index("c4")]
    assert sc[3] == sc[:3].max()
    assert "imputed" in str(r) and r.to_frame().height >= 8


def test_missing_tolerances_configurable():
    st = Study(missing_table(), alternatives="alt", target="err", generalize="cond",
               higher_is_better=False, tol_missing_alternatives=0.5,
               tol_missing_conditions=0.5)
    assert st.report.conditions_dropped == 0 and st.report.alternatives_dropped == ()


# ---------------- bad input ---------------------------------------------------------------
def test_missing_column():
    df, kw = toy(target="accuracy")
    with pytest.raises(GenexpyInputError, match=r"\['accuracy'\] not found"):
        Study(df, **kw)


def test_non_numeric_target():
    df, kw = toy()
    df = df.with_columns(pl.col("acc").cast(pl.String))
    with pytest.raises(GenexpyInputError, match="must be numeric"):
        Study(df, **kw)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), None])
def test_nan_inf_targets(bad):
    df, kw = toy()
    df = df.with_columns(pl.when(pl.int_range(pl.len()) == 3).then(bad)
                         .otherwise(pl.col("acc")).alias("acc"))
    with pytest.raises(GenexpyInputError, match="missing, NaN or infinite"):
        Study(df, **kw)
    st = Study(df, invalid_target="drop", **kw)
    assert st.report.rows_invalid_target == 1


def test_duplicate_rows_name_unassigned_columns():
    df, kw = toy()
    kw.pop("average_over")
    with pytest.raises(GenexpyInputError, match="duplicate rows.*seed"):
        Study(df, **kw)


def test_factor_with_two_roles():
    df, kw = toy(design=["model", "dataset"])
    with pytest.raises(GenexpyInputError, match="'dataset' is given several roles"):
        Study(df, **kw)


def test_fewer_than_two_alternatives():
    df, kw = toy()
    with pytest.raises(GenexpyInputError, match="at least 2 alternatives"):
        Study(df.filter(pl.col("alt") == "a"), **kw)


def test_higher_is_better_required_bool():
    df, kw = toy(higher_is_better="yes")
    with pytest.raises(GenexpyInputError, match="higher_is_better"):
        Study(df, **kw)


def test_held_constant_unknown_level():
    df, kw = toy(held_constant={"metric": "f1"})
    with pytest.raises(GenexpyInputError, match="level 'f1' not found"):
        Study(df, **kw)


def test_unknown_configuration():
    df, kw = toy()
    st = Study(df, **kw)
    with pytest.raises(GenexpyInputError, match="no configuration"):
        st.sample(("m9",))


def test_not_a_table():
    with pytest.raises(GenexpyInputError, match="expected a polars, pandas or pyarrow"):
        Study([1, 2, 3], alternatives="a", target="t", generalize="g", higher_is_better=True)


def test_arrow_table_roundtrip_types():
    df, kw = toy()
    assert Study(pa.Table.from_pandas(df.to_pandas()), **kw).na == 3


# ---------------- nulls and mixed types in factor columns -----------------------------------
def _null_at(df, col, row=3):
    return df.with_columns(pl.when(pl.int_range(pl.len()) == row).then(None)
                           .otherwise(pl.col(col)).alias(col))


@pytest.mark.parametrize("col,role", [("alt", "alternatives"), ("dataset", "generalize"),
                                      ("model", "design"), ("seed", "average_over")])
def test_null_in_a_factor_column_is_named_with_count(col, role):
    df, kw = toy()
    with pytest.raises(GenexpyInputError, match=rf"{role} column '{col}' has 1 null/NaN value"):
        Study(_null_at(df, col), **kw)
    # pandas: None and NaN in an object column
    pdf = df.to_pandas()
    pdf[col] = pdf[col].astype(object)
    pdf.loc[[1, 5], col] = [None, np.nan]
    with pytest.raises(GenexpyInputError, match=rf"'{col}' has 2 null/NaN"):
        Study(pdf, **kw)


def test_nan_level_in_a_float_factor_column():
    df, kw = toy()
    df = df.with_columns(pl.col("dataset").str.slice(1).cast(pl.Float64))
    df = df.with_columns(pl.when(pl.col("dataset") == 2).then(float("nan"))
                         .otherwise(pl.col("dataset")).alias("dataset"))
    with pytest.raises(GenexpyInputError, match="generalize column 'dataset' has 12 null/NaN"):
        Study(df, **kw)


def test_nested_factor_column_refused():
    df, kw = toy()
    with pytest.raises(GenexpyInputError, match="'alt' has type List"):
        Study(df.with_columns(pl.concat_list("alt").alias("alt")), **kw)


def test_pandas_object_target_mixing_numbers_and_text_is_named():
    df, kw = toy()
    pdf = df.to_pandas()
    pdf["acc"] = pdf["acc"].astype(object)
    pdf.loc[4, "acc"] = "n/a"
    with pytest.raises(GenexpyInputError,
                       match=r"column 'acc' mixes value types.*'n/a'.*to_numeric"):
        Study(pdf, **kw)
    pdf = df.to_pandas()
    pdf["alt"] = pdf["alt"].astype(object)
    pdf.loc[0, "alt"] = 7
    with pytest.raises(GenexpyInputError, match=r"column 'alt' mixes value types.*7"):
        Study(pdf, **kw)


def test_empty_table_and_collapsing_levels():
    df, kw = toy()
    with pytest.raises(GenexpyInputError, match="the table is empty"):
        Study(df.head(0), **kw)
    # ("a | b", "c") and ("a", "b | c") are one condition once joined as text: refused
    clash = pl.DataFrame({"g1": ["a | b", "a | b", "a", "a"], "g2": ["c", "c", "b | c", "b | c"],
                          "alt": ["x", "y"] * 2, "s": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(GenexpyInputError, match="collapse to the same"):
        Study(clash, alternatives="alt", target="s", generalize=["g1", "g2"],
              higher_is_better=True)


def test_extreme_finite_scores_rank_without_warnings():
    import warnings

    df = pl.DataFrame({"ds": ["x", "x", "y", "y"], "alt": ["a", "b"] * 2,
                       "s": [1e308, -1e308, -1e308, 1e308]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        st = Study(df, alternatives="alt", target="s", generalize="ds", higher_is_better=True)
    assert st.sample(0).rankings.tolist() == [[0, 1], [1, 0]]


# ---------------- near-ties ---------------------------------------------------------------
def test_near_ties_are_ties_and_exact_mode_is_available():
    from genexpy_nb.study import rank_scores

    assert rank_scores([[0.1 + 0.2, 0.3, 0.2]], True).tolist() == [[0, 0, 1]]
    assert rank_scores([[0.1 + 0.2, 0.3, 0.2]], True, rtol=0, atol=0).tolist() == [[0, 1, 2]]
    # a chain of near-ties is one tier (sort, then a new tier where the gap exceeds tol)
    row = np.array([[1.0, 1.0 + 6e-10, 1.0 + 12e-10, 2.0]])
    assert rank_scores(row, True, rtol=1e-9).tolist() == [[1, 1, 1, 0]]
    assert rank_scores(row, True, rtol=1e-10).tolist() == [[3, 2, 1, 0]]
    # atol in target units
    assert rank_scores([[0.50, 0.51, 0.9]], True, atol=0.02).tolist() == [[1, 1, 0]]
    for bad in (dict(rtol=-1e-9), dict(rtol=1.0), dict(atol=float("nan")), dict(atol="x")):
        with pytest.raises(GenexpyInputError, match="tie"):
            rank_scores([[0.1, 0.2]], True, **bad)


def test_study_rankings_invariant_to_affine_rescaling_with_noise():
    df, kw = toy()
    # two alternatives equal up to averaging noise in every condition
    base = df.filter(pl.col("alt") == "a").with_columns(pl.lit("b").alias("alt"),
                                                        (pl.col("acc") + 0.1 + 0.2 - 0.3))
    df = pl.concat([df.filter(pl.col("alt") != "b"), base])
    exact = Study(df, **kw, tie_rtol=0, tie_atol=0)
    ref = Study(df, **kw)
    assert (ref.sample(0).rankings[:, 0] == ref.sample(0).rankings[:, 1]).all()
    assert not all((s.rankings[:, 0] == s.rankings[:, 1]).all() for s in exact.samples())
    for a, b in ((3.0, 1.0), (100.0, -7.0), (1e-3, 0.5)):
        st = Study(df.with_columns(pl.col("acc") * a + b), **kw)
        for s0, s1 in zip(ref.samples(), st.samples(), strict=True):
            np.testing.assert_array_equal(s0.rankings, s1.rankings)
    # flipping the direction (error = 1 - accuracy) gives the same rankings
    flip = Study(df.with_columns((1 - pl.col("acc")).alias("acc")),
                 **{**kw, "higher_is_better": False})
    for s0, s1 in zip(ref.samples(), flip.samples(), strict=True):
        np.testing.assert_array_equal(s0.rankings, s1.rankings)


# ---------------- rankings given directly ------------------------------------------------
def test_negative_ranks_and_empty_samples_refused():
    from genexpy_nb import Jaccard, Mallows
    from genexpy_nb.generalizability.mmd import mmd, mmd_distribution

    k = Mallows().resolve(3)
    with pytest.raises(GenexpyInputError, match="negative tiers"):
        mmd(np.array([[0, -1, 2]]), np.array([[0, 1, 2]]), k)
    with pytest.raises(GenexpyInputError, match="negative tiers"):
        Jaccard(1).resolve(3)([0, 1, -2], [0, 1, 2])
    for x in (np.zeros((0, 3), int), []):
        with pytest.raises(GenexpyInputError, match="sample x is empty"):
            mmd(x, np.array([[0, 1, 2]]), k)
    with pytest.raises(GenexpyInputError, match="sample is empty"):
        mmd_distribution(np.zeros((0, 3), int), k, 1)


def _subsample_via_table(study, sample, idx):
    """The obvious way: write the chosen results back as a table and build a Study."""
    na = len(sample.alternatives)
    keep = ~np.asarray(sample.imputed)[idx].ravel()
    df = pl.DataFrame({
        "condition": pl.Series(np.asarray(sample.conditions, dtype=object)[np.repeat(idx, na)]
                               [keep].tolist(), dtype=pl.String),
        "alternative": pl.Series(np.tile(np.asarray(sample.alternatives, dtype=object),
                                         idx.size)[keep].tolist(), dtype=pl.String),
        "score": np.asarray(sample.scores, dtype=np.float64)[idx].ravel()[keep],
    })
    return Study(df, alternatives="alternative", target="score", generalize="condition",
                 higher_is_better=study.higher_is_better, tol_missing_alternatives=1.0,
                 tol_missing_conditions=1.0, tie_rtol=study.tie_rtol, tie_atol=study.tie_atol)


@pytest.mark.parametrize("hib", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_subsample_equals_the_study_built_from_the_table(seed, hib):
    rng = np.random.default_rng(seed)
    N, na = 30, 6
    rows = []
    for d in range(N):
        for a in range(na):
            if a == 5 and d % 3:  # alternative 'a5' is missing in most conditions
                continue
            if rng.random() < 0.15:  # other results missing at random
                continue
            rows.append({"design": "x", "dataset": f"d{d:02d}", "model": f"a{a}",
                         "score": float(rng.integers(0, 4)) / 4})  # many ties
    study = Study(pl.DataFrame(rows), alternatives="model", target="score",
                  generalize="dataset", design="design", higher_is_better=hib,
                  tol_missing_alternatives=0.6, tol_missing_conditions=0.9)
    sample = study.sample(0)
    for size in (2, 5, 12, sample.N):
        idx = np.sort(rng.choice(sample.N, size=size, replace=False))
        fast = study._subsample(sample, idx)
        slow = _subsample_via_table(study, sample, idx)
        a, b = fast.sample(0), slow.sample(0)
        assert fast.alternatives == slow.alternatives
        assert a.conditions == b.conditions
        np.testing.assert_array_equal(a.rankings, b.rankings)
        np.testing.assert_array_equal(a.scores, b.scores)
        np.testing.assert_array_equal(a.imputed, b.imputed)
        assert fast.configurations.equals(slow.configurations)
        assert fast.report.cells_imputed == slow.report.cells_imputed
        assert fast.report.cells_total == slow.report.cells_total
        # built through one constructor: every setting, the same attributes as Study(...)
        assert fast.settings() == slow.settings()
        assert set(vars(fast)) == set(vars(slow))


def test_levels_are_sorted_like_python_and_polars():
    """Alternatives and conditions in Python's sorted order of their text (also for
    non-ASCII names), configurations in the sorted order of the design levels (numbers as
    numbers: 10 after 9)."""
    rng = np.random.default_rng(3)
    alts = ["b", "A", "é", "a", "Z", "ä", "a b", "10", "9"]
    rows = []
    for depth in (10, 9, 2):
        for lr in ("x", "é", "B"):
            for ds in ("ß", "s", "S", "zz", "a|b"):
                for part in (1, 0):
                    for a in alts:
                        rows.append({"depth": depth, "lr": lr, "ds": ds, "part": part,
                                     "alt": a, "y": float(rng.random())})
    df = pl.DataFrame(rows)
    st = Study(df.sample(fraction=1.0, shuffle=True, seed=1), alternatives="alt", target="y",
               generalize=["ds", "part"], design=["depth", "lr"], higher_is_better=True)
    assert list(st.alternatives) == sorted(alts)
    conf = st.configurations
    assert conf.select("depth", "lr").rows() == sorted(
        {(d, lr) for d in (10, 9, 2) for lr in ("x", "é", "B")})
    for s in st.samples():
        assert list(s.conditions) == sorted(f"{ds} | {p}" for ds in ("ß", "s", "S", "zz", "a|b")
                                           for p in (1, 0))
        sub = df.filter((pl.col("depth") == s.levels["depth"]) & (pl.col("lr") == s.levels["lr"]))
        for i, cond in enumerate(s.conditions):
            ds, part = cond.split(" | ")
            want = (sub.filter((pl.col("ds") == ds) & (pl.col("part") == int(part)))
                    .sort("alt").get_column("y").to_numpy())
            np.testing.assert_array_equal(s.scores[i], want)


# ---- replicates, hints (issue 31) -------------------------------------------------------
def folds_table(drop_b_from=5, drop_c=True):
    rows = []
    for ds in range(6):
        for alt in "abc":
            for fold in range(10):
                if alt == "b" and fold >= drop_b_from:
                    continue
                if drop_c and alt == "c" and ds == 2 and fold == 3:
                    continue
                rows.append({"dataset": f"d{ds}", "alt": alt, "fold": fold, "run": 0,
                             "acc": 0.5 + 0.01 * fold + 0.1 * "abc".index(alt)})
    return pl.DataFrame(rows)


FOLDS = dict(alternatives="alt", target="acc", generalize="dataset", average_over="fold",
             higher_is_better=True)


def test_unequal_replicates_reported():
    st = Study(folds_table(), **FOLDS)
    r = st.report
    assert r.replicates_expected == 10
    assert r.short_replicates == (("b", 6, 5, 5), ("c", 1, 9, 9))
    text = str(r)
    assert "averaged over fewer than 10 replicates: b (6 results over 5); c (1 result over 9)" \
        in text
    items = dict(r.to_frame().iter_rows())
    assert items["results averaged over fewer than 10 replicates"] == 7
    assert r.replicates_frame()["alternative"].to_list() == ["b", "c"]
    # the averages themselves: b over its 5 folds
    b = st.sample(0).scores[:, st.alternatives.index("b")]
    assert b == pytest.approx(np.full(6, 0.6 + 0.01 * 2))
    # complete replicates: nothing to say, and the report keeps its usual lines
    full = Study(folds_table(drop_b_from=10, drop_c=False), **FOLDS).report
    assert full.short_replicates == () and "fewer than" not in str(full).split(
        "results averaged")[0]
    assert dict(full.to_frame().iter_rows())["results averaged over fewer than 10 replicates"] \
        == 0
    df, kw = toy()
    kw.pop("average_over")
    assert "replicates" not in str(Study(df.filter(pl.col("seed") == 0), **kw).report)


def test_require_complete_replicates_names_what_is_missing():
    with pytest.raises(GenexpyInputError, match=r"7 result\(s\) have fewer than 10 replicates"
                       r".*\['b', 'c'\].*dataset='d0', alt='b' misses \(fold=5\), \(fold=6\)"):
        Study(folds_table(), require_complete_replicates=True, **FOLDS)
    Study(folds_table(drop_b_from=10, drop_c=False), require_complete_replicates=True, **FOLDS)
    with pytest.raises(GenexpyInputError, match="require_complete_replicates must be"):
        Study(folds_table(), require_complete_replicates="yes", **FOLDS)


def test_duplicate_rows_name_the_column_that_varies():
    df, kw = toy()
    kw.pop("average_over")
    with pytest.raises(GenexpyInputError, match="column 'seed' varies: probably a factor"):
        Study(df, **kw)
    one = df.filter(pl.col("seed") == 0)
    with pytest.raises(GenexpyInputError, match="identical in every column.*df.unique"):
        Study(pl.concat([one, one]), **kw)
    with pytest.raises(GenexpyInputError, match="only their results \\('acc'\\) differ"):
        Study(df.drop("seed"), **kw)


def test_blocks_is_an_alias_of_generalize():
    df = pl.DataFrame({"dataset": ["d1", "d1", "d2", "d2"], "model": ["a", "b"] * 2,
                       "acc": [0.9, 0.8, 0.7, 0.75]})
    kw = dict(alternatives="model", target="acc", higher_is_better=True)
    a = Study(df, generalize="dataset", **kw)
    b = Study(df, blocks="dataset", **kw)
    assert a.generalize == b.generalize and np.array_equal(a.sample(0).rankings,
                                                           b.sample(0).rankings)
    with pytest.raises(GenexpyInputError, match="alias blocks"):
        Study(df, generalize="dataset", blocks="model", **kw)
    with pytest.raises(GenexpyInputError, match="generalize"):
        Study(df, **kw)
