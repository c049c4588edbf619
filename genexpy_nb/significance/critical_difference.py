"""The data of a critical-difference diagram (Demšar 2006).

That is: mean ranks, Nemenyi's critical difference, and the cliques of alternatives that
are not significantly different. Drawn by :func:`~genexpy_nb.charts.cd_diagram` (and as
PNG/SVG/PDF by :func:`~genexpy_nb.charts.save_cd_diagram`). For a results table with
missing results, :func:`~genexpy_nb.significance.compare` applies the missing-results
policy of a Study and gives mean ranks, tests and cliques over the same blocks.

Missing values: ``nan_policy`` defaults to ``"raise"`` here and in the diagrams drawn from
it (:func:`~genexpy_nb.charts.cd_diagram`, :func:`~genexpy_nb.charts.cd_diagram_svg`), unlike
:func:`~genexpy_nb.significance.friedman` and the post-hoc tests it builds on
(``"propagate"``); ``"omit"`` and ``"propagate"`` are the other choices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np
import polars as pl

from .._validation import (
    REQUIRED,
    GenexpyInputError,
    check_choice,
    check_positive_int,
    check_probability,
    require_columns,
    to_polars,
)
from .._validation import check_direction as _direction
from ._input import TableRoles, _complete_rows, _orient, table_matrix, takes_table_roles
from ._ranks import rank_rows

__all__ = ["nemenyi_cd", "critical_difference", "cliques", "group_letters"]


def _studentized_range_q(k: int, alpha: float) -> float:
    # the inverse of the survival function Nemenyi's p-values come from (scipy's ppf to
    # 1e-10; scipy.stats is not imported: about 1 s in a new process)
    from ._studentized import studentized_range_isf

    return studentized_range_isf(alpha, k)


def nemenyi_cd(k: int, n: int, alpha: float = 0.05) -> float:
    """Critical difference of mean ranks of Nemenyi's test (Demšar 2006).

    ``CD = q_alpha / sqrt(2) * sqrt(k (k + 1) / (6 n))`` with ``q_alpha`` the upper-alpha
    quantile of the studentized range for k groups and infinite dof. Two alternatives whose
    mean ranks differ by more than CD are significantly different at level alpha.

    Parameters
    ----------
    k : int
        Number of alternatives (models) compared, at least 2.
    n : int
        Number of conditions (datasets) they are ranked on, at least 1.
    alpha : float, default 0.05
        Level of the test (the family-wise error rate over all pairs).

    Returns
    -------
    float
        The critical difference, in mean ranks.

    Examples
    --------
    >>> round(nemenyi_cd(5, 30, 0.05), 4)  # q_0.05 / sqrt(2) = 2.728 for k = 5
    1.1136
    """
    k = check_positive_int("k", k, minimum=2)
    n = check_positive_int("n", n, minimum=1)
    alpha = check_probability("alpha", alpha)
    return _studentized_range_q(k, alpha) / math.sqrt(2.0) * math.sqrt(k * (k + 1.0) / (6.0 * n))


@takes_table_roles()
def critical_difference(
    data: Any,
    *,
    alpha: float = 0.05,
    higher_is_better: bool = REQUIRED,
    nan_policy: str = "raise",
    ties: str = "average",
    **roles: Unpack[TableRoles],
) -> pl.DataFrame:
    """Mean ranks and Nemenyi's critical difference: the data of a CD diagram.

    Parameters
    ----------
    data : wide or long table, or 2-d array, shape (n conditions, k alternatives)
    alpha : float
        Level of the critical difference.
    higher_is_better : bool, required
        True for scores (accuracy), False for errors, losses or ranks; rank 1 = best.
    nan_policy : {"raise", "omit", "propagate"}
        Default "raise" (a diagram of NaN ranks is useless; missing results are refused as
        by a Study); "omit" drops incomplete conditions. For a results table with missing
        results use :func:`~genexpy_nb.significance.compare`: it applies the Study's
        missing-results policy and ranks among the available alternatives, with the tests
        over the same blocks.
    ties : {"average", "min"}
        Ranks of tied alternatives: the mean of the ranks they occupy (default, as the
        tests) or the lowest (``method="min"``, as some papers publish).
    {roles}

    Returns
    -------
    polars.DataFrame
        One row per alternative, sorted by mean rank (best first): ``alternative,
        mean_rank, cd, alpha, n_conditions, n_alternatives, ties`` (``cd`` is Nemenyi's
        critical difference). Draw it with :func:`~genexpy_nb.charts.cd_diagram`; cliques
        with :func:`~genexpy_nb.significance.cliques`.

    Examples
    --------
    >>> scores = [[0.81, 0.78, 0.70], [0.85, 0.80, 0.74], [0.79, 0.80, 0.71],
    ...           [0.90, 0.86, 0.80], [0.83, 0.79, 0.75], [0.88, 0.84, 0.77]]
    >>> ranks = critical_difference(scores, higher_is_better=True)
    >>> ranks.select("alternative", pl.col("mean_rank", "cd").round(3)).rows()
    [('0', 1.167, 1.353), ('1', 1.833, 1.353), ('2', 3.0, 1.353)]
    """
    alpha = check_probability("alpha", alpha)
    check_choice("ties", ties, ("average", "min"))
    hib = _direction(higher_is_better, "critical_difference")
    m = table_matrix(data, roles, "critical_difference")
    try:
        values, _, propagate = _complete_rows(m.values, nan_policy, "data")
    except GenexpyInputError as exc:
        if nan_policy != "raise":
            raise
        raise GenexpyInputError(
            f"{str(exc).split(' Use nan_policy')[0]} For a results table with missing "
            "results, significance.compare(...) applies a Study's missing-results policy "
            "and gives mean ranks, tests and cliques over the same blocks (draw it with "
            "charts.cd_diagram(result)); nan_policy='omit' keeps only complete conditions."
        ) from None
    n, k = values.shape
    if propagate:
        mean_ranks = np.full(k, np.nan)
    else:
        # midranks are halves, so their sums are exact: the same bits as friedman()'s
        oriented = _orient(values, hib)
        ranks = rank_rows(oriented, ties)[0]
        mean_ranks = ranks.sum(axis=0) / n
    cd = nemenyi_cd(k, n, alpha)
    return pl.DataFrame(
        {
            "alternative": list(m.alternatives),
            "mean_rank": mean_ranks,
            "cd": [cd] * k,
            "alpha": [alpha] * k,
            "n_conditions": [n] * k,
            "n_alternatives": [k] * k,
            "ties": [ties] * k,
        },
        schema_overrides={"alternative": pl.String},
    ).sort("mean_rank", maintain_order=True)


def cliques(
    ranks: pl.DataFrame,
    *,
    cd: float | None = None,
    pairwise: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Maximal groups of consecutive alternatives (by mean rank) not significantly different.

    Parameters
    ----------
    ranks : polars.DataFrame
        Columns ``alternative`` and ``mean_rank`` (e.g. from
        :func:`~genexpy_nb.significance.critical_difference`, whose ``cd`` column is used
        when ``cd`` is None and ``pairwise`` is None).
    cd : float, optional
        Critical difference: i and j are not significantly different when
        ``|mean_rank_i - mean_rank_j| <= cd``.
    pairwise : polars.DataFrame, optional
        A post-hoc frame (``alternative_1, alternative_2, significant``), e.g. from
        :func:`~genexpy_nb.significance.posthoc_conover` with ``p_adjust="holm"``: a group
        qualifies when none of its pairs is significant. Takes precedence over ``cd``.

    Returns
    -------
    polars.DataFrame
        One row per clique (of at least two alternatives), left to right: ``clique, rank_low,
        rank_high, size, members`` (a list of names, best first).

    Examples
    --------
    >>> scores = [[0.81, 0.78, 0.70], [0.85, 0.80, 0.74], [0.79, 0.80, 0.71],
    ...           [0.90, 0.86, 0.80], [0.83, 0.79, 0.75], [0.88, 0.84, 0.77]]
    >>> ranks = critical_difference(scores, higher_is_better=True)
    >>> cliques(ranks)["members"].to_list()
    [['0', '1'], ['1', '2']]
    """
    ranks = to_polars(ranks, "ranks")
    require_columns(ranks, ["alternative", "mean_rank"], "ranks")
    r = ranks.select(pl.col("alternative").cast(pl.String), pl.col("mean_rank").cast(pl.Float64))
    r = r.sort("mean_rank", maintain_order=True)
    names = r["alternative"].to_list()
    mr = r["mean_rank"].to_numpy()
    if np.isnan(mr).any():
        raise GenexpyInputError("ranks: mean_rank has NaN values; no cliques can be drawn.")
    k = len(names)
    if pairwise is not None:
        pw = to_polars(pairwise, "pairwise")
        require_columns(pw, ["alternative_1", "alternative_2", "significant"], "pairwise")
        # the significant pairs as positions in the order by mean rank (vectorised: a
        # post-hoc frame of k = 5,000 alternatives has 12.5 million rows)
        pos = pl.DataFrame({"a": names, "i": np.arange(k, dtype=np.int64)})
        hits = (pw.lazy().filter(pl.col("significant").fill_null(False))
                .select(pl.col("alternative_1").cast(pl.String).alias("a1"),
                        pl.col("alternative_2").cast(pl.String).alias("a2"))
                .join(pos.lazy().rename({"a": "a1", "i": "i1"}), on="a1")
                .join(pos.lazy().rename({"a": "a2", "i": "i2"}), on="a2")
                .select(pl.min_horizontal("i1", "i2").alias("lo"),
                        pl.max_horizontal("i1", "i2").alias("hi"))
                .group_by("hi").agg(pl.col("lo").max()).collect())
        # latest[j]: the last alternative before j (by mean rank) significantly different
        # from j; [lo, hi] is a group when latest[j] < lo for every j in (lo, hi]
        latest = np.full(k, -1, dtype=np.int64)
        latest[hits["hi"].to_numpy()] = hits["lo"].to_numpy()

        def together(lo: int, hi: int) -> bool:
            return bool(latest[hi] < lo)
    else:
        if cd is None:
            if "cd" not in ranks.columns:
                raise GenexpyInputError(
                    "cliques: give cd=..., a ranks frame with a 'cd' column "
                    "(critical_difference(...)), or pairwise=... (a post-hoc frame)."
                )
            cd = float(ranks["cd"][0])
        cd = float(cd)
        if not math.isfinite(cd) or cd < 0:
            raise GenexpyInputError(f"cd must be a finite number >= 0, got {cd!r}.")

        def together(lo: int, hi: int) -> bool:
            return mr[hi] - mr[lo] <= cd  # type: ignore[operator]

    rows = []
    last_hi = 0
    hi = 0
    for lo in range(k):
        # a group [lo, hi] minus its first member is a group too: hi never moves back, and
        # each step only checks the newcomer against the group (O(k) in all)
        hi = max(hi, lo)
        while hi + 1 < k and together(lo, hi + 1):
            hi += 1
        if hi > lo and hi > last_hi:
            rows.append((len(rows), float(mr[lo]), float(mr[hi]), hi - lo + 1, names[lo:hi + 1]))
            last_hi = hi
    return pl.DataFrame(
        rows,
        schema={"clique": pl.Int64, "rank_low": pl.Float64, "rank_high": pl.Float64,
                "size": pl.Int64, "members": pl.List(pl.String)},
        orient="row",
    )




def group_letters(order: Sequence[str], cliques: pl.DataFrame) -> list[str]:
    """Return the group letters of the alternatives: those sharing a letter are one clique.

    The compact letter display of the mean-rank tables: each clique (no significant
    difference between any two of its members) gets a letter, left to right (``a`` ..
    ``z``, ``aa``, ``ab``, ...); an alternative in no clique gets a letter of its own.

    Parameters
    ----------
    order : sequence of str
        The alternatives, best mean rank first.
    cliques : polars.DataFrame
        From :func:`cliques` on the same alternatives (column ``members``: each a run of
        consecutive alternatives of ``order``).

    Returns
    -------
    list of str
        The letters of each alternative of ``order``, e.g. ``"ab"`` for one in the first
        two groups; with more than 26 groups, letters are separated by commas.

    Examples
    --------
    >>> scores = [[0.81, 0.78, 0.70], [0.85, 0.80, 0.74], [0.79, 0.80, 0.71],
    ...           [0.90, 0.86, 0.80], [0.83, 0.79, 0.75], [0.88, 0.84, 0.77]]
    >>> ranks = critical_difference(scores, higher_is_better=True)
    >>> group_letters(ranks["alternative"].to_list(), cliques(ranks))
    ['a', 'ab', 'b']
    """
    pos = {a: t for t, a in enumerate(order)}
    spans = [(pos[m[0]], pos[m[-1]]) for m in cliques["members"].to_list()]
    covered = {t for lo, hi in spans for t in range(lo, hi + 1)}
    spans += [(t, t) for t in range(len(order)) if t not in covered]
    spans.sort()
    letters: list[list[str]] = [[] for _ in order]
    for g, (lo, hi) in enumerate(spans):
        letter, g2 = "", g
        while g2 >= 0:  # a..z, aa, ab, ...
            letter = chr(ord("a") + g2 % 26) + letter
            g2 = g2 // 26 - 1
        for t in range(lo, hi + 1):
            letters[t].append(letter)
    sep = "" if len(spans) <= 26 else ","
    return [sep.join(ls) for ls in letters]
