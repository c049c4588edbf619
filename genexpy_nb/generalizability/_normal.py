"""The standard normal quantile, for the intervals of n* and the band of the null baseline."""

from __future__ import annotations


def ndtri(p: float) -> float:
    """Return the standard normal quantile ``Phi^-1(p)``.

    The standard library's (Wichura's AS241, within 1e-15 of ``scipy.special.ndtri``)
    rather than scipy's: importing ``scipy.special`` took most of the time of the first
    analysis in a fresh process.

    Parameters
    ----------
    p : float
        A probability in (0, 1).

    Returns
    -------
    float
        The quantile ``z`` with ``P(Z <= z) = p`` for a standard normal ``Z``.
    """
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)
