"""No certainty from nothing, no work without bound: degenerate and huge legal input.

Every estimate that degenerates (identical alternatives, one condition, one run per task,
overflowing or precision-losing scores, a boolean among numbers, names shown alike)
returns the symmetric or undefined answer with a warning that says why, or refuses with a
:class:`~genexpy_nb.GenexpyInputError` naming the parameter or column and the fix; every
size-driven loop or allocation is checked before it starts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import genexpy_nb as gx
from genexpy_nb import GenexpyInputError
from genexpy_nb import aggregates as ag
from genexpy_nb.significance import DegenerateTestWarning, bayesian_signed_rank, compare


def _long(n_blocks: int = 6, alts=("a", "b", "c"), scores=None) -> pl.DataFrame:
    k = len(alts)
    y = (scores if scores is not None else
         [0.5 + 0.1 * (i % k) + 0.01 * ((7 * i) % 5) for i in range(n_blocks * k)])
    return pl.DataFrame({"d": [f"d{i // k}" for i in range(n_blocks * k)],
                         "m": list(alts) * n_blocks, "acc": y})


def _every_reader_of_scores(df):
    """The analyses that read a score column, each as a thunk."""
    return [
        lambda: compare(df, alternatives="m", target="acc", blocks="d", higher_is_better=True),
        lambda: gx.Study(df, alternatives="m", target="acc", generalize="d",
                         higher_is_better=True),
        lambda: ag.interval_estimates(df, "mean", alternatives="m", target="acc", task="d",
                                      reps=10),
    ]


# ---- the Bayesian signed-rank test: identical alternatives ---------------------------------


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(x=st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=30),
       hib=st.booleans(), seed=st.integers(0, 1000))
def test_identical_alternatives_without_rope_are_symmetric(x, hib, seed):
    x = np.array(x)
    with pytest.warns(DegenerateTestWarning, match="symmetric"):
        res = bayesian_signed_rank(x, x.copy(), rope=0, higher_is_better=hib,
                                   nsamples=500, seed=seed)
    assert res.probs == (0.5, 0.0, 0.5)
    # swapping the two changes nothing: no side is picked
    with pytest.warns(DegenerateTestWarning):
        assert bayesian_signed_rank(x.copy(), x, rope=0, higher_is_better=not hib,
                                    nsamples=500, seed=seed).probs == (0.5, 0.0, 0.5)


def test_identical_alternatives_with_a_rope_are_equivalent():
    x = np.linspace(0.6, 0.9, 12)
    res = bayesian_signed_rank(x, x.copy(), rope=0.01, higher_is_better=True)
    assert res.probs == (0.0, 1.0, 0.0)


def test_the_bayesian_section_says_why_it_decides_nothing():
    from genexpy_nb.answers.beyond_sections import bayesian_section

    df = _long(8, scores=[0.7, 0.7, 0.5] * 8)  # a and b identical on every block
    cmp = compare(df, alternatives="m", target="acc", blocks="d", higher_is_better=True)
    with pytest.warns(DegenerateTestWarning, match="symmetric"):
        sec = bayesian_section(cmp, rope=0, against="a", nsamples=500)
    row = sec.tables["bayesian_signed_rank"].filter(pl.col("alternative") == "b").row(
        0, named=True)
    assert (row["p_alternative_better"], row["p_against_better"]) == (0.5, 0.5)
    assert row["decision"] == "no decision"
    from genexpy_nb.answers.document import render_markdown

    assert "symmetric" in render_markdown("r", [sec])


# ---- rank probabilities ---------------------------------------------------------------------


def _study(n_blocks=6):
    return gx.Study(_long(n_blocks), alternatives="m", target="acc", generalize="d",
                    higher_is_better=True)


@pytest.mark.parametrize("seed", [-1, "abc", 1.5, True])
def test_rank_probabilities_bad_seed(seed):
    with pytest.raises(GenexpyInputError, match="seed"):
        gx.rank_probabilities(_study(), rep=10, seed=seed)


def test_rank_probabilities_rep_is_capped():
    with pytest.raises(GenexpyInputError, match=r"rep=1,000,000,000 .*rep=2000"):
        gx.rank_probabilities(_study(), rep=10**9)


def test_rank_probabilities_from_one_condition_are_refused():
    with pytest.raises(GenexpyInputError, match="at least 2 conditions"):
        gx.rank_probabilities(_study(1), rep=10)


# ---- aggregates: one run per task, huge profiles -------------------------------------------


def test_intervals_from_one_run_per_task_are_undefined():
    rng = np.random.default_rng(0)
    scores = {"one": rng.random((1, 8)), "many": rng.random((5, 8))}
    with pytest.warns(UserWarning, match=r"1 alternative\(s\) have one run per task \('one'\)"):
        out = ag.interval_estimates(scores, "mean", reps=200)
    one = out.filter(pl.col("alternative") == "one")
    many = out.filter(pl.col("alternative") == "many")
    assert one["low"].is_nan().all() and one["high"].is_nan().all()
    assert np.isfinite(one["estimate"][0])
    assert (many["low"] < many["high"]).all()
    # resampling the tasks too defines the interval: no warning
    out = ag.interval_estimates(scores, "mean", reps=200, task_bootstrap=True)
    assert out["low"].is_finite().all()
    with pytest.warns(UserWarning, match="one run per task"):
        prof = ag.performance_profile(scores, 11, reps=50)
    assert prof.filter(pl.col("alternative") == "one")["low"].is_nan().all()


def test_performance_profile_cap_counts_replicates():
    scores = {"a": np.random.default_rng(0).random((3, 4))}
    with pytest.raises(GenexpyInputError, match=r"reps=2,000 replicates x 100,000 thresholds"):
        ag.performance_profile(scores, 100_000, reps=2000)


# ---- scores float64 cannot hold ---------------------------------------------------------------


def test_scores_near_the_largest_float_are_refused():
    """Where scores are averaged or differenced; a Study only ranks them (allowed)."""
    df = _long(scores=[1e308 * (0.5 + 0.1 * (i % 3)) for i in range(18)])
    for run in _every_reader_of_scores(df)[::2]:
        with pytest.raises(GenexpyInputError, match=r"'acc'.*Rescale"):
            run()
    with pytest.raises(GenexpyInputError, match="'a'.*Rescale"):
        ag.interval_estimates({"a": np.full((2, 3), 1e308)}, reps=10)


def test_integers_beyond_2_to_53_are_refused():
    df = _long(scores=[2**60 + i for i in range(18)])
    for run in _every_reader_of_scores(df):
        with pytest.raises(GenexpyInputError, match=r"'acc'.*2\*\*53"):
            run()
    with pytest.raises(GenexpyInputError, match=r"'a'.*2\*\*53"):
        ag.interval_estimates({"a": np.full((2, 3), 2**60, dtype=np.int64)}, reps=10)
    # exact integers below 2**53 are fine
    ok = _long(scores=[2**52 + 3 * i for i in range(18)])
    assert gx.Study(ok, alternatives="m", target="acc", generalize="d",
                    higher_is_better=True) is not None


def test_a_boolean_among_numbers_in_pandas_is_refused():
    pdf = _long().to_pandas()
    pdf["acc"] = pdf["acc"].astype(object)
    pdf.loc[4, "acc"] = True
    before = pdf.copy()
    for run in _every_reader_of_scores(pdf):
        with pytest.raises(GenexpyInputError, match=r"column 'acc' holds numbers and 1 boolean"):
            run()
    pd.testing.assert_frame_equal(pdf, before)  # the user's frame is left as it was


# ---- names shown alike --------------------------------------------------------------------------


@pytest.mark.parametrize("twin", ["a\x00", "a\u202e", "a\u2028", " a", "a\x1b"])
def test_alternatives_shown_alike_are_refused(twin):
    df = _long(alts=("a", twin, "c"))
    with pytest.raises(GenexpyInputError, match="show them alike"):
        compare(df, alternatives="m", target="acc", blocks="d", higher_is_better=True)


# ---- the data folder: a folder or an unreadable file where the data file should be -----------


def test_data_dir_holding_a_folder_of_the_file_name(tmp_path, monkeypatch):
    from genexpy_nb.io.public import DATA_DIR_ENV, fetch_public_file

    (tmp_path / "encoders_results.parquet").mkdir()
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    with pytest.raises(GenexpyInputError, match="is a folder, not the data file"):
        fetch_public_file("encoders_results.parquet")
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "encoders_results.parquet" / ".." / "f"))
    (tmp_path / "f").write_text("x")
    with pytest.raises(GenexpyInputError, match="is a file, not a folder"):
        fetch_public_file("encoders_results.parquet")


def test_data_dir_with_an_unreadable_file(tmp_path, monkeypatch):
    import genexpy_nb.io.public as data

    (tmp_path / "encoders_results.parquet").write_bytes(b"PAR1")

    def denied(path):  # as a file without read permission (root reads every file)
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(data, "file_sha256", denied)
    monkeypatch.setenv(data.DATA_DIR_ENV, str(tmp_path))
    with pytest.raises(GenexpyInputError, match=r"cannot be read \(Permission denied\).*chmod"):
        data.fetch_public_file("encoders_results.parquet")


# ---- text tables: bare carriage returns, UTF-16 --------------------------------------------------


@pytest.mark.parametrize("encode", [
    lambda t: t.replace("\n", "\r").encode(), lambda t: t.encode("utf-16"),
    lambda t: t.encode("utf-16-le"), lambda t: t.encode("utf-16-be"),
    lambda t: t.replace("\n", "\r\n").encode("utf-16")], ids=[
    "CR line ends", "UTF-16 with BOM", "UTF-16-LE", "UTF-16-BE", "UTF-16 CRLF"])
def test_cr_only_and_utf16_tables_are_read(tmp_path, encode):
    from genexpy_nb.io.public import read_results

    text = "model,dataset,acc\nä,x,0.5\nb,x,0.75\n"
    p = tmp_path / "r.csv"
    p.write_bytes(encode(text))
    df = read_results(p)
    assert df.columns == ["model", "dataset", "acc"]
    assert df.rows() == [("ä", "x", 0.5), ("b", "x", 0.75)]


def test_a_study_refuses_alternatives_shown_alike():
    df = _long(alts=("a", "a\u2028", "c"))
    with pytest.raises(GenexpyInputError, match=r"'a' and 'a\\u2028' of column 'm'.*alike"):
        gx.Study(df, alternatives="m", target="acc", generalize="d", higher_is_better=True)
