"""Bad input to genexpy_nb.variability: GenexpyInputError naming the parameter and the fix."""

from __future__ import annotations

import numpy as np
import pytest

from genexpy_nb import GenexpyInputError
from genexpy_nb.variability import (
    accuracy,
    alpha_hat,
    candidate_report,
    churn,
    clip_gaps,
    dkw_threshold,
    ece,
    ensemble_gaps,
    ensemble_study,
    ensemble_summary,
    logit_gaps,
    robust_ks_test,
    trimmed_ks,
)

RNG = np.random.default_rng(0)
REF = RNG.normal(size=(3, 20))
CANDS = RNG.normal(size=(2, 20))
LABELS = (RNG.random(20) < 0.5).astype(int)


def _ah(ref=REF, cands=CANDS, **kw):
    kw.setdefault("B", 2)
    kw.setdefault("progress", False)
    return alpha_hat(ref, cands, **kw)


def test_wrong_shape_of_the_reference():
    with pytest.raises(GenexpyInputError, match=r"ref_gaps must have shape \(models, T\)"):
        _ah(ref=REF[0])
    with pytest.raises(GenexpyInputError, match="ref_gaps must have shape"):
        _ah(ref=np.zeros((2, 3, 4)))


def test_wrong_shape_of_the_candidates():
    with pytest.raises(GenexpyInputError, match="cand_gaps must have shape"):
        _ah(cands=np.zeros((2, 20, 2)))


def test_candidates_on_other_test_points():
    with pytest.raises(GenexpyInputError, match="cand_gaps has 19 test points"):
        _ah(cands=CANDS[:, :19])


def test_nan_gaps():
    bad = CANDS.copy()
    bad[1, 3] = np.nan
    with pytest.raises(GenexpyInputError, match="cand_gaps contains 1 NaN or infinite"):
        _ah(cands=bad)


def test_inf_gaps():
    bad = REF.copy()
    bad[0, 0] = np.inf
    with pytest.raises(GenexpyInputError, match="ref_gaps contains 1 NaN or infinite"):
        _ah(ref=bad)
    with pytest.raises(GenexpyInputError, match="x_cand contains"):
        trimmed_ks([0.0, 1.0], [np.inf])


def test_fewer_than_two_reference_models():
    with pytest.raises(GenexpyInputError, match="ref_gaps holds 1 model.*at least 2"):
        _ah(ref=REF[:1])


def test_empty_test_set():
    with pytest.raises(GenexpyInputError, match="ref_gaps is empty"):
        _ah(ref=np.zeros((3, 0)), cands=np.zeros((2, 0)))
    with pytest.raises(GenexpyInputError, match="x_ref is empty"):
        trimmed_ks([], [1.0])


def test_single_test_point_cannot_be_split():
    with pytest.raises(GenexpyInputError, match="at least 2 test points"):
        _ah(ref=REF[:, :1], cands=CANDS[:, :1])


@pytest.mark.parametrize("alpha", [1.0, -0.1, 1.5, np.nan])
def test_alpha_outside_unit_interval(alpha):
    # NaN is named as not finite, the others as outside the interval
    with pytest.raises(GenexpyInputError,
                       match=r"alpha must (lie in \[0.0, 1.0\)|hold finite numbers, got nan)"):
        trimmed_ks([0.0, 1.0], [0.5], alpha)
    with pytest.raises(GenexpyInputError, match="alpha must (lie in|hold finite)"):
        robust_ks_test([0.0, 1.0], [0.5], alpha=alpha)


def test_alpha_grid_with_a_bad_level():
    with pytest.raises(GenexpyInputError, match="alpha must lie in"):
        trimmed_ks([0.0, 1.0], [0.5], [0.0, 0.2, 1.0])
    with pytest.raises(GenexpyInputError, match=r"grid must lie in \[0.0, 0.5\)"):
        _ah(grid=[0.0, 0.6])


@pytest.mark.parametrize("eps", [0.0, 1.0, -0.5, 2.0])
def test_eps_outside_open_unit_interval(eps):
    with pytest.raises(GenexpyInputError, match=r"eps must lie in \(0.0, 1.0\)"):
        dkw_threshold(100, eps)
    with pytest.raises(GenexpyInputError, match="eps must lie in"):
        _ah(eps=eps)


def test_labels_not_binary():
    with pytest.raises(GenexpyInputError, match="labels must hold 0/1"):
        accuracy(CANDS, np.where(LABELS == 1, 1, -1))
    with pytest.raises(GenexpyInputError, match="labels must hold 0/1"):
        candidate_report(REF, CANDS, np.array(["a"] * 20), B=2, progress=False)


def test_labels_of_wrong_length():
    with pytest.raises(GenexpyInputError, match="labels must be a 1-d array of length 20"):
        ece(CANDS, LABELS[:-1])
    with pytest.raises(GenexpyInputError, match="labels must be a 1-d array of length 20"):
        _ah(labels=LABELS[:5])


def test_logits_without_two_columns():
    with pytest.raises(GenexpyInputError, match=r"logits must have shape \(\.\.\., 2\)"):
        logit_gaps(np.zeros((4, 3)))


def test_bad_clip_bound():
    with pytest.raises(GenexpyInputError, match="clip must be a positive"):
        _ah(clip=-1.0)
    with pytest.raises(GenexpyInputError, match="clip must be a positive"):
        clip_gaps(CANDS, L=0)


def test_bad_bootstrap_count():
    with pytest.raises(GenexpyInputError, match="B must be an integer >= 1"):
        _ah(B=0)


def test_bad_threshold_size():
    with pytest.raises(GenexpyInputError, match="m must be an integer >= 1"):
        dkw_threshold(0)


def test_bad_ensemble_members():
    with pytest.raises(GenexpyInputError, match="members must be"):
        ensemble_gaps(CANDS, [0, 5])


def test_bad_ensemble_sizes_and_draws():
    with pytest.raises(GenexpyInputError, match="sizes must be an integer >= 1"):
        ensemble_study(REF, CANDS, sizes=(0, 2), draws=2, B=2, progress=False)
    with pytest.raises(GenexpyInputError, match="draws must be an integer >= 1"):
        ensemble_study(REF, CANDS, sizes=(2,), draws=0, B=2, progress=False)


def test_bad_ensemble_for_churn():
    with pytest.raises(GenexpyInputError, match="ensemble must be 'candidates'"):
        candidate_report(REF, CANDS, LABELS, B=2, ensemble="mean", progress=False)


def test_churn_shapes_must_match():
    with pytest.raises(GenexpyInputError, match="gaps_a .* and gaps_b .* do not match"):
        churn(CANDS, REF)


def test_summary_needs_the_study_columns():
    with pytest.raises(GenexpyInputError, match=r"column\(s\) \['k'\] not found"):
        ensemble_summary({"alpha_hat": [0.1]})
    with pytest.raises(GenexpyInputError, match="level must lie in"):
        ensemble_summary({"k": [1], "alpha_hat": [0.1]}, level=2.0)


def test_ece_given_probabilities_warns_and_class_matrix_is_refused():
    from genexpy_nb.variability._checks import ProbabilityLikeGapsWarning

    rng = np.random.default_rng(1)
    p = rng.random((40, 2))
    y = rng.integers(0, 2, 40)
    with pytest.warns(ProbabilityLikeGapsWarning, match=r"lies in \[0, 1\].*logit gaps"):
        ece(p[:, 1], y)
    with pytest.raises(GenexpyInputError, match=r"shape \(40, 2\).*probabilities.*\(T,\)"):
        ece(p, y)
    with pytest.raises(GenexpyInputError, match=r"shape \(40, 2\).*logits.*logit_gaps"):
        accuracy(rng.normal(size=(40, 2)), y)
    # real logit gaps, or a degenerate all-zero vector, do not warn
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ece(rng.normal(size=40), y)
        ece(np.zeros(40), y)


def test_mismatched_lengths_are_named():
    with pytest.raises(GenexpyInputError, match=r"gaps_a \(5,\) and gaps_b \(6,\)"):
        churn(np.ones(5), np.ones(6))
    with pytest.raises(GenexpyInputError, match="labels must be a 1-d array of length 5"):
        ece(np.ones(5), np.ones(6))
