"""The DKW threshold of the robust KS test, shared by the test and by alpha-hat.

Robust-KS paper, Section III-C: a candidate is accepted when its trimmed KS distance to the
reference sample is at most ``tau = sqrt(log(2/eps) / m) + 1/m``; below
:func:`min_reference_size` values, ``tau >= 1`` and nothing could ever be rejected.
"""

from __future__ import annotations

import math

from .. import config
from .._validation import GenexpyInputError, check_positive_int
from ._checks import check_eps

__all__ = ["dkw_threshold", "min_reference_size", "check_can_reject"]


def dkw_threshold(m: int, eps: float = config.DKW_EPS) -> float:
    """Compute the two-sample DKW threshold ``tau = sqrt(log(2/eps) / m) + 1/m``.

    Robust-KS paper, Section III-C.

    Parameters
    ----------
    m : int
        Size of the reference sample.
    eps : float in (0, 1), default ``config.DKW_EPS`` (0.01)
        Error probability.

    Returns
    -------
    float
        tau, in units of KS distance (a candidate whose trimmed KS distance to the
        reference is at most tau is accepted).

    Examples
    --------
    >>> round(dkw_threshold(100, 0.01), 4)
    0.2402
    """
    mm = check_positive_int("m", m)
    e = check_eps(eps)
    return math.sqrt(math.log(2.0 / e) / mm) + 1.0 / mm


def min_reference_size(eps: float = config.DKW_EPS) -> int:
    """Return the smallest reference sample size m whose DKW threshold is below 1.

    A KS distance never exceeds 1, so with a smaller m (``tau >= 1``) the robust KS test
    accepts every candidate, however different: 8 at eps = 0.01 (tau = 0.94; tau = 1.01
    at m = 7). alpha-hat uses m = T // 2, so it needs ``T >= 2 * min_reference_size(eps)``
    test points (16 at eps = 0.01).

    Parameters
    ----------
    eps : float in (0, 1), default ``config.DKW_EPS`` (0.01)
        Error probability of the DKW threshold.

    Returns
    -------
    int
        The smallest m with ``dkw_threshold(m, eps) < 1``.

    Examples
    --------
    >>> min_reference_size(0.01), min_reference_size(0.05)
    (8, 6)
    """
    e = check_eps(eps)
    m = max(1, math.ceil(math.log(2.0 / e)))  # tau > sqrt(log(2/e)/m) >= 1 below this
    while math.sqrt(math.log(2.0 / e) / m) + 1.0 / m >= 1.0:
        m += 1
    return m


def check_can_reject(m: int, eps: float, what: str, test_points: bool = False) -> None:
    """Refuse a reference sample too small for the test to ever reject (tau >= 1)."""
    tau = dkw_threshold(m, eps)
    if tau < 1.0:
        return
    need = min_reference_size(eps)
    fix = (f"use at least {2 * need} test points" if test_points
           else f"use a reference sample of at least {need} values")
    raise GenexpyInputError(
        f"{what}: the DKW threshold tau = {tau:.3g} is at least 1, the largest possible KS "
        "distance, so no candidate could ever be rejected and the answer would say nothing; "
        f"{fix} (at eps = {eps:g}), or a larger eps.")
