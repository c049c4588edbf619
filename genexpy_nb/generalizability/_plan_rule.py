"""gx.conclusions' plan: the k of "needs k more" under the verdict's own rule (SPEC A15).

The claims of a configuration (pairs, the best, top groups, the order) are planned together,
on the same simulated futures:

* **fixed mode**: the whole table at N + k from :class:`~.assurance.PredictiveModel` (effects
  drawn given the data and shrunk by the empirical-Bayes factor; k future conditions drawn from
  them), then the verdict rule at N + k: Holm's step-down over the pairs of the configuration
  (or one by one), each set's pairs one by one (intersection-union);
* **sequential mode**: futures drawn one condition at a time (a Bayesian bootstrap of the
  observed conditions — Rubin 1981 — mixed with conditions whose midranks are randomly
  permuted in the proportion 1 - B, which shrinks every effect by the same factor B), the
  betting e-processes advanced along each path, Holm's step-down on their anytime-valid
  p-values at every k of the grid.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import config
from .._validation import fill_doc
from .assurance import (
    FutureTable,
    KPlan,
    PredictiveModel,
    holm_critical,
    holm_rejects,
    k_grid,
    search_k,
    separated_raw,
    shrinkage_factor,
)

__all__ = ["plan_claims", "fixed_event", "fused_judge", "sequential_inputs", "plan_from_events",
           "plan_from_counts", "horizon", "MIN_HORIZON"]

#: the plan's horizon when not given: max(this, 10 N) conditions
MIN_HORIZON = 50
#: sequential mode: draws x horizon x pairs advanced at most (about a second of the kernel)
SEQUENTIAL_MAX_WORK = 2e8
#: the entries the fixed mode's two rules share, and the two readers of a plan
_fill_doc = fill_doc(rule="""\
claims : list
    As :func:`plan_claims` takes them.
a : float
    The tests' level, 1 - alpha*.
""", plan="""\
assurance, level : float
    The probability of holding to reach; the level of k's predictive interval.
k_max : int
    The horizon.
""")


def horizon(N: int, max_more: int | None) -> int:
    """Return the most conditions the plan searches: ``max_more``, else max(50, 10 N)."""
    return int(max_more) if max_more is not None else max(MIN_HORIZON, 10 * N)


def plan_claims(x: np.ndarray, i: np.ndarray, j: np.ndarray, claims: list[Any], *,
                alpha: float, sequential: bool, assurance: float, draws: int,
                max_more: int | None, level: float, rng: np.random.Generator,
                order: np.ndarray, progress: bool = False) -> KPlan:
    """Plan the open claims of one configuration.

    Parameters
    ----------
    x : numpy.ndarray
        (N, na) per-condition midranks.
    i, j : numpy.ndarray
        The family's pairs.
    claims : list
        Objects with ``q`` (pair indices), ``sign`` (promised signs of the mean midrank
        differences, first minus second), ``allow`` (how many may fail) and ``family``
        (judged by Holm over the pairs, or one by one).
    alpha : float
        alpha*: the tests are at level 1 - alpha*.
    sequential : bool
        The anytime-valid rule (else the fixed-N one).
    assurance : float
        The probability of holding to reach.
    draws : int
        Simulated futures.
    max_more : int or None
        The horizon (default max(50, 10 N)).
    level : float
        Level of k's predictive interval.
    rng : numpy.random.Generator
        The stream of the draws.
    order : numpy.ndarray
        The rows of ``x`` in the order the conditions were added (sequential mode).
    progress : bool
        A progress bar.

    Returns
    -------
    KPlan
        Per claim: k, its interval, the probability of holding at k and its Monte Carlo
        error.
    """
    N = x.shape[0]
    k_max = horizon(N, max_more)
    if sequential:
        return _plan_sequential(x, i, j, claims, alpha=alpha, assurance=assurance,
                                draws=draws, k_max=k_max, level=level, rng=rng, order=order)
    model = PredictiveModel(x, draws=draws, rng=rng, pairs=(i, j))
    a = 1.0 - alpha
    if draws * model.P <= config.ROUTES.plan_numpy_max_work:
        return search_k(model, fixed_event(claims, a), len(claims), assurance=assurance,
                        k_max=k_max, level=level, progress=progress)
    return search_k(model, None, len(claims), assurance=assurance, k_max=k_max, level=level,
                    progress=progress, judge=fused_judge(model, claims, a))


def _compressed(claims: list[Any]) -> tuple[np.ndarray, ...]:
    """Return the claims as compressed rows: ptr, pairs, signs, allowances, family flags."""
    ptr = np.zeros(len(claims) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([c.q.size for c in claims])
    cq = (np.concatenate([c.q for c in claims]) if claims else np.zeros(0)).astype(np.int64)
    cs = (np.concatenate([c.sign for c in claims]) if claims else np.zeros(0)).astype(np.int64)
    allow = np.array([c.allow for c in claims], dtype=np.int64)
    fam = np.array([bool(c.family) for c in claims], dtype=np.bool_)
    return ptr, cq, cs, allow, fam


@_fill_doc
def fused_judge(model: PredictiveModel, claims: list[Any], a: float):
    """Return the fixed mode's rule through the fused kernel: ``judge(k, rows)``.

    Parameters
    ----------
    model : PredictiveModel
        The draws.
    {rule}

    Returns
    -------
    callable
        The same events as ``fixed_event(claims, a)(model.at(k, rows))``.
    """
    from scipy.special import stdtrit

    from .._numba import run_blocks
    from .._numba.assurance import fixed_events, holm_cells

    ptr, cq, cs, allow, fam = _compressed(claims)
    pi = np.asarray(model.i, dtype=np.int64)
    pj = np.asarray(model.j, dtype=np.int64)
    per_k: dict[int, tuple] = {}  # the critical values of each k (every block of draws)

    def judge(k: int, rows: slice) -> np.ndarray:
        if k not in per_k:
            df = model.N + k - 1
            crit = holm_critical(model.P, df, a)
            per_k[k] = (crit, float(stdtrit(float(df), 1.0 - a / 2.0)), *holm_cells(crit))
        crit, raw, ilo, ihi, inv_h = per_k[k]
        post = np.ascontiguousarray(model.post[rows])
        e2 = np.ascontiguousarray(model.e2[rows])
        chi = np.ascontiguousarray(model.chi(k)[rows])
        out = np.zeros((post.shape[0], len(claims)), dtype=np.bool_)

        def block(r0: int, r1: int) -> None:  # each block its own draws: any thread count
            fixed_events(post[r0:r1], e2[r0:r1], math.sqrt(k), pi, pj, model.d_mean,
                         model.d_var, chi[r0:r1], model.N, int(k), crit, raw, ilo, ihi,
                         inv_h, ptr, cq, cs, allow, fam, out[r0:r1])

        run_blocks(block, post.shape[0], work=float(post.shape[0]) * (model.P + len(claims)))
        return out

    return judge


@_fill_doc
def fixed_event(claims: list[Any], a: float):
    """Return the verdict rule of gx.conclusions (fixed mode) as a family test.

    Parameters
    ----------
    {rule}

    Returns
    -------
    callable
        ``FutureTable -> (draws, C) bool``.
    """
    C = len(claims)
    single = [n for n, c in enumerate(claims) if c.q.size == 1 and c.allow == 0]
    groups = {}
    for fam in (True, False):
        sel = [n for n in single if claims[n].family == fam]
        if sel:
            groups[fam] = (np.array(sel), np.array([int(claims[n].q[0]) for n in sel]),
                           np.array([int(claims[n].sign[0]) for n in sel]))
    rest = [n for n in range(C) if n not in set(single)]
    need_family = any(c.family for c in claims)
    need_raw = any(not c.family for c in claims)

    def event(ft: FutureTable) -> np.ndarray:
        rows = ft.t.shape[0]
        sgn = np.sign(ft.diff)
        tests = {}
        if need_family:
            tests[True] = holm_rejects(ft.t, ft.df, a)
        if need_raw:
            tests[False] = separated_raw(ft.t, ft.df, a)
        out = np.empty((rows, C), dtype=bool)
        for fam, (cols, q, s) in groups.items():
            out[:, cols] = tests[fam][:, q] & (sgn[:, q] == s)
        for n in rest:
            c = claims[n]
            ok = tests[c.family][:, c.q] & (sgn[:, c.q] == c.sign)
            out[:, n] = (~ok).sum(axis=1) <= c.allow
        return out

    return event


# ---------------------------------------------------------------------------------------
# sequential mode
# ---------------------------------------------------------------------------------------
def sequential_inputs(x: np.ndarray, i: np.ndarray, j: np.ndarray, claims: list[Any], *,
                      alpha: float, draws: int, k_max: int, rng: np.random.Generator,
                      order: np.ndarray) -> dict[str, Any]:
    """Everything the sequential simulation needs, drawn up front (the kernel draws nothing).

    Returns
    -------
    dict
        ``pool`` (observed then permuted conditions), ``state`` (6, P) after the observed
        conditions, ``n0``, ``active``, ``idx`` (draws, k_max) pool rows, ``grid``, ``crit``,
        the claims in compressed rows (``ptr``, ``cq``, ``csign``, ``allow``), ``scale``.
    """
    from .sequential import BET_CAP, eprocess_state

    N, na = x.shape
    P = int(np.size(i))
    xs = x[order]
    es = eprocess_state(xs, i, j)
    state = np.vstack([es.s1, es.s2, es.log_p, es.log_m, es.max_p, es.max_m])
    a = 1.0 - alpha
    crit = np.log(2.0 * (P - np.arange(P)) / a)  # Holm on p = 2 / e-value
    active = np.maximum(es.max_p, es.max_m) <= crit[0]
    B = shrinkage_factor(x)
    M = max(N, 200)
    src = rng.integers(0, N, size=M)
    noise = np.array([rng.permutation(x[s]) for s in src]).reshape(M, na)
    pool = np.ascontiguousarray(np.vstack([x, noise]))
    w = rng.dirichlet(np.ones(N), size=draws)  # Bayesian bootstrap: one population a draw
    cw = np.cumsum(w, axis=1)
    u_obs = rng.random((draws, k_max))
    u_mix = rng.random((draws, k_max))
    u_noise = rng.integers(0, M, size=(draws, k_max))
    obs_idx = np.empty((draws, k_max), dtype=np.int64)
    for r in range(draws):
        obs_idx[r] = np.minimum(np.searchsorted(cw[r], u_obs[r] * cw[r, -1], side="right"),
                                N - 1)
    idx = np.where(u_mix < B, obs_idx, N + u_noise).astype(np.int64)
    ptr, cq, cs, allow, _ = _compressed(claims)
    return {"pool": pool, "pi": np.asarray(i, np.int64), "pj": np.asarray(j, np.int64),
            "scale": 1.0 / max(na - 1, 1), "state": np.ascontiguousarray(state), "n0": N,
            "active": active, "idx": idx, "grid": k_grid(k_max), "crit": crit, "ptr": ptr,
            "cq": cq, "csign": cs, "allow": allow, "cap": BET_CAP,
            "B": B}


def _plan_sequential(x, i, j, claims, *, alpha, assurance, draws, k_max, level, rng, order
                     ) -> KPlan:
    from .._numba.assurance import sequential_paths
    from .sequential import MIN_VAR, PRIOR_VAR

    P = max(1, int(np.size(i)))
    cap_k = int(max(10, SEQUENTIAL_MAX_WORK // (draws * P)))
    k_max = min(k_max, cap_k)
    inp = sequential_inputs(x, i, j, claims, alpha=alpha, draws=draws, k_max=k_max, rng=rng,
                            order=order)
    grid = inp["grid"]
    C = len(claims)
    hits = np.zeros((grid.size, C), dtype=np.int64)
    never = np.iinfo(np.int64).max
    first = np.full((draws, C), never, dtype=np.int64)
    block = max(1, int(_EVENT_BLOCK // max(1, grid.size * C)))
    for start in range(0, draws, block):
        sl = slice(start, min(draws, start + block))
        ev = np.zeros((sl.stop - sl.start, grid.size, C), dtype=np.bool_)
        sequential_paths(inp["pool"], inp["pi"], inp["pj"], inp["scale"], inp["state"],
                         inp["n0"], inp["active"], np.ascontiguousarray(inp["idx"][sl]), grid,
                         inp["crit"], inp["ptr"], inp["cq"], inp["csign"], inp["allow"],
                         inp["cap"], PRIOR_VAR, MIN_VAR, ev)
        hits += ev.sum(axis=0)
        first[sl] = np.where(ev.any(axis=1), grid[np.argmax(ev, axis=1)], never)
    return plan_from_counts(hits, first, grid, draws=draws, assurance=assurance, level=level,
                            k_max=k_max)


#: sequential mode: draws x grid x claims of the events held at once (about 20 MB)
_EVENT_BLOCK = 2e7


@_fill_doc
def plan_from_events(ev: np.ndarray, grid: np.ndarray, *, assurance: float, level: float,
                     k_max: int) -> KPlan:
    """Read a plan off simulated events (draws, G, C) at the grid's values of k.

    Parameters
    ----------
    ev : numpy.ndarray
        (draws, G, C) whether each claim holds at each k of ``grid`` in each draw.
    grid : numpy.ndarray
        (G,) increasing values of k.
    {plan}

    Returns
    -------
    KPlan
        As :func:`~.assurance.search_k` returns it.
    """
    never = np.iinfo(np.int64).max
    first = np.where(ev.any(axis=1), grid[np.argmax(ev, axis=1)], never)
    return plan_from_counts(ev.sum(axis=0), first, grid, draws=ev.shape[0],
                            assurance=assurance, level=level, k_max=k_max)


@_fill_doc
def plan_from_counts(hits: np.ndarray, first: np.ndarray, grid: np.ndarray, *, draws: int,
                     assurance: float, level: float, k_max: int) -> KPlan:
    """Read a plan off the counts of holding draws and each draw's first k of holding.

    Parameters
    ----------
    hits : numpy.ndarray
        (G, C) draws in which each claim holds at each k of ``grid``.
    first : numpy.ndarray
        (draws, C) the first k of the grid at which it holds (int64 max: never).
    grid : numpy.ndarray
        (G,) increasing values of k.
    draws : int
        The number of draws.
    {plan}

    Returns
    -------
    KPlan
        k (the first k of the grid reaching the assurance), its predictive interval, the
        probability at k and its Monte Carlo error.
    """
    C = hits.shape[1]
    frac = hits / draws  # (G, C)
    reached = frac >= assurance
    first_k = np.where(reached.any(axis=0), np.argmax(reached, axis=0), -1)
    k = np.where(first_k >= 0, grid[np.maximum(first_k, 0)], -1).astype(np.int64)
    p = np.where(first_k >= 0, frac[np.maximum(first_k, 0), np.arange(C)], frac[-1])
    never = np.iinfo(np.int64).max
    tail = (1.0 - level) / 2.0
    qs = np.quantile(first, [tail, 1.0 - tail], axis=0, method="inverted_cdf")
    return KPlan(k=k, k_lo=np.where(qs[0] == never, -1, qs[0]).astype(np.int64),
                 k_hi=np.where(qs[1] == never, -1, qs[1]).astype(np.int64), p_hold=p,
                 p_hold_se=np.sqrt(p * (1.0 - p) / draws), draws=int(draws),
                 assurance=float(assurance), level=float(level), k_max=int(k_max),
                 evaluated=grid)
