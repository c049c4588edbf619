"""Tidy frames of pairwise tests, with their p-values corrected as one family.

Shared by the post-hoc tests, the pairwise views and the comparison workflow; the
correction itself (:func:`adjust`) is what :func:`~genexpy_nb.significance.adjust_pvalues`
runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .._validation import GenexpyInputError

#: multiple-testing corrections accepted by ``p_adjust`` (statsmodels' ``multipletests``)
P_ADJUST_METHODS: tuple[str, ...] = (
    "bonferroni", "sidak", "holm-sidak", "holm", "simes-hochberg", "hommel",
    "fdr_bh", "fdr_by", "fdr_tsbh", "fdr_tsbky",
)


def check_p_adjust(p_adjust: str | None) -> str | None:
    """Return ``p_adjust`` if it is None or one of statsmodels' names; else refuse it."""
    if p_adjust is None:
        return None
    if not isinstance(p_adjust, str) or p_adjust not in P_ADJUST_METHODS:
        raise GenexpyInputError(
            f"p_adjust={p_adjust!r} is not a known correction. Use None (no correction) or "
            f"one of statsmodels' names: {', '.join(P_ADJUST_METHODS)}."
        )
    return p_adjust


#: how the written reports name each correction (statsmodels' name -> words)
_CORRECTION = {
    None: "no", "bonferroni": "Bonferroni's", "sidak": "Šidák's", "holm-sidak": "Holm–Šidák",
    "holm": "Holm's", "simes-hochberg": "Hochberg's", "hommel": "Hommel's",
    "fdr_bh": "Benjamini–Hochberg", "fdr_by": "Benjamini–Yekutieli",
    "fdr_tsbh": "two-stage Benjamini–Hochberg", "fdr_tsbky": "two-stage BKY",
}


def correction_words(p_adjust: str | None) -> str:
    """``"Holm's correction"``, ``"no correction"``: a correction as the reports name it."""
    return f"{_CORRECTION.get(p_adjust, p_adjust)} correction"


def adjust(p: np.ndarray, method: str | None, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Return (adjusted p-values, reject) for finite entries; NaN stays NaN, not rejected."""
    p = np.asarray(p, dtype=np.float64)
    out = p.copy()
    reject = np.zeros(p.shape, dtype=bool)
    ok = np.isfinite(p)
    if method is None:
        reject[ok] = p[ok] < alpha
        return out, reject
    if ok.any() and method == "holm":
        # Holm's step-down, here because statsmodels' holm branch calls gc.collect() (0.3 s
        # per call); equal to multipletests(..., method="holm") (tested)
        q = p[ok]
        m = q.size
        order = np.argsort(q, kind="stable")
        adj = np.minimum(np.maximum.accumulate(q[order] * np.arange(m, 0, -1)), 1.0)
        padj = np.empty(m)
        padj[order] = adj
        out[ok] = padj
        reject[ok] = padj <= alpha
    elif ok.any():
        from statsmodels.stats.multitest import multipletests  # heavy import, only if needed

        rej, padj, _, _ = multipletests(p[ok], alpha=alpha, method=method)
        out[ok] = padj
        reject[ok] = rej
    return out, reject



def gathered(names: Sequence[str], idx: np.ndarray) -> Any:
    """``[names[a] for a in idx]``: a list when short, a NumPy gather when long.

    A Python list costs about 0.5 us per entry, the gather a fixed millisecond or so.
    """
    if len(idx) <= 4096:
        return [names[a] for a in idx]
    return np.asarray(list(names), dtype=object)[np.asarray(idx, dtype=np.int64)]


def pairs_frame(
    test: str,
    names: Sequence[str],
    i: np.ndarray,
    j: np.ndarray,
    statistic: np.ndarray,
    pvalue: np.ndarray,
    p_adjust: str | None,
    alpha: float,
    extra: dict[str, Any],
) -> pl.DataFrame:
    """Return the frame of pairwise tests: one row per pair ``(names[i], names[j])`` given.

    ``p_adjust`` corrects these pairs as one family (all pairs, in the order of
    ``itertools.combinations`` with ``i, j = np.triu_indices(k, 1)``, or the k - 1
    comparisons with a control).
    """
    m = len(i)
    padj, reject = adjust(pvalue, p_adjust, alpha)
    finite = np.isfinite(padj)
    if finite.all():
        significant = pl.Series(reject, dtype=pl.Boolean)
    else:  # no verdict without a p-value
        significant = pl.Series([bool(r) if f else None for r, f in zip(reject, finite)],
                                dtype=pl.Boolean)
    cols: dict[str, Any] = {
        "test": [test] * m,
        "alternative_1": gathered(names, i),
        "alternative_2": gathered(names, j),
        **extra,
        "statistic": np.asarray(statistic, dtype=np.float64),
        "pvalue_raw": np.asarray(pvalue, dtype=np.float64),
        "pvalue": padj,
        "p_adjust": [p_adjust or "none"] * m,
        "alpha": np.full(m, float(alpha)),
        "significant": significant,
    }
    return pl.DataFrame(cols, schema_overrides={"test": pl.String, "alternative_1": pl.String,
                                                "alternative_2": pl.String,
                                                "p_adjust": pl.String})
