"""The research question: vacuous kernels refused, a* of Borda, score thresholds.

:func:`default_alternative` resolves ``Borda()`` without a* to the best alternative on
average, as the analysis asks it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from .. import config
from .._validation import (
    GenexpyInputError,
    as_float_grid,
)
from ..study.core import Study
from .columns import distinct
from .kernels import Kernel


def check_question(kernels: Sequence[Kernel], na: int) -> None:
    """Refuse a research question that is vacuous for ``na`` alternatives.

    Jaccard(k) with ``k >= na``: every alternative is in the top k tiers of every ranking
    (tiers are counted from 0 and there are at most na of them), so the kernel is always 1,
    every MMD is 0 and n* = 1 whatever the results. The question "are the best alternatives
    consistently the same?" then asks nothing; it is an error, not a result.

    Parameters
    ----------
    kernels : sequence of Kernel
        The kernels (research questions) of an analysis.
    na : int
        The number of alternatives of the study.

    Raises
    ------
    GenexpyInputError
        When a kernel asks a vacuous question.
    """
    for k in kernels:
        if k.name == "jaccard" and int(k.k) >= na:
            raise GenexpyInputError(
                f"{k.label} with {na} alternatives asks nothing: every alternative is in the "
                f"top {k.k} tiers of every ranking, so any study would be generalizable "
                f"with n* = 1. Use Jaccard(k=...) with k < {na} (k=1 asks whether the best "
                "alternatives are the same)."
            )


def best_alternative(study: Study) -> str:
    """Return the alternative with the best (lowest) mean rank over all conditions of the study.

    Ranks are the study's tiers (0 = best, ties share a tier, a missing result the worst
    tier), averaged over every condition of every configuration; a tie goes to the first
    alternative in the study's order. This is a* of ``Borda()`` when a* is not named.

    Parameters
    ----------
    study : Study
        The study (:class:`~genexpy_nb.Study`).

    Returns
    -------
    str
        The name of that alternative.
    """
    if not isinstance(study, Study):
        raise GenexpyInputError("study must be a genexpy_nb.Study.")
    total = np.zeros(study.na)
    count = 0
    for s in study.samples():
        total += s.rankings.sum(axis=0)
        count += s.N
    return str(study.alternatives[int(np.argmin(total / max(count, 1)))])


def default_alternative(kernel: Kernel, study: Study) -> Kernel:
    """``Borda()`` with a* left out -> Borda of the study's best alternative on average."""
    from .kernels import Borda

    if isinstance(kernel, Borda) and kernel.alternative is None:
        import dataclasses

        return dataclasses.replace(kernel, alternative=best_alternative(study))
    return kernel


def score_thresholds(study: Study, deltas: float | Sequence[float] = config.DELTAS,
                     kernel: Kernel | None = None, configurations: Sequence | None = None
                     ) -> pl.DataFrame:
    """Express delta* of the RBF question in the target's units, per configuration.

    Two single results are within delta* of each other under :class:`~genexpy_nb.RBF` when
    their score vectors differ by at most ``rms = s sqrt(delta*)`` root mean square per
    alternative, ``s`` the configuration's spread (:meth:`RBF.spread
    <genexpy_nb.RBF.spread>`; 1 for ``RBF(scale="raw")``, the paper's definition,
    where delta* is in the target's units already).

    Parameters
    ----------
    study : Study
    deltas : delta* values (default the grid 0.01 ... 0.3)
    kernel : an RBF kernel (default ``RBF()``)
    configurations : optional subset

    Returns
    -------
    polars.DataFrame
        One row per configuration x delta*: config_id, the design factors, kernel_label,
        scale ("spread" or "raw"), delta, spread (``s``, in the target's units), rms (the
        threshold in the target's units), meaning (one sentence to print). spread and rms
        are NaN for a configuration with a single condition or identical score vectors.

    Examples
    --------
    >>> score_thresholds(study, 0.05)["meaning"][0]  # doctest: +SKIP
    'scores agree within 0.022 RMS per alternative (0.22 x the spread 0.1 of cv_score)'
    """
    from .kernels import RBF

    if not isinstance(study, Study):
        raise GenexpyInputError("study must be a genexpy_nb.Study.")
    k = RBF() if kernel is None else kernel
    if not isinstance(k, RBF):
        raise GenexpyInputError(
            f"score_thresholds is about the RBF question (on scores); got {k!r}. The "
            "ranking kernels' delta* is a fraction already (of discordant pairs, ...).")
    k = k.resolve(study.na, study.alternatives)
    d_arr = distinct(as_float_grid("deltas", deltas))
    for d in d_arr:
        k.check_delta(float(d))
    cids = (sorted(smp.config_id for smp in study.samples()) if configurations is None
            else list(dict.fromkeys(study.config_id(c) for c in configurations)))
    rows: dict[str, list] = {c: [] for c in ("config_id", "spread", "delta", "rms",
                                             "meaning")}
    for cid in cids:
        scores = study.sample(cid).scores
        spread = k.spread(scores)
        # one condition, or all alike: no spread to read delta* in (the kernel is 1 anyway)
        undefined = k.scale != "raw" and (scores.shape[0] < 2
                                          or bool(np.all(scores == scores[:1])))
        if undefined:
            spread = math.nan
        for d in d_arr:
            rms = float(k.threshold(float(d), spread))
            if undefined:
                rows["config_id"].append(cid)
                rows["spread"].append(spread)
                rows["delta"].append(float(d))
                rows["rms"].append(rms)
                rows["meaning"].append(
                    "undefined: the scores of a single condition, or of identical ones, "
                    "have no spread to read delta* in")
                continue
            if k.scale == "raw":
                why = (f"delta* = {d:g} in the units of {study.target} (the paper's "
                       "definition)")
            else:
                why = (f"{math.sqrt(d):.2g} x the spread {spread:.3g} of {study.target}")
            rows["config_id"].append(cid)
            rows["spread"].append(spread)
            rows["delta"].append(float(d))
            rows["rms"].append(rms)
            rows["meaning"].append(f"scores agree within {rms:.3g} RMS per alternative "
                                   f"({why})")
    out = pl.DataFrame(rows, schema={"config_id": pl.UInt32, "spread": pl.Float64,
                                     "delta": pl.Float64, "rms": pl.Float64,
                                     "meaning": pl.String})
    levels = study.configurations.select(["config_id", *study.design])
    out = out.join(levels, on="config_id", how="left")
    return out.select("config_id", *study.design,
                      pl.lit(k.label).alias("kernel_label"), pl.lit(k.scale).alias("scale"),
                      "delta", "spread", "rms", "meaning")
