"""Tiers of a leaderboard, and the conditions that would split them (SPEC A16, A15).

The tiers are those of :func:`genexpy_nb.rank_sets`: a cut after place p of the observed
order stands where every alternative of the first p is shown ahead of every alternative
below it by the simultaneous family test. For every cut that does not stand yet, the plan
asks how many more conditions would make the **same test** (the same family of all ordered
pairs, the same level) show it, with a stated **assurance**: the probability, over what the
data say about the mean ranks, that the test run on N + k conditions shows the cut.

The predictive simulation is the plan's of ``gx.conclusions``
(``generalizability/assurance.py``: the mean ranks drawn given the data with an
empirical-Bayes shrinkage toward "all equal", k future conditions drawn given them, the
whole table pooled at N + k; ``draws`` draws common to every k and every cut), with the
variances' scale drawn from its posterior too (``scale=True``: with the variances plugged
in, a cut promised with assurance 0.8 was kept in 0.38 of simulated studies of 12
alternatives over 20 conditions, ``scripts/tiers_plan_check.py``). Here the draws are also
centred on mean ranks whose gaps between neighbours are
shrunk toward their mean gap (:func:`gap_shrunk`): the cuts that ask for more are chosen
where a gap looks settled, so their gaps are inflated (the winner's curse), and the
shrinkage toward "all equal" hardly moves neighbours. In each draw the family test is
re-run at N + k: every pair's statistic with its moderated variance at N + k - 1 degrees
of freedom, against the first step's critical value
of the bootstrap at N moved to N + k - 1 degrees of freedom (``t_rescale``: the studentised
maximum's tails thin as conditions are added; a normal approximation of the critical value
at N + k, checked by simulation in ``scripts/tiers_plan_check.py``). The plan runs the
single-step form of the test: the step-down verdict shows every cut it shows, so k is on
the safe side (and no compiled kernel is needed).

``more`` is the smallest k (read off between the evaluated values) at which the cut is shown
in a share ``assurance`` of the draws, with the Monte Carlo error of that share;
``more_lo`` and ``more_hi`` bound the number of conditions after which a draw first shows
the cut (the 90 % predictive interval; ``more_hi`` is inf beyond the search's end). A cut
whose direction the data do not settle is "unsure": no number of conditions is promised —
either a pair across it has a 90 % interval of its mean-rank difference that reaches 0, or,
taken together, the draws of the mean ranks given the data put some alternative below it
ahead of one above it with probability more than ``1 - assurance`` (then no k can reach the
assurance). A cut across two alternatives equal in every condition is "tied".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

from .._validation import (
    GenexpyInputError,
    check_memory,
    check_positive_int,
    check_probability,
    child_seed,
    root_seed,
)
from ..generalizability.assurance import FutureTable, PredictiveModel, search_k
from ._stepdown import ahead_matrix, cuts_held, kth_index, stepdown, t_rescale, tier_cuts
from .sets import (
    REPS,
    Family,
    check_reps,
    family,
    head_frame,
    moderated,
    samples_of,
    studentised,
    tiers_of,
)

__all__ = ["tiers"]

#: predictive draws of the plan (Monte Carlo error of an assurance of 0.8: 0.013)
DRAWS = 1000
#: the interval of the mean-rank difference that settles a direction (as gx.conclusions)
DIRECTION_LEVEL = 0.90
#: the grid of critical values on which the map to N + k - 1 degrees of freedom is tabulated
_CGRID = np.linspace(0.0, 60.0, 3001)


def first_critical(G: np.ndarray, level: float) -> float:
    """Return the first step's critical value: the level quantile of the largest |G|."""
    m = np.abs(G).max(axis=1).astype(np.float64)
    return max(float(np.sort(m)[kth_index(level, m.size)]), 0.0)


def _cut_event(fam: Family, todo: np.ndarray, *, step_down: bool = False
               ) -> Callable[[FutureTable], np.ndarray]:
    """Build the family test at N + k on a simulated table: which cuts ``todo`` it shows.

    By default the single-step form of the test: a pair is shown when its statistic passes
    the first step's critical value (all hypotheses standing), moved to N + k - 1 degrees
    of freedom. The step-down verdict shows every cut this shows (its critical values only
    decrease), so the plan's k is on the safe side, and it needs no compiled kernel.
    ``step_down=True`` re-runs the whole step-down in every draw (the numba kernel).
    """
    K, N = fam.K, fam.N
    pos = np.empty(K, dtype=np.int64)
    pos[fam.order] = np.arange(K)
    pos_i, pos_j = pos[fam.iu], pos[fam.ju]
    maps: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    c0 = first_critical(fam.G, fam.level)

    def event(ft: FutureTable) -> np.ndarray:
        var = ft.sd ** 2
        var0 = pooled_pairs(var)
        T = studentised(ft.diff, moderated(var, var0, ft.df), ft.n)
        if ft.df not in maps:
            maps[ft.df] = (_CGRID, t_rescale(_CGRID, N - 1, ft.df))
        if step_down:
            rej = stepdown(T, fam.G, fam.level, cmap=maps[ft.df])
        else:
            c = float(t_rescale(np.array([c0]), N - 1, ft.df)[0])
            rej = np.where(T > c, 1, np.where(-T > c, -1, 0)).astype(np.int8)
        return cuts_held(rej, pos_i, pos_j)[:, todo]

    return event


def pooled_pairs(var: np.ndarray) -> np.ndarray:
    """Per draw, the mean variance of the pairs (the moderation's prior), as a column."""
    return var.mean(axis=1, keepdims=True)


def gap_shrunk(centre: np.ndarray, order: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Shrink the gaps between neighbours of the observed order toward their mean.

    The cuts that ask for more conditions were chosen where a gap between neighbours looks
    settled: such gaps are inflated by the choice (the winner's curse). An empirical-Bayes
    model of the K - 1 gaps (Efron & Morris 1973): true gaps ~ N(mean gap, tau^2), each
    observed with the variance of its pair's mean difference, tau^2 by the method of
    moments; each gap moves toward the mean gap by the factor ``1 - B`` and the mean ranks
    are rebuilt from them (their mean kept). Evenly spaced alternatives (tau^2 near 0) get
    their gaps pulled together; a board of well separated groups (tau^2 large) keeps them.

    Parameters
    ----------
    centre : numpy.ndarray
        (K,) the mean ranks the draws are centred on.
    order : numpy.ndarray
        The alternatives, best first.
    x : numpy.ndarray
        (N, K) per-condition midranks.

    Returns
    -------
    numpy.ndarray
        (K,) the new centre.
    """
    K = centre.size
    N = x.shape[0]
    if K < 3 or N < 2:
        return centre
    c = centre[order]
    gaps = np.diff(c)
    d = x[:, order[1:]] - x[:, order[:-1]]
    noise = d.var(axis=0, ddof=1) / N
    tau2 = max(float(gaps.var(ddof=1)) - float(noise.mean()), 0.0)
    shrink = tau2 / (tau2 + noise) if tau2 > 0 else np.zeros_like(noise)
    new_gaps = gaps.mean() + shrink * (gaps - gaps.mean())
    rebuilt = np.concatenate([[0.0], np.cumsum(new_gaps)])
    rebuilt += c.mean() - rebuilt.mean()
    out = np.empty(K)
    out[order] = rebuilt
    return out


def ordered_share(post: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Per cut, the share of draws of the mean ranks that keep the observed sides apart.

    ``post``: (draws, K) mean ranks drawn given the data; ``order``: the alternatives, best
    first. Element q - 1: the share of draws in which every alternative of the first q
    positions has a lower (better) mean rank than every one after: the most a plan can
    promise for that cut, however many conditions are added.
    """
    x = post[:, order]
    top = np.maximum.accumulate(x, axis=1)[:, :-1]
    rest = np.minimum.accumulate(x[:, ::-1], axis=1)[:, ::-1][:, 1:]
    return (top < rest).mean(axis=0)


def _settled(fam: Family) -> np.ndarray:
    """Say per pair whether its 90 % interval of the mean-rank difference excludes 0."""
    from scipy.special import stdtrit

    N = fam.N
    T = studentised(fam.d, moderated(fam.var, fam.var0, N - 1), N)
    crit = float(stdtrit(N - 1, 0.5 + DIRECTION_LEVEL / 2))
    return np.abs(T) > crit


def _cut_reasons(fam: Family, split: np.ndarray) -> tuple[list[str], list[str]]:
    """Per cut not shown: 'tied' (a pair across it equal in every condition), 'unsure' or ''."""
    K = fam.K
    pos = np.empty(K, dtype=np.int64)
    pos[fam.order] = np.arange(K)
    lo = np.minimum(pos[fam.iu], pos[fam.ju])
    hi = np.maximum(pos[fam.iu], pos[fam.ju])
    settled = _settled(fam)
    same = (fam.var == 0) & (fam.d == 0)
    verdicts, reasons = [], []
    names = fam.alternatives
    for q in range(1, K):
        if split[q - 1]:
            verdicts.append("split")
            reasons.append("")
            continue
        across = (lo < q) & (hi >= q)
        tied = np.flatnonzero(across & same)
        open_ = np.flatnonzero(across & ~settled)
        if tied.size:
            p = tied[0]
            verdicts.append("tied")
            reasons.append(f"{names[fam.iu[p]]} and {names[fam.ju[p]]} have equal ranks in "
                           f"all {fam.N} conditions: no number of conditions splits them")
        elif open_.size:
            p = open_[np.argmin(np.abs(fam.d[open_]))]
            verdicts.append("unsure")
            reasons.append(f"the direction is not settled: the data are compatible with no "
                           f"difference between {names[fam.iu[p]]} and {names[fam.ju[p]]} "
                           f"(their {DIRECTION_LEVEL * 100:g} % interval of the mean-rank "
                           "difference reaches 0)")
        else:
            verdicts.append("")
            reasons.append("")
    return verdicts, reasons


def _plan_rows(fam: Family, *, assurance: float, draws: int, rng: np.random.Generator,
               k_max: int) -> dict[str, list[Any]]:
    K, N = fam.K, fam.N
    A = ahead_matrix(fam.rej, fam.iu, fam.ju, K)
    split = tier_cuts(A, fam.order)
    tier = tiers_of(fam)
    names = [fam.alternatives[i] for i in fam.order]
    verdicts, reasons = _cut_reasons(fam, split) if N >= 2 else (
        ["unsure"] * (K - 1), [f"only {N} condition(s)"] * (K - 1))
    todo = np.array([q - 1 for q in range(1, K) if verdicts[q - 1] == ""], dtype=np.int64)
    more: dict[int, float] = {}
    lo_k: dict[int, float] = {}
    hi_k: dict[int, float] = {}
    reached: dict[int, float] = {}
    if todo.size:
        model = PredictiveModel(fam.x, draws=draws, rng=rng, scale=True)
        centre = model.post.mean(axis=0)
        model.post = model.post + (gap_shrunk(centre, fam.order, fam.x) - centre)
        p_order = ordered_share(model.post, fam.order)
        reachable = p_order[todo] >= assurance
        for c in todo[~reachable].tolist():
            verdicts[c] = "unsure"
            reasons[c] = (f"the order across this cut is not settled as a whole: given the "
                          f"data, some alternative below it is truly ahead of one above it "
                          f"with probability {1 - p_order[c]:.2f}, so no number of "
                          f"conditions shows it with probability {assurance:g}")
        todo = todo[reachable]
    if todo.size:
        plan = search_k(model, _cut_event(fam, todo), todo.size, assurance=assurance,
                        k_max=k_max, level=DIRECTION_LEVEL)
        for n, c in enumerate(todo.tolist()):
            more[c] = float(plan.k[n]) if plan.k[n] > 0 else math.inf
            lo_k[c] = float(plan.k_lo[n]) if plan.k_lo[n] > 0 else math.inf
            hi_k[c] = float(plan.k_hi[n]) if plan.k_hi[n] > 0 else math.inf
            reached[c] = float(plan.p_hold[n])
    rows: dict[str, list[Any]] = {k: [] for k in (
        "after", "above", "below", "tier_above", "tier_below", "split", "verdict", "more",
        "more_lo", "more_hi", "assurance_at_more", "mc_error", "reason")}
    for q in range(1, K):
        c = q - 1
        v, why = verdicts[c], reasons[c]
        m = more.get(c, math.inf)
        if v == "":
            if math.isfinite(m):
                v = f"needs {int(m)} more"
            else:
                v = "unsure"
                why = (f"not shown with probability {assurance:g} within {k_max:,} more "
                       "conditions")
        planned = v.startswith("needs")
        a = reached.get(c, 0.0)
        rows["after"].append(q)
        rows["above"].append(names[q - 1])
        rows["below"].append(names[q])
        rows["tier_above"].append(int(tier[fam.order[q - 1]]))
        rows["tier_below"].append(int(tier[fam.order[q]]))
        rows["split"].append(bool(split[c]))
        rows["verdict"].append(v)
        rows["more"].append(int(m) if planned else None)
        rows["more_lo"].append(lo_k.get(c) if planned else None)
        rows["more_hi"].append(hi_k.get(c) if planned else None)
        rows["assurance_at_more"].append(a if planned else None)
        rows["mc_error"].append(math.sqrt(a * (1 - a) / draws) if planned else None)
        rows["reason"].append(why)
    return rows


_SCHEMA = {"after": pl.Int64, "above": pl.String, "below": pl.String,
           "tier_above": pl.Int64, "tier_below": pl.Int64, "split": pl.Boolean,
           "verdict": pl.String, "more": pl.Int64, "more_lo": pl.Float64,
           "more_hi": pl.Float64, "assurance": pl.Float64, "assurance_at_more": pl.Float64,
           "mc_error": pl.Float64, "draws": pl.Int64, "N": pl.Int64, "level": pl.Float64,
           "reason": pl.String}


def tiers(
    study: Any,
    *,
    level: float = 0.95,
    assurance: float = 0.8,
    draws: int = DRAWS,
    reps: int = REPS,
    seed: Any = 0,
    max_more: int | None = None,
    config_id: Any = None,
    progress: bool = True,
) -> pl.DataFrame:
    """Say where a leaderboard splits into tiers, and how many conditions each cut needs.

    A cut after place p stands where the simultaneous family test of
    :func:`genexpy_nb.rank_sets` shows every alternative of the first p ahead of every one
    below (the tiers are the groups between the cuts). Every other cut between two
    neighbours of the observed order gets the number of conditions to add after which the
    same test shows it with probability ``assurance``, from a predictive simulation (see
    the module notes).

    Parameters
    ----------
    study : Study
        The study (its rankings as they are: direction, tie tolerances, missing results).
    level : float
        The family's level, as in :func:`genexpy_nb.rank_sets` (default 0.95).
    assurance : float
        The probability with which the added conditions should show a cut (default 0.8).
    draws : int
        Predictive draws (default 1000; the Monte Carlo error of an assurance of 0.8 is
        then 0.013).
    reps : int
        Bootstrap replicates of the family test (default 2000).
    seed : int or numpy.random.Generator
        Seed of the bootstrap and of the draws; the same seed gives the same frame, bit for
        bit, and the same tiers as :func:`genexpy_nb.rank_sets` with that seed.
    max_more : int, optional
        The most conditions searched (default ``max(1000, 100 N)``).
    config_id : int, dict or tuple, optional
        One configuration only; default all.
    progress : bool
        Show a progress bar over the configurations (when there are several).

    Returns
    -------
    polars.DataFrame
        One row per (configuration, cut between neighbours of the observed order):
        ``config_id``, the design factors, ``after`` (the cut after this place), ``above``
        and ``below`` (the two neighbours), ``tier_above``, ``tier_below``, ``split``
        (shown now), ``verdict`` ("split", "needs k more", "unsure", "tied"), ``more`` (k),
        ``more_lo``, ``more_hi`` (the k at which 5 % and 95 % of the draws show it; inf
        when more than ``max_more``), ``assurance`` (the target), ``assurance_at_more``
        (the estimated probability at ``more``), ``mc_error`` (its Monte Carlo error),
        ``draws``, ``N``, ``level``, ``reason``.

    Examples
    --------
    >>> import polars as pl, genexpy_nb as gx
    >>> rows = [(f"d{i}", m, s + 0.01 * ((7 * i + 3 * j) % 5))
    ...         for i in range(20) for j, (m, s) in enumerate([("a", 0.9), ("b", 0.7),
    ...                                                        ("c", 0.69)])]
    >>> df = pl.DataFrame(rows, schema=["dataset", "model", "acc"], orient="row")
    >>> study = gx.Study(df, alternatives="model", target="acc", generalize="dataset",
    ...                  higher_is_better=True)
    >>> gx.tiers(study, draws=200, reps=500).select("above", "below", "split").rows()
    [('a', 'b', True), ('b', 'c', False)]
    """
    level = check_probability("level", level)
    assurance = check_probability("assurance", assurance)
    draws = check_positive_int("draws", draws, minimum=100)
    if draws > 100_000:
        raise GenexpyInputError(f"draws={draws:,}: at most 100,000 (the Monte Carlo error of "
                                "an assurance is then 0.001).")
    root = root_seed(seed)
    samples = samples_of(study, config_id, "tiers")
    for s in samples:
        check_reps(reps, s.na, s.N)
        P = s.na * (s.na - 1) // 2
        check_memory("draws", draws, per_unit=8.0 * (3 * P + 2 * s.N + 4 * s.na),
                     minimum=100, what=f"the predictive draws of {P:,} pairs")
    if max_more is not None:
        max_more = check_positive_int("max_more", max_more)
    from .._progress import tqdm

    parts, ids = [], []
    for s in tqdm(samples, desc="tiers", unit="config",
                  disable=not progress or len(samples) < 2, leave=False):
        rng = child_seed(root, s.config_id)
        fam = family(s, level=level, reps=int(reps), rng=rng)
        k_max = max_more or int(min(10**6, max(1000, 100 * s.N)))
        rows = _plan_rows(fam, assurance=assurance, draws=draws, rng=rng, k_max=k_max)
        n = len(rows["after"])
        rows.update({"assurance": [assurance] * n, "draws": [draws] * n, "N": [s.N] * n,
                     "level": [level] * n})
        parts.append(pl.DataFrame({c: rows[c] for c in _SCHEMA}, schema=_SCHEMA))
        ids.extend([s.config_id] * n)
    body = pl.concat(parts) if parts else pl.DataFrame(schema=_SCHEMA)
    return pl.concat([head_frame(study, ids), body], how="horizontal")
