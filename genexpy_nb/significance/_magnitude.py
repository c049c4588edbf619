"""Magnitude words of effect sizes (one convention per measure, shared by the modules).

Romano et al. (2006) for Cliff's delta (the package also labels the rank-biserial
correlation with it): ``|delta| < 0.147`` negligible, ``< 0.33`` small, ``< 0.474``
medium, else large.
"""

from __future__ import annotations

#: Romano et al. (2006): the upper bounds of negligible, small and medium |delta|
ROMANO_THRESHOLDS = (0.147, 0.33, 0.474)


def romano_label(delta: float) -> str:
    """Return the magnitude of a Cliff's delta after Romano et al. (2006).

    Parameters
    ----------
    delta : float
        An effect size in [-1, 1].

    Returns
    -------
    str
        "negligible", "small", "medium" or "large".
    """
    a = abs(delta)
    lo, mid, hi = ROMANO_THRESHOLDS
    return "negligible" if a < lo else "small" if a < mid else "medium" if a < hi else "large"
