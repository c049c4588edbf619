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


def winner_tie_loser_study(names=("A", "B", "C", "D"), n=30, seed=1) -> gx.Study:
    """A clear winner (first), two identical alternatives, a clear loser (last)."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n):
        base = rng.normal()
        means = [3.0, 0.0, 0.0, -3.0][: len(names)]
        for a, m in zip(names, means, strict=True):
            rows.append({"dataset": f"d{d}", "model": a, "acc": base + m + rng.normal()})
    return gx.Study(pl.DataFrame(rows), alternatives="model", target="acc",
                    generalize="dataset", higher_is_better=True)


def nstar_frame(levels=("a", "b", "c"), null=True) -> pl.DataFrame:
    """A hand-made analysis frame: configuration a generalizes, b needs 4 more, c is unsure;
    one research question, one (alpha*, delta*), the resampled estimate and the bound."""
    rows = []
    spec = {"a": (5.2, 4.0, 7.1, True, -4, None),
            "b": (13.4, 9.0, 20.0, False, 4, None),
            "c": (3.0, 1.0, 6.0, None, -7, "unreliable: poor power-law fit (R² = 0.5 < 0.8)")}
    for i, lv in enumerate(levels):
        nstar, lo, hi, gen, deficit, reason = spec["abc"[i]]
        for method in ("resample", "bound"):
            rows.append(dict(config_id=i, model=lv, kernel="jaccard", kernel_label="Jaccard(k=1)",
                             alpha=0.95, delta=0.05, N=10, method=method,
                             nstar=nstar if method == "resample" else 300.0,
                             nstar_lo=lo if method == "resample" else float("nan"),
                             nstar_hi=hi if method == "resample" else float("nan"),
                             generalizable=gen if method == "resample" else None,
                             deficit=deficit, reason=reason if method == "resample" else "bound",
                             nstar_null=30.0 if method == "resample" and null else float("nan"),
                             nstar_null_lo=20.0, nstar_null_hi=45.0,
                             beyond_chance=(True if lv != "c" else False)
                             if method == "resample" and null else None))
    return pl.DataFrame(rows)
