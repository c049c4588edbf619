"""One run against its runs: is one evaluation run representative of its other runs.

The seed-variability method of the robust-KS paper (Sections III-C and IV-A), applied to
evaluation runs: a run (a seed, a fine-tuning, a sampling pass, an epoch) gives one score per
item; the other runs of the same model are the reference process. For each run, the per-item
scores of the other runs are the reference pool (runs × items) and the run's own scores the
candidate; :func:`~genexpy_nb.variability.alpha_hat` measures how far the candidate is from a
draw of the pool (the smallest trimming level at which the robust KS test accepts it, averaged
over bootstrap splits of the items), and the robust KS test at a given trimming level says in
what share of the splits it is accepted.

The per-item score must be continuous (a probability, a log-likelihood margin, the share of
correct samples): on 0/1 outcomes the eCDF has a single step, at 0, of height one minus the
accuracy, so the KS distance of two runs is the difference of their accuracies and the test
says nothing an accuracy does not. Such tables are refused; average the outcomes over the
samples of a run (``samples=``) or use a per-item score.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .. import config
from .._progress import tqdm
from .._validation import (
    GenexpyInputError,
    check_positive_int,
    check_seed,
    rng_from_seed,
    to_polars,
)

__all__ = ["run_against_runs"]


def _check_table(df: pl.DataFrame, roles: dict[str, str | None]) -> None:
    for role, col in roles.items():
        if col is not None and (not isinstance(col, str) or col not in df.columns):
            raise GenexpyInputError(f"{role}={col!r} is not a column of the table; columns: "
                                    f"{df.columns[:20]}.")
    used = [c for c in roles.values() if c is not None]
    if len(set(used)) != len(used):
        raise GenexpyInputError(f"the same column is given two roles: {roles}.")
    target = roles["target"]
    if not (df.schema[target].is_numeric() or df.schema[target] == pl.Boolean):
        raise GenexpyInputError(f"target column {target!r} is not numeric.")
    for role, col in roles.items():
        if col is not None and role != "target" and df[col].null_count():
            raise GenexpyInputError(f"column {col!r} ({role}) has {df[col].null_count()} null "
                                    "value(s); drop or fill them first.")
    y = df[target].cast(pl.Float64)
    bad = y.null_count() + int((~y.drop_nulls().is_finite()).sum())
    if bad:
        raise GenexpyInputError(f"{bad} value(s) of {target!r} are not finite numbers (null, "
                                "NaN or infinite); drop them first.")


def _per_item(df: pl.DataFrame, keys: list[str], target: str, samples: str | None):
    """One score per (model, run, item): the mean over samples, or the row itself."""
    y = pl.col(target).cast(pl.Float64)
    if samples is not None:
        return df.group_by(keys).agg(y.mean().alias("__gx_y"))
    dup = df.group_by(keys).len().filter(pl.col("len") > 1).height
    if dup:
        raise GenexpyInputError(
            f"{dup} (run, item) pair(s) hold more than one row; name the column of repeated "
            "samples within a run with samples= (their outcomes are averaged), or drop the "
            "duplicates.")
    return df.select(*keys, y.alias("__gx_y"))


def _matrix(part: pl.DataFrame, runs: str, items: str):
    """Return the runs × items matrix on the items every run scored, its labels, items left."""
    wide = part.pivot(on=items, index=runs, values="__gx_y").sort(runs)
    cols = sorted(c for c in wide.columns if c != runs)  # not the rows' order: same draws
    X = wide.select(cols).to_numpy().astype(float)
    keep = np.isfinite(X).all(axis=0)
    return [str(r) for r in wide[runs].to_list()], X[:, keep], int((~keep).sum())


def _refuse_binary(X: np.ndarray, who: str) -> None:
    if np.isin(X, (0.0, 1.0)).all():
        raise GenexpyInputError(
            f"{who}every per-item score is 0 or 1. The KS distance of two 0/1 samples is the "
            "difference of their accuracies (the eCDF has one step, at 0), so the robust KS "
            "test and alpha-hat would say nothing an accuracy does not. Pass a continuous "
            "per-item score (a probability, a log-likelihood margin), or, where each run "
            "answered every item several times, name those samples with samples= to use the "
            "share of correct samples.")


def run_against_runs(data: Any, *, items: str, runs: str, target: str,
                     alternatives: str | None = None, samples: str | None = None,
                     alpha: float = 0.05, B: int = config.ALPHA_HAT_B, grid: Any = None,
                     eps: float = config.DKW_EPS, clip: float | None = None,
                     seed: int | np.random.Generator | None = 0,
                     n_jobs: int | None = None,
                     progress: bool = True) -> pl.DataFrame:
    """Test each run of a model against its other runs (robust KS test and alpha-hat).

    Robust-KS paper, Sections III-C and IV-A (Algorithm 1), with the runs of an evaluation in
    the place of a model's training seeds: for run r of model a, the reference pool is the
    per-item scores of a's other runs, shape (K - 1, T), and the candidate is run r's scores,
    shape (T,), on the T items every run of a scored.

    Parameters
    ----------
    data : polars / pandas DataFrame or polars LazyFrame
        Per-item scores: one row per (model,) run and item (and sample, with ``samples``);
        never modified.
    items : str
        The column naming the item (question, test point, example group).
    runs : str
        The column naming the run (seed, fine-tuning, sampling pass, epoch); at least three
        runs per model (a run against a pool of two or more).
    target : str
        The per-item score: continuous (a probability, a log-likelihood margin, a share of
        correct samples). A table of 0/1 outcomes only is refused (see Notes).
    alternatives : str, optional
        The column naming the model; each model's runs are tested against that model's
        other runs only. None: the whole table is one model.
    samples : str, optional
        The column naming repeated samples of one item within a run; the score of the item
        in that run is then the mean over its samples (with 0/1 outcomes: the share of
        correct samples).
    alpha : float in [0, 0.5), default 0.05
        Trimming level of the robust KS test (the column ``accept_share``).
    B : int, default ``config.ALPHA_HAT_B`` (100)
        Bootstrap splits of the items.
    grid : sequence of float in [0, 0.5), default ``config.ALPHA_GRID``
        Trimming levels tried for alpha-hat.
    eps : float in (0, 1), default ``config.DKW_EPS`` (0.01)
        Error probability of the DKW threshold.
    clip : float or None, default None
        Clip the scores to ``[-clip, clip]`` first (log-likelihood margins can be unbounded;
        None: no clipping).
    seed : int, numpy.random.Generator or None, default 0
        The bootstrap splits, the same for every run (common random numbers). An int fixes
        the result (the same bits at any thread count); a Generator or None (fresh entropy)
        gives one int first, used for every run.
    n_jobs : int, optional
        Threads (default all numba threads).
    progress : bool, default True
        tqdm progress bar over the runs.

    Returns
    -------
    polars.DataFrame
        One row per (model, run), runs in sorted order: the ``alternatives`` column (when
        given), ``run``, ``n_items`` (T, the items every run of the model scored),
        ``items_left_out`` (items some run of the model lacks), ``ref_runs`` (K - 1),
        ``mean`` (the run's mean score over the T items), ``ref_mean`` (the pool's),
        ``d0`` (the full-data KS distance of the run to the pooled other runs, no bootstrap),
        ``tau`` (the DKW threshold for the bootstrap reference size T // 2),
        ``alpha_hat``, ``alpha_hat_sd`` (its bootstrap standard deviation),
        ``alpha_hat_exact`` (by bisection) and ``accept_share`` (the share of the B splits
        in which the robust KS test at trimming level ``alpha`` accepts the run).

    Raises
    ------
    GenexpyInputError
        A column missing, null keys, non-finite scores, duplicate (run, item) rows without
        ``samples``, fewer than three runs of a model, a model's scores all 0 or 1, or too
        few shared items for the test to ever reject (``T // 2`` below
        :func:`~genexpy_nb.variability.min_reference_size`).

    Notes
    -----
    Bootstrap b draws T items with replacement and splits them into halves I1 (the first
    T // 2) and I2: the reference sample is T // 2 draws from the pool's scores on I2, the
    candidate sample the run's scores on I1, and the test accepts at level alpha when the
    alpha-trimmed KS distance is at most ``tau = sqrt(log(2/eps) / (T//2)) + 1/(T//2)``;
    alpha-hat_b is the smallest level that accepts, alpha-hat its mean over the splits
    (:func:`~genexpy_nb.variability.alpha_hat_bootstrap`). ``accept_share`` counts the
    splits whose exact alpha-hat_b (bisection, tolerance ``config.ALPHA_HAT_XTOL``) is at
    most ``alpha``.

    The threshold shrinks as 1/sqrt(T): with 30 items tau is 0.66 and nearly every run is
    accepted whatever its scores; with 1,000 items it is 0.14. ``d0`` compares the run's T
    values with the pool's (K - 1)·T values without splitting, a description rather than a
    test (the run's own sampling noise, of order 1/sqrt(T), is in it).

    On 0/1 outcomes the eCDF of a run has one step, at 0, of height one minus its accuracy:
    the KS distance of two runs is the difference of their accuracies, hence the refusal.

    Examples
    --------
    >>> import numpy as np, polars as pl
    >>> rng = np.random.default_rng(0)
    >>> difficulty = rng.normal(size=400)
    >>> rows = [{"run": r, "item": i, "margin": d + rng.normal(0, 0.3) + (1.5 if r == 4 else 0)}
    ...         for r in range(5) for i, d in enumerate(difficulty)]
    >>> out = run_against_runs(pl.DataFrame(rows), items="item", runs="run",
    ...                        target="margin", B=20, progress=False)
    >>> out["run"].to_list()
    ['0', '1', '2', '3', '4']
    >>> bool(out["alpha_hat"][4] > out["alpha_hat"][:4].max())
    True
    """
    from ..variability import alpha_hat_bootstrap, dkw_threshold, ks_to_reference

    df = to_polars(data)
    roles = {"alternatives": alternatives, "runs": runs, "items": items, "samples": samples,
             "target": target}
    _check_table(df, roles)
    B = check_positive_int("B", B)
    seed = check_seed(seed)
    if not isinstance(seed, int):  # one int for all runs: the same splits for each
        seed = int(rng_from_seed(seed).integers(2**63 - 1))
    if not (isinstance(alpha, (int, float)) and 0 <= float(alpha) < 0.5):
        raise GenexpyInputError(f"alpha must be a trimming level in [0, 0.5), got {alpha!r}.")
    keys = ([alternatives] if alternatives else []) + [runs, items]
    if samples is not None:
        keys_s = keys + [samples]
        if df.group_by(keys_s).len().filter(pl.col("len") > 1).height:
            raise GenexpyInputError(f"some (run, item, {samples}) rows repeat; each sample "
                                    "of an item in a run should be one row.")
    per_item = _per_item(df, keys, target, samples).select(
        *([alternatives] if alternatives else []), pl.col(runs).cast(pl.String).alias("__gx_run"),
        pl.col(items).cast(pl.String).alias("__gx_item"), "__gx_y")
    models = (sorted(per_item[alternatives].unique().to_list(), key=str) if alternatives
              else [None])
    jobs = []
    for m in models:
        part = per_item.filter(pl.col(alternatives) == m) if alternatives else per_item
        labels, X, left = _matrix(part, "__gx_run", "__gx_item")
        who = f"model {m!r}: " if alternatives else ""
        if len(labels) < 3:
            raise GenexpyInputError(f"{who}{len(labels)} run(s); one run against its runs "
                                    "needs at least three (a pool of two or more).")
        if X.shape[1] == 0:
            raise GenexpyInputError(f"{who}no item is scored by every run.")
        _refuse_binary(X, who)
        jobs.extend((m, r, labels[r], X, left) for r in range(len(labels)))
    rows = []
    for m, r, label, X, left in tqdm(jobs, desc="run against runs", disable=not progress):
        ref, cand = np.delete(X, r, axis=0), X[r]
        boot = alpha_hat_bootstrap(ref, cand, B=B, grid=grid, exact=True, eps=eps, seed=seed,
                                   n_jobs=n_jobs, progress=False, clip=clip)
        a, ax = boot["alpha_hat"].to_numpy(), boot["alpha_hat_exact"].to_numpy()
        row = {"run": label, "n_items": X.shape[1], "items_left_out": left,
               "ref_runs": ref.shape[0], "mean": float(cand.mean()),
               "ref_mean": float(ref.mean()),
               "d0": float(ks_to_reference(ref, cand, clip=clip, n_jobs=n_jobs)[0]),
               "tau": dkw_threshold(X.shape[1] // 2, eps),
               "alpha_hat": float(a.mean()), "alpha_hat_sd": float(a.std(ddof=int(B > 1))),
               "alpha_hat_exact": float(ax.mean()),
               "accept_share": float(np.mean(ax <= alpha))}
        rows.append(({alternatives: m} if alternatives else {}) | row)
    return pl.DataFrame(rows)
