"""Rank probabilities, intervals and the top group, against a naive twin."""

import naive
import numpy as np
import polars as pl
import pytest
import toys
from hypothesis import given, settings
from hypothesis import strategies as st

import genexpy_nb as gx
from genexpy_nb.leaderboards.rank_uncertainty import rank_intervals, rank_probabilities, top_group


def _study(scores, higher_is_better=True):
    return toys.scores_study(scores, higher_is_better, target="acc", block_names="d{}")


def _matrix(frame):
    alts = frame["alternative"].unique(maintain_order=True).to_list()
    return frame["probability"].to_numpy().reshape(len(alts), -1)


def test_dominant_alternative_singled_out():
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 0.8, size=(15, 4))
    x[:, 2] = 0.95  # best everywhere
    study = _study(x)
    p = rank_probabilities(study, rep=500, seed=3)
    assert p.columns == ["alternative", "rank", "probability"]
    m2 = p.filter(pl.col("alternative") == "m2")
    assert m2.filter(pl.col("rank") == 1)["probability"].item() == 1.0
    assert top_group(p) == ["m2"]
    iv = rank_intervals(p).filter(pl.col("alternative") == "m2")
    assert iv["rank_low"].item() == 1 and iv["rank_high"].item() == 1
    # the direction matters: as an error, m2 is last everywhere
    q = rank_probabilities(_study(x, higher_is_better=False), rep=200, seed=3)
    assert q.filter((pl.col("alternative") == "m2") & (pl.col("rank") == 4))[
        "probability"].item() == 1.0


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 9), st.integers(2, 5), st.integers(0, 2**31), st.booleans())
def test_equals_naive_twin(n, na, seed, coarse):
    rng = np.random.default_rng(seed)
    # coarse scores make ties within conditions and between mean ranks
    x = rng.integers(0, 3, size=(n, na)).astype(float) if coarse else rng.normal(size=(n, na))
    study = _study(x)
    got = _matrix(rank_probabilities(study, rep=60, seed=seed))
    want = naive.rank_probabilities(study.sample(0).rankings, 60, seed)
    np.testing.assert_allclose(got, want, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=0), 1.0, atol=1e-12)


def test_all_tied_share_places_evenly():
    study = _study(np.ones((5, 3)))
    got = _matrix(rank_probabilities(study, rep=10, seed=0))
    np.testing.assert_allclose(got, np.full((3, 3), 1 / 3))
    assert top_group(rank_probabilities(study, rep=10, seed=0)) == ["m0", "m1", "m2"]


def test_same_seed_same_bits_other_seed_other_draws():
    x = np.random.default_rng(5).normal(size=(12, 5))
    study = _study(x)
    a = rank_probabilities(study, rep=300, seed=11)
    b = rank_probabilities(study, rep=300, seed=11)
    assert a.equals(b)
    c = rank_probabilities(study, rep=300, seed=12)
    assert not a.equals(c)


def test_bad_input_named():
    study = _study(np.random.default_rng(0).normal(size=(4, 3)))
    with pytest.raises(gx.GenexpyInputError, match="rep"):
        rank_probabilities(study, rep=0)
    with pytest.raises(gx.GenexpyInputError, match="Study"):
        rank_probabilities(np.zeros((3, 3)))
    p = rank_probabilities(study, rep=20)
    with pytest.raises(gx.GenexpyInputError, match="confidence_level"):
        rank_intervals(p, confidence_level=1.5)
    with pytest.raises(gx.GenexpyInputError, match="rank_probabilities"):
        top_group(pl.DataFrame({"x": [1]}))


def test_several_configurations_need_config():
    rng = np.random.default_rng(0)
    df = pl.DataFrame({"dataset": [f"d{i}" for i in range(4) for _ in range(2)] * 2,
                       "model": ["a", "b"] * 8, "cfg": ["p"] * 8 + ["q"] * 8,
                       "acc": rng.normal(size=16)})
    study = gx.Study(df, alternatives="model", target="acc", generalize="dataset",
                     design="cfg", higher_is_better=True)
    with pytest.raises(gx.GenexpyInputError, match="config="):
        rank_probabilities(study, rep=10)
    p = rank_probabilities(study, rep=10, config=("q",))
    assert p.height == 4


def test_top_level_names():
    assert gx.rank_probabilities is rank_probabilities
    assert gx.rank_intervals is rank_intervals and gx.top_group is top_group


@pytest.mark.parametrize("rep, na", [(1, 1), (3, 2), (50, 7), (200, 40), (20, 300)])
@pytest.mark.parametrize("coarse", [True, False])
def test_place_counts_from_sorted_scores_equal_the_pairwise_count(rep, na, coarse):
    # each replicate's tie groups from its sorted scores (O(na log na)) give the counts of
    # the pairwise comparisons (O(na^2)), bit for bit (the same 1/k terms, summed in order)
    from genexpy_nb.leaderboards.rank_uncertainty import _place_counts

    rng = np.random.default_rng(rep * 1000 + na)
    sums = (rng.integers(0, 6, (rep, na)) * 0.5 if coarse
            else rng.normal(size=(rep, na)))
    lower = (sums[:, None, :] < sums[:, :, None]).sum(axis=2)
    k = (sums[:, None, :] == sums[:, :, None]).sum(axis=2)
    diff = np.zeros((na, na + 1))
    a = np.broadcast_to(np.arange(na), (rep, na))
    np.add.at(diff, (a.ravel(), lower.ravel()), 1.0 / k.ravel())
    np.add.at(diff, (a.ravel(), (lower + k).ravel()), -1.0 / k.ravel())
    want = np.cumsum(diff, axis=1)[:, :na]
    got = _place_counts(sums)
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))


def _intervals_one_by_one(p, c):
    """rank_intervals' arithmetic, one filter per alternative (the twin of the grouping)."""
    tail, eps, rows = (1 - c) / 2, 1e-12, []
    for alt in p["alternative"].unique(maintain_order=True).to_list():
        sub = p.filter(pl.col("alternative") == alt).sort("rank")
        r, q = sub["rank"].to_numpy(), sub["probability"].to_numpy()
        cdf = np.cumsum(q)
        rows.append((alt, float((r * q).sum()), float(q[r == 1].sum()),
                     int(r[np.argmax(cdf > tail + eps)]), int(r[np.argmax(cdf >= 1 - tail - eps)])))
    return rows


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("c", [0.5, 0.95])
def test_rank_intervals_equal_one_alternative_at_a_time(shuffle, c):
    # one grouping pass over the frame, against a filter per alternative: the same bits,
    # the alternatives in order of first appearance, the rows in any order
    x = np.random.default_rng(4).normal(size=(12, 9))
    x[:, 3] = x[:, 2]  # tied alternatives
    p = rank_probabilities(_study(x), rep=300, seed=2)
    if shuffle:
        p = p.sample(fraction=1.0, shuffle=True, seed=1)
    got = rank_intervals(p, confidence_level=c)
    want = _intervals_one_by_one(p, c)
    assert got.rows() == want
    assert [r[1] for r in got.rows()] == [r[1] for r in want]  # the floats, bit for bit


def test_exact_sums_of_counts_and_doubled_midranks():
    # the replicates' sums through BLAS in floats: exact integers, as the integer product
    from genexpy_nb.leaderboards.rank_uncertainty import _exact_sums

    rng = np.random.default_rng(0)
    w = rng.integers(0, 9, size=(40, 300))
    m = rng.integers(3, 2 * 500, size=(300, 25))
    got = _exact_sums(w, m)
    assert got.dtype == np.int64 and np.array_equal(got, w @ m)
    big = np.full((2, 3), 2**40)  # partial sums beyond 2**53: the integer product
    assert np.array_equal(_exact_sums(np.full((1, 2), 2**14), big[:2]), np.full((1, 3), 2**55))
