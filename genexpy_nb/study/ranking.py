"""Scores to rankings with ties: the tie tolerances and :func:`rank_scores` (paper Sec. 4.1).

A condition's scores become dense tiers (0 = best); two scores within the tie tolerance
share a tier.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from .._codes import unique_rows
from .._validation import REQUIRED, GenexpyInputError, check_direction, float_array

__all__ = ["TIE_ATOL", "TIE_FLOAT_FLOOR", "TIE_RTOL", "check_tie_tolerances", "first_rows",
           "lex_codes", "rank_scores", "sorted_codes", "tie_tolerance"]

#: default relative tie tolerance: a fraction of the condition's score range (see rank_scores)
TIE_RTOL: float = 1e-9
#: default absolute tie tolerance, in target units (see rank_scores)
TIE_ATOL: float = 0.0
#: floating-point floor of the tolerance, in units of the largest |score| of the condition:
#: 64 machine epsilons (about 1.4e-14), i.e. rounding noise of sums and means of scores
TIE_FLOAT_FLOOR: float = 64 * float(np.finfo(np.float64).eps)


def check_tie_tolerances(rtol: float, atol: float) -> tuple[float, float]:
    """Validate the tie tolerances: ``rtol`` in [0, 1), ``atol`` finite and >= 0."""
    out = []
    for nm, v, hi in (("tie rtol", rtol, 1.0), ("tie atol", atol, np.inf)):
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise GenexpyInputError(f"{nm} must be a number >= 0, got {v!r}.") from None
        if not (np.isfinite(f) and 0.0 <= f < hi):
            rng = "[0, 1)" if hi == 1.0 else "a finite number >= 0"
            raise GenexpyInputError(
                f"{nm} must lie in {rng}, got {v!r} (0 for exact equality of scores)."
            )
        out.append(f)
    return out[0], out[1]


def tie_tolerance(scores: np.ndarray, rtol: float = TIE_RTOL,
                  atol: float = TIE_ATOL) -> np.ndarray:
    """Return the per-condition tie tolerance used by :func:`rank_scores` (one value per row).

    ``tol = max(rtol * (max - min), atol, 64 eps * max|score|)`` over the observed scores
    of the row; exactly 0 when ``rtol == atol == 0``.
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim == 1:
        s = s[None, :]
    obs = ~np.isnan(s)
    if rtol == 0.0 and atol == 0.0:
        return np.zeros(s.shape[0])
    hi = np.where(obs, s, -np.inf).max(axis=1)
    lo = np.where(obs, s, np.inf).min(axis=1)
    empty = ~obs.any(axis=1)
    hi[empty] = 0.0
    lo[empty] = 0.0
    # rtol*hi - rtol*lo rather than rtol*(hi - lo): no overflow near the float limits
    spread = rtol * hi - rtol * lo
    mag = np.maximum(np.abs(hi), np.abs(lo))
    return np.maximum(np.maximum(spread, atol), TIE_FLOAT_FLOOR * mag)


def rank_scores(
    scores: np.ndarray,
    higher_is_better: bool = REQUIRED,
    *,
    rtol: float = TIE_RTOL,
    atol: float = TIE_ATOL,
) -> np.ndarray:
    """Rank a score matrix (conditions, alternatives) into rankings with ties.

    Row-wise dense ranks, 0 = best tier. Missing scores (NaN) get the worst tier: one below
    every observed tier of that row (paper Sec. 4.1, step 3).

    **Near-ties are ties.** Scores that differ only by floating-point noise (``0.1 + 0.2``
    and ``0.3``; means of seeds summed in another order) share a tier. In each row the
    observed scores are sorted and a new tier starts where the gap to the previous (sorted)
    score exceeds

        ``tol = max(rtol * (max - min), atol, 64 * eps * max|score|)``

    (max, min over the observed scores of the row). So tiers are defined deterministically,
    also for chains of near-ties: ``a ~ b`` and ``b ~ c`` put a, b and c in one tier even if
    ``|a - c| > tol`` (a tier spans at most ``(na - 1) * tol``).

    * ``rtol`` (default 1e-9) is relative to the row's score *range*. The range scales with
      the target and ignores shifts, so this term makes the ranking invariant to any positive
      affine rescaling of the target (``score * 3 + 1``, accuracy in % instead of a
      fraction, error = 1 - accuracy with the direction flipped).
    * ``atol`` (default 0) is in target units, for a known measurement resolution.
    * The last term is a floor at float resolution: differences of a few dozen ulps of the
      scores' magnitude are rounding, not results, and no rescaling can preserve them.

    ``rtol=0, atol=0`` gives exact float equality (the behaviour of the authors'
    genexpy package), with no floor.

    Parameters
    ----------
    scores : (N, na) or (na,) array of float, NaN = missing
    higher_is_better : bool, required
        True for scores (accuracy), False for errors or losses; no default (an error
        names it when left out).
    rtol, atol : float
        Tie tolerances, see above; ``rtol`` in [0, 1), ``atol`` >= 0.

    Returns
    -------
    numpy.ndarray
        (N, na) int64 rankings, 0 = best tier, dense tiers per row (a 1-d input gives one
        row).

    Examples
    --------
    >>> rank_scores(np.array([[0.9, 0.7, 0.9]]), higher_is_better=True)
    array([[0, 1, 0]])
    >>> rank_scores([[0.1 + 0.2, 0.3, 0.2]], higher_is_better=True)
    array([[0, 0, 1]])
    >>> rank_scores([[0.1 + 0.2, 0.3, 0.2]], higher_is_better=True, rtol=0, atol=0)
    array([[0, 1, 2]])
    """
    higher_is_better = check_direction(higher_is_better, "rank_scores")
    rtol, atol = check_tie_tolerances(rtol, atol)
    s = float_array(scores, "scores must be numbers (a float matrix: conditions x alternatives).",
                    copy=True)
    if s.ndim == 1:
        s = s[None, :]
    if s.ndim != 2:
        raise GenexpyInputError(
            f"scores must be a matrix (conditions, alternatives), got shape {s.shape}."
        )
    if np.isinf(s).any():
        raise GenexpyInputError("scores hold inf values; drop or fix them before ranking.")
    tol = tie_tolerance(s, rtol, atol)
    oriented = -s if higher_is_better else s
    oriented = np.where(np.isnan(oriented), np.inf, oriented)  # missing: tier below observed
    order = np.argsort(oriented, axis=1, kind="stable")
    srt = np.take_along_axis(oriented, order, axis=1)
    with np.errstate(invalid="ignore", over="ignore"):
        gap = srt[:, 1:] - srt[:, :-1]  # inf - inf = NaN: missing after missing, same tier
    new_tier = (gap > tol[:, None]) | (np.isinf(srt[:, 1:]) & ~np.isinf(srt[:, :-1]))
    tiers = np.zeros(srt.shape, dtype=np.int64)
    tiers[:, 1:] = np.cumsum(new_tier, axis=1)  # dense: +1 at each new tier
    ranks = np.empty_like(tiers)
    np.put_along_axis(ranks, order, tiers, axis=1)
    return ranks


def sorted_codes(col: pl.Series) -> tuple[list[str], np.ndarray]:
    """Code a text column: (sorted distinct levels, dense 0-based code of every row).

    Through an Enum whose categories are the sorted levels: a hash lookup per row, much
    faster than ranking the strings.
    """
    levels = col.unique().sort()
    codes = col.cast(pl.Enum(levels)).to_physical()
    return levels.to_list(), codes.to_numpy().astype(np.int64, copy=False)


def first_rows(codes: np.ndarray) -> np.ndarray:
    """Row of the first occurrence of each dense code 0..max (linear time, no sort)."""
    n = int(codes.max()) + 1 if codes.size else 0
    first = np.full(n, codes.size, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(codes.size, dtype=np.int64))
    return first


def lex_codes(codes: list[np.ndarray], n: int) -> np.ndarray:
    """Dense 0-based codes of the rows of several code columns, in lexicographic order.

    ``codes`` are dense 0-based codes (each sorted like its column's levels). Constant
    columns (all 0) do not change the order and are left out; none left gives one code (0)
    for all ``n`` rows, one left is its own answer (no sort).
    """
    codes = [c for c in codes if c.any()]
    if not codes:
        return np.zeros(n, dtype=np.int64)
    if len(codes) == 1:
        return np.asarray(codes[0], dtype=np.int64)
    return unique_rows(np.column_stack(codes))[1]
