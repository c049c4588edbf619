"""Logit gaps, eCDFs, ensembles, accuracy, churn and ECE (SPEC B1)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from naive import naive_churn, naive_ecdf, naive_ece
from numpy.testing import assert_allclose, assert_array_equal

from genexpy_nb import config
from genexpy_nb.variability import (
    accuracy,
    churn,
    churn_to_ensemble,
    clip_gaps,
    ecdf,
    ecdf_frame,
    ece,
    ensemble_gaps,
    logit_gaps,
    pairwise_churn,
    predictions,
    reference_ecdf,
)


def test_logit_gaps_from_two_logits():
    logits = np.array([[[0.5, 2.0], [1.0, -1.0]], [[0.0, 0.0], [3.0, 3.5]]])  # (2, 2, 2)
    assert_array_equal(logit_gaps(logits), [[1.5, -2.0], [0.0, 0.5]])
    assert logit_gaps([1.0, 4.0]) == 3.0


def test_clip_to_the_bounds_not_to_zero():
    g = np.array([-100.0, -15.0, -3.0, 0.0, 14.9, 15.0, 1e9])
    assert_array_equal(clip_gaps(g), [-15, -15, -3, 0, 14.9, 15, 15])
    assert_array_equal(clip_gaps(g, L=2), [-2, -2, -2, 0, 2, 2, 2])
    assert config.LOGIT_CLIP == 15.0


def test_ecdf_and_reference_function():
    rng = np.random.default_rng(0)
    pool = rng.integers(-3, 4, size=(4, 25)).astype(float)
    x = np.linspace(-4, 4, 33)
    for row in pool:
        assert_allclose(ecdf(row, x), [naive_ecdf(row, v) for v in x])
    # G_M = the average of the M eCDFs = the eCDF of the pooled gaps
    avg = np.mean([ecdf(row, x) for row in pool], axis=0)
    assert_allclose(reference_ecdf(pool, x), avg, atol=1e-15)
    assert_allclose(reference_ecdf(pool, x), ecdf(pool, x), atol=1e-15)
    vals = reference_ecdf(pool)  # at the distinct pooled values
    assert vals[-1] == 1.0 and np.all(np.diff(vals) > 0)
    s = np.sort(pool[0])
    assert_allclose(ecdf(pool[0]), [naive_ecdf(pool[0], v) for v in s])


def test_ecdf_frame_is_tidy():
    f = ecdf_frame(np.array([[0.0, 1.0, 1.0], [2.0, 2.0, 2.0]]), names=["a", "b"])
    assert f.columns == ["model", "gap", "ecdf"]
    assert f.filter(f["model"] == "a")["ecdf"].to_list() == pytest.approx([1 / 3, 1.0])
    assert f.filter(f["model"] == "b")["ecdf"].to_list() == [1.0]


def test_ensemble_is_the_pointwise_mean():
    rng = np.random.default_rng(1)
    g = rng.normal(size=(5, 7))
    assert_allclose(ensemble_gaps(g), g.mean(axis=0))
    assert_allclose(ensemble_gaps(g, [0, 3]), (g[0] + g[3]) / 2)
    two = ensemble_gaps(g, [[0, 1], [2, 4]])
    assert two.shape == (2, 7)
    assert_allclose(two[1], (g[2] + g[4]) / 2)


gap_rows = hnp.arrays(
    np.float64, st.tuples(st.integers(1, 4), st.integers(1, 40)),
    elements=st.one_of(st.floats(-20, 20), st.sampled_from([0.0, 15.0, -15.0])),
)


@settings(max_examples=30, deadline=None)
@given(g=gap_rows, seed=st.integers(0, 1000), bins=st.integers(1, 20))
def test_metrics_match_naive_loops(g, seed, bins):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=g.shape[1])
    assert_array_equal(predictions(g), (g > 0).astype(np.int8))
    acc = accuracy(g, y)
    assert_allclose(acc, [np.mean([(v > 0) == t for v, t in zip(r, y)]) for r in g])
    assert_allclose(ece(g, y, bins), [naive_ece(r, y, bins) for r in g], atol=1e-12)
    assert ece(g[0], y, bins) == pytest.approx(naive_ece(g[0], y, bins), abs=1e-12)
    pw = pairwise_churn(g)
    for a in range(g.shape[0]):
        for b in range(g.shape[0]):
            assert pw[a, b] == naive_churn(g[a], g[b])
            assert churn(g[a], g[b]) == naive_churn(g[a], g[b])
    assert_allclose(pairwise_churn(g, normalize=True), pw / g.shape[1])
    ens = g.mean(axis=0)
    assert_allclose(churn_to_ensemble(g), [naive_churn(r, ens) for r in g])
    assert_allclose(
        churn_to_ensemble(g, normalize=True), [naive_churn(r, ens) / g.shape[1] for r in g]
    )
    assert np.all((0 <= ece(g, y, bins)) & (ece(g, y, bins) <= 1))


def test_ece_of_a_calibrated_toy_and_a_confidently_wrong_model():
    y = np.array([1, 1, 1, 1])
    # confidence sigmoid(15) ~ 1, all right: ECE ~ 0; all wrong: ECE ~ 1
    assert ece(np.full(4, 15.0), y) == pytest.approx(0.0, abs=1e-6)
    assert ece(np.full(4, -15.0), y) == pytest.approx(1.0, abs=1e-6)
    # gap 0: confidence 1/2, predicted 0, wrong for y = 1 -> |0 - 0.5|
    assert ece(np.zeros(4), y) == pytest.approx(0.5)
    assert accuracy(np.zeros(4), y) == 0.0  # a tie goes to the negative class


def test_churn_counts_and_fractions():
    a = np.array([1.0, -1.0, 2.0, -3.0])
    b = np.array([1.0, 1.0, -2.0, -3.0])
    assert churn(a, b) == 2.0
    assert churn(a, b, normalize=True) == 0.5
    assert_allclose(churn(np.vstack([a, b]), b), [2.0, 0.0])
    assert_array_equal(np.diag(pairwise_churn(np.vstack([a, b]))), [0.0, 0.0])
    assert_allclose(churn_to_ensemble(np.vstack([a, b]), ensemble=a), [0.0, 2.0])
