"""Logit gaps, clipping, eCDFs, the reference function and deep ensembles.

Robust-KS paper, Section II.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .. import config
from .._validation import GenexpyInputError
from ._checks import as_gaps, as_pool, check_clip


def logit_gaps(logits: Any) -> np.ndarray:
    """Logit gaps ``g = logit_pos - logit_neg`` from two-logit outputs.

    Parameters
    ----------
    logits : array_like, shape (..., 2)
        Raw outputs of a binary classifier; ``[..., 0]`` is the negative class (label 0),
        ``[..., 1]`` the positive class (label 1). Typically (models, T, 2).

    Returns
    -------
    numpy.ndarray, shape (...)
        ``logits[..., 1] - logits[..., 0]``; positive means "predicts label 1".

    Examples
    --------
    >>> logit_gaps([[0.5, 2.0], [1.0, -1.0]])
    array([ 1.5, -2. ])
    """
    arr = np.asarray(logits, dtype=np.float64)
    if arr.ndim < 1 or arr.shape[-1] != 2:
        raise GenexpyInputError(
            f"logits must have shape (..., 2) (negative, positive logit), got {arr.shape}. "
            "For a single output per point (already a gap or a log-odds), skip logit_gaps()."
        )
    if not np.all(np.isfinite(arr)):
        raise GenexpyInputError("logits contain NaN or infinite values; remove those models.")
    return arr[..., 1] - arr[..., 0]


def clip_gaps(gaps: Any, L: float = config.LOGIT_CLIP) -> np.ndarray:
    """Clip logit gaps to the bounded support ``[-L, L]`` (robust-KS paper Sec. II).

    Values beyond the bounds are set *to the bounds* (not to 0, unlike the published
    reference code), so the sign of the prediction is kept.

    Parameters
    ----------
    gaps : array_like, shape (T,) or (models, T)
        Logit gaps of one model, or one row per model.
    L : float, default ``config.LOGIT_CLIP`` (15)
        The bound, in logits (> 0).

    Returns
    -------
    numpy.ndarray
        The gaps, same shape, with values in [-L, L].

    Notes
    -----
    Clipped values form atoms at -L and +L. The trimmed KS test interpolates the reference
    eCDF linearly (robust-KS paper, Section III-C), which spreads an atom of mass q over the
    gap to the next value: two samples from the *same* distribution are then at KS distance
    about q (and at the lowest reference value the distance compares with the candidate's
    left limit, which
    also costs about q). Choose L so that only a small fraction of the gaps is clipped
    (compare that fraction with :func:`dkw_threshold`).

    Examples
    --------
    >>> clip_gaps([-40.0, -2.0, 0.5, 18.0])
    array([-15. ,  -2. ,   0.5,  15. ])
    """
    Lv = check_clip(L)
    if Lv is None:
        raise GenexpyInputError("L must be a positive number.")
    arr = as_gaps("gaps", gaps)
    return np.clip(arr, -Lv, Lv)


def ecdf(sample: Any, x: Any = None) -> np.ndarray:
    """Empirical CDF ``F_n(x) = #{sample <= x} / n``.

    Parameters
    ----------
    sample : array_like, shape (n,) or (models, T)
        A 2-d pool is flattened (pooled).
    x : array_like, optional
        Where to evaluate; default the sorted sample itself.

    Returns
    -------
    numpy.ndarray
        Values of F_n in [0, 1], in the shape of ``x`` (or (n,)).

    Examples
    --------
    >>> ecdf([3.0, 1.0, 2.0, 2.0], x=[0.0, 2.0, 5.0])
    array([0.  , 0.75, 1.  ])
    """
    s = np.sort(as_gaps("sample", sample).ravel())
    xs = s if x is None else np.asarray(x, dtype=np.float64)
    return np.searchsorted(s, xs, side="right") / s.size


def _interp_ecdf(sorted_sample: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Interpolate the eCDF linearly between its distinct order statistics.

    Robust-KS paper, Section III-C.
    """
    knots, counts = np.unique(sorted_sample, return_counts=True)
    heights = np.cumsum(counts) / sorted_sample.size
    out = np.interp(x, knots, heights)
    out = np.where(x < knots[0], 0.0, out)
    return out


def reference_ecdf(ref_gaps: Any, x: Any = None, *, interpolate: bool = False) -> np.ndarray:
    """Evaluate the reference function ``G_M``: the eCDF of the pooled gaps of M models.

    Robust-KS paper, Section II.

    The average of the M eCDFs equals the eCDF of the M*T pooled gaps.

    Parameters
    ----------
    ref_gaps : array_like, shape (M, T)
        Logit gaps of the M reference models on T test points.
    x : array_like, optional
        Where to evaluate; default the sorted distinct pooled values.
    interpolate : bool, default False
        Return the linearly interpolated version used as ``F0`` by the trimmed KS test
        (value ``G_M(v)`` at each distinct pooled value v, linear in between, 0 below the
        smallest and 1 above the largest).

    Returns
    -------
    numpy.ndarray
        Values of G_M in [0, 1], in the shape of ``x``.

    Examples
    --------
    >>> reference_ecdf([[0.0, 1.0], [1.0, 2.0]])
    array([0.25, 0.75, 1.  ])
    >>> reference_ecdf([[0.0, 1.0], [1.0, 2.0]], x=[0.5], interpolate=True)
    array([0.5])
    """
    pooled = np.sort(as_pool("ref_gaps", ref_gaps).ravel())
    xs = np.unique(pooled) if x is None else np.asarray(x, dtype=np.float64)
    if interpolate:
        return _interp_ecdf(pooled, xs)
    return np.searchsorted(pooled, xs, side="right") / pooled.size


def ecdf_frame(gaps: Any, names: Sequence[str] | None = None) -> pl.DataFrame:
    """Tidy eCDFs of several models, for charts: columns ``model, gap, ecdf``.

    Parameters
    ----------
    gaps : array_like, shape (models, T) or (T,)
        Logit gaps of the models on T test points.
    names : sequence of str, optional
        One name per model (default ``"0", "1", ...``).

    Returns
    -------
    polars.DataFrame
        One row per (model, distinct gap value): ``model`` (its name), ``gap`` and
        ``ecdf`` (the model's eCDF at that gap).

    Examples
    --------
    >>> ecdf_frame([[0.5, -1.0, 0.5]], names=["seed 0"]).rows()
    [('seed 0', -1.0, 0.3333333333333333), ('seed 0', 0.5, 1.0)]
    """
    arr = as_gaps("gaps", gaps)
    if arr.ndim == 1:
        arr = arr[None, :]
    if names is None:
        names = [str(i) for i in range(arr.shape[0])]
    if len(names) != arr.shape[0]:
        raise GenexpyInputError(
            f"names has {len(names)} entries but gaps has {arr.shape[0]} model(s)."
        )
    frames = []
    for name, row in zip(names, arr, strict=True):
        v, c = np.unique(row, return_counts=True)
        frames.append(
            pl.DataFrame({"model": str(name), "gap": v, "ecdf": np.cumsum(c) / row.size})
        )
    return pl.concat(frames)


def ensemble_gaps(gaps: Any, members: Any = None) -> np.ndarray:
    """Deep ensemble: the pointwise mean of the logit gaps of its members (robust-KS paper Sec. II).

    Parameters
    ----------
    gaps : array_like, shape (models, T)
        Logit gaps of the models on T test points.
    members : array_like of int, shape (k,) or (E, k), optional
        Row indices of the members (default: all models). A 2-d array gives E ensembles.

    Returns
    -------
    numpy.ndarray, shape (T,) or (E, T)
        The ensemble's logit gaps (one row per ensemble for 2-d ``members``).

    Examples
    --------
    >>> ensemble_gaps([[1.0, -2.0], [3.0, 0.0], [-1.0, 1.0]], members=[0, 1])
    array([ 2., -1.])
    """
    arr = as_pool("gaps", gaps)
    if members is None:
        return arr.mean(axis=0)
    mem = np.asarray(members)
    if (
        mem.ndim not in (1, 2)
        or mem.shape[-1] == 0
        or not np.issubdtype(mem.dtype, np.integer)
        or mem.min() < 0
        or mem.max() >= arr.shape[0]
    ):
        raise GenexpyInputError(
            f"members must be a non-empty (k,) or (E, k) array of row indices in "
            f"[0, {arr.shape[0]}), got {members!r}."
        )
    return arr[mem].mean(axis=-2)
