"""Report sections beyond p-values for a :class:`~genexpy_nb.significance.Comparison`.

* :func:`bayesian_section` — the Bayesian signed-rank test (Benavoli et al. 2017) of every
  alternative against the best one (or the comparison's control), with a rope;
* :func:`aggregates_section` — robust aggregates (IQM, mean, median; Agarwal et al. 2021)
  with bootstrap intervals over the blocks;
* :func:`rank_sets_section` — the places each alternative can hold, for all at once, and
  the tiers (Mogstad, Romano, Shaikh & Wilhelm 2023; :func:`genexpy_nb.rank_sets`).

All use the comparison's own table (``values``: blocks x alternatives, after averaging and
the missing-results policy), so they speak about the same blocks as the rank tests. Add them
with ``comparison.with_section(...)``; ``genexpy-nb compare --bayesian-rope R
--aggregates`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .._validation import GenexpyInputError, fill_doc
from . import numbers
from .document import Data, Paragraph, ReportSection, Table, plain

__all__ = ["bayesian_section", "aggregates_section", "rank_sets_section", "summary_lines"]


#: the numpydoc entries the sections of a comparison share (here and in :mod:`.paper_table`)
fill_comparison_doc = fill_doc(comparison="""\
comparison : Comparison
    From :func:`~genexpy_nb.significance.compare`.
""", example="""\
>>> import polars as pl
>>> from genexpy_nb.significance import compare
>>> df = pl.DataFrame({"d": [f"d{i}" for i in range(12) for _ in range(3)],
...                    "m": ["a", "b", "c"] * 12,
...                    "acc": [0.9, 0.8, 0.7, 0.85, 0.8, 0.6] * 6})
>>> cmp = compare(df, alternatives="m", target="acc", blocks="d", higher_is_better=True)
""")


def score_words(comparison: Any, raw: str = "raw scores, in the target's units") -> str:
    """Say which scores the sections read: the comparison's ``scores_used``.

    Raw, or min-max normalised per block, as ``compare``'s ``normalize`` chose; ``raw`` is
    what raw scores are called.
    """
    if comparison.normalize == "minmax":
        return (f"scores min-max normalised per {comparison.unit} (0 = its lowest "
                "result, 1 = its highest)")
    return raw


def check_comparison(comparison: Any) -> None:
    """Refuse anything but the result of :func:`~genexpy_nb.significance.compare`."""
    from .comparison import Comparison

    if not isinstance(comparison, Comparison):
        raise GenexpyInputError("comparison must be the result of significance.compare(...).")


@fill_comparison_doc
def bayesian_section(comparison: Any, *, rope: float, against: str | None = None,
                     prior: float = 0.5, nsamples: int = 50_000, seed: int = 0
                     ) -> ReportSection:
    """Run the Bayesian signed-rank test of every alternative against one, as a report section.

    Parameters
    ----------
    {comparison}
    rope : float
        Half-width of the region of practical equivalence, in the target's units.
    against : str, optional
        The reference alternative (default: the comparison's control, else its best).
    prior, nsamples, seed
        As in :func:`~genexpy_nb.significance.bayesian_signed_rank`.

    Returns
    -------
    ReportSection
        With the table ``bayesian_signed_rank``: ``alternative, against, n_blocks,
        p_alternative_better, p_rope, p_against_better, rope, decision``.

    Examples
    --------
    {example}
    >>> s = bayesian_section(cmp, rope=0.01, nsamples=2000)
    >>> s.tables["bayesian_signed_rank"]["alternative"].to_list()
    ['b', 'c']
    """
    from .._progress import tqdm
    from ..significance.bayesian import (
        DECISION_THRESHOLD,
        MAX_SIGNED_RANK_SECONDS,
        bayesian_signed_rank,
        signed_rank_seconds,
    )
    from .numbers import seconds

    check_comparison(comparison)
    alts = list(comparison.alternatives)
    ref = against if against is not None else (comparison.control or comparison.best[0])
    if ref not in alts:
        raise GenexpyInputError(f"against={ref!r} is not one of the alternatives {alts[:20]}.")
    v, units = comparison.scores_used, score_words(comparison)
    j = alts.index(ref)
    rows, notes = [], []
    # the cost of every test, estimated and bounded before the first starts
    secs = (len(alts) - 1) * signed_rank_seconds(v.shape[0], int(nsamples))
    if secs > MAX_SIGNED_RANK_SECONDS:
        raise GenexpyInputError(
            f"the Bayesian signed-rank tests of {len(alts) - 1:,} alternatives against "
            f"{ref!r} over {v.shape[0]:,} blocks with {int(nsamples):,} posterior samples "
            f"each would take about {seconds(secs)} on one core (limit "
            f"{seconds(MAX_SIGNED_RANK_SECONDS)}); compare fewer alternatives, or draw fewer "
            "samples.")
    bar = tqdm(total=len(alts) - 1, unit="test", leave=False, disable=secs < 3.0,
               desc=f"Bayesian signed-rank tests against the best (about {seconds(secs)})")
    for i, a in enumerate(alts):
        if i == j:
            continue
        keep = ~(np.isnan(v[:, i]) | np.isnan(v[:, j]))
        res = bayesian_signed_rank(v[keep, i], v[keep, j], rope=rope,
                                   higher_is_better=comparison.higher_is_better, prior=prior,
                                   nsamples=nsamples, seed=seed, names=(a, ref),
                                   progress=False)
        bar.update()
        p = res.probs
        k = int(np.argmax(p))
        decision = ((f"{a} better", "practically equivalent", f"{ref} better")[k]
                    if p[k] > DECISION_THRESHOLD else "no decision")
        rows.append((a, ref, int(keep.sum()), *map(float, p), float(rope), decision))
        if res.note:
            notes.append(Paragraph(("Note on ", Data(a), ": ", Data(res.note), ".")))
    bar.close()
    table = pl.DataFrame(rows, orient="row", schema={
        "alternative": pl.String, "against": pl.String, "n_blocks": pl.Int64,
        "p_alternative_better": pl.Float64, "p_rope": pl.Float64,
        "p_against_better": pl.Float64, "rope": pl.Float64, "decision": pl.String})
    # the rows in the order of the mean ranks, best first (the table keeps the input's)
    place = {a: t for t, a in enumerate(comparison.mean_ranks["alternative"].to_list())}
    blocks = (
        Paragraph(("Bayesian signed-rank test (Benavoli et al. 2017) of each alternative "
                   "against ", Data(ref), f", region of practical equivalence "
                   f"±{numbers.setting(rope)} "
                   f"on {units}: "
                   "posterior probabilities that the alternative is better by more than the "
                   "rope, that the two are within it, that ", Data(ref),
                   f" is better; a decision needs a probability above {DECISION_THRESHOLD}.")),
        Table(("alternative", "P(alternative better)", "P(rope)", ("P(", Data(ref), " better)"),
               "decision"),
              tuple((Data(r[0]), numbers.prob(r[3]), numbers.prob(r[4]), numbers.prob(r[5]),
                     Data(r[7]))
                    for r in sorted(rows, key=lambda r: place.get(r[0], len(place)))),
              "lrrrl"),
        *notes,
    )
    return ReportSection("Bayesian comparison", blocks, {"bayesian_signed_rank": table})


@fill_comparison_doc
def aggregates_section(comparison: Any, *, aggregates: tuple[str, ...] = ("iqm", "mean",
                                                                          "median"),
                       reps: int = 10_000, seed: int = 0, confidence_level: float = 0.95
                       ) -> ReportSection:
    """Robust aggregates of every alternative with bootstrap intervals, as a report section.

    The comparison holds one score per block and alternative, so every block is a task with
    one run, and the bootstrap resamples the blocks (``task_bootstrap=True``): the interval
    covers other blocks from the same population.

    Parameters
    ----------
    comparison : Comparison
        From :func:`~genexpy_nb.significance.compare`; complete blocks only are used.
    aggregates : tuple of str
        Of ``"iqm"``, ``"mean"``, ``"median"``, ``"optimality_gap"``.
    reps, seed, confidence_level
        As in :func:`genexpy_nb.aggregates.interval_estimates`.

    Returns
    -------
    ReportSection
        With the table ``aggregates`` (the frame of ``interval_estimates``).

    Examples
    --------
    {example}
    >>> aggregates_section(cmp, reps=500).tables["aggregates"].height
    9
    """
    from .. import aggregates as ag

    check_comparison(comparison)
    v, units = comparison.scores_used, score_words(comparison)
    keep = ~np.isnan(v).any(axis=1)
    if keep.sum() < 2:
        raise GenexpyInputError("aggregates need at least 2 blocks with every result.")
    scores = {a: v[keep, i][None, :] for i, a in enumerate(comparison.alternatives)}
    table = ag.interval_estimates(scores, list(aggregates), reps=reps, seed=seed,
                                  confidence_level=confidence_level, task_bootstrap=True,
                                  progress=False)
    direction = "higher" if comparison.higher_is_better else "lower"
    n_all = int(v.shape[0])
    why = ""
    us = comparison.units
    if keep.sum() < n_all:  # the rank tests use every block: say why these use fewer
        how = ("count them as losses" if comparison.missing == "study" else
               f"use the {us} where they ran")
        why = (f" The {n_all - int(keep.sum())} {us} with a failed run are left out here "
               f"(a failed run has no score to average); the rank tests {how} over all "
               f"{n_all} {us}.")
    blocks = (
        Paragraph((f"Aggregates over the {int(keep.sum())} complete {us} with "
                   f"{numbers.share(confidence_level)} bootstrap intervals ({reps} resamples "
                   f"of the {us}; Agarwal et al. 2021) of {units}; {direction} is better. IQM: "
                   "the mean of the middle half of the scores. Rows in the order of the "
                   "mean ranks, best first." + why,)),
        _aggregates_table(comparison, table, list(aggregates)),
    )
    return ReportSection("Robust aggregates", blocks, {"aggregates": table})


@fill_comparison_doc
def rank_sets_section(comparison: Any, *, level: float = 0.95, reps: int = 2000,
                      seed: int = 0) -> ReportSection:
    """Say which places each alternative can hold, all at once, and the tiers, as a section.

    From the comparison's own blocks (after averaging and the missing-results policy; a
    result still missing is the worst of its block, the rank sets comparing whole rankings):
    :func:`genexpy_nb.rank_sets` on the mean within-block ranks.

    Parameters
    ----------
    {comparison}
    level : float
        Probability that every set holds at once (default 0.95).
    reps : int
        Bootstrap replicates of the blocks.
    seed : int
        Seed of the bootstrap.

    Returns
    -------
    ReportSection
        With the table ``rank_sets`` (the frame of :func:`genexpy_nb.rank_sets`).

    Examples
    --------
    {example}
    >>> rank_sets_section(cmp, reps=300).tables["rank_sets"]["tier"].to_list()
    [1, 2, 3]
    """
    from ..leaderboards import rank_sets
    from ..study import Study

    check_comparison(comparison)
    scores = comparison.scores_frame()
    study = Study(scores, alternatives="alternative", target="score", generalize="block",
                  higher_is_better=comparison.higher_is_better, invalid_target="drop",
                  tol_missing_alternatives=1.0, tol_missing_conditions=1.0)
    sets = rank_sets(study, level=level, reps=reps, seed=seed, progress=False).drop(
        "config_id")
    missing = int(np.isnan(comparison.values).sum())
    why = (f" The {missing} missing result(s) count as the worst of their block here."
           if missing else "")
    text = (f"Places each alternative can hold, {numbers.share(level)} for all alternatives "
            f"at once "
            f"(simultaneous rank sets: Mogstad, Romano, Shaikh & Wilhelm 2023, from the "
            f"mean within-block ranks, {reps} bootstrap resamples of the {comparison.n_blocks}"
            " blocks). A tier ends where every alternative above is shown ahead of every "
            "alternative below; within a tier the order is not settled." + why)
    table = Table(("alternative", "mean rank", "places", "tier"),
                  tuple((Data(r["alternative"]), numbers.rank(r["mean_rank"]),
                         f"{r['rank_lo']}" if r["rank_lo"] == r["rank_hi"]
                         else f"{r['rank_lo']}-{r['rank_hi']}", str(r["tier"]))
                        for r in sets.iter_rows(named=True)), "lrrr")
    return ReportSection("Rank sets and tiers", (Paragraph((text,)), table),
                         {"rank_sets": sets})


def _rank_sets_line(sets: pl.DataFrame) -> str:
    groups = [", ".join(plain(a) for a in g["alternative"].to_list())
              for _, g in sets.group_by("tier", maintain_order=True)]
    level = float(sets["level"][0])
    return (f"Tiers ({numbers.share(level)} simultaneous rank sets, all alternatives at once): "
            + " | ".join(groups))


def _aggregates_table(comparison: Any, table: pl.DataFrame, aggregates: list[str]) -> Table:
    """One row per alternative (in the order of the mean ranks), one column per aggregate."""
    cell = {(r["alternative"], r["aggregate"]): _estimate(r, score_zero(comparison))
            for r in table.iter_rows(named=True)}
    order = [a for a in comparison.mean_ranks["alternative"].to_list()
             if any((a, g) in cell for g in aggregates)]
    names = {"iqm": "IQM", "optimality_gap": "optimality gap"}
    return Table(("alternative", *(f"{names.get(g, g)} [interval]" for g in aggregates)),
                 tuple((Data(a), *(cell.get((a, g), "") for g in aggregates))
                       for a in order), "l" + "r" * len(aggregates))


#: closer to 0 than this share of the largest score is float error (a bootstrap mean of
#: zeros summed in another order): read "0"
_FLOAT_ZERO = 1e-12


def _estimate(r: dict, zero: float = 0.0) -> str:
    """Write an aggregate with its interval as every output does (the one formatter)."""
    return (f"{numbers.number(r['estimate'], zero=zero)} "
            f"{numbers.interval(r['low'], r['high'], zero=zero)}")


def score_zero(comparison: Any) -> float:
    """Return the float error of the comparison's scores: 1e-12 of the largest."""
    v = comparison.scores_used
    big = float(np.nanmax(np.abs(v))) if np.isfinite(v).any() else 0.0
    return _FLOAT_ZERO * big


def _names_text(names: list[str]) -> str:
    return ", ".join(plain(n) for n in names) if names else "none"


def _bayes_line(res: Any, b: pl.DataFrame) -> str:
    ref = b["against"][0]
    rope = float(b["rope"][0])
    worse = b.filter(pl.col("decision") == f"{ref} better")["alternative"].to_list()
    better = [r["alternative"] for r in b.iter_rows(named=True)
              if r["decision"] == f"{r['alternative']} better"]
    same = b.filter(pl.col("decision") == "practically equivalent")["alternative"].to_list()
    open_ = b.filter(pl.col("decision") == "no decision")["alternative"].to_list()
    line = (f"Bayesian signed-rank against {plain(ref)} (rope +-{numbers.setting(rope)} on "
            f"{score_words(res)}; a decision needs P > 0.95): {plain(ref)} better than "
            f"{len(worse)} of {b.height}; practically equivalent: {_names_text(same)}; "
            f"no decision: {_names_text(open_)}")
    if better:
        line += f"; better than {plain(ref)}: {_names_text(better)}"
    return line


def _aggregates_line(res: Any, a: pl.DataFrame) -> str:
    iqm = a.filter(pl.col("aggregate") == "iqm")
    if not iqm.height:
        iqm = a.filter(pl.col("aggregate") == a["aggregate"][0])
    what = iqm["aggregate"][0].upper() if iqm["aggregate"][0] == "iqm" else iqm["aggregate"][0]
    iqm = iqm.sort("estimate", descending=res.higher_is_better, maintain_order=True)
    top = [f"{plain(r['alternative'])} {_estimate(r, score_zero(res))}"
           for r in iqm.head(3).iter_rows(named=True)]
    first = iqm["alternative"][0]
    agree = ("the same as the best mean rank" if first == res.best[0] else
             f"the best mean rank is {plain(res.best[0])}'s")
    n_all = int(res.values.shape[0])
    of = f" of {n_all}" if int(iqm["n_tasks"][0]) < n_all else ""
    return (f"{what} over the {int(iqm['n_tasks'][0])}{of} complete {res.units} "
            f"({score_words(res)}; "
            f"{numbers.share(iqm['confidence_level'][0])} bootstrap intervals), best first: "
            + "; ".join(top) + (" ..." if iqm.height > 3 else "")
            + f" ({'highest' if res.higher_is_better else 'lowest'}: {plain(first)}, "
            f"{agree})")


@fill_comparison_doc
def summary_lines(comparison: Any) -> list[str]:
    """Return the printed lines of the sections beyond p-values a comparison holds.

    One line per section: for the Bayesian signed-rank test (:func:`bayesian_section`),
    the best's decisions by count and the alternatives practically equivalent to it or
    undecided; for the aggregates (:func:`aggregates_section`), the three best IQMs with
    their intervals and whether the IQM's best is the best mean rank. Names from the data
    are made safe for a terminal. ``genexpy-nb compare`` prints them after the answer.

    Parameters
    ----------
    comparison : Comparison
        With the sections added (``comparison.with_section(...)``).

    Returns
    -------
    list of str
        Empty when it holds neither section.

    Examples
    --------
    {example}
    >>> cmp = cmp.with_section(aggregates_section(cmp, reps=200))
    >>> summary_lines(cmp)[0].split(";")[0]
    "IQM over the 12 complete blocks (raw scores, in the target's units"
    """
    check_comparison(comparison)
    out = []
    for sec in comparison.sections:
        if "bayesian_signed_rank" in sec.tables and sec.tables["bayesian_signed_rank"].height:
            out.append(_bayes_line(comparison, sec.tables["bayesian_signed_rank"]))
        if "aggregates" in sec.tables and sec.tables["aggregates"].height:
            out.append(_aggregates_line(comparison, sec.tables["aggregates"]))
        if "rank_sets" in sec.tables and sec.tables["rank_sets"].height:
            out.append(_rank_sets_line(sec.tables["rank_sets"]))
    return out
