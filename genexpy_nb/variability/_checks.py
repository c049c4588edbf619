"""Input checks shared by the variability modules (in one place)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import config
from .._validation import (
    GenexpyInputError,
    as_float_grid,
    check_positive_number,
    check_probability,
    float_array,
)

#: default deep-ensemble sizes of the ensemble study (robust-KS paper Sec. V, paper Table I)
ENSEMBLE_SIZES: tuple[int, ...] = (3, 5, 10, 20, 30, 70, 100)
#: default number of random ensembles per size (the paper draws 500)
ENSEMBLE_DRAWS: int = 100
#: default level of :func:`ensemble_summary`: share of ensembles with alpha-hat <= level
SUMMARY_LEVEL: float = 0.05


def as_gaps(name: str, x: Any, *, ndim: tuple[int, ...] = (1, 2)) -> np.ndarray:
    """Return a C-contiguous float64 array of finite logit gaps with ``ndim`` in ``ndim``.

    Raises GenexpyInputError naming ``name`` for a wrong number of dimensions, an empty
    test set or a NaN/inf value.
    """
    arr = float_array(x, f"{name} must be a numeric array of logit gaps, got {type(x).__name__}.")
    if arr.ndim not in ndim:
        shapes = " or ".join({1: "(T,)", 2: "(models, T)"}[d] for d in ndim)
        raise GenexpyInputError(
            f"{name} must have shape {shapes}, got an array of shape {arr.shape}. "
            "Logit gaps are one row per model, one column per test point; turn "
            "(..., 2) logits into gaps with logit_gaps()."
        )
    if arr.size == 0 or arr.shape[-1] == 0:
        raise GenexpyInputError(
            f"{name} is empty (shape {arr.shape}): at least one model and one test point are "
            "needed."
        )
    if not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise GenexpyInputError(
            f"{name} contains {bad} NaN or infinite value(s). Remove the failed models or "
            "test points, or replace infinities by large finite gaps before clip_gaps()."
        )
    return np.ascontiguousarray(arr)


class ProbabilityLikeGapsWarning(UserWarning):
    """Logit gaps that look like probabilities (all in [0, 1]): results would be wrong."""


def check_not_class_columns(name: str, g: np.ndarray, labels: Any) -> None:
    """Refuse a (T, 2) per-class matrix passed where (T,) or (models, T) gaps are expected."""
    n_labels = np.shape(labels)[0] if np.ndim(labels) == 1 else None
    if g.ndim == 2 and g.shape[1] == 2 and n_labels == g.shape[0] and n_labels != 2:
        kind = "probabilities" if np.all((g >= 0) & (g <= 1)) else "logits"
        raise GenexpyInputError(
            f"{name} has shape {g.shape}: one row per test point and one column per class "
            f"({kind}?). Expected logit gaps of shape (T,) (one model) or (models, T): "
            "gaps = logit_gaps(logits) for (T, 2) logits, or "
            "gaps = np.log(p[:, 1]) - np.log(p[:, 0]) for (T, 2) probabilities p."
        )


def warn_if_probabilities(name: str, g: np.ndarray) -> None:
    """Warn when every gap lies in [0, 1] as probabilities do (heuristic, T >= 8).

    Logit gaps of a trained classifier take both signs; a whole vector in [0, 1] with most
    values strictly inside is almost surely a column of probabilities.
    """
    if g.shape[-1] < 8 or not np.all((g >= 0.0) & (g <= 1.0)):
        return
    inner = (g > 0.0) & (g < 1.0)
    if inner.mean() >= 0.5 and np.unique(g).size > 1:
        import warnings

        warnings.warn(
            f"{name}: every value lies in [0, 1], like probabilities. These functions take "
            "logit gaps (logit of class 1 minus logit of class 0, any real number); with "
            "probabilities p of class 1 use gaps = np.log(p) - np.log1p(-p).",
            ProbabilityLikeGapsWarning,
            stacklevel=3,
        )


def as_pool(name: str, x: Any, *, min_models: int = 1) -> np.ndarray:
    """Return a (models, T) gap matrix with at least ``min_models`` rows."""
    arr = as_gaps(name, x, ndim=(2,))
    if arr.shape[0] < min_models:
        raise GenexpyInputError(
            f"{name} holds {arr.shape[0]} model(s); at least {min_models} are needed "
            "(one row per trained model)."
        )
    return arr


def as_candidates(name: str, x: Any, T: int) -> np.ndarray:
    """Return a (C, T) gap matrix from (C, T) or (T,), checked against the reference's T."""
    arr = as_gaps(name, x, ndim=(1, 2))
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.shape[1] != T:
        raise GenexpyInputError(
            f"{name} has {arr.shape[1]} test points but the reference has {T}: both must be "
            "evaluated on the same test set (columns = test points)."
        )
    return arr


def as_labels(labels: Any, T: int, name: str = "labels") -> np.ndarray:
    """Binary labels (0/1 or bool) of length T as an int8 array."""
    arr = np.asarray(labels)
    if arr.ndim != 1 or arr.shape[0] != T:
        raise GenexpyInputError(
            f"{name} must be a 1-d array of length {T} (one label per test point), got shape "
            f"{arr.shape}."
        )
    if arr.dtype == bool:
        return arr.astype(np.int8)
    if not np.issubdtype(arr.dtype, np.number):
        raise GenexpyInputError(f"{name} must hold 0/1 (or bool) values, got dtype {arr.dtype}.")
    ok = (arr == 0) | (arr == 1)
    if not np.all(ok):
        bad = np.unique(arr[~ok])[:5]
        raise GenexpyInputError(
            f"{name} must hold 0/1 (or bool) values, found {bad.tolist()}. Map the classes "
            "to 0 (negative logit) and 1 (positive logit), e.g. labels = (y == 1)."
        )
    return arr.astype(np.int8)


def check_alpha(alpha: Any, name: str = "alpha") -> np.ndarray:
    """Trimming level(s) in [0, 1) as a 1-d float array."""
    arr = as_float_grid(name, alpha)
    for a in arr:
        check_probability(name, a, low=0.0, high=1.0, low_open=False, high_open=True)
    return arr


def check_eps(eps: Any) -> float:
    """DKW error probability in (0, 1)."""
    return check_probability("eps", eps)


def check_grid(grid: Any) -> np.ndarray:
    """Return the alpha-hat grid: sorted distinct levels in [0, ALPHA_HAT_MAX)."""
    if grid is None:
        grid = config.ALPHA_GRID
    arr = as_float_grid("grid", grid)
    bad = arr[~((arr >= 0.0) & (arr < config.ALPHA_HAT_MAX))]  # NaN included
    if bad.size:  # the first bad level, in the words of check_probability
        check_probability("grid", bad[0], low=0.0, high=config.ALPHA_HAT_MAX,
                          low_open=False, high_open=True)
    return np.unique(arr)


def check_clip(clip: Any) -> float | None:
    """Return the clipping bound L > 0 (or None for no clipping)."""
    return None if clip is None else check_positive_number("clip", clip, or_none=True)
