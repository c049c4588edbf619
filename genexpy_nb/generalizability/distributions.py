"""Distributions over rankings with ties (weak orders).

A *ranking* of ``na`` alternatives is an integer vector ``r`` of length ``na``: ``r[a]`` is
the tier of alternative ``a``, 0 = best, tiers dense (0, 1, 2, ... without gaps), equal
tiers = a tie (paper Sec. 4.1). The rankings with ties of ``na`` alternatives are the weak orders
(ordered set partitions) of ``na`` items; there are Fubini(na) of them (the ordered Bell
numbers 1, 3, 13, 75, 541, 4683, 47293, ...).

This module enumerates them, samples from a given pmf over rankings, and samples from the
uniform distribution over all of them, by enumeration for small ``na`` and without
enumeration (exact recursive sampling) for any ``na``. The uniform distribution is the
``P`` of the paper's Section 5.3.

Examples
--------
>>> from genexpy_nb.generalizability.distributions import (
...     fubini, weak_orders, sample_uniform_rankings)
>>> fubini(3)
13
>>> weak_orders(2)
array([[0, 0],
       [0, 1],
       [1, 0]])
>>> sample_uniform_rankings(5, 4, seed=0).shape
(4, 5)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from .._numba.distributions import _enumerate_weak_orders, _sample_weak_orders
from .._validation import GenexpyInputError, check_positive_int, float_array, rng_from_seed

__all__ = [
    "MAX_ENUMERATE_NA",
    "fubini",
    "weak_orders",
    "uniform_distribution",
    "sample_rankings",
    "sample_uniform_rankings",
    "check_rankings",
    "check_pmf",
]

#: the largest ``na`` whose weak orders :func:`weak_orders` lists (Fubini(8) = 545,835 rows;
#: Fubini(9) = 7,087,261 would take half a gigabyte). Larger ``na``: sample without
#: enumeration with :func:`sample_uniform_rankings`.
MAX_ENUMERATE_NA: int = 8

#: ``method="auto"`` of :func:`sample_uniform_rankings` enumerates up to this ``na``.
AUTO_ENUMERATE_NA: int = 6


@cache
def _fubini_table(n: int) -> tuple[int, ...]:
    f = [1]
    for m in range(1, n + 1):
        f.append(sum(math.comb(m, j) * f[m - j] for j in range(1, m + 1)))
    return tuple(f)


def fubini(n: int) -> int:
    """Count the rankings with ties (weak orders) of ``n`` alternatives: the Fubini number.

    Parameters
    ----------
    n : int
        Number of alternatives, ``n >= 0``.

    Returns
    -------
    int
        ``F(n)``, an exact Python integer (no overflow).

    Notes
    -----
    Recursion on the size j of the top tier: ``F(0) = 1``,
    ``F(n) = sum_{j=1..n} C(n, j) F(n - j)`` (OEIS A000670: 1, 1, 3, 13, 75, 541, 4683, ...).

    Examples
    --------
    >>> [fubini(n) for n in range(1, 7)]
    [1, 3, 13, 75, 541, 4683]
    """
    n = check_positive_int("n", n, minimum=0)
    return _fubini_table(n)[n]


#: up to this n, log F(n) is taken from the exact integers; above, from a log-space recursion
#: (exact big-integer Fubini numbers cost O(n^2) multiplications of n-digit numbers).
_EXACT_LOG_FUBINI_N: int = 150


def _log_fubini(na: int) -> np.ndarray:
    """``log F(m)`` for m = 0..na, without overflow.

    Exact integers (``math.log`` accepts huge ints) up to ``_EXACT_LOG_FUBINI_N``; beyond,
    the recursion ``F(m) = sum_j C(m, j) F(m - j)`` in log space (log-sum-exp), O(na^2).
    """
    n0 = min(na, _EXACT_LOG_FUBINI_N)
    out = np.empty(na + 1, dtype=np.float64)
    out[: n0 + 1] = [math.log(f) for f in _fubini_table(n0)]
    if na > n0:
        lgam = np.array([math.lgamma(v + 1.0) for v in range(na + 1)])  # log v!
        for m in range(n0 + 1, na + 1):
            j = np.arange(1, m + 1)
            terms = lgam[m] - lgam[j] - lgam[m - j] + out[m - j]
            top = terms.max()
            out[m] = top + math.log(np.exp(terms - top).sum())
    return out


def weak_orders(na: int) -> np.ndarray:
    """All rankings with ties of ``na`` alternatives, in lexicographic order.

    Parameters
    ----------
    na : int
        Number of alternatives, ``1 <= na <= MAX_ENUMERATE_NA`` (8).

    Returns
    -------
    numpy.ndarray of int64, shape (fubini(na), na)
        One ranking per row; entry ``[i, a]`` = tier of alternative a (0 = best, dense).

    Examples
    --------
    >>> weak_orders(3).shape
    (13, 3)
    """
    na = check_positive_int("na", na)
    if na > MAX_ENUMERATE_NA:
        raise GenexpyInputError(
            f"na={na}: weak_orders enumerates at most na={MAX_ENUMERATE_NA} alternatives "
            f"({fubini(na):,} rankings would not fit in memory). Draw uniform rankings with "
            "sample_uniform_rankings(na, n, method='recursive') instead."
        )
    out = _enumerate_weak_orders(na, fubini(na))
    if out.shape[0] != fubini(na):  # pragma: no cover - a bug, not a user error
        raise RuntimeError("weak-order enumeration returned the wrong number of rankings")
    return out


def uniform_distribution(na: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the uniform distribution over all rankings with ties of ``na`` alternatives.

    Parameters
    ----------
    na : int
        Number of alternatives, ``1 <= na <= MAX_ENUMERATE_NA``.

    Returns
    -------
    rankings : numpy.ndarray of int64, shape (fubini(na), na)
        The support (:func:`weak_orders`).
    probs : numpy.ndarray of float64, shape (fubini(na),)
        ``1 / fubini(na)`` each.

    Examples
    --------
    >>> support, p = uniform_distribution(2)
    >>> support.tolist(), p.tolist()
    ([[0, 0], [0, 1], [1, 0]], [0.3333333333333333, 0.3333333333333333, 0.3333333333333333])
    """
    rankings = weak_orders(na)
    probs = np.full(rankings.shape[0], 1.0 / rankings.shape[0])
    return rankings, probs


def check_rankings(rankings: Any, name: str = "rankings") -> np.ndarray:
    """Validate and return rankings with ties as a C-contiguous int64 array (m, na).

    Every row must be a ranking: integer tiers, 0 = best, dense (the values of a row are
    exactly 0, 1, ..., max). A 1-d input is one ranking.

    Parameters
    ----------
    rankings : array_like of int, shape (m, na) or (na,)
        The rankings, one row per ranking and one column per alternative.
    name : str, default "rankings"
        The argument's name in error messages.

    Returns
    -------
    numpy.ndarray of int64, shape (m, na)
        The rankings, C-contiguous (a 1-d input becomes one row).

    Raises
    ------
    GenexpyInputError
        Naming the first bad row and what is wrong with it.

    Examples
    --------
    >>> check_rankings([0, 1, 1])
    array([[0, 1, 1]])
    >>> check_rankings([[0, 2, 2]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    genexpy_nb._validation.GenexpyInputError: rankings: row 0 ...
    """
    try:
        arr = np.asarray(rankings)
    except ValueError:
        raise GenexpyInputError(
            f"{name}: rows have different lengths (a ragged list). Give every ranking one "
            "entry per alternative."
        ) from None
    if arr.dtype == object:
        raise GenexpyInputError(
            f"{name}: could not read it as an integer matrix (ragged rows or mixed types)."
        )
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise GenexpyInputError(
            f"{name}: expected a non-empty 2-d array (one ranking per row), got shape "
            f"{arr.shape}."
        )
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise GenexpyInputError(
                f"{name}: tiers must be whole numbers (0 = best), found non-integer values."
            )
    elif arr.dtype.kind not in "iu":
        raise GenexpyInputError(f"{name}: tiers must be integers, got dtype {arr.dtype}.")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if arr.min() < 0:
        raise GenexpyInputError(f"{name}: tiers must be >= 0 (0 = best tier).")
    na = arr.shape[1]
    mx = arr.max(axis=1)
    if np.any(mx >= na):
        bad = int(np.argmax(mx >= na))
        raise GenexpyInputError(
            f"{name}: row {bad} {arr[bad].tolist()} has a tier >= na={na}; tiers must be "
            "dense (0, 1, 2, ... without gaps)."
        )
    present = np.zeros((arr.shape[0], na), dtype=bool)
    np.put_along_axis(present, arr, True, axis=1)
    n_present = present.sum(axis=1)
    bad_rows = np.flatnonzero(n_present != mx + 1)
    if bad_rows.size:
        bad = int(bad_rows[0])
        raise GenexpyInputError(
            f"{name}: row {bad} {arr[bad].tolist()} skips a tier; tiers must be dense "
            "(0, 1, 2, ... without gaps), e.g. (0, 2, 2) should be (0, 1, 1)."
        )
    return arr


def sample_rankings(
    rankings: Any,
    probs: Sequence[float] | np.ndarray,
    n: int,
    *,
    seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    """Draw ``n`` rankings i.i.d. from a pmf over rankings.

    Parameters
    ----------
    rankings : array-like of int, shape (m, na)
        The support: one ranking with ties per row (0 = best tier, dense).
    probs : array-like of float, shape (m,)
        Their probabilities (non-negative, summing to 1 within 1e-9).
    n : int
        Number of draws, ``n >= 1``.
    seed : int, numpy Generator or None
        Same seed, same sample.

    Returns
    -------
    numpy.ndarray of int64, shape (n, na)
        The n sampled rankings, one per row (tiers, 0 = best).

    Examples
    --------
    The distribution of the paper's Appendix A:

    >>> x = sample_rankings([[0, 1, 2, 3, 4], [1, 0, 2, 3, 4]], [0.55, 0.45], 20, seed=0)
    >>> x.shape
    (20, 5)
    """
    support, p = check_pmf(rankings, probs)
    n = check_positive_int("n", n)
    rng = rng_from_seed(seed)
    idx = rng.choice(support.shape[0], size=n, p=p)
    return support[idx]


def check_pmf(rankings: Any, probs: Sequence[float] | np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Validate a pmf over rankings: (support (m, na) int64, probabilities (m,) float64).

    The rankings are checked by :func:`check_rankings`; the probabilities must be finite,
    non-negative, one per ranking and sum to 1 within 1e-9 (they are returned divided by
    their sum, so they sum to 1 to rounding).

    Parameters
    ----------
    rankings : array_like of int, shape (m, na)
        The support: m distinct rankings (tiers, 0 = best).
    probs : sequence of float, shape (m,)
        The probability of each ranking.

    Returns
    -------
    support : numpy.ndarray of int64, shape (m, na)
        The rankings, as :func:`check_rankings` returns them.
    probs : numpy.ndarray of float64, shape (m,)
        The probabilities, divided by their sum.

    Raises
    ------
    GenexpyInputError
        Naming what is wrong and the fix.

    Examples
    --------
    >>> support, p = check_pmf([[0, 1], [1, 0]], [0.25, 0.75])
    >>> support.tolist(), p.tolist()
    ([[0, 1], [1, 0]], [0.25, 0.75])
    """
    support = check_rankings(rankings)
    p = float_array(probs, "probs must be a list of numbers, one per ranking.")
    if p.ndim != 1 or p.shape[0] != support.shape[0]:
        raise GenexpyInputError(
            f"probs: expected {support.shape[0]} probabilities (one per ranking), got shape "
            f"{p.shape}."
        )
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise GenexpyInputError("probs must be finite and non-negative.")
    total = float(p.sum())
    if abs(total - 1.0) > 1e-9:
        raise GenexpyInputError(
            f"probs must sum to 1, they sum to {total!r}. Normalise them: probs / probs.sum()."
        )
    return support, p / total


def sample_uniform_rankings(
    na: int,
    n: int,
    *,
    seed: int | np.random.Generator | None = None,
    method: str = "auto",
) -> np.ndarray:
    """Draw ``n`` rankings with ties uniformly from all Fubini(na) rankings of ``na`` items.

    Parameters
    ----------
    na : int
        Number of alternatives, ``na >= 1``.
    n : int
        Number of draws, ``n >= 1``.
    seed : int, numpy Generator or None
        Same seed, same sample (for a given ``method``).
    method : {"auto", "enumerate", "recursive"}
        ``"enumerate"``: a uniform index into :func:`weak_orders` (``na <= 8``).
        ``"recursive"``: exact sampling without enumeration, for any ``na``.
        ``"auto"``: enumerate for ``na <= 6``, recursive above.

    Returns
    -------
    numpy.ndarray of int64, shape (n, na)
        The n sampled rankings, one per row (tiers, 0 = best).

    Notes
    -----
    Recursive sampling: the top tier of a uniform weak order of m items has size j with
    probability ``C(m, j) F(m - j) / F(m)`` (there are C(m, j) ways to choose the tier and
    F(m - j) weak orders of the rest). Choose j, take the next j items of a uniform random
    permutation as that tier, recurse on the remaining m - j items. The Fubini numbers are
    exact Python integers turned into logarithms, so nothing overflows for large ``na``.
    Cost O(n na^2).

    Examples
    --------
    >>> sample_uniform_rankings(3, 4, seed=0).shape
    (4, 3)
    """
    na = check_positive_int("na", na)
    n = check_positive_int("n", n)
    if method not in ("auto", "enumerate", "recursive"):
        raise GenexpyInputError(
            f"method must be 'auto', 'enumerate' or 'recursive', got {method!r}."
        )
    if method == "auto":
        method = "enumerate" if na <= AUTO_ENUMERATE_NA else "recursive"
    rng = rng_from_seed(seed)
    if method == "enumerate":
        support = weak_orders(na)
        return support[rng.integers(0, support.shape[0], size=n)]
    u = rng.random((n, na))
    perm = np.ascontiguousarray(np.argsort(rng.random((n, na)), axis=1), dtype=np.int64)
    return _sample_weak_orders(_log_fubini(na), u, perm)
