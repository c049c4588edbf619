"""Numerical policy of genexpy_nb: one place for tolerances, default grids and numba flags.

Every ``@njit`` kernel in :mod:`genexpy_nb._numba` takes its flags from here, except that the
trimmed-KS kernel is compiled without fastmath (see there).
"""

from __future__ import annotations

import os

#: fastmath flags *without* ``nnan``/``ninf``: kernels may see NaN or inf in user data
#: (we validate first, but a flag that assumes them away turns a bug into a silent
#: wrong answer). Same policy as STUMPY's ``STUMPY_FASTMATH_FLAGS``.
FASTMATH: set[str] = {"nsz", "arcp", "contract", "afn", "reassoc"}

#: cache compiled kernels on disk (cold start on Binder matters).
NUMBA_CACHE: bool = os.environ.get("GENEXPY_NB_NUMBA_CACHE", "1") != "0"

# ---- Part A: generalizability -------------------------------------------------------
#: default desired generalizability levels alpha* (paper Sec. 4.5)
ALPHAS: tuple[float, ...] = (0.7, 0.8, 0.9, 0.95, 0.99)
#: default similarity thresholds delta* (paper Sec. 4.5)
DELTAS: tuple[float, ...] = (0.01, 0.05, 0.1, 0.2, 0.3)
#: the paper's headline (alpha*, delta*)
HEADLINE_ALPHA: float = 0.95
HEADLINE_DELTA: float = 0.05
#: resampling repetitions of MMD_n (paper Sec. 4.5)
REP: int = 200
#: missing-result tolerances (paper Sec. 4.1)
TOL_MISSING_ALTERNATIVES: float = 0.2
TOL_MISSING_CONDITIONS: float = 0.2
#: the quantile convention of the authors' genexpy package (paper Sec. 4.5)
QUANTILE_METHOD: str = "higher"
#: L1 below this (relative to kappa_sup) means "all results identical under the kernel"
DEGENERATE_TOL: float = 1e-12
#: constants of the inverse of Lin's normal-CDF approximation (paper App. C)
LIN_C: tuple[float, float, float, float] = (-0.861779, 0.00120192, 514089.0, 1664000.0)

# ---- Part B: seed variability -------------------------------------------------------
#: clip logit gaps to [-LOGIT_CLIP, LOGIT_CLIP] (robust-KS paper Sec. II)
LOGIT_CLIP: float = 15.0
#: equal-width confidence bins for ECE
ECE_BINS: int = 15
#: error probability of the DKW threshold
DKW_EPS: float = 0.01
#: alpha-hat bootstrap repetitions
ALPHA_HAT_B: int = 100
#: the paper's grid of trimming levels; 0.5 is reported when none passes
ALPHA_GRID: tuple[float, ...] = (
    0.0, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45,
)
ALPHA_HAT_MAX: float = 0.5
#: bisection tolerance of the exact alpha-hat
ALPHA_HAT_XTOL: float = 1e-6
