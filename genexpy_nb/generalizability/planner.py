"""Study planning (paper Algorithm 1, Section 4.5).

Which configurations to extend, and how n* evolves as the preliminary study grows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .. import config
from .._validation import GenexpyInputError, check_positive_int, child_seed, to_polars
from ..study._roles import renamed
from ..study.core import Study
from . import (
    BEYOND_CHANCE,
    NSTAR_CEIL,
    NSTAR_SCHEMA,
    NULL_COLUMNS,
    GeneralizabilityAnalysis,
    concat_columns,
)
from .kernels import Kernel

__all__ = ["plan", "verdict_word", "simulate_preliminary_study", "run_generalizable_study",
           "LiveStudyResult"]


#: columns of the frame of :func:`~genexpy_nb.generalizability.analyze` that are not
#: design factors
_ANALYSIS_COLUMNS = frozenset({
    *NSTAR_SCHEMA, *NULL_COLUMNS, "nstar_ceil", "generalizable", "deficit"})


def verdict_word(generalizable, reason=None) -> str:
    """Put the verdict of one estimate in words.

    "generalizable", "not generalizable", or "unsure (reason)" for a null verdict (an
    estimate not to be trusted, or undefined).
    """
    if generalizable is True:
        return "generalizable"
    if generalizable is False:
        return "not generalizable"
    return f"unsure ({reason})" if reason else "unsure"


def _check_conclusions_alpha(df: pl.DataFrame, alpha: float | None) -> None:
    """Refuse a plan at an alpha* other than the conclusions' (or over several of them)."""
    if "alpha" not in df.columns or not df.height:
        return
    found = sorted(df["alpha"].drop_nulls().unique().to_list())
    if len(found) > 1:
        raise GenexpyInputError(
            f"results holds conclusions computed at alpha* {', '.join(f'{a:g}' for a in found)}"
            f"; plan one at a time (results.filter(pl.col('alpha') == {found[-1]:g})).")
    if alpha is not None and found and abs(float(alpha) - found[0]) > 1e-12:
        raise GenexpyInputError(
            f"alpha={alpha:g}, but the conclusions were computed at alpha* = {found[0]:g}: "
            f"their verdicts and 'more' hold at {found[0]:g} only; leave alpha out, or "
            f"compute the conclusions at alpha={alpha:g} and plan those.")


def plan(
    results: pl.DataFrame,
    *,
    alpha: float | None = None,
    delta: float | None = None,
    kernel: str | None = None,
    method: str = "resample",
    on: str = "nstar",
    kinds: Sequence[str] | None = None,
) -> pl.DataFrame:
    """Rank configurations by the conditions they still need: the ones to extend first come first.

    On the frame of :func:`~genexpy_nb.conclusions` this is *the* plan of the package (what
    ``genexpy-nb nstar``, ``genexpy-nb report``, the demo, the panel and the template show):
    each configuration's conditions to add are the largest k of its conclusions that say
    "needs k more" — the conditions after which the verdict rule itself says "holds" with the
    stated assurance (SPEC A15). On the frame of :func:`~genexpy_nb.analyze` it ranks the
    paper's agreement deficits n* - N (how many conditions two studies need to agree on the
    per-condition rankings; Sec. 4.5): a measure of agreement, not of what to run to settle a
    conclusion.

    Parameters
    ----------
    results : polars.DataFrame
        The tidy frame of :func:`~genexpy_nb.analyze`, or that of
        :func:`~genexpy_nb.conclusions` (then each configuration is ranked by the most
        conditions its conclusions need; see Notes).
    alpha, delta : float, optional
        The thresholds alpha* and delta* to plan for (they must be in the frame; default
        0.95 and 0.05). A conclusions frame was computed at one alpha*, which the plan
        takes: an ``alpha`` that differs from it, or a frame mixing several, is refused
        (compute the conclusions at the alpha* you want to plan for).
    kernel : str, optional
        Kernel name or label to plan for (default: every kernel in the frame; a
        configuration's deficit is then the largest over the kernels, i.e. the experiments
        needed to answer every research question).
    method : str, default "resample"
        The n* estimate to use ("resample", "approx", ...; the bound is never a verdict).
    on : {"nstar", "nstar_hi", "nstar_lo"}, default "nstar"
        Which n* to plan on: "nstar" (the estimate), "nstar_hi" (the upper end of its
        interval: plan for the pessimistic case, so that the study is generalizable unless
        n* is above the interval) or "nstar_lo"; the interval ends exist for the resampled
        method (``analyze(..., interval=True)``, the default). On a conclusions frame:
        the conclusions' k ("nstar", the default) or the upper or lower end of k's
        predictive interval (``more_hi``, ``more_lo``).
    kinds : sequence of str, optional
        For a conclusions frame: which conclusions to plan for (any of "best", "top_k",
        "pair", "order"; default all). Ignored for an analysis frame.

    Returns
    -------
    polars.DataFrame
        One row per configuration: design levels, N, kernel_label (which kernel drives the
        deficit), nstar (the largest over the kernels), nstar_ceil, deficit, to_run =
        max(deficit, 0), generalizable, reliable (when the frame has it), verdict, the
        no-signal baseline of that kernel (when the frame has it), reason, and priority
        (1 = extend first); ``nstar``, ``nstar_ceil``, ``deficit``, ``generalizable`` are
        computed from the column ``on``; ``chance`` (when the frame has the no-signal
        baseline) is true when that kernel's n* lies within the baseline's range, and the
        ``reason`` then says that more conditions would make two studies agree, not find a
        winner. For a conclusions frame, see Notes.

    Notes
    -----
    On a conclusions frame, one row per configuration: ``conclusion`` (the one that needs
    the most conditions, in words), ``kind``, ``nstar``, ``nstar_hi`` (its agreement n*),
    ``more_lo``, ``more_hi`` (the predictive interval of its k), ``assurance``, ``mode``
    ("fixed" or "sequential": the rule the verdicts and k are under), ``to_run`` (the
    conditions to add for every conclusion the plan can settle: the largest ``more``, or
    ``more_hi`` with ``on="nstar_hi"``), the counts ``holds``, ``needs_more``, ``unsure``,
    ``tied`` and ``beyond`` (a settled direction, but more than the plan's horizon needed),
    ``verdict`` and ``reason``. A conclusion that is "unsure" (its direction is not settled:
    the data are compatible with no difference), "tied" or beyond the horizon never adds to
    ``to_run``, and ``reason`` says so.

    Verdicts combine as "and" with three values (never counting an unsure verdict as a
    yes): a configuration is generalizable when it is for every kernel, not generalizable
    when it is not for some kernel, and unsure otherwise (some kernel's estimate is not to
    be trusted or undefined; ``verdict`` then says "unsure" with that kernel's reason).
    ``reliable`` is true when every kernel's estimate is. Configurations whose n* is
    undefined come last.
    """
    if on not in ("nstar", "nstar_hi", "nstar_lo"):
        raise GenexpyInputError(f"on must be 'nstar', 'nstar_hi' or 'nstar_lo', got {on!r}.")
    df = to_polars(results, "results")
    if {"kind", "members", "verdict", "more"} <= set(df.columns):
        _check_conclusions_alpha(df, alpha)
        return _plan_conclusions(df, on=on, kinds=kinds)
    alpha = config.HEADLINE_ALPHA if alpha is None else alpha
    delta = config.HEADLINE_DELTA if delta is None else delta
    if on != "nstar":
        if on not in df.columns:
            raise GenexpyInputError(
                f"results lacks the column {on!r}: run analyze(..., interval=True) (the "
                "default) to get the interval of n*.")
        reliable = (pl.col("reliable") if "reliable" in df.columns else pl.lit(True))
        ceil = (pl.when(pl.col(on).is_finite())
                .then((pl.col(on) - 1e-9).ceil().clip(lower_bound=1).cast(pl.Int64)))
        df = df.with_columns(pl.col(on).alias("nstar"), ceil.alias("nstar_ceil")).with_columns(
            pl.when(reliable).then(pl.col("N") >= pl.col("nstar_ceil")).alias("generalizable"),
            (pl.col("nstar_ceil") - pl.col("N")).alias("deficit"))
    need = {"config_id", "alpha", "delta", "method", "nstar", "nstar_ceil", "N", "kernel",
            "kernel_label", "deficit", "generalizable", "reason"}
    missing = need - set(df.columns)
    if missing:
        raise GenexpyInputError(
            f"results lacks columns {sorted(missing)}: pass the frame returned by analyze()."
        )
    if method == "bound":
        raise GenexpyInputError(
            "method='bound': the distribution-free bound is a worst case for any data, not "
            "an estimate of n*, and never a verdict; plan on 'resample' (the default) or a "
            "closed form ('approx', 'approx_weighted').")
    sel = df.filter(
        (pl.col("alpha") - alpha).abs() < 1e-12,
        (pl.col("delta") - delta).abs() < 1e-12,
        pl.col("method") == method,
    )
    if kernel is not None:
        sel = sel.filter((pl.col("kernel") == kernel) | (pl.col("kernel_label") == kernel))
    if sel.height == 0:
        raise GenexpyInputError(
            f"no rows for alpha={alpha}, delta={delta}, method={method!r}"
            f"{'' if kernel is None else f', kernel={kernel!r}'}; the frame has alphas "
            f"{sorted(df['alpha'].unique().to_list())}, deltas "
            f"{sorted(df['delta'].unique().to_list())}, methods "
            f"{sorted(df['method'].unique().to_list())}."
        )
    design = [c for c in df.columns if c not in _ANALYSIS_COLUMNS]
    has_reliable = "reliable" in sel.columns
    # the three-valued "and" of the kernels' verdicts, and the reason of an unsure one
    unsure_reason = (pl.when(pl.col("generalizable").is_null())
                     .then(pl.col("kernel_label") + pl.lit(": ")
                           + pl.col("reason").fill_null("n* is undefined")))
    combined = sel.group_by("config_id").agg(
        pl.when((pl.col("generalizable") == False).any())  # noqa: E712 (polars expression)
        .then(pl.lit(False))
        .when(pl.col("generalizable").is_null().any()).then(pl.lit(None, dtype=pl.Boolean))
        .otherwise(pl.lit(True)).alias("_all"),
        unsure_reason.drop_nulls().first().alias("_unsure"),
        *([pl.col("reliable").fill_null(False).all().alias("_reliable")]
          if has_reliable else []),
    )
    worst = (
        sel.sort(["config_id", pl.col("nstar").fill_nan(None)], descending=[False, True],
                 nulls_last=True)
        .group_by("config_id", maintain_order=True)
        .first()
        .join(combined, on="config_id", how="left")
    )
    verdict = (pl.when(pl.col("_all")).then(pl.lit("generalizable"))
               .when(pl.col("_all") == False)  # noqa: E712 (polars expression)
               .then(pl.lit("not generalizable"))
               .otherwise(pl.lit("unsure (") + pl.col("_unsure").fill_null("n* is undefined")
                          + pl.lit(")")))
    null_cols = [c for c in NULL_COLUMNS if c in worst.columns]
    out = worst.select(
        "config_id", *design, "N", "kernel_label", "nstar", "nstar_ceil", "deficit",
        pl.col("deficit").clip(lower_bound=0).alias("to_run"),
        pl.col("_all").alias("generalizable"),
        *([pl.col("_reliable").alias("reliable")] if has_reliable else []),
        verdict.alias("verdict"), *null_cols, "reason",
    ).sort(["deficit", "N"], descending=[True, False], nulls_last=True)
    if "beyond_chance" in out.columns:
        out = _say_chance(out)
    return out.with_row_index("priority", offset=1)


#: why more conditions do not help an answer at chance level
CHANCE_NOTE = ("n* lies within the no-signal baseline's range: this question's answer is no "
               "more consistent than if no alternative were better; more conditions would "
               "make two studies agree, not find a winner (see gx.conclusions for whether the "
               "study's conclusions hold)")


def _say_chance(out: pl.DataFrame) -> pl.DataFrame:
    """Add ``chance`` and say it in ``reason`` where conditions are to be run anyway."""
    chance = (pl.col("beyond_chance") == False).fill_null(False)  # noqa: E712
    note = pl.lit(CHANCE_NOTE)
    return out.with_columns(chance.alias("chance")).with_columns(
        pl.when(pl.col("chance") & (pl.col("to_run") > 0))
        .then(pl.when(pl.col("reason").is_null() | (pl.col("reason") == ""))
              .then(note).otherwise(note + pl.lit("; ") + pl.col("reason")))
        .otherwise(pl.col("reason")).alias("reason"))


#: columns of a conclusions frame that are not design factors
_CONCLUSION_COLUMNS = frozenset({
    "config_id", "kind", "k", "alternatives", "members", "observed", "agreement", "nstar",
    "nstar_lo", "nstar_hi", "N", "more", "verdict", "reliable", "reason", "p_value",
    "p_adjusted", "judged", "alpha", "level", "bottleneck", "more_lo", "more_hi",
    "assurance", "p_hold", "p_hold_se", "plan_draws", "mode", "effect_lo", "effect_hi"})

#: for a conclusions frame, the column of k each ``on`` plans with (the frame's own k and
#: the ends of its predictive interval)
_ON_MORE = {"nstar": "more", "nstar_hi": "more_hi", "nstar_lo": "more_lo"}


def _conclusion_need(on: str, columns: Sequence[str]) -> pl.Expr:
    """Return the conditions still to add for one conclusion.

    0 when it holds, its k when it needs more, null for the unsure, the tied and those
    beyond the plan's horizon.
    """
    holds = pl.col("verdict") == "holds"
    needs = pl.col("verdict").str.starts_with("needs") & pl.col("more").is_not_null()
    col = _ON_MORE[on]
    if col in columns:
        k = pl.col("more") if col == "more" else pl.col(col)
        return pl.when(holds).then(0).when(needs).then(k).cast(pl.Int64)
    # a frame of an earlier version (no interval of k): the agreement n*'s interval ends
    n = (pl.col(on) - 1e-9).ceil()
    need = pl.when(n.is_finite()).then((n - pl.col("N")).clip(lower_bound=0).cast(pl.Int64))
    return pl.when(holds | needs).then(need).cast(pl.Int64)


def _plan_conclusions(df: pl.DataFrame, *, on: str, kinds: Sequence[str] | None
                      ) -> pl.DataFrame:
    """Rank configurations by the most conditions their conclusions need (see :func:`plan`)."""
    need = {"config_id", "kind", "alternatives", "nstar", "nstar_lo", "nstar_hi", "N",
            "more", "verdict", "reason"}
    missing = need - set(df.columns)
    if missing:
        raise GenexpyInputError(f"results lacks columns {sorted(missing)}: pass the frame "
                                "returned by gx.conclusions(study).")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        bad = sorted(set(kinds) - {"best", "top_k", "pair", "order"})
        if bad or not kinds:
            raise GenexpyInputError(f"kinds: unknown {bad or 'empty'}; choose among "
                                    "['best', 'top_k', 'pair', 'order'].")
        df = df.filter(pl.col("kind").is_in(kinds))
    if df.height == 0:
        raise GenexpyInputError("no conclusions to plan for: the frame is empty (or has none "
                                f"of the kinds {kinds}).")
    design = [c for c in df.columns if c not in _CONCLUSION_COLUMNS]
    what = (pl.col("kind").replace({"top_k": "top group"}) + pl.lit(": ")
            + pl.col("alternatives"))
    rows = df.with_columns(_conclusion_need(on, df.columns).alias("_need"),
                           what.alias("conclusion"))
    first = (rows.sort(["config_id", pl.col("_need").fill_null(-1)], descending=[False, True],
                       maintain_order=True)
             .group_by("config_id", maintain_order=True).first())
    counts = rows.group_by("config_id").agg(
        pl.col("_need").max().fill_null(0).alias("to_run"),
        ((pl.col("verdict") == "holds") & (pl.col("_need") == 0)).sum().alias("holds"),
        (pl.col("_need") > 0).sum().alias("needs_more"),
        (pl.col("verdict") == "unsure").sum().alias("unsure"),
        (pl.col("verdict") == "tied").sum().alias("tied"),
        (pl.col("verdict").str.starts_with("needs over")).sum().alias("beyond"),
        pl.len().alias("conclusions"))
    extra = [c for c in ("more_lo", "more_hi", "assurance", "mode") if c in first.columns]
    out = first.select("config_id", *design, "N", "conclusion", "kind", "nstar",
                       "nstar_hi", *extra).join(
        counts, on="config_id", how="left")
    verdict = (pl.when(pl.col("holds") == pl.col("conclusions")).then(pl.lit("holds"))
               .when(pl.col("to_run") > 0)
               .then(pl.lit("needs ") + pl.col("to_run").cast(pl.String) + pl.lit(" more"))
               .when(pl.col("beyond") > 0).then(pl.lit("needs more than the horizon"))
               .when(pl.col("unsure") > 0).then(pl.lit("unsure"))
               .otherwise(pl.lit("tied")))
    unsure = pl.when(pl.col("unsure") > 0).then(
        pl.col("unsure").cast(pl.String) + pl.lit(
            " unsure (the direction is not settled: the data are compatible with no "
            "difference): not counted in the conditions to add, no number is promised"))
    beyond = pl.when(pl.col("beyond") > 0).then(
        pl.col("beyond").cast(pl.String) + pl.lit(
            " with a settled direction but beyond the plan's horizon: not counted in the "
            "conditions to add"))
    tied = pl.when(pl.col("tied") > 0).then(
        pl.col("tied").cast(pl.String) + pl.lit(" tied (within the margin or beyond the "
                                                "budget): not counted in the conditions to add"))
    out = out.with_columns(
        verdict.alias("verdict"),
        pl.concat_str([unsure, beyond, tied], separator="; ", ignore_nulls=True)
        .alias("reason"),
    ).with_columns(pl.when(pl.col("to_run") > 0).then(pl.col(c)).alias(c)
                   for c in ("conclusion", "kind", "nstar", "nstar_hi",
                             *(c for c in ("more_lo", "more_hi") if c in extra)))
    out = out.sort(["to_run", "beyond", "unsure", "config_id"],
                   descending=[True, True, True, False])
    return out.drop("conclusions").with_row_index("priority", offset=1)


#: the default estimators of :func:`simulate_preliminary_study`: the resampled n* only
_RESAMPLE = ("resample",)


def simulate_preliminary_study(
    study: Study,
    kernels: Sequence[Kernel],
    configuration: Any,
    *,
    N0: int = 10,
    alphas: float | Sequence[float] = config.HEADLINE_ALPHA,
    deltas: float | Sequence[float] = config.HEADLINE_DELTA,
    estimators: Sequence[str] = _RESAMPLE,
    rep: int = config.REP,
    seed: int = 0,
    repetitions: int = 1,
    progress: bool = True,
    null: bool = True,
    methods: Sequence[str] | None = None,
) -> pl.DataFrame:
    """n*_N as the preliminary study grows: N = N0, 2 N0, ... <= N (paper Figure 2).

    For each N, ``repetitions`` subsamples of N results are drawn without replacement from
    the configuration's observed results and n* is re-estimated on each.

    Parameters
    ----------
    study : Study
        The study whose configuration is simulated.
    kernels : sequence of Kernel
        The research questions (e.g. ``[Jaccard(k=1), Mallows()]``).
    configuration : int, mapping or sequence
        The configuration whose results are subsampled, as :meth:`Study.sample` takes it:
        its id, or the values of the design factors (``{"model": "LR", ...}`` or in the
        factors' order).
    N0 : int, default 10
        The step: preliminary studies of N0, 2 N0, ... results (at least 2).
    alphas, deltas : float or sequence of float, default 0.95 and 0.05
        The thresholds alpha* (desired generalizability) and delta* (similarity, in the
        kernel's units; see each kernel's class); every combination gets a row.
    estimators : sequence of str, default ("resample",)
        The n* estimators (``genexpy_nb.generalizability.METHODS``); ``methods=``, the old
        name, still works with a DeprecationWarning.
    rep : int, default ``config.REP`` (200)
        Resampled pairs per MMD distribution.
    seed : int, default 0
        Seed of the subsamples and of the analyses; the same seed gives the same frame.
    repetitions : int, default 1
        Subsamples drawn for each N.
    progress : bool, default True
        tqdm progress bar (shown for 3 analyses or more).
    null : bool, default True
        Also compute the no-signal baseline of each subsample.
    methods : sequence of str, optional
        The old name of ``estimators`` (deprecated: it warns; removed in version 0.4).

    Returns
    -------
    polars.DataFrame
        Tidy frame: N_sub, repetition, kernel, kernel_label, alpha, delta, method, nstar,
        nstar_lo, nstar_hi (its interval, resampled method), nstar_ceil, generalizable
        (N_sub >= n*; null when the estimate is flagged), reliable, nstar_null,
        nstar_null_lo, nstar_null_hi, beyond_chance (the no-signal baseline of each
        subsample, as in :meth:`~genexpy_nb.GeneralizabilityAnalysis.nstar`; left out with
        ``null=False``), N (all observed results), reason.
    """
    if methods is not None:  # the old name (0.3)
        estimators = renamed("methods", methods, "estimators",
                             None if estimators is _RESAMPLE else estimators,
                             "simulate_preliminary_study", stacklevel=3)
    N0 = check_positive_int("N0", N0, minimum=2)
    repetitions = check_positive_int("repetitions", repetitions)
    sample = study.sample(configuration)
    if sample.N < N0:
        raise GenexpyInputError(
            f"configuration {sample.label!r} has N={sample.N} results, fewer than N0={N0}."
        )
    sizes = list(range(N0, sample.N + 1, N0))
    parts: list[dict] = []
    total = len(sizes) * repetitions
    bar = None
    if progress and total >= 3:
        from .._progress import tqdm  # imported when shown: keeps a first call without it fast

        bar = tqdm(total=total, desc="n* vs N", leave=False)
    for Nsub in sizes:
        for r in range(repetitions):
            rng = child_seed(seed, sample.config_id, Nsub, r)
            idx = np.sort(rng.choice(sample.N, size=Nsub, replace=False))
            sub = study._subsample(sample, idx)
            ga = GeneralizabilityAnalysis(sub, kernels, rep=rep, seed=int(rng.integers(2**31)),
                                          progress=False, null=null)
            # the columns of every size, and one frame at the end: a frame per size cost
            # more than the analysis of that size
            cols = ga._nstar_columns(alphas, deltas, estimators)
            rows = len(cols["nstar"])
            cols["N_sub"] = np.full(rows, Nsub, dtype=np.int32)
            cols["repetition"] = np.full(rows, r, dtype=np.int32)
            parts.append(cols)
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    schema = {"N_sub": pl.Int32, "repetition": pl.Int32,
              **{c: NSTAR_SCHEMA[c] for c in ("kernel", "kernel_label", "alpha", "delta",
                                               "method", "nstar", "nstar_lo", "nstar_hi",
                                               "reliable", "reason", "nstar_null",
                                               "nstar_null_lo", "nstar_null_hi")}}
    out = pl.DataFrame(concat_columns(parts, schema), schema=schema)
    return out.select(
        "N_sub", "repetition", "kernel", "kernel_label", "alpha", "delta", "method", "nstar",
        "nstar_lo", "nstar_hi", NSTAR_CEIL.alias("nstar_ceil"),
        pl.when(pl.col("reliable")).then(pl.col("N_sub") >= NSTAR_CEIL)
        .alias("generalizable"), "reliable",
        *(["nstar_null", "nstar_null_lo", "nstar_null_hi", BEYOND_CHANCE.alias("beyond_chance")]
          if null else []),
        pl.lit(sample.N, dtype=pl.Int32).alias("N"), "reason",
    )


@dataclass
class LiveStudyResult:
    """Outcome of :func:`run_generalizable_study`."""

    history: pl.DataFrame  # one row per round: N, nstar per kernel, generalizable
    results: pl.DataFrame  # every result collected
    study: Study  # the final study
    generalizable: bool
    stop_reason: str

    def trajectory(self) -> pl.DataFrame:
        """Return n*_N after every round, ready for ``charts.nstar_vs_N``.

        In the shape of :func:`simulate_preliminary_study` (N_sub = conditions run so far).
        """
        return _trajectory(self.history)


def _trajectory(history: pl.DataFrame) -> pl.DataFrame:
    return history.select(
        pl.col("conditions_run").alias("N_sub"), pl.lit(0).alias("repetition"),
        *[c for c in history.columns if c not in {"conditions_run", "N", "round"}],
        pl.col("round"),
    )


def run_generalizable_study(
    run_experiments: Callable[[Sequence[int]], Any],
    make_study: Callable[[pl.DataFrame], Study],
    kernels: Sequence[Kernel],
    *,
    N0: int = 10,
    alpha: float = config.HEADLINE_ALPHA,
    delta: float = config.HEADLINE_DELTA,
    max_conditions: int = 200,
    rep: int = config.REP,
    seed: int = 0,
    progress: bool = True,
    on_round: Callable[[pl.DataFrame], None] | None = None,
) -> LiveStudyResult:
    """Run a study until it is generalizable (paper Algorithm 1).

    Starting from ``N0`` experimental conditions, while ``N < n*_N`` for some configuration
    and kernel, run ``N0`` more conditions and re-estimate n*.

    Parameters
    ----------
    run_experiments : callable
        Takes the indices of new conditions (e.g. ``range(10, 20)``) and returns their tidy
        results (a polars or pandas frame).
    make_study : callable
        Turns all results so far (one polars frame) into a :class:`Study`.
    kernels : sequence of Kernel
        The research questions; the study stops when every configuration is
        (alpha, eps(delta))-generalizable for every kernel.
    N0 : int, default 10
        Conditions run per round (the first round included; at least 2).
    alpha : float, default 0.95
        The desired generalizability alpha*.
    delta : float, default 0.05
        The similarity threshold delta*, in the kernel's units.
    max_conditions : int, default 200
        Budget: stop (not generalizable) when this many conditions were run.
    rep : int, default ``config.REP`` (200)
        Resampled pairs per MMD distribution.
    seed : int, default 0
        Seed of the analyses (round r uses ``seed + r``).
    progress : bool, default True
        tqdm progress bar over the conditions run.
    on_round : callable, optional
        Receives the trajectory (see ``LiveStudyResult.trajectory``) after every
        round, for live charts.

    Returns
    -------
    LiveStudyResult
        ``history`` (one row per round and configuration and kernel: n* and whether
        ``N >= n*``), ``results`` (every result collected), ``study`` (the final study),
        ``generalizable`` and ``stop_reason``.
    """
    N0 = check_positive_int("N0", N0, minimum=2)
    max_conditions = check_positive_int("max_conditions", max_conditions, minimum=N0)
    frames: list[pl.DataFrame] = []
    hist: list[pl.DataFrame] = []
    N = 0
    from .._progress import tqdm

    bar = tqdm(total=max_conditions, desc="conditions run", disable=not progress, leave=False)
    generalizable = False
    reason = f"budget of {max_conditions} conditions spent before generalizability"
    rnd = 0
    while N < max_conditions:
        new = to_polars(run_experiments(range(N, N + N0)), "run_experiments output")
        frames.append(new)
        N += N0
        bar.update(N0)
        study = make_study(pl.concat(frames, how="vertical_relaxed"))
        res = GeneralizabilityAnalysis(study, kernels, rep=rep, seed=seed + rnd,
                                       progress=False).nstar(alpha, delta, ["resample"])
        rnd += 1
        h = res.with_columns(pl.lit(rnd).alias("round"), pl.lit(N).alias("conditions_run"))
        hist.append(h)
        if on_round is not None:
            on_round(_trajectory(pl.concat(hist)))
        ok = res["generalizable"].fill_null(False)
        if bool(ok.all()):
            generalizable = True
            reason = f"generalizable after {N} conditions (N >= n* for every configuration)"
            break
        # otherwise (n* above N, or undefined with so few results) run N0 more
    bar.close()
    return LiveStudyResult(pl.concat(hist), pl.concat(frames, how="vertical_relaxed"),
                           study, generalizable, reason)
