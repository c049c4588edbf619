"""The win / tie / loss matrix of benchmark papers, with mean differences and corrected p-values.

It is the multi-comparison matrix of Ismail-Fawaz et al. 2023, "An approach to multiple
comparison benchmark evaluations that is stable under manipulation of the comparate set":
one cell per ordered pair of alternatives, over the shared conditions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .._validation import REQUIRED, GenexpyInputError, check_probability
from .._validation import check_direction as _direction
from ._input import _roles, _to_matrix
from .posthoc import pairwise_wilcoxon

__all__ = ["win_tie_loss"]


#: the most pairs win_tie_loss tests (k = 316 alternatives): one scipy Wilcoxon test each
MAX_WIN_TIE_LOSS_PAIRS = 50_000


def win_tie_loss(
    data: Any,
    *,
    higher_is_better: bool = REQUIRED,
    p_adjust: str | None = "holm",
    alpha: float = 0.05,
    tie_tolerance: float = 0.0,
    target: str | None = None,
    blocks: str | None = None,
    alternatives: str | Sequence[Any] | None = None,
    order: Sequence[Any] | None = None,
    y_col: str | None = None,
    block_col: str | None = None,
    group_col: str | None = None,
) -> pl.DataFrame:
    """Wins, ties and losses of every alternative against every other, over the conditions.

    For each ordered pair (1, 2): on how many of the conditions where both have a result
    1 is better than 2 (``wins``), as good (``ties``: the two differ by at most
    ``tie_tolerance``) or worse (``losses``); the mean of the differences 1 − 2; and the
    two-sided Wilcoxon signed-rank p-value of the pair (scipy's, zero differences dropped),
    corrected over the k (k − 1) / 2 pairs by ``p_adjust``. The frame has both orders of each
    pair, so ``pivot`` gives the matrix.

    Parameters
    ----------
    data : wide or long table, or 2-d array (n conditions, k alternatives)
        As in :func:`~genexpy_nb.significance.friedman`; missing values (NaN / null) leave
        the condition out of the pairs that miss it.
    higher_is_better : bool
        Required: decides what a win is.
    p_adjust : str or None
        Correction over the pairs (statsmodels' names, default ``"holm"``); None = raw.
    alpha : float
        Level of the ``significant`` column (default 0.05).
    tie_tolerance : float
        Differences of at most this (in the score's units) count as ties (default 0:
        equal scores only).
    y_col, block_col, group_col, alternatives
        Long input and the choice of alternatives, as in
        :func:`~genexpy_nb.significance.friedman`.

    Returns
    -------
    polars.DataFrame
        ``alternative_1, alternative_2, wins, ties, losses, n, mean_difference, pvalue,
        significant``, one row per ordered pair of different alternatives.

    Examples
    --------
    >>> scores = [[0.81, 0.78], [0.85, 0.80], [0.79, 0.80], [0.90, 0.86], [0.83, 0.83]]
    >>> w = win_tie_loss(scores, higher_is_better=True)
    >>> w.select("alternative_1", "wins", "ties", "losses").rows()
    [('0', 3, 1, 1), ('1', 1, 1, 3)]
    """
    hib = _direction(higher_is_better, "win_tie_loss")
    alpha = check_probability("alpha", alpha)
    try:
        tol = float(tie_tolerance)
    except (TypeError, ValueError):
        tol = float("nan")
    if not (tol >= 0 and np.isfinite(tol)):
        raise GenexpyInputError(
            f"tie_tolerance must be a finite number >= 0 (score units), got {tie_tolerance!r}."
        )
    y_col, block_col, group_col, order = _roles(
        "win_tie_loss", target, blocks, alternatives, order, y_col, block_col, group_col)
    m = _to_matrix(data, y_col=y_col, block_col=block_col, group_col=group_col,
                   alternatives=order)
    k = len(m.alternatives)
    if k * (k - 1) // 2 > MAX_WIN_TIE_LOSS_PAIRS:
        raise GenexpyInputError(
            f"win_tie_loss: {k:,} alternatives make {k * (k - 1) // 2:,} pairs, each with its "
            f"own Wilcoxon signed-rank test (milliseconds each), more than "
            f"{MAX_WIN_TIE_LOSS_PAIRS:,}; choose the alternatives to compare with "
            "order=[...] (at most 316), or compare every alternative against one "
            "with compare(..., control=NAME).")
    # the p-values: one family of all pairs, as in the pairwise post-hoc tests
    pw = pairwise_wilcoxon(m.values, p_adjust=p_adjust, alpha=alpha, nan_policy="omit",
                           order=list(m.alternatives))
    pval = {(a, b): p for a, b, p in pw.select("alternative_1", "alternative_2",
                                                "pvalue").iter_rows()}
    names = m.alternatives
    v = m.values
    rows = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                continue
            keep = ~(np.isnan(v[:, i]) | np.isnan(v[:, j]))
            d = v[keep, i] - v[keep, j]
            better = d if hib else -d
            tie = np.abs(d) <= tol
            n = int(d.size)
            p = pval.get((a, b), pval.get((b, a)))
            rows.append((a, b, int(((better > 0) & ~tie).sum()), int(tie.sum()),
                         int(((better < 0) & ~tie).sum()), n,
                         float(d.mean()) if n else float("nan"), p,
                         bool(p is not None and np.isfinite(p) and p < alpha)))
    return pl.DataFrame(rows, orient="row", schema={
        "alternative_1": pl.String, "alternative_2": pl.String, "wins": pl.Int64,
        "ties": pl.Int64, "losses": pl.Int64, "n": pl.Int64, "mean_difference": pl.Float64,
        "pvalue": pl.Float64, "significant": pl.Boolean})
