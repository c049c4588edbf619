"""The noise budget of a per-item board, in words: runs x items x tasks, ties, what to run next.

For a board whose conditions are items (an LLM or agent benchmark read per item), the study
page adds what :func:`genexpy_nb.eval_noise` says about the board (Miller 2024, "Adding
error bars to evals"; eval-arena 2025): where the noise of the difference between two
neighbouring models lies (the same items answered again, other items, other tasks), the
groups of models the paired tests cannot tell apart, and the cheapest design — tasks,
items per task, runs per item — whose standard error would detect each unresolved
neighbouring difference (:meth:`~genexpy_nb.evals.noise.EvalNoise.plan`; counted in model
calls).
"""

from __future__ import annotations

from typing import Any

import polars as pl
from scipy import stats

from .._words import plural
from . import numbers
from .document import Data, Paragraph, Table

__all__ = ["noise_blocks", "POWER", "MAX_PAIRS"]

#: the power at which "what to run next" detects a neighbouring difference
POWER = 0.8
#: neighbouring pairs planned on the page (the closest ones first)
MAX_PAIRS = 5


def _neighbours(noise: Any) -> list[tuple[str, str]]:
    """Each model and the one below it on the board (by mean, best first)."""
    sign = -1.0 if noise.higher_is_better is False else 1.0
    order = sorted(noise.means, key=lambda m: -sign * noise.means[m])
    return list(zip(order[:-1], order[1:], strict=True))


def _shares(noise: Any, a: str, b: str) -> dict[str, float]:
    comp = noise.components.filter(
        ((pl.col("a") == a) & (pl.col("b") == b)) | ((pl.col("a") == b) & (pl.col("b") == a)))
    return dict(zip(comp["level"].to_list(), comp["share"].to_list(), strict=True))


def noise_blocks(noise: Any, *, alpha: float, unit: str = "item") -> tuple[tuple, dict]:
    """Say the board's noise budget, its tie groups and what to run next, as blocks.

    Parameters
    ----------
    noise : EvalNoise
        :func:`genexpy_nb.eval_noise` of the board (with its direction).
    alpha : float
        The level of the paired tests and of the plan.
    unit : str
        What an item is called.

    Returns
    -------
    blocks : tuple
        Paragraphs and tables of the document model.
    tables : dict of str to polars.DataFrame
        ``noise_budget`` (every neighbouring pair: difference, standard error, p-value,
        variance shares), ``tie_groups``, ``noise_plan`` (the designs), full precision.
    """
    pairs = _neighbours(noise)
    levels = [lv for lv in ("task", "item", "item+run", "run")
              if lv in set(noise.components["level"].to_list())]
    rows, budget = [], []
    for a, b in pairs:
        t = noise.paired_test(a, b)
        sh = _shares(noise, a, b)
        rows.append((Data(a), Data(b), numbers.number(t["diff"]), numbers.number(t["se"]),
                     numbers.pvalue(t["pvalue"]),
                     *(numbers.share(sh.get(lv)) if sh.get(lv) is not None else "-"
                       for lv in levels)))
        budget.append({"a": a, "b": b, "diff": t["diff"], "se": t["se"],
                       "pvalue": t["pvalue"], "test": t["method"],
                       **{f"share_{lv}": sh.get(lv) for lv in levels}})
    table = Table(("model", "next below", "difference", "standard error", "p",
                   *(f"share: {lv}" for lv in levels)), tuple(rows),
                  "llrrr" + "r" * len(levels))
    method = noise.paired_test(*pairs[0])["method"] if pairs else ""
    lead = Paragraph(
        f"Where the noise of a difference between two models lies (Miller 2024; "
        f"eval-arena): the variance of the difference of their means splits into the "
        f"{unit}s' own noise over repeated runs (run), which {unit}s the board holds "
        f"({unit}), and which tasks (task, when tasks are a sample of the tasks the "
        f"conclusion is about); item+run where one run per {unit} cannot tell the two "
        f"apart. Each model against the next below it on the board, tested on the {unit}s "
        f"both answered ({method}, α = {numbers.setting(alpha)}).")
    ties = noise.tie_groups(alpha=alpha)
    groups = ties.group_by("group", maintain_order=True).agg(pl.col("model"))
    tie_rows = tuple((str(g), ", ".join(map(str, ms))) for g, ms in groups.iter_rows())
    tie_table = Table(("group", "models (best first)"),
                      tuple((g, Data(ms)) for g, ms in tie_rows), "rl")
    tie_lead = Paragraph(
        f"Tie groups over the board: from the best model down, each group holds the models "
        f"the paired test cannot tell from the group's leader (Holm's correction over the "
        f"leader's comparisons, α = {numbers.setting(alpha)}): "
        f"{plural(groups.height, 'group')} for {plural(ties.height, 'model')}.")
    plan_blocks, plan_frame = _plan(noise, pairs, alpha, unit)
    return ((lead, table, tie_lead, tie_table, *plan_blocks),
            {"noise_budget": pl.DataFrame(budget), "tie_groups": ties,
             "noise_plan": plan_frame})


def _plan(noise: Any, pairs: list[tuple[str, str]], alpha: float, unit: str
          ) -> tuple[tuple, pl.DataFrame]:
    """Say what to run next: the cheapest design that detects each unresolved neighbour gap."""
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(POWER)
    open_pairs = []
    for a, b in pairs:
        t = noise.paired_test(a, b)
        if not t["pvalue"] < alpha and abs(t["diff"]) > 0:
            open_pairs.append((abs(t["diff"]), a, b, t["se"]))
    open_pairs.sort()
    rows, frames = [], []
    for gap, a, b, se in open_pairs[:MAX_PAIRS]:
        target = gap / z
        designs = noise.plan(a, b, target_se=target)
        if designs.height:
            d = designs.row(0, named=True)
            rows.append((Data(f"{a} vs {b}"), numbers.number(gap), numbers.number(se),
                         numbers.number(target), str(d["tasks"]), str(d["items"]),
                         str(d["runs"]), f"{int(round(d['cost'])):,}"))
            frames.append(designs.head(1).with_columns(pl.lit(a).alias("a"),
                                                       pl.lit(b).alias("b"),
                                                       pl.lit(gap).alias("gap"),
                                                       pl.lit(target).alias("target_se")))
        else:
            rows.append((Data(f"{a} vs {b}"), numbers.number(gap), numbers.number(se),
                         numbers.number(target), "-", "-", "-",
                         "beyond 20x the tasks and items"))
    frame = (pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame())
    if not open_pairs:
        return ((Paragraph(f"What to run next: every model differs significantly from the "
                           f"next below it (α = {numbers.setting(alpha)}); no more {unit}s, "
                           "runs or tasks are needed to tell the board's neighbours apart."),),
                frame)
    lead = Paragraph(
        f"What to run next, in {unit}s, runs and tasks: for the closest "
        f"{plural(min(len(open_pairs), MAX_PAIRS), 'pair')} of neighbours the paired test "
        f"does not separate, the cheapest design (in model calls: tasks x {unit}s per task "
        f"x runs x 2 models) whose standard error would detect the observed gap with "
        f"probability {numbers.setting(POWER)} at α = {numbers.setting(alpha)} (gap / "
        f"{numbers.number(z)}), from the variance parts above (more runs only where the run "
        f"part was measured, more tasks only where tasks are sampled). A gap this small may "
        "also be no gap at all: the design says what it takes to find out.")
    table = Table(("pair", "gap", "standard error now", "needed", "tasks",
                   f"{unit}s per task", "runs", "model calls"), tuple(rows), "lrrrrrrr")
    return (lead, table), frame
