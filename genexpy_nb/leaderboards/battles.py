"""Bradley-Terry ratings from battles, with honest intervals and rank sets (SPEC A16).

A battle is one comparison of two models with a winner (the public Chatbot Arena logs:
``winner`` is "model_a", "model_b", "tie" or "tie (bothbad)"; a tie counts half a win for
each). The Bradley-Terry model (Bradley & Terry 1952) gives model m a log-strength
``beta_m`` with ``P(a beats b) = 1 / (1 + exp(beta_b - beta_a))``; the ratings are its
maximum-likelihood estimate, fitted by Newton's method on the counts of unique outcomes
(each (pair, outcome, weight) once, with its count), so a fit costs the number of model
pairs, not of battles.

Scale and anchor (stated in the columns ``scale`` and ``anchor``): ``scale="elo"`` gives
``rating = 1000 + 400 / ln 10 * beta`` (a difference of 400 is odds of 10 to 1, Chatbot
Arena's scale), ``scale="log"`` the log-strength itself; the anchor is the mean of the
reliable models (1000, or 0 on the log scale) unless ``anchor=(model, value)`` fixes one
model's rating.

Intervals: the battle log is resampled with replacement (multinomial counts of the unique
outcomes: the same distribution as drawing as many battles with replacement, at a cost per
replicate proportional to the model pairs), the model refitted from the previous fit, and
the percentile interval of each rating taken over the replicates. Rank sets (places) come
from the same replicates through the simultaneous max-t step-down test of
:func:`genexpy_nb.rank_sets` on every pair's rating difference (each difference scaled by its
bootstrap spread).

Reliable models: the maximum-likelihood estimate exists only on a strongly connected
comparison graph (every model has won against, and lost to, the rest through some chain;
Zermelo 1929, Ford 1957): a model that won (or lost) all its battles has an infinite
estimate, which a bootstrap turns into ratings such as -3800. The fit therefore keeps the
models with at least ``min_battles`` battles in the largest strongly connected part of the
comparison graph (repeated until stable); the others are ``reliable == False`` with their
reason, no interval and no place, and a rating shrunk to the reliable models' mean by a
normal prior whose spread is that of the reliable ratings (finite, never extreme). A model
that wins or loses all its battles in more than half of ``1 - level`` of the replicates has
no bounded interval: it is unreliable too, with the share said.

From a results table (``gx.bradley_terry(study)``): in each condition every pair of
alternatives is one battle, won by the better ranked (a tie by the study's tie tolerance is
half a win each; missing results as the study's policy left them), and the bootstrap
resamples whole conditions, not battles.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl

from .._validation import (
    GenexpyInputError,
    check_memory,
    check_positive_int,
    check_probability,
    child_seed,
    require_columns,
    root_seed,
    to_polars,
)
from ._stepdown import marginal_places, places, stepdown, studentised_pairs, tier_numbers

__all__ = ["bradley_terry"]

#: the winner values of the public Chatbot Arena logs: a's win, b's win, a tie (two kinds)
WINNERS = {"model_a": 0, "model_b": 1, "tie": 2, "tie (bothbad)": 2}
#: Elo points per unit of log-strength: 400 / ln 10 (odds of 10 to 1 per 400 points)
ELO_PER_UNIT = 400.0 / math.log(10.0)
#: the Elo scale's centre (the mean of the reliable models)
ELO_CENTER = 1000.0
#: a model needs at least this many battles to be rated with an interval
MIN_BATTLES = 20
#: the most models one fit takes (Newton's method solves a K x K system per step)
MAX_MODELS = 3000
#: the most replicates (more only costs time)
MAX_REPS = 100_000
#: Newton's method: largest step below this (log-strength units) stops it
TOL = 1e-12
#: ... and at most this many steps
MAX_ITER = 200
#: a replicate whose comparison graph is not strongly connected is refitted with this ridge
#: (log-strength units, centred on the observed fit): finite values far in the tails
RIDGE = 1e-2


# ---------------------------------------------------------------------------------------
# reading battles
# ---------------------------------------------------------------------------------------
class _Outcomes:
    """Unique outcomes of a battle log: per (pair, outcome, weight), how many battles."""

    def __init__(self, names: list[str], lo: np.ndarray, hi: np.ndarray, out: np.ndarray,
                 w: np.ndarray, n: np.ndarray) -> None:
        self.names = names
        self.lo, self.hi, self.out, self.w, self.n = lo, hi, out, w, n
        K = len(names)
        self.battles = (np.bincount(lo, weights=n, minlength=K)
                        + np.bincount(hi, weights=n, minlength=K)).astype(np.int64)

    def pair_counts(self, counts: np.ndarray | None = None,
                    keep: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray,
                                                             np.ndarray, np.ndarray]:
        """Pairs and their (weighted) wins of ``lo`` and battles, from ``counts`` per outcome.

        ``counts``: (U,) or (R, U) battles per unique outcome (default the log's own);
        ``keep``: only outcomes whose both models are kept. Returns ``pi, pj`` (Q,), and
        ``W, Nn`` (Q,) or (R, Q).
        """
        n = self.n if counts is None else counts
        sel = np.ones(self.lo.size, bool) if keep is None else keep[self.lo] & keep[self.hi]
        K = len(self.names)
        key = self.lo[sel].astype(np.int64) * K + self.hi[sel]  # sorted: groups contiguous
        starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
        score = np.where(self.out[sel] == 0, 1.0, np.where(self.out[sel] == 1, 0.0, 0.5))
        ww = self.w[sel]
        nn = np.asarray(n, dtype=np.float64)[..., sel]
        W = np.add.reduceat(nn * (ww * score), starts, axis=-1)
        Nn = np.add.reduceat(nn * ww, starts, axis=-1)
        uk = key[starts]
        return uk // K, uk % K, W, Nn


def _model_names(df: pl.DataFrame, col: str) -> pl.Series:
    s = df[col]
    if s.null_count():
        raise GenexpyInputError(f"column {col!r} has {s.null_count()} empty model name(s); "
                                "drop those battles or name the models.")
    if s.dtype != pl.String:
        if s.dtype.is_numeric() or s.dtype in (pl.Categorical, pl.Enum, pl.Boolean):
            s = s.cast(pl.String)
        else:
            raise GenexpyInputError(f"column {col!r} must hold model names (text), got "
                                    f"{s.dtype}.")
    return s


def _winner_codes(df: pl.DataFrame, col: str) -> np.ndarray:
    s = df[col]
    if s.dtype != pl.String:
        if s.dtype in (pl.Categorical, pl.Enum):
            s = s.cast(pl.String)
        else:
            raise GenexpyInputError(
                f"column {col!r} must hold the winner as text: 'model_a', 'model_b', 'tie' or "
                f"'tie (bothbad)' (the Chatbot Arena logs' values), got {s.dtype}.")
    if s.null_count():
        raise GenexpyInputError(f"column {col!r} has {s.null_count()} empty winner(s); drop "
                                "those battles or say 'tie'.")
    bad = s.filter(~s.is_in(list(WINNERS))).unique(maintain_order=True)
    if bad.len():
        shown = ", ".join(repr(v) for v in bad.head(3).to_list())
        raise GenexpyInputError(
            f"column {col!r}: unknown winner value(s) {shown}; use 'model_a', 'model_b', "
            "'tie' or 'tie (bothbad)' (e.g. df.with_columns(pl.col(...).replace({...})))")
    return s.replace_strict(WINNERS, return_dtype=pl.Int8).to_numpy()


def _numbers(df: pl.DataFrame, col: str | None, what: str, *, integer: bool) -> np.ndarray:
    if col is None:
        return np.ones(df.height)
    s = df[col]
    if not s.dtype.is_numeric() or s.dtype == pl.Boolean:
        raise GenexpyInputError(f"{what} column {col!r} must be numeric, got {s.dtype}.")
    v = s.cast(pl.Float64).to_numpy()
    if s.null_count() or not np.all(np.isfinite(v)) or np.any(v < 0):
        raise GenexpyInputError(f"{what} column {col!r} must hold finite numbers >= 0 (no "
                                "empty cells).")
    if integer and np.any(v != np.floor(v)):
        raise GenexpyInputError(f"{what} column {col!r} must hold whole numbers of battles.")
    return v


def read_battles(battles: Any, model_a: str, model_b: str, winner: str,
                 weights: str | None, count: str | None) -> _Outcomes:
    """Check a battle log and count its unique outcomes.

    Returns
    -------
    _Outcomes
    """
    df = to_polars(battles, "battles")
    for nm, v in (("model_a", model_a), ("model_b", model_b), ("winner", winner),
                  ("weights", weights), ("count", count)):
        if v is not None and not isinstance(v, str):
            raise GenexpyInputError(f"{nm} must be a column name (str), got {v!r}.")
    cols = [c for c in (model_a, model_b, winner, weights, count) if c is not None]
    if len(set(cols)) != len(cols):
        raise GenexpyInputError(f"model_a, model_b, winner, weights and count must name "
                                f"different columns, got {cols}.")
    require_columns(df, cols, "battles")
    if df.height == 0:
        raise GenexpyInputError("battles: the log is empty (0 rows); nothing to rate.")
    a, b = _model_names(df, model_a), _model_names(df, model_b)
    same = int((a == b).sum())
    if same:
        raise GenexpyInputError(f"battles: {same} battle(s) pit a model against itself "
                                f"({model_a} == {model_b}); drop them.")
    out = _winner_codes(df, winner)
    w = _numbers(df, weights, "weights", integer=False)
    n = _numbers(df, count, "count", integer=True)
    names = sorted(set(a.unique().to_list()) | set(b.unique().to_list()))
    if len(names) < 2:
        raise GenexpyInputError("battles: fewer than two models; nothing to compare.")
    code = {m: i for i, m in enumerate(names)}
    ia = a.replace_strict(code, return_dtype=pl.Int64).to_numpy()
    ib = b.replace_strict(code, return_dtype=pl.Int64).to_numpy()
    swap = ia > ib  # pairs as (lo, hi): a's win becomes hi's win when swapped
    lo, hi = np.where(swap, ib, ia), np.where(swap, ia, ib)
    o = np.where(out == 2, 2, np.where(swap, 1 - out, out)).astype(np.int8)
    g = pl.DataFrame({"lo": lo, "hi": hi, "out": o, "w": w, "n": n}).filter(
        (pl.col("n") > 0) & (pl.col("w") > 0))
    if g.height == 0:
        raise GenexpyInputError("battles: every battle has a weight or count of 0; nothing "
                                "to rate.")
    g = g.group_by(["lo", "hi", "out", "w"]).agg(pl.col("n").sum()).sort(
        ["lo", "hi", "out", "w"])
    return _Outcomes(names, g["lo"].to_numpy(), g["hi"].to_numpy(), g["out"].to_numpy(),
                     g["w"].to_numpy(), g["n"].to_numpy())


# ---------------------------------------------------------------------------------------
# fitting
# ---------------------------------------------------------------------------------------
def fit_rows(pi: np.ndarray, pj: np.ndarray, W: np.ndarray, Nn: np.ndarray, K: int, *,
             start: np.ndarray | None = None, ridge: float = 0.0,
             center: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Fit Bradley-Terry log-strengths (mean 0) to rows of pair counts.

    Parameters
    ----------
    pi, pj : numpy.ndarray
        (Q,) the pairs' models.
    W, Nn : numpy.ndarray
        (R, Q) wins of ``pi`` and battles.
    K : int
        The number of models.
    start : numpy.ndarray, optional
        (K,) the start of Newton's method (default 0).
    ridge : float
        Weight of a Gaussian penalty around ``center`` (0: maximum likelihood).
    center : numpy.ndarray, optional
        (K,) the penalty's centre (default 0).

    Returns
    -------
    beta : numpy.ndarray
        (R, K) the fits.
    converged : numpy.ndarray
        (R,) bool.
    """
    from .._numba import run_blocks
    from .._numba.leaderboards import bt_fit_rows

    R = W.shape[0]
    out = np.zeros((R, K))
    iters = np.zeros(R, dtype=np.int64)
    b0 = np.zeros(K) if start is None else np.ascontiguousarray(start, dtype=float)
    c0 = np.zeros(K) if center is None else np.ascontiguousarray(center, dtype=float)
    Wc, Nc = np.ascontiguousarray(W, dtype=float), np.ascontiguousarray(Nn, dtype=float)
    pi64, pj64 = np.ascontiguousarray(pi, np.int64), np.ascontiguousarray(pj, np.int64)

    def block(r0: int, r1: int) -> None:
        bt_fit_rows(pi64, pj64, Wc, Nc, b0, float(ridge), c0, TOL, MAX_ITER, out, iters,
                    r0, r1)

    run_blocks(block, R, work=float(R) * 8 * (pi.size + K ** 3 / 3))
    return out, iters <= MAX_ITER


def strongly_connected(pi: np.ndarray, pj: np.ndarray, W: np.ndarray, Nn: np.ndarray,
                       K: int) -> np.ndarray:
    """Labels of the strongly connected parts of the win graph (a -> b: a won against b)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    a_won = W > 0
    b_won = (Nn - W) > 1e-12 * np.maximum(Nn, 1.0)
    rows = np.concatenate([pi[a_won], pj[b_won]])
    cols = np.concatenate([pj[a_won], pi[b_won]])
    g = coo_matrix((np.ones(rows.size), (rows, cols)), shape=(K, K))
    return connected_components(g, directed=True, connection="strong")[1]


def core_models(pi: np.ndarray, pj: np.ndarray, W: np.ndarray, Nn: np.ndarray,
                battles: np.ndarray, min_battles: int) -> tuple[np.ndarray, list[str]]:
    """Find the reliable models: enough battles, in the largest strongly connected part.

    Returns
    -------
    keep : numpy.ndarray
        (K,) bool.
    reasons : list of str
        Per model, why it is left out ('' when kept).
    """
    K = battles.size
    keep = battles >= min_battles
    reasons = ["" if k else f"only {int(battles[m])} battle(s) (fewer than min_battles="
               f"{min_battles})" for m, k in enumerate(keep)]
    while True:
        sel = keep[pi] & keep[pj]
        lab = strongly_connected(pi[sel], pj[sel], W[sel], Nn[sel], K)
        sizes = np.bincount(lab[keep], minlength=K) if keep.any() else np.zeros(K, int)
        if not keep.any():
            return keep, reasons
        big = int(np.argmax(sizes))
        out = keep & (lab != big)
        if not out.any():
            return keep, reasons
        for m in np.flatnonzero(out):
            reasons[m] = ("not connected to the rest: it won (or lost) every battle against "
                          "the compared models, or it met none of them; its rating is not "
                          "finite")
        keep &= ~out


def shrunk_outsiders(beta: np.ndarray, keep: np.ndarray, pi: np.ndarray, pj: np.ndarray,
                     W: np.ndarray, Nn: np.ndarray) -> np.ndarray:
    """Ratings of the unreliable models: posterior modes under a normal prior.

    The reliable models' fit held fixed; each other model's log-strength maximises its
    battles' likelihood plus a normal prior centred on the reliable mean (0) with the
    reliable ratings' spread (at least 0.5): finite, and pulled to the mean where the
    battles say little. Coordinate-wise Newton, a few sweeps.
    """
    out = beta.copy()
    free = np.flatnonzero(~keep)
    if free.size == 0:
        return out
    sd = max(float(np.std(beta[keep])) if keep.sum() > 1 else 0.0, 0.5)
    out[free] = 0.0
    for _ in range(50):
        old = out[free].copy()
        for m in free:
            a_side, b_side = pi == m, pj == m
            other = np.concatenate([pj[a_side], pi[b_side]])
            wins = np.concatenate([W[a_side], Nn[b_side] - W[b_side]])
            n = np.concatenate([Nn[a_side], Nn[b_side]])
            x = out[m]
            for _ in range(30):
                s = 1.0 / (1.0 + np.exp(-(x - out[other])))
                g = np.sum(wins - n * s) - x / sd ** 2
                h = np.sum(n * s * (1 - s)) + 1 / sd ** 2
                step = g / h
                x += step
                if abs(step) < 1e-12:
                    break
            out[m] = x
        if np.max(np.abs(out[free] - old)) < 1e-10:
            break
    return out


# ---------------------------------------------------------------------------------------
# the bootstrap
# ---------------------------------------------------------------------------------------
def _refit_degenerate(beta: np.ndarray, pi: np.ndarray, pj: np.ndarray, W: np.ndarray,
                      Nn: np.ndarray, center: np.ndarray, escaped: np.ndarray,
                      r0: int) -> None:
    """Refit the replicates whose comparison graph is not strongly connected.

    Their maximum likelihood does not exist (some model's estimate runs off to ±inf): they
    are refitted with a small ridge centred on the observed fit, the models outside the
    replicate's largest strongly connected part are marked in ``escaped``, and the rest are
    re-centred to the observed fit's mean over them (an escaping model does not move the
    others' scale).
    """
    K = center.size
    for r in range(beta.shape[0]):
        lab = strongly_connected(pi, pj, W[r], Nn[r], K)
        if lab.max() == 0:
            continue
        big = int(np.argmax(np.bincount(lab, minlength=K)))
        out = lab != big
        escaped[r0 + r] = out
        b, _ = fit_rows(pi, pj, W[r][None], Nn[r][None], K, start=center, ridge=RIDGE,
                        center=center)
        b = b[0]
        beta[r] = b - (b[~out].mean() - center[~out].mean())


def bootstrap_battles(oc: _Outcomes, keep: np.ndarray, beta_hat: np.ndarray, reps: int,
                      rng: np.random.Generator, progress: bool
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Refit the reliable models on ``reps`` multinomial resamples of the battle log.

    Returns
    -------
    betas : numpy.ndarray
        (reps, Kc) log-strengths of the reliable models (mean 0).
    escaped : numpy.ndarray
        (reps, Kc) bool: the model won or lost every battle of the replicate (its fit there
        is held finite by a ridge).
    """
    from .._progress import tqdm

    sel = keep[oc.lo] & keep[oc.hi]
    idx = np.flatnonzero(keep)
    remap = np.full(keep.size, -1)
    remap[idx] = np.arange(idx.size)
    sub = _Outcomes([oc.names[i] for i in idx], remap[oc.lo[sel]], remap[oc.hi[sel]],
                    oc.out[sel], oc.w[sel], oc.n[sel])
    total = int(sub.n.sum())
    p = sub.n / sub.n.sum()
    Kc = idx.size
    center = beta_hat[idx] - beta_hat[idx].mean()
    betas = np.empty((reps, Kc))
    escaped = np.zeros((reps, Kc), dtype=bool)
    block = max(1, min(reps, 2_000_000 // max(1, sub.n.size)))
    with tqdm(total=reps, desc="Bradley-Terry bootstrap", disable=not progress or reps < 200,
              leave=False) as bar:
        for r0 in range(0, reps, block):
            b = min(block, reps - r0)
            counts = rng.multinomial(total, p, size=b)
            pi, pj, W, Nn = sub.pair_counts(counts)
            beta, _ = fit_rows(pi, pj, W, Nn, Kc, start=center)
            _refit_degenerate(beta, pi, pj, W, Nn, center, escaped, r0)
            betas[r0: r0 + b] = beta
            bar.update(b)
    return betas, escaped


def bootstrap_conditions(V: np.ndarray, pi: np.ndarray, pj: np.ndarray, K: int,
                         beta_hat: np.ndarray, reps: int, rng: np.random.Generator
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Refit on ``reps`` resamples of the conditions (rows of V: each pair's score there)."""
    N = V.shape[0]
    betas = np.empty((reps, K))
    escaped = np.zeros((reps, K), dtype=bool)
    center = beta_hat - beta_hat.mean()
    block = max(1, min(reps, 2_000_000 // max(1, N + pi.size)))
    for r0 in range(0, reps, block):
        b = min(block, reps - r0)
        idx = rng.integers(0, N, size=(b, N))
        C = np.bincount((idx + N * np.arange(b)[:, None]).ravel(),
                        minlength=b * N).reshape(b, N).astype(np.float64)
        W = C @ V
        Nn = np.full_like(W, float(N))
        beta, _ = fit_rows(pi, pj, W, Nn, K, start=center)
        _refit_degenerate(beta, pi, pj, W, Nn, center, escaped, r0)
        betas[r0: r0 + b] = beta
    return betas, escaped


# ---------------------------------------------------------------------------------------
# the frame
# ---------------------------------------------------------------------------------------
def _rank_sets(beta_hat: np.ndarray, betas: np.ndarray, level: float, simultaneous: bool
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Places of the reliable models from the bootstrap's rating differences."""
    K = beta_hat.size
    iu, ju = np.triu_indices(K, k=1)
    d = beta_hat[ju] - beta_hat[iu]  # positive: i is behind (weaker)
    dstar = betas[:, ju] - betas[:, iu]
    q75, q25 = np.percentile(dstar, [75, 25], axis=0)
    spread = (q75 - q25) / 1.3489795003921634
    T, G = studentised_pairs(d, dstar, spread)
    order = np.argsort(-beta_hat, kind="stable")
    if simultaneous:
        rej = stepdown(T, G, level)
        from ._stepdown import ahead_matrix

        lo, hi = places(ahead_matrix(rej, iu, ju, K))
        return lo, hi, tier_numbers(rej, iu, ju, K, order)
    lo, hi = marginal_places(iu, ju, T, G, level, K)
    return lo, hi, None


def _check_anchor(anchor: Any, names: list[str]) -> tuple[str, float] | None:
    if anchor is None:
        return None
    if (not isinstance(anchor, (tuple, list)) or len(anchor) != 2
            or not isinstance(anchor[1], (int, float, np.number))
            or isinstance(anchor[1], bool) or not math.isfinite(float(anchor[1]))):
        raise GenexpyInputError(f"anchor must be (model, rating), e.g. ('gpt-4', 1200), got "
                                f"{anchor!r}.")
    if str(anchor[0]) not in names:
        raise GenexpyInputError(f"anchor: model {anchor[0]!r} is not in the battles.")
    return str(anchor[0]), float(anchor[1])


def _ratings_frame(names: list[str], beta: np.ndarray, keep: np.ndarray, reasons: list[str],
                   battles: np.ndarray, betas: np.ndarray | None, escaped: np.ndarray | None,
                   *, level: float, scale: str, anchor: tuple[str, float] | None,
                   simultaneous: bool) -> pl.DataFrame:
    """One row per model, best first; the reliable models' intervals and places."""
    K = len(names)
    unit = ELO_PER_UNIT if scale == "elo" else 1.0
    idx = np.flatnonzero(keep)
    if anchor is not None:
        a = names.index(anchor[0])
        if not keep[a]:
            raise GenexpyInputError(f"anchor: model {anchor[0]!r} is not reliable "
                                    f"({reasons[a]}); anchor a reliable model.")
        base = anchor[1] - unit * beta[a]
        text = f"{anchor[0]} = {anchor[1]:g}"
    else:
        base = ELO_CENTER if scale == "elo" else 0.0
        text = f"mean of the reliable models = {base:g}"
    rating = base + unit * beta
    lo = np.full(K, np.nan)
    hi = np.full(K, np.nan)
    rank_lo = np.full(K, -1)
    rank_hi = np.full(K, -1)
    tier = np.full(K, -1)
    place = np.full(K, -1)
    reasons = list(reasons)
    if idx.size:
        bc = beta[idx]
        place[idx] = 1 + (bc[None, :] > bc[:, None]).sum(axis=1)
    if betas is not None and idx.size > 1:
        rel = betas - (betas[:, [idx.tolist().index(names.index(anchor[0]))]]
                       if anchor is not None else 0.0)
        r = (base if anchor is None else anchor[1]) + unit * rel
        tail = (1 - level) / 2
        qlo, qhi = np.percentile(r, [100 * tail, 100 * (1 - tail)], axis=0)
        esc = escaped.mean(axis=0)
        bounded = esc <= tail / 2
        lo[idx] = np.where(bounded, qlo, np.nan)
        hi[idx] = np.where(bounded, qhi, np.nan)
        for j, m in enumerate(idx):
            if not bounded[j]:
                reasons[m] = (f"in {esc[j]:.1%} of the resampled logs it won or lost every "
                              "battle: its interval is not bounded")
        rl, rh, tr = _rank_sets(beta[idx], betas, level, simultaneous)
        rank_lo[idx], rank_hi[idx] = rl, rh
        if tr is not None:
            tier[idx] = tr
    reliable = np.array([r == "" for r in reasons])
    order = np.lexsort((np.arange(K), -rating))
    order = np.concatenate([order[keep[order]], order[~keep[order]]])

    def col(v: np.ndarray, ok: np.ndarray) -> list[Any]:
        return [(float(x) if isinstance(x, float | np.floating) else int(x)) if o else None
                for x, o in zip(v[order], ok[order], strict=True)]

    has_iv = ~np.isnan(lo) & reliable
    return pl.DataFrame({
        "model": [names[i] for i in order],
        "rating": rating[order],
        "rating_lo": col(lo, has_iv), "rating_hi": col(hi, has_iv),
        "battles": battles[order],
        "reliable": reliable[order],
        "place": col(place, keep), "rank_lo": col(rank_lo, rank_lo > 0),
        "rank_hi": col(rank_hi, rank_hi > 0), "tier": col(tier, tier > 0),
        "reason": [reasons[i] for i in order],
        "scale": [scale] * K, "anchor": [text] * K, "level": [level] * K,
    }, schema={"model": pl.String, "rating": pl.Float64, "rating_lo": pl.Float64,
               "rating_hi": pl.Float64, "battles": pl.Int64, "reliable": pl.Boolean,
               "place": pl.Int64, "rank_lo": pl.Int64, "rank_hi": pl.Int64,
               "tier": pl.Int64, "reason": pl.String, "scale": pl.String,
               "anchor": pl.String, "level": pl.Float64})


def _check_options(reps: Any, scale: Any, min_battles: Any, simultaneous: Any) -> int:
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or reps < 0:
        raise GenexpyInputError(f"reps must be 0 (the fit alone) or a number of bootstrap "
                                f"replicates (e.g. 1000), got {reps!r}.")
    if 0 < reps < 100 or reps > MAX_REPS:
        raise GenexpyInputError(f"reps must be 0 or from 100 to {MAX_REPS:,}, got {reps!r}.")
    if scale not in ("elo", "log"):
        raise GenexpyInputError(f"scale must be 'elo' (400 / ln 10 per unit of "
                                f"log-strength) or 'log', got {scale!r}.")
    check_positive_int("min_battles", min_battles)
    if not isinstance(simultaneous, (bool, np.bool_)):
        raise GenexpyInputError(f"simultaneous must be True or False, got {simultaneous!r}.")
    return int(reps)


def _check_size(K: int, Q: int, U: int, reps: int) -> None:
    if K > MAX_MODELS:
        raise GenexpyInputError(f"battles: {K:,} models; at most {MAX_MODELS:,} are rated at "
                                "once (each Newton step solves a K x K system): rate a subset.")
    check_memory("reps", max(reps, 1), per_unit=8.0 * (K + Q),
                 fixed=8.0 * (K * K + 6 * Q + 4 * U) + 8.0 * 2 * min(2_000_000, 8 * U),
                 minimum=1, what=f"the bootstrap of {K:,} models")


# ---------------------------------------------------------------------------------------
# the entry point
# ---------------------------------------------------------------------------------------
def bradley_terry(
    battles: Any,
    model_a: str = "model_a",
    model_b: str = "model_b",
    winner: str = "winner",
    *,
    weights: str | None = None,
    count: str | None = None,
    reps: int = 1000,
    level: float = 0.95,
    seed: Any = 0,
    scale: str = "elo",
    anchor: tuple[str, float] | None = None,
    min_battles: int = MIN_BATTLES,
    simultaneous: bool = True,
    config_id: Any = None,
    progress: bool = True,
) -> pl.DataFrame:
    """Rate models by Bradley-Terry from battles (or a study), with intervals and places.

    See the module notes for the model, the scale and anchor, the bootstrap and which
    models are reliable.

    Parameters
    ----------
    battles : DataFrame or Study
        A battle log (polars, pandas or arrow; one row per battle, or per group of
        identical battles with ``count``), or a :class:`~genexpy_nb.Study` (its conditions'
        pairwise results are the battles).
    model_a, model_b, winner : str
        Column names: the two models, and the winner ("model_a", "model_b", "tie" or
        "tie (bothbad)"; a tie is half a win each).
    weights : str, optional
        A column of battle weights (finite, >= 0).
    count : str, optional
        A column saying how many identical battles a row stands for (whole numbers >= 0):
        a log aggregated to counts gives the same fit and bootstrap as the full log.
    reps : int
        Bootstrap replicates (default 1000); 0 gives the maximum-likelihood fit alone.
    level : float
        Level of the intervals and of the rank sets (default 0.95).
    seed : int or numpy.random.Generator
        Seed of the bootstrap; the same seed gives the same frame, bit for bit.
    scale : {"elo", "log"}
        Elo points (400 / ln 10 per unit of log-strength, centred at 1000) or the
        log-strength.
    anchor : (str, float), optional
        Fix this model's rating to this value (default: the reliable models' mean is 1000,
        or 0 on the log scale).
    min_battles : int
        Fewer battles than this: unreliable, no interval (default 20).
    simultaneous : bool
        Rank sets for all reliable models at once (default) or one at a time.
    config_id : int, dict or tuple, optional
        With a study: one configuration only (default all).
    progress : bool
        Show a progress bar over the bootstrap.

    Returns
    -------
    polars.DataFrame
        One row per model, reliable models by rating first: ``model``, ``rating``,
        ``rating_lo``, ``rating_hi`` (percentile interval; null when unreliable),
        ``battles``, ``reliable``, ``place`` (1 + the reliable models rated higher),
        ``rank_lo``, ``rank_hi`` (the set of places among the reliable models), ``tier``,
        ``reason`` (why a model is unreliable), ``scale``, ``anchor``, ``level``; with a
        study, ``config_id`` and the design factors first.

    Examples
    --------
    >>> import polars as pl, genexpy_nb as gx
    >>> log = pl.DataFrame({"model_a": ["x", "x", "y", "z"] * 30,
    ...                     "model_b": ["y", "z", "z", "x"] * 30,
    ...                     "winner": ["model_a", "model_b", "tie", "model_a"] * 30})
    >>> bt = gx.bradley_terry(log, reps=0)
    >>> bt.select("model", "battles", "reliable").rows()
    [('z', 90, True), ('x', 90, True), ('y', 60, True)]
    >>> round(bt["rating"][0] - bt["rating"][1])  # z beats x 2 to 0 in every 4 battles
    254
    """
    level = check_probability("level", level)
    reps = _check_options(reps, scale, min_battles, simultaneous)
    root = root_seed(seed)
    if hasattr(battles, "samples") and hasattr(battles, "sample"):
        return _study_ratings(battles, reps=reps, level=level, root=root, scale=scale,
                              anchor=anchor, min_battles=int(min_battles),
                              simultaneous=bool(simultaneous), config_id=config_id)
    if config_id is not None:
        raise GenexpyInputError("config_id is for a study; a battle log has one board.")
    oc = read_battles(battles, model_a, model_b, winner, weights, count)
    anchor = _check_anchor(anchor, oc.names)
    K = len(oc.names)
    pi, pj, W, Nn = oc.pair_counts()
    _check_size(K, pi.size, oc.n.size, reps)
    keep, reasons = core_models(pi, pj, W, Nn, oc.battles, int(min_battles))
    beta = _fit_core(pi, pj, W, Nn, keep)
    betas = escaped = None
    if reps and keep.sum() > 1:
        betas, escaped = bootstrap_battles(oc, keep, beta, reps, child_seed(root, 0),
                                           progress)
    return _ratings_frame(oc.names, beta, keep, reasons, oc.battles, betas, escaped,
                          level=level, scale=scale, anchor=anchor,
                          simultaneous=bool(simultaneous))


def _fit_core(pi: np.ndarray, pj: np.ndarray, W: np.ndarray, Nn: np.ndarray,
              keep: np.ndarray) -> np.ndarray:
    """Fit the reliable models by maximum likelihood (mean 0), the others shrunk."""
    K = keep.size
    beta = np.zeros(K)
    idx = np.flatnonzero(keep)
    if idx.size > 1:
        remap = np.full(K, -1)
        remap[idx] = np.arange(idx.size)
        sel = keep[pi] & keep[pj]
        b, ok = fit_rows(remap[pi[sel]], remap[pj[sel]], W[None, sel], Nn[None, sel],
                         idx.size)
        if not ok[0]:
            raise RuntimeError("Bradley-Terry: Newton's method did not converge on a "
                               "strongly connected graph (please report this log).")
        beta[idx] = b[0]
    return shrunk_outsiders(beta, keep, pi, pj, W, Nn)


def study_battles(rankings: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per condition, each pair's score for its first alternative (1 win, 0.5 tie, 0 loss).

    Returns
    -------
    pi, pj : numpy.ndarray
        (Q,) the pairs i < j.
    V : numpy.ndarray
        (N, Q) float64.
    """
    t = np.asarray(rankings)
    K = t.shape[1]
    pi, pj = np.triu_indices(K, k=1)
    V = np.where(t[:, pi] < t[:, pj], 1.0, np.where(t[:, pi] == t[:, pj], 0.5, 0.0))
    return pi.astype(np.int64), pj.astype(np.int64), V


def _study_ratings(study: Any, *, reps: int, level: float, root: int, scale: str,
                   anchor: Any, min_battles: int, simultaneous: bool,
                   config_id: Any) -> pl.DataFrame:
    from .sets import head_frame, samples_of

    frames, ids = [], []
    for s in samples_of(study, config_id, "bradley_terry"):
        names = [str(a) for a in s.alternatives]
        anc = _check_anchor(anchor, names)
        pi, pj, V = study_battles(s.rankings)
        N, K = V.shape[0], len(names)
        _check_size(K, pi.size, pi.size * max(N, 1), reps)
        W, Nn = V.sum(axis=0), np.full(pi.size, float(N))
        battles = np.full(K, N * (K - 1), dtype=np.int64)
        keep, reasons = core_models(pi, pj, W, Nn, battles, min_battles)
        beta = _fit_core(pi, pj, W, Nn, keep)
        betas = escaped = None
        if reps and keep.sum() > 1 and N > 1:
            idx = np.flatnonzero(keep)
            remap = np.full(K, -1)
            remap[idx] = np.arange(idx.size)
            sel = keep[pi] & keep[pj]
            betas, escaped = bootstrap_conditions(V[:, sel], remap[pi[sel]], remap[pj[sel]],
                                                  idx.size, beta[idx], reps,
                                                  child_seed(root, s.config_id))
        f = _ratings_frame(names, beta, keep, reasons, battles, betas, escaped, level=level,
                           scale=scale, anchor=anc, simultaneous=simultaneous)
        frames.append(f)
        ids.extend([s.config_id] * f.height)
    return pl.concat([head_frame(study, ids), pl.concat(frames)], how="horizontal")

