"""Toy studies shared by the tests: a score matrix as a tidy table, and as a Study.

Imported as ``import toys`` (as ``naive`` and ``strategies``); ``conftest.py`` also hands them
out as the fixtures ``scores_frame`` and ``scores_study``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

import genexpy_nb as gx


def scores_frame(scores: np.ndarray, names: Sequence[str] | None = None, *,
                 block: str = "dataset", alternative: str = "model", target: str = "score",
                 block_names: str = "d{:03d}") -> pl.DataFrame:
    """A long table of a (conditions, alternatives) score matrix, one row per result.

    Rows run condition by condition; alternatives are ``names`` (default ``m0, m1, ...``),
    conditions ``block_names.format(i)``.
    """
    n, na = np.shape(scores)
    names = list(names) if names is not None else [f"m{i}" for i in range(na)]
    return pl.DataFrame({block: np.repeat([block_names.format(j) for j in range(n)], na),
                         alternative: names * n, target: np.asarray(scores).ravel()})


def scores_study(scores: np.ndarray, higher_is_better: bool = True, *,
                 names: Sequence[str] | None = None, target: str = "score",
                 block_names: str = "d{:03d}", **kw: Any) -> gx.Study:
    """The Study of :func:`scores_frame`: alternatives ``model``, generalizing over ``dataset``."""
    return gx.Study(scores_frame(scores, names, target=target, block_names=block_names),
                    alternatives="model", target=target, generalize="dataset",
                    higher_is_better=higher_is_better, **kw)
