"""Accuracy, churn and expected calibration error of binary classifiers from logit gaps.

The predicted label of a gap ``g`` is 1 when ``g > 0`` and 0 otherwise (a tie goes to the
negative class, like ``argmax`` over (negative, positive) logits). Paper: Section IV-B,
eqs. (35)-(39).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import config
from .._validation import GenexpyInputError, check_memory, check_positive_int
from ._checks import (
    as_gaps,
    as_labels,
    as_pool,
    check_not_class_columns,
    warn_if_probabilities,
)


def predictions(gaps: Any) -> np.ndarray:
    """Predicted labels ``1[g > 0]`` (int8), same shape as ``gaps``.

    Parameters
    ----------
    gaps : array_like
        Logit gaps (logit of class 1 minus logit of class 0) of one or more models.

    Returns
    -------
    numpy.ndarray of int8
        1 where the gap is positive, else 0 (a gap of exactly 0 predicts class 0).

    Examples
    --------
    >>> predictions([-1.5, 0.0, 2.0])
    array([0, 0, 1], dtype=int8)
    """
    return (as_gaps("gaps", gaps) > 0).astype(np.int8)


def accuracy(gaps: Any, labels: Any) -> float | np.ndarray:
    """Accuracy ``mean_t 1[pred_t == y_t]`` (paper eq. 35).

    Parameters
    ----------
    gaps : array_like, shape (T,) or (models, T)
        Logit gaps (logit of class 1 minus logit of class 0) of one model, or one row per
        model, on T test points.
    labels : array_like of 0/1, shape (T,)
        The true label of each test point.

    Returns
    -------
    float or numpy.ndarray
        The fraction of test points predicted right: a float for 1-d ``gaps``, else one
        per model, shape (models,).

    Examples
    --------
    >>> accuracy([2.0, -1.0, 0.5, -0.3], [1, 0, 0, 0])
    0.75
    """
    g = as_gaps("gaps", gaps)
    check_not_class_columns("gaps", g, labels)
    y = as_labels(labels, g.shape[-1])
    acc = ((g > 0).astype(np.int8) == y).mean(axis=-1)
    return float(acc) if g.ndim == 1 else acc


def churn(gaps_a: Any, gaps_b: Any, *, normalize: bool = False) -> float | np.ndarray:
    """Churn: the number of test points where two models' predictions differ (paper eq. 36).

    Parameters
    ----------
    gaps_a : array_like, shape (T,) or (models, T)
        Logit gaps of one model, or one row per model, on T test points.
    gaps_b : array_like, shape (T,) or (models, T)
        Broadcast against ``gaps_a`` (e.g. many models against one ensemble).
    normalize : bool, default False
        Return the fraction of the T test points instead of the count.

    Returns
    -------
    float or numpy.ndarray
        The count (or fraction) of test points whose predicted labels differ: a float for
        two 1-d inputs, else one per row.

    Examples
    --------
    >>> churn([2.0, -1.0, 0.5, -0.3], [1.0, 1.0, -0.5, -2.0])
    2.0
    >>> churn([2.0, -1.0, 0.5, -0.3], [1.0, 1.0, -0.5, -2.0], normalize=True)
    0.5
    """
    a = as_gaps("gaps_a", gaps_a)
    b = as_gaps("gaps_b", gaps_b)
    if a.shape[-1] != b.shape[-1] or (a.ndim == b.ndim == 2 and a.shape[0] != b.shape[0]):
        raise GenexpyInputError(
            f"gaps_a {a.shape} and gaps_b {b.shape} do not match: same test points (columns) "
            "and, for two matrices, the same number of models are needed."
        )
    diff = ((a > 0) != (b > 0)).sum(axis=-1)
    out = diff / a.shape[-1] if normalize else diff.astype(np.float64)
    return float(out) if np.ndim(out) == 0 else out


def churn_to_ensemble(
    gaps: Any, ensemble: Any = None, *, normalize: bool = False
) -> np.ndarray:
    """Churn of every model w.r.t. a deep ensemble.

    Parameters
    ----------
    gaps : array_like, shape (models, T)
        Logit gaps of the models on T test points.
    ensemble : array_like, shape (T,), optional
        Gaps of the ensemble; default the ensemble of all rows of ``gaps``
        (:func:`ensemble_gaps`), as in the paper ("churn w.r.t. the ensemble").
    normalize : bool, default False
        Fractions instead of counts.

    Returns
    -------
    numpy.ndarray, shape (models,)
        The churn of each model against the ensemble (counts, or fractions).

    Examples
    --------
    >>> churn_to_ensemble([[2.0, -1.0, 0.5], [1.0, 1.0, -0.5], [1.5, -2.0, 0.2]])
    array([0., 2., 0.])
    """
    g = as_pool("gaps", gaps)
    ens = g.mean(axis=0) if ensemble is None else as_gaps("ensemble", ensemble, ndim=(1,))
    return np.atleast_1d(churn(g, ens, normalize=normalize))


def pairwise_churn(gaps: Any, *, normalize: bool = False) -> np.ndarray:
    """Churn between every pair of models, an (M, M) symmetric matrix with zero diagonal.

    Parameters
    ----------
    gaps : array_like, shape (M, T)
        Logit gaps of the M models on T test points.
    normalize : bool, default False
        Fractions instead of counts.

    Returns
    -------
    numpy.ndarray of float64, shape (M, M)
        Entry (i, j) is the churn between models i and j (exact integer counts when not
        normalised).

    Examples
    --------
    >>> pairwise_churn([[2.0, -1.0, 0.5], [1.0, 1.0, -0.5]])
    array([[0., 2.],
           [2., 0.]])
    """
    g = as_pool("gaps", gaps)
    p = (g > 0).astype(np.float64)
    q = 1.0 - p
    # disagreements = #(a=1, b=0) + #(a=0, b=1); exact in float64 for T < 2**53
    out = p @ q.T + q @ p.T
    return out / g.shape[1] if normalize else out


def ece(gaps: Any, labels: Any, bins: int = config.ECE_BINS) -> float | np.ndarray:
    """Compute the expected calibration error with equal-width confidence bins (paper eqs. 37-39).

    ``ECE = sum_b |B_b| / T * |acc(B_b) - conf(B_b)|`` where bin b holds the test points with
    confidence in ``(b/bins, (b+1)/bins]`` and the confidence is the max softmax
    probability of the two logits, ``sigmoid(|g|)``.

    Parameters
    ----------
    gaps, labels : array_like
        As in :func:`accuracy`.
    bins : int, default ``config.ECE_BINS`` (15)
        Number of equal-width confidence bins on [0, 1].

    Returns
    -------
    float or numpy.ndarray
        The ECE in [0, 1] (a probability gap): a float for 1-d ``gaps``, else one per model.

    Warns
    -----
    ProbabilityLikeGapsWarning
        When every gap lies in [0, 1] (at least 8 test points, most strictly inside): these
        look like probabilities, which give a meaningless ECE. A (T, 2) matrix of per-class
        probabilities or logits is refused with an error saying which shape is expected.

    Examples
    --------
    >>> round(ece([3.0, -3.0, 0.2, -0.2], [1, 0, 0, 0], bins=10), 4)
    0.0486
    """
    g = as_gaps("gaps", gaps)
    check_not_class_columns("gaps", g, labels)
    y = as_labels(labels, g.shape[-1])
    nb = check_memory("bins", check_positive_int("bins", bins), per_unit=48.0,
                      what="the calibration bins")
    warn_if_probabilities("ece gaps", g)
    g2 = g[None, :] if g.ndim == 1 else g
    T = g2.shape[1]
    conf = 1.0 / (1.0 + np.exp(-np.abs(g2)))
    correct = ((g2 > 0).astype(np.int8) == y).astype(np.float64)
    edges = np.arange(nb + 1) / nb
    # bin b: edges[b] < conf <= edges[b + 1]
    idx = np.clip(np.searchsorted(edges, conf, side="left") - 1, 0, nb - 1)
    out = np.empty(g2.shape[0])
    for r in range(g2.shape[0]):
        acc_sum = np.bincount(idx[r], weights=correct[r], minlength=nb)
        conf_sum = np.bincount(idx[r], weights=conf[r], minlength=nb)
        out[r] = np.abs(acc_sum - conf_sum).sum() / T
    return float(out[0]) if g.ndim == 1 else out
