"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp


def dense(row):
    _, inv = np.unique(row, return_inverse=True)
    return inv


@st.composite
def ranking_samples(draw, min_n=1, max_n=8, min_na=2, max_na=6):
    """A sample of rankings with ties: (n, na) int array, dense tiers per row."""
    na = draw(st.integers(min_na, max_na))
    n = draw(st.integers(min_n, max_n))
    raw = draw(hnp.arrays(np.int64, (n, na), elements=st.integers(0, na - 1)))
    return np.array([dense(r) for r in raw], dtype=np.int64)
