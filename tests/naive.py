"""Slow, obviously correct twins of every numba kernel (STYLE.md practice 3).

Each function is written as literally as possible from SPEC.md, with Python loops, so that
the fast kernels can be compared against it with ``assert_allclose``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

# =====================================================================================
# Part A: rankings, kernels, MMD (core)
# =====================================================================================



# =====================================================================================
# Part B: seed variability (trimmed KS, alpha-hat)
# =====================================================================================



# =====================================================================================
# Part C: significance and distributions over rankings
# =====================================================================================
