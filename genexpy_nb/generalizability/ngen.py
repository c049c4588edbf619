"""n-generalizability, quantiles of MMD_n and the grid of sample sizes (paper Sec. 4.5)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .. import config
from .._validation import (
    GenexpyInputError,
    as_float_grid,
    check_probability,
)


def ngen(mmd_samples: np.ndarray, eps: float | np.ndarray) -> float | np.ndarray:
    """n-generalizability: the fraction of MMD_n samples <= eps (empirical CDF at eps).

    Parameters
    ----------
    mmd_samples : (..., rep) array
    eps : scalar or (k,) array of thresholds

    Returns
    -------
    (...,) or (..., k) array (a float for a 1-d sample and a scalar eps).
    """
    x = np.asarray(mmd_samples, dtype=np.float64)
    e = np.asarray(eps, dtype=np.float64)
    if e.ndim == 0:
        out = (x <= e).mean(axis=-1)
        return float(out) if out.ndim == 0 else out
    return (x[..., None, :] <= e[:, None]).mean(axis=-1)


def mmd_quantile(mmd_samples: np.ndarray, alpha: float | Sequence[float]) -> np.ndarray:
    """Compute the alpha-quantile(s) of MMD_n from its resampled values.

    NumPy's ``method="higher"`` (the convention of the paper's reference implementation):
    the smallest sampled value with at least a fraction alpha of the samples at or below
    it.

    Parameters
    ----------
    mmd_samples : numpy.ndarray
        Resampled MMD_n values, the samples along the last axis (..., rep).
    alpha : float or sequence of float
        Quantile level(s) in (0, 1).

    Returns
    -------
    numpy.ndarray
        The quantiles (...,) for a scalar ``alpha``; (len(alpha), ...) for a sequence.
    """
    a = as_float_grid("alpha", alpha)
    for v in a:
        check_probability("alpha", v)
    q = np.quantile(np.asarray(mmd_samples, dtype=np.float64), a, axis=-1,
                    method=config.QUANTILE_METHOD)
    return q[0] if np.ndim(alpha) == 0 else q


def default_grid(N: int) -> np.ndarray:
    """Return the reference grid of sample sizes n = 2, 4, 6, ... strictly below N // 2.

    Parameters
    ----------
    N : int
        The number of conditions of a configuration.

    Returns
    -------
    numpy.ndarray
        The sample sizes (int64), empty when N < 6.
    """
    return np.arange(2, N // 2, 2, dtype=np.int64)


def min_N_for_points(grid_fn: Callable[[int], np.ndarray], k: int = 2) -> int:
    """Smallest N whose grid has at least ``k`` sample sizes."""
    for N in range(1, 10_000):
        if len(grid_fn(N)) >= k:
            return N
    return 10_000  # pragma: no cover


def min_N_for_two_points(grid_fn: Callable[[int], np.ndarray]) -> int:
    """Return the smallest N whose grid has at least two sample sizes (a line can be fitted)."""
    return min_N_for_points(grid_fn, 2)


def resolve_grid(grid, N: int, disjoint: bool, replace: bool) -> np.ndarray:
    """Return the sample sizes of the grid that the resampling mode can draw from N results.

    ``grid`` is None (:func:`default_grid`), a callable ``N -> sizes`` or a sequence of
    sizes (>= 1). Disjoint samples without replacement keep the sizes with ``2 n <= N``;
    other modes without replacement keep ``n <= N``; with replacement every size is kept.
    """
    if grid is None:
        ns = default_grid(N)
    elif callable(grid):
        ns = np.asarray(grid(N), dtype=np.int64)
    else:
        ns = np.unique(np.asarray(grid, dtype=np.int64))
        if ns.size and ns.min() < 1:
            raise GenexpyInputError(f"grid sizes must be >= 1, got {ns.min()}.")
    if disjoint and not replace:
        ns = ns[2 * ns <= N]
    elif not replace:
        ns = ns[ns <= N]
    return ns


#: the names these had before they were shared (still importable)
_resolve_grid = resolve_grid
_min_N_for_points = min_N_for_points
_min_N_for_two_points = min_N_for_two_points
