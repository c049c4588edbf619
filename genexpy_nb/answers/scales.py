"""What the study page reads from the scores themselves: one scale, outliers, runs vs conditions.

Ranks are scale-free; every other quantity that crosses conditions (the aggregates, the
rope of the Bayesian test, the effect sizes, the spread over runs against the spread over
conditions) depends on the scale of each condition's scores. The page decides that scale
**once per study** (:func:`study_basis`, the policy of
:func:`~genexpy_nb.answers.compare.scale_basis`: raw scores, or min-max normalised per
condition where the conditions' score ranges differ by more than a factor of 100) and
says it at its top.

**Outliers** (:func:`outliers`): a result (a run, with replicates) lies far outside its
condition's others when, on the log10 scale where every result of the condition is
positive (the scores themselves otherwise), it is more than :data:`OUTLIER_MADS` scaled
median absolute deviations (1.4826 MAD) from the condition's median, lies beyond the
range of the condition's other results by more than that range, and — on the log scale —
is more than a factor of :data:`OUTLIER_FACTOR` from the median. Results that all lie in
[0, 1] (shares, pass rates, accuracies) have none: a 0 among 1s is a result, not a fault
of measurement. Each is listed by name with
what it did: with replicates, its run's weight in its result's mean (the place of that
result in its condition with and without the run); without, its place. The spreads of
:func:`replicate_spread` leave outlier runs out and say what the ratio is with them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

__all__ = ["OUTLIER_MADS", "OUTLIER_FACTOR", "OUTLIER_RULE", "study_basis", "outliers",
           "replicate_spread"]

#: robust z beyond which a result is an outlier (scaled MADs from its condition's median)
OUTLIER_MADS = 5.0
#: on the log scale, an outlier is also more than this factor from the median
OUTLIER_FACTOR = 10.0
#: the rule, said on the page
OUTLIER_RULE = (
    "a result is an outlier when it lies more than {mads:g} median absolute deviations "
    "(scaled by 1.4826) from the median of its {unit}'s results and beyond the range of "
    "the others by more than that range, on the log scale where they are all positive "
    "(and then more than a factor of {factor:g} from the median); results all within "
    "[0, 1] (shares, pass rates) have none")


def _rule(unit: str) -> str:
    return OUTLIER_RULE.format(mads=OUTLIER_MADS, factor=OUTLIER_FACTOR, unit=unit)


def _observed(study: Any) -> list[np.ndarray]:
    """Each configuration's averaged results, NaN where imputed (missing)."""
    return [np.where(np.asarray(s.imputed), np.nan, np.asarray(s.scores, dtype=float))
            for s in study.samples()]


def study_basis(study: Any, normalize: str = "auto", *, unit: str = "condition",
                option: bool = True, flagged: pl.DataFrame | None = None) -> tuple[str, str]:
    """Decide the scale of the page's cross-condition quantities, once for the study.

    The results an outlier enters (:func:`outliers`) are left out of the decision: one
    diverged run does not turn a study onto normalised scores.

    Parameters
    ----------
    study : Study
        The study (its averaged results, the imputed ones left out).
    normalize : {"auto", "none", "minmax"}
        As :func:`~genexpy_nb.answers.compare.scale_basis`.
    unit : str
        What a condition is called.
    option : bool
        Name the option that changes the choice.
    flagged : polars.DataFrame, optional
        :func:`outliers` of the study: the results they enter are left out.

    Returns
    -------
    basis : {"none", "minmax"}
    reason : str
    """
    from .compare import scale_basis

    values = _observed(study)
    if flagged is not None and flagged.height:
        out = {(int(c), str(d), str(a)) for c, d, a in
               flagged.select("config_id", "condition", "alternative").iter_rows()}
        for s, v in zip(study.samples(), values, strict=True):
            for i, cond in enumerate(s.conditions):
                for j, alt in enumerate(s.alternatives):
                    if (s.config_id, str(cond), str(alt)) in out:
                        v[i, j] = np.nan
    basis, reason = scale_basis(values, normalize, unit=unit, option=option)
    if flagged is not None and flagged.height and normalize == "auto":
        reason += " (the outliers listed in the data section left out of this choice)"
    return basis, reason


def _runs_frame(study: Any) -> pl.DataFrame:
    """Return the results the page judges: one row per run (with replicates) or per result.

    Columns: config_id, condition, alternative, the replicate columns, ``value``; only
    the conditions and alternatives each configuration kept.
    """
    kept = pl.DataFrame(
        [(s.config_id, str(c)) for s in study.samples() for c in s.conditions],
        schema={"config_id": pl.UInt32, "condition": pl.String}, orient="row")
    if study.runs is None:
        schema = {"config_id": pl.UInt32, "condition": pl.String, "alternative": pl.String,
                  "value": pl.Float64}
        parts = [pl.DataFrame(schema=schema)]
        for s, v in zip(study.samples(), _observed(study), strict=True):
            v = np.asarray(v, dtype=np.float64)
            i, j = np.nonzero(~np.isnan(v))  # row by row: condition, then alternative
            conds = np.array([str(c) for c in s.conditions], dtype=object)
            alts = np.array([str(a) for a in s.alternatives], dtype=object)
            parts.append(pl.DataFrame({
                "config_id": pl.Series(np.full(i.size, s.config_id), dtype=pl.UInt32),
                "condition": pl.Series(conds[i], dtype=pl.String),
                "alternative": pl.Series(alts[j], dtype=pl.String),
                "value": pl.Series(v[i, j], dtype=pl.Float64)}))
        return pl.concat(parts)
    des, gen = list(study.design), list(study.generalize)
    cond = (pl.col(gen[0]).cast(pl.String) if len(gen) == 1 else
            pl.concat_str([pl.col(c).cast(pl.String) for c in gen], separator=" | "))
    runs = study.runs.filter(pl.col(study.target).is_finite()).select(
        *des, cond.alias("condition"),
        pl.col(study.alternatives_col).cast(pl.String).alias("alternative"),
        *study.average_over, pl.col(study.target).alias("value"))
    names = study.configurations.select("config_id", *des).with_columns(
        pl.col("config_id").cast(pl.UInt32))
    runs = (runs.join(names, on=des, how="inner", nulls_equal=True) if des
            else runs.with_columns(pl.lit(0, dtype=pl.UInt32).alias("config_id")))
    runs = runs.filter(pl.col("alternative").is_in(list(study.alternatives)))
    return runs.join(kept, on=["config_id", "condition"], how="semi").select(
        "config_id", "condition", "alternative", *study.average_over, "value")


def _flag(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Robust z of each value against its group's median; the outliers; the log scale."""
    log = bool(values.size) and bool((values > 0).all())
    none = np.zeros(values.size, dtype=bool)
    if values.size < 3 or bool(((values >= 0) & (values <= 1)).all()):
        return np.zeros(values.size), none, log
    y = np.log10(values) if log else values
    med = np.median(y)
    mad = 1.4826 * np.median(np.abs(y - med))
    if mad == 0:
        return np.zeros(values.size), none, log
    z = (y - med) / mad
    far = np.abs(z) > OUTLIER_MADS
    if log:
        far &= np.abs(y - med) > math.log10(OUTLIER_FACTOR)
    for k in np.flatnonzero(far):  # beyond the others' range by more than that range
        others = np.delete(y, k)
        lo, hi = others.min(), others.max()
        far[k] = (y[k] - hi > hi - lo) or (lo - y[k] > hi - lo)
    return z, far, log


def _place(means: dict[str, float], alt: str, higher_is_better: bool) -> int:
    """Return the place (1 = best) of ``alt`` among a condition's results (ties share the best)."""
    v = means[alt]
    better = sum(1 for a, x in means.items()
                 if a != alt and (x > v if higher_is_better else x < v))
    return better + 1


def outliers(study: Any, runs: pl.DataFrame | None = None) -> pl.DataFrame:
    """List the results far outside their condition's others (the rule of this module).

    Parameters
    ----------
    study : Study
        The study (with its runs when it has replicates).
    runs : polars.DataFrame, optional
        :func:`_runs_frame` of the study, if already built.

    Returns
    -------
    polars.DataFrame
        One row per outlier: ``config_id``, ``condition``, ``alternative``, the replicate
        columns, ``value``, ``condition_median``, ``robust_z``, ``scale`` ("log10" or
        "raw"), ``place``, ``place_without`` (its result's place in its condition, 1 =
        best, with the run and without it; without replicates: at the condition's median)
        and ``of`` (the alternatives of the condition).
    """
    runs = _runs_frame(study) if runs is None else runs
    reps = list(study.average_over) if study.runs is not None else []
    schema = {"config_id": pl.UInt32, "condition": pl.String, "alternative": pl.String,
              **{r: runs.schema[r] for r in reps}, "value": pl.Float64,
              "condition_median": pl.Float64, "robust_z": pl.Float64, "scale": pl.String,
              "place": pl.Int64, "place_without": pl.Int64, "of": pl.Int64}
    rows = []
    values = runs["value"].to_numpy()
    if not values.size or bool(((values >= 0) & (values <= 1)).all()):
        return pl.DataFrame(rows, schema=schema, orient="row")  # scores in [0, 1]: none
    # each condition's values through its row numbers (a partition per condition cost
    # 0.1 ms each: half a second on 5,000 items); the rows of a flagged one in a frame
    groups = (runs.with_row_index("_row")
              .group_by(["config_id", "condition"], maintain_order=True).agg(pl.col("_row")))
    for cid, cond, idx in groups.iter_rows():
        idx = np.asarray(idx, dtype=np.int64)
        z, far, log = _flag(values[idx])
        if not far.any():
            continue
        part = runs[idx]
        v = values[idx]
        med = float(10 ** np.median(np.log10(v))) if log else float(np.median(v))
        means = part.group_by("alternative", maintain_order=True).agg(pl.col("value").mean())
        means = dict(means.iter_rows())
        for k in np.flatnonzero(far):
            r = part.row(int(k), named=True)
            alt = r["alternative"]
            if reps:
                others = part.filter((pl.col("alternative") == alt)
                                     & ~pl.all_horizontal(pl.col(c) == r[c] for c in reps))
                without = dict(means)
                if others.height:
                    without[alt] = float(others["value"].mean())
                else:
                    without.pop(alt)
            else:
                without = {**means, alt: med}
            place = _place(means, alt, study.higher_is_better)
            place_wo = (_place(without, alt, study.higher_is_better) if alt in without
                        else None)
            rows.append((cid, cond, alt, *(r[c] for c in reps), float(r["value"]), med,
                         float(z[k]), "log10" if log else "raw", place, place_wo,
                         len(means)))
    return pl.DataFrame(rows, schema=schema, orient="row")


def _spread_of(runs: pl.DataFrame, reps: list[str], basis: str) -> pl.DataFrame:
    """Per configuration: runs per result, spread over runs, over conditions, their ratio."""
    cell = runs.sort(["config_id", "condition", "alternative", *reps]).group_by(
        ["config_id", "condition", "alternative"], maintain_order=True).agg(
        pl.col("value").std().alias("sd"), pl.col("value").mean().alias("mean"),
        pl.len().alias("n"))
    cond = ["config_id", "condition"]
    if basis == "minmax":  # each condition's results in fractions of its range (max - min)
        width = (pl.col("mean").max() - pl.col("mean").min()).over(cond)
        cell = cell.with_columns(pl.when(width > 0).then(pl.col("sd") / width)
                                 .otherwise(None).alias("sd"),
                                 pl.when(width > 0).then(pl.col("mean") / width)
                                 .otherwise(None).alias("mean"))
    # each result relative to its condition's mean over the alternatives: the condition's
    # difficulty is not a difference between the alternatives
    cell = cell.with_columns((pl.col("mean") - pl.col("mean").mean().over(cond))
                             .alias("relative"))
    per_alt = cell.group_by(["config_id", "alternative"], maintain_order=True).agg(
        pl.col("sd").filter(pl.col("n") >= 2).median().alias("seed_sd"),
        pl.col("relative").std().alias("condition_sd"),
        pl.col("n").median().alias("replicates"))
    out = per_alt.group_by("config_id", maintain_order=True).agg(
        pl.col("replicates").median(), pl.col("seed_sd").median(),
        pl.col("condition_sd").median())
    return out.with_columns((pl.col("seed_sd") / pl.col("condition_sd")).alias("ratio"))


def replicate_spread(study: Any, basis: str, runs: pl.DataFrame | None = None,
                     flagged: pl.DataFrame | None = None) -> pl.DataFrame | None:
    """Spread over replicates against spread over conditions, per configuration.

    On the page's basis (raw, or each condition's results in fractions of its range), over
    the conditions and alternatives the study kept (after ``missing``: a condition left
    out is left out here too), the outlier runs left out: per (configuration, alternative)
    the median over conditions of the standard deviation over runs (results with two runs
    or more), and the standard deviation over conditions of the alternative's result
    relative to the condition's mean over the alternatives; per configuration the medians
    over the alternatives and their ratio (``ratio``); ``ratio_with_outliers`` the same
    with the outlier runs in. None without replicates.

    Parameters
    ----------
    study : Study
        The study, with its runs.
    basis : {"none", "minmax"}
        The page's scale.
    runs, flagged : polars.DataFrame, optional
        :func:`_runs_frame` and :func:`outliers` of the study, if already built.

    Returns
    -------
    polars.DataFrame or None
        ``config_id``, the design columns, ``replicates``, ``seed_sd``, ``condition_sd``,
        ``ratio``, ``ratio_with_outliers``, ``basis``.
    """
    if study.runs is None:
        return None
    reps = list(study.average_over)
    runs = _runs_frame(study) if runs is None else runs
    flagged = outliers(study, runs) if flagged is None else flagged
    keys = ["config_id", "condition", "alternative", *reps]
    clean = runs.join(flagged.select(keys), on=keys, how="anti", nulls_equal=True)
    out = _spread_of(clean, reps, basis)
    with_out = _spread_of(runs, reps, basis).select(
        "config_id", pl.col("ratio").alias("ratio_with_outliers"))
    out = out.join(with_out, on="config_id", how="left").with_columns(
        pl.lit("minmax" if basis == "minmax" else "raw").alias("basis"))
    names = study.configurations.select("config_id", *study.design).with_columns(
        pl.col("config_id").cast(pl.UInt32))
    return names.join(out, on="config_id", how="inner").sort("config_id")
