"""The win / tie / loss matrix of benchmark papers, with mean differences and corrected p-values.

It is the multi-comparison matrix of Ismail-Fawaz et al. 2023, "An approach to multiple
comparison benchmark evaluations that is stable under manipulation of the comparate set":
one cell per ordered pair of alternatives, over the shared conditions.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np
import polars as pl

from .._progress import tqdm
from .._validation import REQUIRED, GenexpyInputError, check_probability
from .._validation import check_direction as _direction
from ._input import TableRoles, table_matrix, takes_table_roles
from ._pairs import adjust, check_p_adjust
from ._results import DegenerateTestWarning
from ._signed_rank import signed_rank_pvalues

__all__ = ["win_tie_loss"]


#: the most pairs win_tie_loss tests (k = 3,162 alternatives), vectorised: 2,000
#: alternatives (1,999,000 pairs) over 10 conditions take about 5 s (benchmarks)
MAX_WIN_TIE_LOSS_PAIRS = 5_000_000
#: the most paired differences (pairs x conditions) it computes
MAX_WIN_TIE_LOSS_CELLS = 100_000_000
#: bytes of the result per pair (two rows: names, counts, floats)
_BYTES_PER_PAIR = 200
#: paired differences computed at a time (about 32 MB of float64 per array)
_CHUNK_CELLS = 1 << 22
#: pairs above which the bar is drawn
_BAR_PAIRS = 20_000


@takes_table_roles()
def win_tie_loss(
    data: Any,
    *,
    higher_is_better: bool = REQUIRED,
    p_adjust: str | None = "holm",
    alpha: float = 0.05,
    tie_tolerance: float = 0.0,
    progress: bool = True,
    **roles: Unpack[TableRoles],
) -> pl.DataFrame:
    """Wins, ties and losses of every alternative against every other, over the conditions.

    For each ordered pair (1, 2): on how many of the conditions where both have a result
    1 is better than 2 (``wins``), as good (``ties``: the two are tied in the condition by
    the Study's tie tolerance, as the rank tests rank them, or differ by at most
    ``tie_tolerance``) or worse (``losses``); the mean of the differences 1 − 2; and the
    two-sided Wilcoxon signed-rank p-value of the pair (scipy's, zero differences dropped),
    corrected over the k (k − 1) / 2 pairs by ``p_adjust``. The frame has both orders of each
    pair, so ``pivot`` gives the matrix.

    The pairs are computed at once, in blocks of about four million paired differences (the
    p-values are scipy's, computed vectorised), and the work is bounded up front: at most
    5,000,000 pairs and 100,000,000 paired differences (2,000 alternatives over 10 conditions
    take about 5 s).

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
        Differences of at most this (in the score's units) count as ties too (default 0:
        the Study's tolerance only). The scores of a condition that ``tie_rtol`` and
        ``tie_atol`` tie are made equal before the pairs are counted and tested, so a pair
        the rank tests rank as tied counts as a tie here and its zero difference is left
        out of the Wilcoxon test.
    progress : bool, default True
        Draw a progress bar over the blocks of pairs when there are more than 20,000 pairs.
    {roles}

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
    p_adjust = check_p_adjust(p_adjust)
    try:
        tol = float(tie_tolerance)
    except (TypeError, ValueError):
        tol = float("nan")
    if not (tol >= 0 and np.isfinite(tol)):
        raise GenexpyInputError(
            f"tie_tolerance must be a finite number >= 0 (score units), got {tie_tolerance!r}."
        )
    m = table_matrix(data, roles, "win_tie_loss")
    n, k = m.values.shape
    _check_work(k, n)
    stats = _pair_stats(m.values, hib, tol, progress)
    _check_pairs(stats, m.alternatives)
    padj, _ = adjust(stats["pvalue"], p_adjust, alpha)
    return _ordered_frame(m.alternatives, stats, padj, alpha)


def _check_work(k: int, n: int) -> None:
    """Refuse, before any work, a table whose pairs would not fit the time and memory bound."""
    pairs = k * (k - 1) // 2
    if pairs > MAX_WIN_TIE_LOSS_PAIRS or pairs * n > MAX_WIN_TIE_LOSS_CELLS:
        raise GenexpyInputError(
            f"win_tie_loss: {k:,} alternatives make {pairs:,} pairs over {n:,} conditions "
            f"({pairs * n:,} paired differences); the bound is {MAX_WIN_TIE_LOSS_PAIRS:,} pairs "
            f"and {MAX_WIN_TIE_LOSS_CELLS:,} differences (about a minute and "
            f"{_BYTES_PER_PAIR * MAX_WIN_TIE_LOSS_PAIRS / 2**30:.1f} GiB for the result). "
            "Choose the alternatives to compare with order=[...], or compare every "
            "alternative against one with compare(..., control=NAME).")


def _pair_stats(v: np.ndarray, hib: bool, tol: float, progress: bool) -> dict[str, np.ndarray]:
    """Wins, ties, losses, n, mean difference and raw p-value of every pair i < j.

    The pairs are in the order of ``itertools.combinations``; they are computed over blocks
    of rows i (at most about ``_CHUNK_CELLS`` differences at a time), so memory stays bounded.
    """
    n, k = v.shape
    ii, jj = np.triu_indices(k, 1)
    npairs = ii.size
    out = {"wins": np.empty(npairs, np.int64), "ties": np.empty(npairs, np.int64),
           "losses": np.empty(npairs, np.int64), "n": np.empty(npairs, np.int64),
           "mean_difference": np.empty(npairs), "pvalue": np.empty(npairs)}
    step = max(1, _CHUNK_CELLS // max(n, 1))
    bounds = range(0, npairs, step)
    vt = np.ascontiguousarray(v.T)  # (k, n): one alternative's scores per row
    bar = tqdm(bounds, desc="win/tie/loss pairs", unit="block",
               disable=not progress or npairs <= _BAR_PAIRS)
    for lo in bar:
        sl = slice(lo, min(lo + step, npairs))
        d = vt[ii[sl]] - vt[jj[sl]]  # (pairs, n); NaN where either is missing
        ok = ~np.isnan(d)
        better = d if hib else -d
        tie = np.abs(d) <= tol
        cnt = ok.sum(axis=1)
        out["wins"][sl] = ((better > 0) & ~tie).sum(axis=1)
        out["ties"][sl] = tie.sum(axis=1)
        out["losses"][sl] = ((better < 0) & ~tie).sum(axis=1)
        out["n"][sl] = cnt
        with np.errstate(invalid="ignore", divide="ignore"):
            out["mean_difference"][sl] = np.where(ok, d, 0.0).sum(axis=1) / cnt
        out["pvalue"][sl] = signed_rank_pvalues(d)
    return out


def _check_pairs(stats: dict[str, np.ndarray], names: Sequence[str]) -> None:
    """Refuse pairs with no shared condition; warn once for pairs that never differ."""
    ii, jj = np.triu_indices(len(names), 1)
    empty = np.flatnonzero(stats["n"] == 0)
    if empty.size:
        a, b = names[ii[empty[0]]], names[jj[empty[0]]]
        raise GenexpyInputError(
            f"win_tie_loss: {empty.size:,} pair(s) of alternatives share no condition with "
            f"a score for both (the first: {a!r} and {b!r}); choose the alternatives with "
            "order=[...] or fill in the missing scores.")
    flat = np.flatnonzero(np.isnan(stats["pvalue"]))
    if flat.size:  # every shared difference is zero: no evidence of a difference
        stats["pvalue"][flat] = 1.0
        warnings.warn(
            f"win_tie_loss: {flat.size:,} pair(s) of alternatives have all their paired "
            "differences zero (the first: "
            f"{names[ii[flat[0]]]!r} and {names[jj[flat[0]]]!r}); their Wilcoxon p-value "
            "is reported as 1 (no evidence of any difference).",
            DegenerateTestWarning, stacklevel=3)


def _ordered_frame(names: Sequence[str], st: dict[str, np.ndarray], padj: np.ndarray,
                   alpha: float) -> pl.DataFrame:
    """Both orders of each pair, row by row of alternative_1 as the matrix reads."""
    k = len(names)
    a = np.repeat(np.arange(k), k - 1)
    b = np.tile(np.arange(k - 1), k)
    b = b + (b >= a)  # every j != i, in order
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    idx = lo * k - lo * (lo + 1) // 2 + (hi - lo - 1)  # the pair's place in triu order
    fwd = a < b
    p = padj[idx]
    col = pl.Series(list(names), dtype=pl.String)
    return pl.DataFrame({
        "alternative_1": col.gather(a), "alternative_2": col.gather(b),
        "wins": np.where(fwd, st["wins"][idx], st["losses"][idx]),
        "ties": st["ties"][idx],
        "losses": np.where(fwd, st["losses"][idx], st["wins"][idx]),
        "n": st["n"][idx],
        "mean_difference": np.where(fwd, 1.0, -1.0) * st["mean_difference"][idx],
        "pvalue": p,
        "significant": np.isfinite(p) & (p < alpha),
    }, schema={
        "alternative_1": pl.String, "alternative_2": pl.String, "wins": pl.Int64,
        "ties": pl.Int64, "losses": pl.Int64, "n": pl.Int64, "mean_difference": pl.Float64,
        "pvalue": pl.Float64, "significant": pl.Boolean})
