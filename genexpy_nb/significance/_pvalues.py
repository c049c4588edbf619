"""Upper-tail probabilities of the chi-square, F, Student t and normal distributions.

``scipy.stats.chi2.sf(x, df)`` and its siblings end in one ``scipy.special`` function each
(``chdtrc``, ``fdtrc``, ``stdtr``, ``ndtr``); calling those directly gives the same bits
(tests/significance/test_significance.py checks it over a grid with 0, inf and NaN) without
importing
``scipy.stats``, which takes about 1 s in a new process against 0.25 s for
``scipy.special``. That second matters to ``genexpy-nb compare``, a whole run of which
takes less (benchmarks/bench_compare.py).
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = ["chi2_sf", "f_sf", "t_sf", "norm_sf", "t_pvalue"]


def chi2_sf(x, df):
    """``P(X > x)`` for X chi-square with ``df`` degrees of freedom (= ``stats.chi2.sf``)."""
    return special.chdtrc(df, x)


def f_sf(x, dfn, dfd):
    """``P(F > x)`` for F with (dfn, dfd) degrees of freedom (= ``stats.f.sf``)."""
    return special.fdtrc(dfn, dfd, x)


def t_sf(x, df):
    """``P(T > x)`` for Student's T with ``df`` degrees of freedom (= ``stats.t.sf``)."""
    return special.stdtr(df, -np.asarray(x, dtype=np.float64))


def norm_sf(x):
    """``P(Z > x)`` for a standard normal Z (= ``stats.norm.sf``)."""
    return special.ndtr(-np.asarray(x, dtype=np.float64))


def t_pvalue(t: float, df: float, alternative: str) -> float:
    """p-value of Student's t with ``df`` degrees of freedom: two-sided, greater or less."""
    if alternative == "two-sided":
        return float(min(2.0 * special.stdtr(df, -abs(t)), 1.0))
    if alternative == "greater":
        return float(special.stdtr(df, -t))
    return float(special.stdtr(df, t))
