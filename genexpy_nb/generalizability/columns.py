"""The columns of the n* frame and the expressions that derive its verdict columns.

With the two rules the analysis applies to its values: a grid of thresholds asks each
question once (:func:`distinct`), and a reason of distrust adds to the others
(:func:`unreliable`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

METHODS = ("resample", "approx", "approx_weighted", "bound")

#: the columns of n* before the frame is built (:meth:`GeneralizabilityAnalysis._nstar_columns`)
NSTAR_SCHEMA = {
    "config_id": pl.UInt32, "kernel": pl.String, "kernel_label": pl.String,
    "alpha": pl.Float64, "delta": pl.Float64, "eps": pl.Float64, "N": pl.Int64,
    "method": pl.String, "nstar": pl.Float64, "nstar_lo": pl.Float64,
    "nstar_hi": pl.Float64, "b0": pl.Float64, "b1": pl.Float64,
    "r2": pl.Float64, "reason": pl.String, "reliable": pl.Boolean,
    "nstar_null": pl.Float64, "nstar_null_lo": pl.Float64, "nstar_null_hi": pl.Float64}
#: the columns of the no-signal baseline (:meth:`GeneralizabilityAnalysis.nstar`)
NULL_COLUMNS = ("nstar_null", "nstar_null_lo", "nstar_null_hi", "beyond_chance")
#: ``beyond_chance``: n* below the band of the no-signal baseline (null where either is
#: undefined)
BEYOND_CHANCE = (pl.when(pl.col("nstar").is_finite() & pl.col("nstar_null_lo").is_finite())
                 .then(pl.col("nstar") < pl.col("nstar_null_lo")))


def concat_columns(blocks: Sequence[Mapping], names) -> dict:
    """Columns ``names`` of several blocks (dicts of arrays or lists), end to end."""
    out = {}
    for c in names:
        parts = [bl[c] for bl in blocks]
        if not parts:
            out[c] = []
        elif isinstance(parts[0], list):
            out[c] = [x for p in parts for x in p]
        else:
            out[c] = np.concatenate(parts)
    return out


#: the smallest whole number of conditions >= n* (null where n* is undefined): n* within
#: 1e-9 of an integer counts as that integer (float noise of the fit)
NSTAR_CEIL = (pl.when(pl.col("nstar").is_finite())
              .then((pl.col("nstar") - 1e-9).ceil().clip(lower_bound=1).cast(pl.Int64)))


def distinct(values: np.ndarray) -> np.ndarray:
    """Return a grid of thresholds with every value once, in the order given.

    ``deltas=[0.05, 0.05]`` asks one question, not two: one row each.
    """
    return np.asarray(list(dict.fromkeys(values.tolist())), dtype=np.float64)


def unreliable(reason: str | None, why: str) -> str:
    """``reason`` with one more cause of distrust: ``"unreliable: a; b"``."""
    if not reason:
        return f"unreliable: {why}"
    if reason.startswith("unreliable: "):
        return f"{reason}; {why}"
    return f"{reason}; unreliable: {why}"
