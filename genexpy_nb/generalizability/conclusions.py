"""Conclusions that hold up: the best alternative, the top group, every pair, the order.

The paper's n* (Matteucci et al., Sec. 4) asks whether the *distribution of per-condition
rankings* is pinned down. A researcher usually asks something else: do the study's
*conclusions* hold — "A is the best", "A, B and C are the top three", "A beats B", "this is
the order" — and how many more conditions (datasets, tasks) would settle the ones that do not?

A conclusion is a function of a whole study. Its **aggregate ranking** is the mean over the
study's conditions of the within-condition midranks (rank 1 = best; the ranking of a
critical-difference diagram, with the study's direction, tie tolerance and missing-results
policy). From it:

* **best**: the alternative(s) with the lowest mean rank (two or more are "co-best");
* **top_k**: the set of alternatives with fewer than k alternatives strictly ahead;
* **pair** (a, b): which of the two has the lower mean rank, or neither when they are equal
  (no tolerance on mean ranks: a truly tied pair does not "hold" as "neither" unless an
  equivalence ``margin`` is given);
* **order**: the whole ranking; two orders agree when their normalised Kendall distance
  (discordant pairs, a pair tied in one order and not in the other counting 1/2, over all
  pairs) is at most delta*.

Its n-generalizability follows the paper's definition (Sec. 3) with an indicator kernel on
whole-study conclusions: ``G(n)`` is the probability that two independent studies of n
conditions reach the same conclusion, and ``n*`` the smallest n with ``G(m) >= alpha*`` for
every ``m >= n``.

The model (stated, and checked by simulation in ``scripts/conclusions_calibration.py``): the
aggregate ranking of a study of n conditions is a mean of n independent per-condition midrank
vectors, so it is close to a normal vector with the population mean ``mu`` and covariance
``Sigma / n`` (central limit theorem). For a pair, with mean ``mu_d`` and standard deviation
``sigma_d`` of the per-condition midrank difference, ``G(n) = p^2 + (1 - p)^2`` with
``p = Phi(sqrt(n) mu_d / sigma_d)``, so ``n* = (z sigma_d / mu_d)^2`` with
``z = Phi^-1((1 + sqrt(2 alpha* - 1)) / 2)`` (1.95 at alpha* = 0.95). For the best, the top-k
and the order, ``G(n)`` is computed by Monte Carlo from the normal model, with ``mu`` and
``Sigma`` estimated from the study (Gaussian-multiplier draws of the centred per-condition
midranks, which keep the exact linear structure of the data: two alternatives with identical
ranks everywhere stay identical in every draw).

Intervals invert an interval for the effect rather than bootstrapping n* (whose distribution
is heavy-tailed): for a pair the noncentral-t interval of ``mu_d / sigma_d`` gives
``[nstar_lo, nstar_hi]``, and ``nstar_hi`` is infinite when the interval of the effect
reaches 0 (these conditions do not separate the pair). Under the normal model, multiplying
every effect by c divides n* by c^2 exactly, so the best, top-k and order conclusions take the
interval of their *bottleneck* pair (the least separated pair the conclusion depends on) as
the interval of that scale.

Verdicts (SPEC A15, one rule for the verdict and the plan): "holds" (the pairs the
conclusion rests on are separated by the paired t-test on the per-condition midrank
differences at level 1 - alpha*, and N >= 5), "needs k more" (the direction is settled — the
interval of the effect at ``level`` excludes zero — and after k more conditions the same test,
with the same correction applied to the whole table at N + k, says "holds" with probability
``assurance``: a predictive simulation of the whole table, :mod:`.assurance` and
:mod:`._plan_rule`), "needs over K more" (settled, but not within the plan's horizon),
"unsure" (the direction is not settled: the data are compatible with no difference), and
"tied" (only within an equivalence ``margin`` of mean ranks that the user states, or when
even the optimistic end of k's interval overshoots the user's ``budget`` of conditions). The
agreement n* is reported beside them, as what it is. Pair rows are a family of many claims:
by default they are judged together with Holm's correction over the pairs of a
configuration (with 18 alternatives there are 153 pairs: one by one, about 7 identical pairs
would be called settled at level 0.05). The best, top-k and order rows are single claims that
need *every* pair they rest on to be separated (an intersection-union test), which keeps
their error rate at 1 - alpha* with no correction.

``sequential=True`` judges on anytime-valid p-values instead (betting e-processes on the
paired midrank differences, :mod:`.sequential`), every conclusion through the pairs' Holm
family: valid however often the study is looked at again as conditions are added.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .. import config
from .._validation import GenexpyInputError, check_probability, child_seed, fill_doc, root_seed
from ._conclusion_model import (  # the model: pairs in closed form, sets by Monte Carlo
    MIN_CONDITIONS,
    _agreement_fn,
    _doubled_midranks,
    _holm,
    _mc_nstar,
    _Model,
    _pair_core,
    _pair_intervals,
    conclusion_z,
    kendall_numpy,
)

__all__ = ["conclusions", "conclusion_z"]

KINDS = ("best", "top_k", "pair", "order")


# ---------------------------------------------------------------------------------------
# rows
# ---------------------------------------------------------------------------------------
def _names(alts: Sequence[str], idx: Sequence[int]) -> list[str]:
    return [str(alts[i]) for i in idx]


def _ordered_groups(sum2: np.ndarray, alts: Sequence[str]) -> list[list[str]]:
    """Return the alternatives in the order of their mean ranks, equal ones grouped."""
    groups: list[list[str]] = []
    last = None
    for i in np.argsort(sum2, kind="stable"):
        if last is not None and sum2[i] == last:
            groups[-1].append(str(alts[i]))
        else:
            groups.append([str(alts[i])])
        last = sum2[i]
    return groups


@dataclass
class _Claim:
    """What a row promises at N + k: its pairs separated in these directions.

    ``q`` the pairs (indices into the configuration's pair statistics), ``sign`` the promised
    sign of each pair's mean midrank difference (first minus second: -1 when the first is
    ahead), ``allow`` how many of them may fail (the order's tolerance), ``family`` whether
    they are judged with the family's correction (Holm) or one by one.
    """

    q: np.ndarray
    sign: np.ndarray
    allow: int
    family: bool


@dataclass
class _Rule:
    """How a configuration's rows are judged (the same rule at N and at N + k)."""

    alpha: float
    adjust: str
    level: float
    sequential: bool
    assurance: float
    plan_draws: int
    max_more: int | None
    plan: bool = True
    #: the agreement n* of the best, top-k and order (off only for the validation scripts'
    #: re-runs, which read verdicts alone)
    agreement: bool = True

    @property
    def mode(self) -> str:
        return "sequential" if self.sequential else "fixed"


def _row_base(N: int, rule: _Rule) -> dict[str, Any]:
    return {"more": None, "more_lo": None, "more_hi": None, "p_hold": None, "p_hold_se": None,
            "plan_draws": None, "assurance": rule.assurance, "mode": rule.mode}


def _status(*, reliable: bool, N: int, equivalent: bool, separated: bool, settled: bool
            ) -> tuple[str, str]:
    """Return the verdict at N ("holds", "tied", "unsure" or "plan") and its reason."""
    if not reliable:
        return "unsure", (f"only {N} condition(s): the normal model of a mean needs at "
                          f"least {MIN_CONDITIONS}")
    if equivalent:
        return "tied", "within the equivalence margin of mean ranks"
    if separated:
        return "holds", ""
    if not settled:
        return "unsure", UNSETTLED
    return "plan", ""


#: the reason of an "unsure" verdict whose direction these conditions do not settle
UNSETTLED = ("the direction is not settled: the interval of the effect reaches zero (the data "
             "are compatible with no difference)")


def _settled(st: dict[str, np.ndarray], q: np.ndarray) -> np.ndarray:
    """Whether the interval of each pair's effect (at ``level``) excludes zero."""
    return st["settled"][q]


def _pair_verdicts(st: dict[str, np.ndarray], N: int, rule: _Rule, sep: np.ndarray,
                   margin: float | None, reliable: bool
                   ) -> tuple[list[tuple[str, str]], list[_Claim | None]]:
    """Return every pair's verdict and reason at N, and its claim where the plan is asked."""
    verdicts, claims = [], []
    tcrit = _tcrit(rule.alpha, N)
    settled = _settled(st, np.arange(st["i"].size))
    family = rule.adjust == "holm" or rule.sequential
    for q in range(st["i"].size):
        s2 = st["sum2"][q]
        const_zero = bool(st["const"][q] and s2 == 0)
        equivalent = const_zero or (margin is not None and N > 1 and _within_margin(
            float(st["mean"][q]), float(st["sd"][q]), N, margin, tcrit))
        verdict, reason = _status(reliable=reliable, N=N, equivalent=equivalent,
                                  separated=bool(sep[q]) and s2 != 0,
                                  settled=bool(settled[q]) and s2 != 0)
        if const_zero and reliable:
            reason = f"equal ranks in all {N} conditions"
        verdicts.append((verdict, reason))
        claims.append(_Claim(np.array([q]), np.array([int(np.sign(s2))]), 0, family)
                      if verdict == "plan" else None)
    return verdicts, claims


def _pair_rows(st: dict[str, np.ndarray], alts: Sequence[str], N: int, rule: _Rule,
               p_adj: np.ndarray, reliable: bool, verdicts: list[tuple[str, str]]
               ) -> list[dict[str, Any]]:
    """Return the rows of every pair (their verdicts from :func:`_pair_verdicts`)."""
    nstar, nlo, nhi = st["nstar"], st["nstar_lo"], st["nstar_hi"]
    p_raw = st["p_anytime"] if rule.sequential else st["p"]
    if rule.sequential:
        judged = "as a family (Holm), anytime-valid"
    else:
        judged = "as a family (Holm)" if rule.adjust == "holm" else "one by one"
    rows = []
    for q in range(st["i"].size):
        i, j = int(st["i"][q]), int(st["j"][q])
        s2 = st["sum2"][q]
        a, b = (i, j) if s2 <= 0 else (j, i)
        names = _names(alts, [a, b])
        if st["const"][q] and s2 == 0:
            observed = f"{names[0]} and {names[1]} tie in every condition"
            g, ns, lo, hi = 1.0, 1.0, 1.0, 1.0
        elif s2 == 0:
            observed = f"neither ahead: {names[0]} and {names[1]} have equal mean ranks"
            g, ns, lo, hi = 0.5, math.inf, float(nlo[q]), math.inf
        else:
            observed = f"{names[0]} ahead of {names[1]}"
            g = float(st["agreement"][q])
            ns, lo, hi = float(nstar[q]), float(nlo[q]), float(nhi[q])
        verdict, reason = verdicts[q]
        lo_e, hi_e = _signed_effect(st, q, -1 if s2 <= 0 else 1)
        rows.append({"kind": "pair", "k": None, "members": names,
                     "alternatives": f"{names[0]} vs {names[1]}", "observed": observed,
                     "agreement": g, "nstar": ns, "nstar_lo": lo, "nstar_hi": hi,
                     "verdict": verdict, "reliable": reliable,
                     "reason": reason, "p_value": float(p_raw[q]),
                     "p_adjusted": float(p_adj[q]), "judged": judged, "bottleneck": names,
                     "effect_lo": lo_e, "effect_hi": hi_e, **_row_base(N, rule)})
    return rows


def _signed_effect(st: dict[str, np.ndarray], q: int | None, ahead_sign: int
                   ) -> tuple[float | None, float | None]:
    """Return the interval of a pair's standardised effect, positive as observed."""
    if q is None:
        return None, None
    lo, hi = float(st["eff_lo"][q]), float(st["eff_hi"][q])
    return (-hi, -lo) if ahead_sign < 0 else (lo, hi)


def _tcrit(alpha: float, N: int) -> float:
    from scipy.special import stdtrit

    return float(stdtrit(max(N - 1, 1), 1.0 - (1.0 - alpha)))


def _within_margin(mean: float, sd: float, N: int, margin: float, tcrit: float) -> bool:
    """Two one-sided tests: the mean-rank difference lies within +-margin."""
    half = tcrit * sd / math.sqrt(N)
    return (mean - half > -margin) and (mean + half < margin)


def _bottleneck(st: dict[str, np.ndarray], inside: np.ndarray) -> int | None:
    """Index of the least separated pair between ``inside`` and the other alternatives."""
    cross = inside[st["i"]] != inside[st["j"]]
    cand = np.flatnonzero(cross & ~(st["const"] & (st["sum2"] == 0)))
    if cand.size == 0:
        return None
    order = cand[np.argsort(np.abs(st["t"][cand]), kind="stable")]
    return int(order[0])


def _scaled_interval(nstar: float, st: dict[str, np.ndarray], q: int | None, z: float
                     ) -> tuple[float, float]:
    if q is None:
        return nstar, nstar
    lo, hi = float(st["nstar_lo"][q]), float(st["nstar_hi"][q])
    base = float(st["nstar"][q])
    if not math.isfinite(nstar) or not math.isfinite(base):
        return lo, math.inf
    return nstar * lo / base, nstar * hi / base


def _order_claim(st: dict[str, np.ndarray], sep: np.ndarray, delta: float
                 ) -> tuple[int | None, bool, bool, _Claim, str]:
    """Return the order's bottleneck, whether it holds and whether it is settled."""
    P = st["i"].size
    allowed = int(math.floor(delta * P + 1e-9))
    q = None
    if P:  # the least separated pair beyond those the tolerance allows to disagree
        order = np.argsort(np.abs(st["t"]), kind="stable")
        q = int(order[min(allowed, P - 1)])
    separated = int(np.sum(~sep)) <= allowed
    settled = int(np.sum(~_settled(st, np.arange(P)))) <= allowed
    claim = _Claim(np.arange(P), np.sign(st["sum2"]).astype(np.int64), allowed, False)
    judged = f"intersection-union (at most {allowed} of {P} pairs unseparated)"
    return q, separated, settled, claim, judged


def _set_row(kind: str, k: int | None, inside: np.ndarray, st: dict[str, np.ndarray],
             model: _Model, alts: Sequence[str], N: int, z: float, rule: _Rule,
             sep_set: np.ndarray, delta: float, margin: float | None, reliable: bool,
             groups: list[list[str]], mc: tuple[float, float] = (math.nan, math.nan)
             ) -> tuple[dict[str, Any], _Claim | None]:
    """One row of the best, a top k or the order, and its claim (``mc``: its n*, agreement)."""
    nstar, agree = mc
    family = rule.sequential  # sequential: the pairs' anytime family, else one by one
    if kind == "order":
        q, separated, settled, claim, judged = _order_claim(st, sep_set, delta)
        claim.family = family
        members = [a for g in groups for a in g]
        text = " > ".join(" = ".join(g) for g in groups)
        observed = f"order {text}"
    else:
        q = _bottleneck(st, inside)
        cross = np.flatnonzero(inside[st["i"]] != inside[st["j"]])
        separated = bool(cross.size and np.all(sep_set[cross]))
        settled = bool(cross.size and np.all(_settled(st, cross)))
        claim = _Claim(cross, np.where(inside[st["i"][cross]], -1, 1), 0, family)
        members = _names(alts, np.flatnonzero(inside))
        order_pos = {a: n for n, a in enumerate(a for g in groups for a in g)}
        members.sort(key=order_pos.__getitem__)
        text = ", ".join(members)
        if kind == "best":
            observed = (f"{members[0]} is the best" if len(members) == 1
                        else f"co-best {{{text}}}")
        else:
            size = f" (ties make it {len(members)})" if len(members) != k else ""
            observed = f"top {k}{size}: {{{text}}}"
        judged = "intersection-union (every pair it rests on)"
    if rule.sequential:
        judged += ", each pair in the anytime-valid family (Holm)"
    lo, hi = _scaled_interval(nstar, st, q, z)
    if math.isfinite(nstar):
        lo, hi = min(lo, nstar), max(hi, nstar)
    equivalent = False
    if margin is not None and q is not None and N > 1:
        equivalent = _within_margin(float(st["mean"][q]), float(st["sd"][q]), N, margin,
                                    _tcrit(rule.alpha, N))
    verdict, reason = _status(reliable=reliable, N=N, equivalent=equivalent,
                              separated=separated, settled=settled)
    tied_all = bool(np.all(st["const"] & (st["sum2"] == 0)))
    if tied_all and reliable and (kind == "order" or inside.all()):
        # every alternative has equal results in every condition: nothing to separate
        verdict, reason = "tied", f"equal results in all {N} conditions"
        q = None
    neck = _names(alts, [int(st["i"][q]), int(st["j"][q])]) if q is not None else []
    ahead = 1
    if neck and float(st["sum2"][q]) > 0:
        neck = neck[::-1]  # the one ahead first
    if q is not None:
        ahead = -1 if float(st["sum2"][q]) <= 0 else 1
    if neck and verdict in ("unsure", "tied") and not reason.startswith("only"):
        reason += f" (least separated pair: {neck[0]} vs {neck[1]})"
    lo_e, hi_e = _signed_effect(st, q, ahead)
    row = {"kind": kind, "k": k, "members": members, "alternatives": text,
           "observed": observed, "agreement": agree, "nstar": nstar, "nstar_lo": lo,
           "nstar_hi": hi, "verdict": verdict, "reliable": reliable,
           "reason": reason, "p_value": float(st["p"][q]) if q is not None else 0.0,
           "p_adjusted": float(st["p"][q]) if q is not None else 0.0, "judged": judged,
           "bottleneck": neck, "effect_lo": lo_e, "effect_hi": hi_e, **_row_base(N, rule)}
    return row, (claim if verdict == "plan" else None)


def _separation(st: dict[str, np.ndarray], mr2: np.ndarray, rule: _Rule, order: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which pairs the rule separates at N: (pairs' rows, the best/top-k/order's, p_adjusted).

    Fixed: the pair rows by Holm (or one by one), the sets' pairs one by one. Sequential:
    everything by Holm on the anytime-valid p-values, read in the conditions' ``order``.
    """
    a = 1.0 - rule.alpha
    direction = np.sign(st["sum2"])
    if rule.sequential:
        from .sequential import anytime_p, eprocess_state

        es = eprocess_state(mr2[order] / 2.0, st["i"], st["j"])
        p, sign = anytime_p(es)
        p_adj = _holm(p)
        sep = (p_adj < a) & (sign == direction) & (direction != 0)
        st["p_anytime"] = p
        return sep, sep, p_adj
    p_adj = _holm(st["p"]) if rule.adjust == "holm" else st["p"]
    return p_adj < a, st["p"] < a, p_adj


#: study sizes tried per Monte Carlo n* (the grid of powers of 3 and the bisection)
_MC_TRIES = 22


def _sample_seconds(N: int, na: int, kinds: Sequence[str], top_k: Sequence[int],
                    draws: int, rule: _Rule | None = None) -> float:
    """Estimate the conclusions of one configuration (seconds, one core of the reference).

    From the shape only (:data:`genexpy_nb.config.COSTS`): the pairs' closed forms, the
    normal model's draws, and each Monte Carlo n* (the best, each top k, the order).
    """
    c = config.COSTS
    pairs = na * (na - 1) / 2.0
    total = pairs * c.conclusion_pair_ns
    if any(k in kinds for k in ("best", "top_k", "order")):
        total += float(draws) * N * na * c.conclusion_model_ns
    sets = ("best" in kinds) + ("top_k" in kinds) * sum(1 for k in top_k if k < na)
    total += sets * _MC_TRIES * float(draws) * na * c.conclusion_set_ns
    if "order" in kinds and na > 2:
        rows = draws // 2
        per = (c.kendall_numpy_ns if kendall_numpy(rows, na, _plan_kernel(rule, na))
               else c.kendall_ns)
        total += _MC_TRIES * rows * pairs * per
    return total * 1e-9


def _plan_kernel(rule: _Rule | None, na: int) -> bool:
    """Whether the plan of na alternatives (a family of every pair) loads numba (its kernel)."""
    return (rule is not None and rule.plan and not rule.sequential
            and rule.plan_draws * (na * (na - 1) // 2) > config.ROUTES.plan_numpy_max_work)


def estimated_seconds(study: Any, *, kinds: Sequence[str] = KINDS,
                      top_k: int | Sequence[int] = 3, draws: int = 2000) -> float:
    """Estimate :func:`conclusions` of a study from its shape (one core of the reference).

    Parameters
    ----------
    study : Study
    kinds, top_k, draws
        As for :func:`conclusions`.

    Returns
    -------
    float
        Seconds on one core of the reference machine (:data:`genexpy_nb.config.COSTS`).
    """
    ks = [top_k] if isinstance(top_k, (int, np.integer)) else list(top_k)
    return sum(_sample_seconds(s.N, s.na, kinds, ks, int(draws)) for s in study.samples())


def _configuration_rows(sample: Any, *, kinds: Sequence[str], top_k: Sequence[int],
                        delta: float, margin: float | None, budget: float | None, draws: int,
                        rng: np.random.Generator, plan_rng: np.random.Generator, rule: _Rule,
                        order: np.ndarray | None, progress: bool) -> list[dict[str, Any]]:
    from concurrent.futures import ThreadPoolExecutor

    mr2 = _doubled_midranks(np.asarray(sample.rankings))
    N, na = mr2.shape
    alts = sample.alternatives
    sum_all = mr2.sum(axis=0)
    sets = _sets(kinds, top_k, sum_all)
    need_mc = any(k in kinds for k in ("best", "top_k", "order"))
    model = _Model(mr2, draws, rng, _plan_kernel(rule, na)) if need_mc else None
    rows: list[dict[str, Any]] = []
    plan_start = plan_rng.bit_generator.state  # the plan's stream as given (to start anew)
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="genexpy_nb-conclusions") as pool:
        # the sets' Monte Carlo n* (their own stream) from the start, beside the pairs and
        # the plan (its own stream): the claims and verdicts do not depend on them
        mc = pool.submit(lambda: [_set_nstar(model, kind, k, delta, rule, N)
                                  for kind, k, _ in sets])
        reliable = N >= MIN_CONDITIONS
        st = _pair_core(mr2, rule.level, rule.alpha)  # the intervals below, beside the plan
        sep_pairs, sep_sets, p_adj = _separation(
            st, mr2, rule, np.arange(N) if order is None else order)
        common = {"st": st, "model": model, "alts": alts, "N": N,
                  "z": conclusion_z(rule.alpha), "rule": rule, "sep_set": sep_sets,
                  "delta": delta, "margin": margin, "reliable": reliable,
                  "groups": _ordered_groups(sum_all, alts)}

        def verdicts_and_plan():
            """Return the claims (placeholders for n*), the pairs' verdicts, the plan started."""
            claims = [_set_row(kind, k, inside, **common)[1] for kind, k, inside in sets]
            verdicts = None
            if "pair" in kinds:
                verdicts, pair_claims = _pair_verdicts(st, N, rule, sep_pairs, margin,
                                                       reliable)
                claims.extend(pair_claims)
            # the plan (its own stream) on a thread too, while the rows are written here
            return claims, verdicts, pool.submit(
                _plan, claims, mr2, st, rule, plan_rng,
                np.arange(N) if order is None else order, progress)

        claims, verdicts, plan = verdicts_and_plan()
        if not _pair_intervals(st, N, rule.level, rule.alpha):
            # the intervals settle other pairs than the t statistics said (not seen so far):
            # the verdicts and the plan again, from the intervals (the plan's stream anew)
            plan.result()
            plan_rng.bit_generator.state = plan_start
            claims, verdicts, plan = verdicts_and_plan()
        if "pair" in kinds:
            pair_rows = _pair_rows(st, alts, N, rule, p_adj, reliable, verdicts)
        for (kind, k, inside), nstar in zip(sets, mc.result(), strict=True):
            rows.append(_set_row(kind, k, inside, **common, mc=nstar)[0])
        if "pair" in kinds:
            rows.extend(pair_rows)
        _plan_rows(rows, claims, plan.result(), rule, budget, N)
    for r in rows:
        r["N"] = N
    return rows


def _sets(kinds: Sequence[str], top_k: Sequence[int], sum_all: np.ndarray
          ) -> list[tuple[str, int | None, np.ndarray]]:
    """Return the best, each top k and the order asked for: (kind, k, members)."""
    na = sum_all.size
    sets: list[tuple[str, int | None, np.ndarray]] = []
    if "best" in kinds:
        sets.append(("best", None, sum_all == sum_all.min()))
    if "top_k" in kinds:
        for k in top_k:
            if k < na:
                kth = np.partition(sum_all, k - 1)[k - 1]
                sets.append(("top_k", k, sum_all <= kth))
    if "order" in kinds and na > 2:
        sets.append(("order", None, np.ones(na, bool)))
    return sets


def _set_nstar(model: _Model | None, kind: str, k: int | None, delta: float, rule: _Rule,
               N: int) -> tuple[float, float]:
    """Return the Monte Carlo n* and the agreement at N of the best, a top k or the order."""
    if not rule.agreement or model is None:  # verdicts only (the validation re-runs)
        return math.nan, math.nan
    G = _agreement_fn(model, kind, k or 1, delta)
    return _mc_nstar(G, rule.alpha), G(max(N, 1))


def _items(value: Any, name: str, what: str) -> tuple:
    """``value`` as a tuple of items; a value that is not a list is an error naming it."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise GenexpyInputError(f"{name} must be {what}, got {value!r}.")
    return tuple(value)
def _plan(claims: list[_Claim | None], mr2: np.ndarray, st: dict[str, np.ndarray],
          rule: _Rule, rng: np.random.Generator, order: np.ndarray, progress: bool) -> Any:
    """Plan the open claims (None where none is open or the rule plans nothing)."""
    open_claims = [c for c in claims if c is not None]
    if not rule.plan or not open_claims:
        return None
    from ._plan_rule import plan_claims

    return plan_claims(mr2 / 2.0, st["i"], st["j"], open_claims,
                       alpha=rule.alpha, sequential=rule.sequential,
                       assurance=rule.assurance, draws=rule.plan_draws,
                       max_more=rule.max_more, level=rule.level, rng=rng, order=order,
                       progress=progress)


def _plan_rows(rows: list[dict[str, Any]], claims: list[_Claim | None], plan: Any,
               rule: _Rule, budget: float | None, N: int) -> None:
    """Fill "needs k more" (k, its interval, the probability of holding) for the open rows."""
    open_rows = [n for n, c in enumerate(claims) if c is not None]
    if not rule.plan:  # verdicts only (the validation scripts' re-runs): open rows unplanned
        for n in open_rows:
            rows[n]["verdict"] = "needs more"
        return
    if not open_rows:
        return
    for c, n in enumerate(open_rows):
        r = rows[n]
        k, lo, hi = int(plan.k[c]), int(plan.k_lo[c]), int(plan.k_hi[c])
        r["more_lo"] = lo if lo > 0 else None
        r["more_hi"] = hi if hi > 0 else None
        r["p_hold"], r["p_hold_se"] = float(plan.p_hold[c]), float(plan.p_hold_se[c])
        r["plan_draws"] = plan.draws
        if k > 0:
            r["verdict"], r["more"] = f"needs {k} more", k
            r["reason"] = ""
        else:
            r["verdict"] = f"needs over {plan.k_max} more"
            r["reason"] = (f"not within {plan.k_max} more conditions with probability "
                           f"{rule.assurance:g}: the effect, shrunk toward no difference as "
                           "the whole table suggests, is too small for the test")
        if budget is not None and (lo <= 0 or N + lo > budget):
            r["verdict"], r["more"] = "tied", None
            r["reason"] = (f"cannot be settled within the budget of {budget:g} conditions "
                           "(even the optimistic end of the conditions it needs exceeds it)")


def _check_kinds(kinds: Any) -> tuple[str, ...]:
    if isinstance(kinds, str):
        kinds = (kinds,)
    out = _items(kinds, "kinds", f"one of {list(KINDS)} or a list of them")
    bad = [k for k in out if k not in KINDS]
    if bad or not out:
        raise GenexpyInputError(f"kinds: unknown {bad or 'empty'}; choose among {list(KINDS)}.")
    return out


def _check_top_k(top_k: Any) -> tuple[int, ...]:
    ks = ((top_k,) if isinstance(top_k, (int, np.integer)) else
          _items(top_k, "top_k", "a positive integer or a list of them"))
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or int(k) < 1:
            raise GenexpyInputError(f"top_k must be a positive integer or a list of them, "
                                    f"got {top_k!r}.")
    return tuple(sorted({int(k) for k in ks}))


def _check_options(margin: Any, budget: Any, draws: Any, adjust: Any) -> None:
    for name, v in (("margin", margin), ("budget", budget)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float, np.number))
                              or not np.isfinite(v) or v <= 0):
            raise GenexpyInputError(f"{name} must be a positive number or None, got {v!r}.")
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or not (
            200 <= int(draws) <= 200_000):
        raise GenexpyInputError(f"draws must be an integer from 200 to 200000, got {draws!r}.")
    if adjust not in ("holm", "none"):
        raise GenexpyInputError(f"adjust must be 'holm' (pairs judged as a family) or 'none' "
                                f"(one by one), got {adjust!r}.")


#: the example's study that the conclusions' docstrings share (here and in the answers)
fill_study_example = fill_doc(study_example="""\
>>> import polars as pl, genexpy_nb as gx
>>> df = pl.DataFrame({"dataset": [f"d{i}" for i in range(8) for _ in range(3)],
...                    "model": ["a", "b", "c"] * 8,
...                    "acc": [0.9, 0.8, 0.7, 0.9, 0.7, 0.8] * 4})
>>> study = gx.Study(df, alternatives="model", target="acc", generalize="dataset",
...                  higher_is_better=True)
""")


@fill_study_example
def conclusions(
    study: Any,
    *,
    alpha: float = config.HEADLINE_ALPHA,
    delta: float = config.HEADLINE_DELTA,
    kinds: Sequence[str] = KINDS,
    top_k: int | Sequence[int] = 3,
    adjust: str = "holm",
    margin: float | None = None,
    budget: float | None = None,
    level: float = 0.90,
    draws: int = 2000,
    seed: Any = 0,
    config_id: Any = None,
    configurations: Sequence[Any] | None = None,
    progress: bool = True,
    assurance: float = 0.8,
    sequential: bool = False,
    plan_draws: int | None = None,
    max_more: int | None = None,
) -> pl.DataFrame:
    """Say which of a study's conclusions hold, and how many conditions the others need.

    The conclusions (the best alternative, the top-k set, every pair, the whole order) are
    drawn from the study's aggregate ranking (mean within-condition midranks, as in a
    critical-difference diagram); each gets the n-generalizability of the paper's definition
    with an indicator kernel on whole-study conclusions: the probability ``agreement`` that
    two independent studies of N conditions reach the same conclusion, and the number of
    conditions ``nstar`` at which that probability reaches ``alpha``. See the module notes for
    the model, the intervals and the verdicts.

    Parameters
    ----------
    study : Study
        The study (its direction, tie tolerances and missing-results policy are used as
        they are).
    alpha : float
        The generalizability level alpha* (default 0.95), as in :func:`~genexpy_nb.analyze`.
    delta : float
        For the order: two orders agree when their normalised Kendall distance is at most
        delta* (default 0.05).
    kinds : sequence of str
        Which conclusions: any of ``"best"``, ``"top_k"``, ``"pair"``, ``"order"`` (default
        all).
    top_k : int or sequence of int
        The sizes of the top sets (default 3; sizes >= the number of alternatives are
        skipped).
    adjust : {"holm", "none"}
        How the pair rows are judged: as a family with Holm's correction over the pairs of a
        configuration (default), or one by one.
    margin : float, optional
        An equivalence margin in mean-rank units: a pair (or the bottleneck pair of the best,
        top-k or order) whose mean-rank difference is shown to lie within +-margin (two
        one-sided t-tests at level 1 - alpha) is "tied". Default: no margin.
    budget : float, optional
        The most conditions the user could run: a conclusion whose optimistic n*
        (``nstar_lo``) exceeds it is "tied" (cannot be settled within the budget).
    level : float
        Level of the interval ``[nstar_lo, nstar_hi]`` (default 0.90).
    draws : int
        Monte Carlo draws of the normal model (best, top-k, order; default 2000).
    seed : int or numpy.random.Generator
        Seed of the Monte Carlo draws; the same seed gives the same frame, bit for bit. Each
        configuration draws from its own stream of (seed, configuration id), so one
        configuration's rows are the same whether it is analysed alone or with the others.
    config_id : int, dict or tuple, optional
        One configuration only (as :meth:`genexpy_nb.Study.config_id` takes it); default all.
    configurations : list, optional
        Several configurations (each as ``config_id`` takes it), in this order; default all.
    progress : bool
        Show a progress bar over the configurations (default True; drawn only in a notebook
        or a terminal, and only when there are several configurations).
    assurance : float
        The probability with which "needs k more" comes true: after k more conditions the
        verdict rule says "holds" with at least this probability (default 0.8).
    sequential : bool
        Anytime-valid verdicts (default False: fixed-N verdicts, valid for one look): the
        probability that any conclusion of a configuration is wrong stays within
        1 - alpha* however often the study is looked at again, one added condition at a
        time. The conditions are read in the order they first appear in the table.
    plan_draws : int, optional
        Simulated futures of the plan (default 600 fixed, 400 sequential: the Monte Carlo
        error of the probability of holding stays under 0.02).
    max_more : int, optional
        The plan's horizon: the most conditions it searches (default max(50, 10 N); beyond:
        "needs over K more").

    Returns
    -------
    polars.DataFrame
        One row per (configuration, conclusion): ``config_id``, the design factors, ``kind``
        ("best", "top_k", "pair", "order"), ``k`` (the top-k size), ``alternatives`` (the
        alternatives the conclusion names, as text), ``members`` (as a list), ``observed``
        (what this study concludes, in words), ``agreement`` (estimated G at the study's
        N), ``nstar``, ``nstar_lo``, ``nstar_hi`` (the agreement n* and its interval,
        infinite when these conditions do not separate it), ``N``, ``more`` (conditions
        still needed: "needs k more"), ``verdict`` ("holds", "needs k more", "needs over K
        more", "unsure", "tied"), ``reliable``, ``reason``, ``p_value`` (the
        paired t-test of the pair, or of the bottleneck pair; in sequential mode the
        anytime-valid p-value), ``p_adjusted``, ``judged`` (one by one, as a family, or
        intersection-union), ``bottleneck`` (the two alternatives of the least separated
        pair a best, top-k or order row rests on), ``alpha`` and ``level``; and (issue 47)
        ``more_lo``, ``more_hi`` (the predictive interval of k at ``level``; null beyond the
        horizon), ``assurance``, ``p_hold`` (the probability of holding after ``more``
        conditions) and ``p_hold_se`` (its Monte Carlo error), ``plan_draws``, ``mode``
        ("fixed" or "sequential"), ``effect_lo``, ``effect_hi`` (the interval at ``level``
        of the standardised effect of the pair or bottleneck, positive in the direction
        observed: "unsure" when it reaches zero). ``more`` is now the plan's k under the
        verdict rule (it was the agreement's ceil(n*) - N).

    Examples
    --------
    {study_example}
    >>> res = gx.conclusions(study, kinds=["best"])
    >>> res.select("observed", "verdict").row(0)
    ('a is the best', 'holds')
    """
    if not hasattr(study, "samples"):
        raise GenexpyInputError("conclusions takes a genexpy_nb.Study; build one with "
                                "gx.Study(df, alternatives=..., target=..., generalize=..., "
                                "higher_is_better=...).")
    alpha = check_probability("alpha", alpha)
    if alpha <= 0.5:
        raise GenexpyInputError(f"alpha must be above 0.5 (two studies agree by chance half "
                                f"the time), got {alpha}.")
    delta = check_probability("delta", delta, low_open=False)
    level = check_probability("level", level)
    kinds = _check_kinds(kinds)
    ks = _check_top_k(top_k)
    _check_options(margin, budget, draws, adjust)
    rule = _check_plan(alpha, adjust, level, assurance, sequential, plan_draws, max_more)
    root = root_seed(seed)
    if config_id is not None and configurations is not None:
        raise GenexpyInputError("give config_id (one configuration) or configurations (a list), "
                                "not both.")
    if config_id is not None:
        samples = [study.sample(config_id)]
    elif configurations is not None:
        if isinstance(configurations, (str, bytes, dict)) or not hasattr(configurations,
                                                                         "__iter__"):
            raise GenexpyInputError("configurations must be a list of configurations (ids, "
                                    "{factor: level} dicts or tuples of levels).")
        samples = [study.sample(c) for c in configurations]
    else:
        samples = list(study.samples())
    rows: list[dict[str, Any]] = []
    levels: list[dict[str, Any]] = []
    from .._progress import check_cost, cost_bar

    costs = [_sample_seconds(s.N, s.na, kinds, ks, int(draws), rule) for s in samples]
    est = check_cost(f"the conclusions of {len(samples)} configuration(s) (up to "
                     f"{max((s.na for s in samples), default=0):,} alternatives)", sum(costs),
                     lift="Fewer kinds (kinds=['best', 'top_k']: the order and every pair "
                          "cost the most with many alternatives) or fewer draws cost less.")
    with cost_bar("conclusions", est, total=sum(costs),
                  disable=not progress or (len(samples) < 2 and est < 2.0)) as bar:
        for s, cost in zip(samples, costs, strict=True):
            r = _configuration_rows(s, kinds=kinds, top_k=ks, delta=delta, margin=margin,
                                    budget=budget, draws=int(draws),
                                    rng=child_seed(root, s.config_id),
                                    plan_rng=child_seed(root, s.config_id, _PLAN_STREAM),
                                    rule=rule, order=_condition_order(study, s, sequential),
                                    progress=progress and len(samples) < 2)
            for row in r:
                row["alpha"], row["level"] = alpha, level
            rows.extend(r)
            levels.extend([{"config_id": s.config_id, **s.levels}] * len(r))
            bar.update(cost)
    return _frame(rows, levels, study)


#: the stream of the plan's draws within a configuration's (after the agreement's)
_PLAN_STREAM = 1
#: default draws of the plan: Monte Carlo error of the probability of holding at most
#: sqrt(0.2 * 0.8 / draws): 0.016 (fixed), 0.020 (sequential: each draw is a path)
PLAN_DRAWS = {"fixed": 600, "sequential": 400}


def _check_plan(alpha: float, adjust: str, level: float, assurance: Any, sequential: Any,
                plan_draws: Any, max_more: Any) -> _Rule:
    assurance = check_probability("assurance", assurance)
    if not isinstance(sequential, (bool, np.bool_)):
        raise GenexpyInputError(f"sequential must be True or False, got {sequential!r}.")
    mode = "sequential" if sequential else "fixed"
    if plan_draws is None:
        plan_draws = PLAN_DRAWS[mode]
    if isinstance(plan_draws, bool) or not isinstance(plan_draws, (int, np.integer)) or not (
            100 <= int(plan_draws) <= 100_000):
        raise GenexpyInputError(f"plan_draws must be an integer from 100 to 100000, got "
                                f"{plan_draws!r}.")
    if max_more is not None and (isinstance(max_more, bool) or not isinstance(
            max_more, (int, np.integer)) or not 1 <= int(max_more) <= 10**6):
        raise GenexpyInputError(f"max_more must be an integer from 1 to 1000000 (the most "
                                f"conditions the plan searches), got {max_more!r}.")
    return _Rule(alpha=alpha, adjust=adjust, level=level, sequential=bool(sequential),
                 assurance=assurance, plan_draws=int(plan_draws),
                 max_more=None if max_more is None else int(max_more))


def _condition_order(study: Any, sample: Any, sequential: bool) -> np.ndarray | None:
    """Return the rows of a sample in the order its conditions were added."""
    if not sequential:
        return None
    order = getattr(study, "condition_order", None)
    if not order:
        return np.arange(len(sample.conditions))
    pos = {c: n for n, c in enumerate(order)}
    keys = [pos.get(c, len(pos)) for c in sample.conditions]
    return np.argsort(np.asarray(keys), kind="stable")


_SCHEMA = {
    "kind": pl.String, "k": pl.Int64, "alternatives": pl.String,
    "members": pl.List(pl.String), "observed": pl.String, "agreement": pl.Float64,
    "nstar": pl.Float64, "nstar_lo": pl.Float64, "nstar_hi": pl.Float64, "N": pl.Int64,
    "more": pl.Int64, "verdict": pl.String, "reliable": pl.Boolean, "reason": pl.String,
    "p_value": pl.Float64, "p_adjusted": pl.Float64, "judged": pl.String,
    "bottleneck": pl.List(pl.String), "alpha": pl.Float64, "level": pl.Float64,
    "more_lo": pl.Int64, "more_hi": pl.Int64, "assurance": pl.Float64, "p_hold": pl.Float64,
    "p_hold_se": pl.Float64, "plan_draws": pl.Int64, "mode": pl.String,
    "effect_lo": pl.Float64, "effect_hi": pl.Float64,
}


def _list_column(name: str, lists: list[list[str] | None]) -> pl.Series:
    """Build a list-of-strings column from Python lists, through one flat column in polars.

    The same column as ``pl.Series(name, lists, dtype=pl.List(pl.String))``: the strings
    converted once, then split by row in polars (a conversion list by list took seconds
    at 45,000 pairs of alternatives).
    """
    rows = [i for i, v in enumerate(lists) if v is not None for _ in v]
    flat = [x for v in lists if v is not None for x in v]
    grouped = (pl.DataFrame({"row": pl.Series(rows, dtype=pl.Int64),
                             "v": pl.Series(flat, dtype=pl.String)})
               .group_by("row", maintain_order=True).agg(pl.col("v")))
    full = pl.DataFrame({"row": pl.int_range(0, len(lists), eager=True, dtype=pl.Int64),
                         "empty": pl.Series([v is not None and not v for v in lists],
                                            dtype=pl.Boolean)})
    out = full.join(grouped, on="row", how="left", maintain_order="left").select(
        pl.when(pl.col("empty")).then(pl.lit([], dtype=pl.List(pl.String)))
        .otherwise(pl.col("v")).alias(name))  # empty lists stay empty, not null
    return out.to_series()


def _frame(rows: list[dict[str, Any]], levels: list[dict[str, Any]], study: Any
           ) -> pl.DataFrame:
    # every column straight from its Python values (through pyarrow, the list columns
    # imported pandas: most of a second in a fresh process, for nothing polars lacks)
    cols = {c: (_list_column(c, [r[c] for r in rows]) if isinstance(t, pl.List) else
                pl.Series(c, [r[c] for r in rows], dtype=t)) for c, t in _SCHEMA.items()}
    body = pl.DataFrame(cols)
    conf = study.configurations.select("config_id", *study.design)
    ids = pl.DataFrame({"config_id": [lv["config_id"] for lv in levels]},
                       schema={"config_id": conf.schema["config_id"]})
    head = ids.join(conf, on="config_id", how="left", maintain_order="left")
    return pl.concat([head, body], how="horizontal")
