"""Rank uncertainty: how sure a leaderboard of alternatives is.

A ranking of alternatives by their mean rank over the conditions of a study (datasets,
subtasks) is one draw: other conditions would have given another. :func:`rank_probabilities`
resamples the conditions with replacement (a bootstrap over conditions) and counts how often
each alternative takes each place; :func:`rank_intervals` turns that into an interval of
places per alternative, and :func:`top_group` names the alternatives that cannot be separated
from the top.

The ranking inside each replicate is the one of a critical-difference diagram (Demšar 2006,
Sec. 3.2.2): the mean over the conditions of the within-condition midranks (rank 1 = best,
tied alternatives share the mean of their places), the study's ties and direction included.

Ties between alternatives in a replicate (equal mean ranks) split their places evenly: two
alternatives tied for first each get probability 1/2 for place 1 and 1/2 for place 2. So the
probabilities over places sum to 1 for every alternative, and over alternatives to 1 for
every place.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .._codes import run_ends
from .._validation import GenexpyInputError, check_seed, rng_from_seed

__all__ = ["rank_probabilities", "rank_intervals", "top_group"]


def _doubled_midranks(tiers: np.ndarray) -> np.ndarray:
    """Return twice the midrank (1 = best) of every alternative in every condition.

    As integers: ``2 * #(better) + #(tied, itself included) + 1``, from dense tiers
    (0 = best).
    """
    t = np.asarray(tiers)
    less = (t[:, None, :] < t[:, :, None]).sum(axis=2)
    eq = (t[:, None, :] == t[:, :, None]).sum(axis=2)
    return (2 * less + eq + 1).astype(np.int64)


def _exact_sums(w: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Return ``w @ m`` of two integer matrices, exactly, as int64.

    ``w`` holds counts (non-negative): every partial sum of a row's products is at most
    the row's total count times the largest ``|m|``. Where that is below 2**53 every partial
    sum is an integer a float64 holds exactly, so BLAS gives the exact product in any order
    of summation; else NumPy's integer product (several times slower).
    """
    if float(w.sum(axis=1).max(initial=0)) * float(np.abs(m).max(initial=0)) < 2.0**53:
        return (w.astype(np.float64) @ m.astype(np.float64)).astype(np.int64)
    return w @ m


#: the most bootstrap replicates one call draws: probabilities to about ±0.001 (2000 give
#: about ±0.01); more only costs time
MAX_REP = 1_000_000


def _check_rep(rep: Any) -> int:
    if isinstance(rep, bool) or not isinstance(rep, (int, np.integer)) or int(rep) < 1:
        raise GenexpyInputError(f"rep must be a positive integer (e.g. 2000), got {rep!r}.")
    if int(rep) > MAX_REP:
        raise GenexpyInputError(
            f"rep={int(rep):,} is more than {MAX_REP:,} bootstrap replicates, which already "
            "give every probability to about ±0.001; use rep=2000 (about ±0.01) to "
            f"{MAX_REP:,}.")
    return int(rep)


def _configuration(study: Any, config: Any):
    if not hasattr(study, "samples") or not hasattr(study, "sample"):
        raise GenexpyInputError(
            "rank_probabilities takes a genexpy_nb.Study; build one with gx.Study(df, "
            "alternatives=..., target=..., generalize=..., higher_is_better=...)."
        )
    if config is None:
        samples = list(study.samples())
        if len(samples) != 1:
            raise GenexpyInputError(
                f"the study has {len(samples)} configurations; name one with config= (an id, "
                "a {factor: level} dict or a tuple of levels, see study.configurations)."
            )
        return samples[0]
    return study.sample(config)


def _place_counts(sums: np.ndarray) -> np.ndarray:
    """Return the (na, na) expected counts of places (0-based) from (rep, na) scores.

    Lower scores are better; ties share their places evenly.
    """
    rep, na = sums.shape
    # each replicate's tie groups from its sorted scores (O(na log na), not na^2): the
    # alternatives strictly better (the group's first sorted place) and the group's size
    order = np.argsort(sums, axis=1, kind="stable")
    srt = np.take_along_axis(sums, order, axis=1)
    start, end = run_ends(srt, starts=True)
    lower = np.empty((rep, na), dtype=np.int64)  # (rep, na): strictly better
    k = np.empty((rep, na), dtype=np.int64)  # tied, itself included
    np.put_along_axis(lower, order, start, axis=1)
    np.put_along_axis(k, order, end - start + 1, axis=1)
    # the expected counts' differences along the places: + 1/k where a group starts, - 1/k
    # past its end, summed in the order np.add.at sums them (the plus terms, then the minus)
    a = np.broadcast_to(np.arange(na), (rep, na)).ravel()
    idx = np.concatenate((a * (na + 1) + lower.ravel(), a * (na + 1) + (lower + k).ravel()))
    w = np.concatenate((1.0 / k.ravel(), -1.0 / k.ravel()))
    diff = np.bincount(idx, weights=w, minlength=na * (na + 1)).reshape(na, na + 1)
    return np.cumsum(diff, axis=1)[:, :na]


def rank_probabilities(
    study: Any, *, rep: int = 2000, seed: int = 0, config: Any = None
) -> pl.DataFrame:
    """Estimate the probability that each alternative takes each place of the ranking.

    The conditions of the study are resampled with replacement.

    Each of ``rep`` replicates draws as many conditions as the study has, with replacement,
    and ranks the alternatives by their mean midrank over the drawn conditions (the ranking
    of a critical-difference diagram, rank 1 = best). Alternatives tied in a replicate share
    their places evenly (see the module's notes), so the probabilities of an alternative
    over the places sum to 1.

    Parameters
    ----------
    study : Study
        The study; its rankings (direction, tie tolerances, missing results imputed as the
        worst tier) are used as they are.
    rep : int
        Bootstrap replicates (default 2000).
    seed : int, numpy.random.Generator or None
        Seed of the resampling (an integer >= 0); the same seed gives the same frame, bit
        for bit.
    config : int, dict or tuple, optional
        The configuration (design-factor levels) to rank; required when the study has more
        than one.

    Returns
    -------
    polars.DataFrame
        Columns ``alternative``, ``rank`` (1 = best) and ``probability``: one row per
        alternative and place, alternatives in the study's order.

    Examples
    --------
    >>> import polars as pl, genexpy_nb as gx
    >>> df = pl.DataFrame({"dataset": [f"d{i}" for i in range(6) for _ in range(2)],
    ...                    "model": ["a", "b"] * 6, "acc": [0.9, 0.8] * 6})
    >>> study = gx.Study(df, alternatives="model", target="acc", generalize="dataset",
    ...                  higher_is_better=True)
    >>> gx.rank_probabilities(study, rep=100, seed=0)["probability"].to_list()
    [1.0, 0.0, 0.0, 1.0]
    """
    rep = _check_rep(rep)
    rng = rng_from_seed(check_seed(seed))
    s = _configuration(study, config)
    n, na = np.shape(s.rankings)
    if n < 2:
        raise GenexpyInputError(
            f"rank probabilities need at least 2 conditions, and this configuration has {n}: "
            "every resample would draw the same condition, so each place would get "
            "probability 0 or 1 whatever the alternatives' real uncertainty. Add conditions "
            "(datasets, tasks) to the study.")
    work = rep * na * (n + na)
    if work > 5 * 10**10:
        raise GenexpyInputError(
            f"rank probabilities of {na:,} alternatives over {n:,} conditions with "
            f"rep={rep:,} take about {work:.1e} operations; lower rep (to "
            f"{max(1, 5 * 10**10 // (na * (n + na))):,} or less) or rank fewer alternatives.")
    from .._numba import one_blas_thread  # loads no numba

    m = _doubled_midranks(s.rankings)
    counts = np.zeros((na, na))
    block = max(1, 2_000_000 // max(1, n * na + na * na))
    done = 0
    with one_blas_thread():  # small products: a multi-threaded BLAS stalls on a busy machine
        while done < rep:
            size = min(block, rep - done)
            draws = rng.integers(0, n, size=(size, n))
            # how often each condition is drawn, per replicate: sums of doubled midranks are
            # exact integers, so ties between mean ranks are exact
            w = np.bincount((draws + n * np.arange(size)[:, None]).ravel(),
                            minlength=size * n).reshape(size, n)
            counts += _place_counts(_exact_sums(w, m))
            done += size
    prob = counts / rep
    return pl.DataFrame({
        "alternative": np.repeat(np.array(s.alternatives, dtype=object), na).tolist(),
        "rank": np.tile(np.arange(1, na + 1), na),
        "probability": prob.ravel(),
    }, schema={"alternative": pl.String, "rank": pl.Int64, "probability": pl.Float64})


def _check_probabilities(probabilities: Any) -> pl.DataFrame:
    if not isinstance(probabilities, pl.DataFrame) or not {
            "alternative", "rank", "probability"} <= set(probabilities.columns):
        raise GenexpyInputError(
            "probabilities must be the frame of gx.rank_probabilities (columns alternative, "
            "rank, probability)."
        )
    return probabilities


def _check_level(confidence_level: Any) -> float:
    try:
        c = float(confidence_level)
    except (TypeError, ValueError):
        c = float("nan")
    if not 0 < c < 1:
        raise GenexpyInputError(
            f"confidence_level must be in (0, 1), e.g. 0.95; got {confidence_level!r}."
        )
    return c


def rank_intervals(probabilities: pl.DataFrame, *, confidence_level: float = 0.95
                   ) -> pl.DataFrame:
    """Return a central interval of places per alternative, from :func:`rank_probabilities`.

    Parameters
    ----------
    probabilities : polars.DataFrame
        The frame of :func:`rank_probabilities`.
    confidence_level : float
        The interval holds at least this probability (default 0.95), with at most half the
        rest above and half below.

    Returns
    -------
    polars.DataFrame
        ``alternative``, ``expected_rank`` (the mean place), ``p_best`` (probability of
        place 1), ``rank_low`` and ``rank_high`` (the interval's places, 1 = best).

    Examples
    --------
    >>> import polars as pl
    >>> p = pl.DataFrame({"alternative": ["a", "a", "b", "b"], "rank": [1, 2, 1, 2],
    ...                   "probability": [0.99, 0.01, 0.01, 0.99]})
    >>> rank_intervals(p)["rank_high"].to_list()
    [1, 2]
    """
    p = _check_probabilities(probabilities)
    c = _check_level(confidence_level)
    tail = (1 - c) / 2
    rows = []
    eps = 1e-12
    # each alternative's rows, in order of first appearance, from one pass over the frame
    # (a filter per alternative scanned the whole frame each time: quadratic in them)
    groups = p.with_row_index("_row").group_by("alternative", maintain_order=True).agg(
        pl.col("_row"))
    rank_all = p["rank"].to_numpy()
    prob_all = p["probability"].to_numpy()
    for alt, idx in groups.iter_rows():
        idx = np.asarray(idx, dtype=np.int64)
        idx = idx[np.argsort(rank_all[idx], kind="stable")]
        r = rank_all[idx]
        q = prob_all[idx]
        cdf = np.cumsum(q)
        low = int(r[np.argmax(cdf > tail + eps)])
        high = int(r[np.argmax(cdf >= 1 - tail - eps)])
        rows.append((alt, float((r * q).sum()), float(q[r == 1].sum()), low, high))
    return pl.DataFrame(rows, schema={"alternative": pl.String, "expected_rank": pl.Float64,
                                      "p_best": pl.Float64, "rank_low": pl.Int64,
                                      "rank_high": pl.Int64}, orient="row")


def top_group(probabilities: pl.DataFrame, *, confidence_level: float = 0.95) -> list[str]:
    """Return the alternatives that cannot be separated from the top.

    Those whose rank interval (:func:`rank_intervals`) reaches place 1, best expected place
    first.

    Parameters
    ----------
    probabilities : polars.DataFrame
        The frame of :func:`rank_probabilities`.
    confidence_level : float
        Level of the rank intervals (default 0.95).

    Returns
    -------
    list of str

    Examples
    --------
    >>> import polars as pl
    >>> p = pl.DataFrame({"alternative": ["a", "a", "b", "b"], "rank": [1, 2, 1, 2],
    ...                   "probability": [0.9, 0.1, 0.1, 0.9]})
    >>> top_group(p)
    ['a', 'b']
    """
    iv = rank_intervals(probabilities, confidence_level=confidence_level)
    return iv.filter(pl.col("rank_low") == 1).sort("expected_rank",
                                                   maintain_order=True)["alternative"].to_list()
