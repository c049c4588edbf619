"""The demo: the example study shipped with the package, analysed end to end, offline.

``genexpy-nb demo --out DIR`` (or ``python -m genexpy_nb demo``) loads the results of the
package's own benchmark (8 scikit-learn classifiers on 80 datasets, see
:mod:`genexpy_nb.example.study`), declares the roles of its factors, says first which of
the study's conclusions hold (the winner, the top group, every pair, the order:
:func:`genexpy_nb.conclusions`) and how many more datasets the others need, runs the whole
generalizability analysis (every configuration x the four research questions x the 5 x 5
(alpha*, delta*) grid, resampled estimate, closed-form approximation and bound), says what
to run next (the plan of the conclusions, :func:`genexpy_nb.plan`) and, apart, which
configurations need more datasets for agreement on the per-dataset rankings (the paper's
n*), simulates the study growing (the paper's Algorithm 1),
and writes the tidy frames and the figures (HTML that opens offline, PNG, SVG) to DIR.

DIR is written atomically: it is built under a hidden temporary name and renamed at the
end, so an interrupted demo leaves no folder that looks complete; a folder written by an
earlier demo is replaced, a folder holding other files is refused.
"""

from __future__ import annotations

import dataclasses
import math
import textwrap
import time
from pathlib import Path

import polars as pl

from .. import config
from .._escape import terminal_text
from .._words import plural
from ..answers.conclusions import plan_words
from ..answers.numbers import count, seconds
from ..answers.summary import nstar_summary, study_words, verdict_text
from ..generalizability import GeneralizabilityAnalysis
from ..generalizability.kernels import default_questions, paper_questions
from ..generalizability.planner import plan, simulate_preliminary_study
from ..study.core import Study
from .study import load_example_study

#: the roles of the example study's columns
ROLES = dict(alternatives="model", target="score", generalize="dataset",
             design=["metric", "train_size"], average_over="fold", higher_is_better=True)

#: how the demo's tables are printed: every row, no truncation, no dtype line
_TABLE = dict(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=60, tbl_width_chars=160,
              tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True)

#: the figures: file stem (one of ``charts.FIGURE_NAMES``) -> what it shows
FIGURES = {
    "nstar_by_alpha": "n* of every configuration as alpha* varies",
    "nstar_by_delta": "n* of every configuration as delta* varies",
    "deficits": "n* - N per configuration and question (negative: datasets to spare)",
    "nstar_vs_N": "n* estimated from the first N datasets, as the study grows",
    "ngen_curves": "generalizability as a function of the number of datasets n",
}


def _say(text: str) -> None:
    """Print a paragraph wrapped for a terminal."""
    print(textwrap.fill(text, width=100))


def example_study() -> Study:
    """Load the shipped example study as a :class:`Study` with its roles declared.

    Returns
    -------
    Study
        The example study.
    """
    return Study(load_example_study(), **ROLES)


def example_kernels() -> list:
    """Return the four research questions asked of the example study.

    ``Borda()`` asks about the alternative with the best mean rank (chosen from the data).

    Returns
    -------
    list of Kernel
        ``Borda()``, ``Jaccard(k=1)``, ``Mallows()`` and ``RBF()``.
    """
    return paper_questions()


def chance_count(head: pl.DataFrame) -> int:
    """Count the (configuration, question) answers no more consistent than chance.

    Those rows of ``head`` whose ``beyond_chance`` is false (n* within or above the
    no-signal baseline's range).

    Parameters
    ----------
    head : polars.DataFrame
        Rows of a frame of :func:`~genexpy_nb.analyze`.

    Returns
    -------
    int
        The count; 0 when the frame has no baseline.
    """
    if "beyond_chance" not in head.columns:
        return 0
    return int((head["beyond_chance"] == False).sum())  # noqa: E712 (polars series)


def growth_table(sim: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """Describe the study as it grows, in words.

    One row per N_sub, one column per question ("n*: verdict", the verdict as
    :func:`~genexpy_nb.answers.summary.verdict_text` words it, "(chance)" when a trusted n* is
    within the no-signal baseline's range in every repetition) and one for all questions
    together; and the reasons of the unsure cells, one line each.

    A null verdict (an estimate not to be trusted) never counts as "generalizes": a cell is
    "generalizes" only when every repetition generalizes, "needs k more" when one does not
    (k the largest shortfall), "unsure" otherwise; the same rule combines the questions.

    Parameters
    ----------
    sim : polars.DataFrame
        The frame of
        :func:`~genexpy_nb.generalizability.planner.simulate_preliminary_study`: n* of the
        study's first ``N_sub`` conditions, per subset size, question and repetition
        (columns ``N_sub``, ``kernel_label``, ``nstar``, ``nstar_ceil``, ``generalizable``,
        ``reason`` and, when present, ``beyond_chance``).

    Returns
    -------
    table : polars.DataFrame
        The table of strings described above.
    reasons : list of str
        Why each unsure cell is unsure.
    """
    labels = list(dict.fromkeys(sim["kernel_label"].to_list()))
    chance = (pl.col("beyond_chance") == False).all().fill_null(False)  # noqa: E712
    cells = sim.group_by("N_sub", "kernel_label", maintain_order=True).agg(
        pl.col("nstar").mean().alias("nstar"),
        (pl.col("generalizable") == False).any().alias("no"),  # noqa: E712
        pl.col("generalizable").is_null().any().alias("unsure"),
        (pl.col("nstar_ceil") - pl.col("N_sub")).max().alias("short"),
        pl.col("reason").drop_nulls().first().alias("reason"),
        (chance if "beyond_chance" in sim.columns else pl.lit(False)).alias("chance"))

    def word(no: bool, unsure: bool, short: int | None) -> str:
        if no:
            return verdict_text(False, short, None)
        return "unsure" if unsure else verdict_text(True, None, None)

    rows, reasons = [], []
    for n in dict.fromkeys(cells["N_sub"].to_list()):
        part = cells.filter(pl.col("N_sub") == n)
        row = {"N_sub": str(n)}
        for r in part.iter_rows(named=True):
            w = word(r["no"], r["unsure"], r["short"])
            row[r["kernel_label"]] = (f"{count(r['nstar'])}: {w}" if r["nstar"] is not None
                                      and math.isfinite(r["nstar"]) else w) \
                + (" (chance)" if r["chance"] and not r["unsure"] else "")
            if r["unsure"] and not r["no"]:
                reasons.append(f"unsure at N_sub = {n}, {r['kernel_label']}: "
                               f"{r['reason'] or 'n* is undefined'}")
        short = part["short"].max()
        row["all questions"] = word(bool(part["no"].any()), bool(part["unsure"].any()), short)
        rows.append(row)
    return pl.DataFrame(rows).select("N_sub", *labels, "all questions"), reasons


def worst_first(todo: pl.DataFrame) -> pl.DataFrame:
    """Order the plan's configurations worst first, ``priority`` renumbered.

    The largest deficit first, ties broken by the larger n*, then by the study's order.

    Parameters
    ----------
    todo : polars.DataFrame
        A plan of :func:`~genexpy_nb.plan` (columns ``priority``, ``deficit``, ``nstar``).

    Returns
    -------
    polars.DataFrame
        The same rows in the new order, ``priority`` counting from 1.
    """
    return (todo.drop("priority")
            .sort(["deficit", pl.col("nstar").fill_nan(None)], descending=[True, True],
                  nulls_last=True, maintain_order=True)
            .with_row_index("priority", offset=1))


def write_conclusions(study: Study, folder: Path, *, alpha: float, delta: float,
                      seed: int) -> pl.DataFrame:
    """Compute the study's conclusions and write them to ``folder`` (parquet and CSV).

    Parameters
    ----------
    study : Study
        The study.
    folder : pathlib.Path
        Where ``conclusions.parquet`` and ``conclusions.csv`` are written (atomically).
    alpha, delta : float
        alpha* and delta* of :func:`~genexpy_nb.conclusions`.
    seed : int
        The seed of its Monte Carlo draws.

    Returns
    -------
    polars.DataFrame
        The frame of :func:`~genexpy_nb.conclusions`.
    """
    from .._io import write_frame
    from ..generalizability import conclusions

    frame = conclusions(study, alpha=alpha, delta=delta, seed=seed)
    write_frame(frame, folder / "conclusions.parquet")
    write_frame(frame, folder / "conclusions.csv")
    return frame


def run_demo(out_dir: str | Path = "genexpy_demo", *, rep: int = config.REP, seed: int = 0,
             progress: bool = True) -> dict[str, pl.DataFrame]:
    """Run the demo and write its outputs to the folder ``out_dir``; returns the frames.

    The folder is complete or absent (see the module docstring); the tables are
    ``conclusions.parquet`` / ``.csv`` (the study's conclusions and whether they hold),
    ``plan.csv`` (what to run next: the plan of the conclusions), ``nstar.parquet`` (every
    estimate), ``agreement.csv`` (the paper's n* deficits) and ``nstar_vs_N.csv``, each figure is
    written as ``.html`` (opens offline), ``.png`` and ``.svg``.
    """
    from .._io import atomic_dir, check_output_dir, write_frame

    out = check_output_dir(out_dir).absolute()  # refused before anything runs
    t0 = time.perf_counter()
    alpha, delta = config.HEADLINE_ALPHA, config.HEADLINE_DELTA
    study = example_study()
    design = list(study.design)
    print(f"The example study: {study_words(study)}.\n")
    print("What the study holds (missing results are dropped or imputed, never silently):")
    print(study.report, "\n")
    with atomic_dir(out) as tmp:
        ga = GeneralizabilityAnalysis(study, example_kernels(), rep=rep, seed=seed,
                                      progress=progress)
        res = ga.nstar()
        write_frame(res, tmp / "nstar.parquet")
        labels = [k.label for k in ga.kernels]
        head = res.filter(pl.col("alpha") == alpha, pl.col("delta") == delta,
                          pl.col("method") == "resample")
        concl = write_conclusions(study, tmp, alpha=alpha, delta=delta, seed=seed)
        summary = nstar_summary(res, alpha, delta, conclusions=concl, unit="dataset")
        print(summary.conclusions.to_text())
        print()
        todo_plan = plan(concl)  # the one plan: what gx.plan, nstar and report say
        write_frame(todo_plan, tmp / "plan.csv")
        _say("What to run next (plan.csv, the plan of the conclusions above):")
        for line in plan_words(todo_plan, unit="dataset"):
            _say("  " + line)
        print()
        _say(f"{summary.question}: n* at alpha* = {alpha}, delta* = {delta}, for each "
             "research question:")
        for k in ga.kernels:
            print(f"  {k.label:22s} {k.question}")
        print(dataclasses.replace(summary, conclusions=None).to_text())
        print()
        _say("Read each table as: n* = the number of datasets needed for two independent "
             "studies of that size to reach the same answer to the question (differing by at "
             "most delta*) with probability alpha*, with its 90 % interval; N = the datasets "
             "the configuration has. n* is the resampled estimate (the paper's Algorithm 1: "
             f"pairs of disjoint sub-studies of n datasets drawn {rep} times for each n, a "
             "curve fitted to them and solved for alpha*); nstar.parquet also holds the "
             "closed-form approximation and the bound, for every alpha* and delta*.")
        print()

        todo = worst_first(plan(res, alpha=alpha, delta=delta))
        # the paper's n* measures agreement on the per-dataset rankings: its deficits are
        # written apart (agreement.csv); what to run next is the conclusions' plan (plan.csv)
        write_frame(todo, tmp / "agreement.csv")
        short = todo.filter(pl.col("to_run") > 0)
        # one worst configuration, named the same in every paragraph below
        worst = todo.row(0, named=True)
        cfg = tuple(worst[c] for c in design)
        top_cfg = ", ".join(map(str, cfg))
        # a null (unsure) verdict never counts as generalizing
        all_gen = bool(todo["generalizable"].fill_null(False).all())
        if all_gen:
            n_min, n_max = head["N"].min(), head["N"].max()
            has = f"{n_min}" if n_min == n_max else f"{n_min} to {n_max}"
            _say(f"Every configuration already generalizes for every research question: each "
                 f"has {has} datasets, and the largest n* is {worst['nstar_ceil']} "
                 f"({worst['kernel_label']}, {top_cfg}). No configuration needs more "
                 "datasets.")
        elif short.height:
            _say(f"For agreement on the per-dataset rankings (the paper's n*), "
                 f"{short.height} of {plural(todo.height, 'configuration')} "
                 f"need{'s' if short.height == 1 else ''} more datasets; by agreement "
                 "deficit, extend them in this order (to_run = datasets for two studies to "
                 "agree on the question that needs the most; what settles a conclusion is "
                 "the plan above):")
            with pl.Config(**_TABLE):
                print(short.select("priority", *design, "N", "kernel_label", "nstar_ceil",
                                   "to_run"))
            at_chance = int(short["chance"].sum()) if "chance" in short.columns else 0
            if at_chance:
                _say(f"{at_chance} of them at chance level (n* within the no-signal "
                     "baseline's range): more datasets would make two studies agree on that "
                     "question, not find a winner; the conclusions above say which findings "
                     "more datasets would settle (agreement.csv says so in 'reason').")
        unsure = todo.filter(pl.col("generalizable").is_null())
        if unsure.height:
            _say(f"{unsure.height} of {plural(todo.height, 'configuration')} "
                 f"{'is' if unsure.height == 1 else 'are'} unsure for at least one question: "
                 "their n* is not to be trusted (the tables above say why), so no verdict is "
                 "given for them.")
        n_chance = chance_count(head)
        if n_chance:
            _say(f"For {n_chance} of the {head.height} answers (configuration x question), n* "
                 "lies within the no-signal baseline's range (marked (chance) above): two "
                 "studies of that size would agree, but no more than if no alternative were "
                 "better than another. This does not contradict the conclusions at the top: "
                 "they answer another question (see the note below the tables).")

        grow = default_questions()
        sim = simulate_preliminary_study(study, grow, cfg, N0=10, rep=rep, seed=seed,
                                         progress=progress)
        write_frame(sim, tmp / "nstar_vs_N.csv")
        print()
        n_questions = len(ga.kernels)
        _say(f"The study as it grows: n* estimated from its first N_sub datasets only, for "
             f"the configuration that needs the most ({top_cfg}) and {len(grow)} of the "
             f"{n_questions} research questions ({' and '.join(k.label for k in grow)}); it "
             f"generalizes once N_sub >= n* for each of the {len(grow)}, if the estimate can "
             "be trusted.")
        grown, why = growth_table(sim)
        with pl.Config(**_TABLE):
            print(grown)
        for line in why:
            _say(line)
        if any("(chance)" in cell for row in grown.rows() for cell in row):
            _say("(chance): as above, n* within the no-signal baseline's range.")

        from ..charts import generalizability as ch  # Altair is imported only here

        jac = ga.kernel_index("jaccard")
        levels = dict(zip(design, cfg))
        charts = {
            "nstar_by_alpha": ch.nstar_boxplots(res, vary="alpha"),
            "nstar_by_delta": ch.nstar_boxplots(res, vary="delta"),
            "deficits": ch.deficit_heatmap(todo),
            "nstar_vs_N": ch.nstar_vs_N(sim, levels=levels),
            "ngen_curves": ch.ngen_curves(
                ga.ngen_frame(study.sample(cfg).config_id, labels[jac]), alpha=alpha,
                eps=ga.kernels[jac].eps(delta), delta=delta, levels=levels,
                question=labels[jac]),
        }
        written: set[str] = set()
        for name, chart in charts.items():
            paths = ch.save_chart(chart, [tmp / f"{name}.{fmt}" for fmt in ("html", "png",
                                                                           "svg")])
            written |= {Path(p).suffix.lstrip(".") for p in paths}
    print()
    kinds = [w for w in ("png", "svg") if w in written]
    also = (f", {' and '.join('.' + k for k in kinds)} (for slides and papers)" if kinds else
            " (no .png or .svg: this machine cannot export them, as said above)")
    _say(f"Wrote the tables (conclusions.parquet and .csv, plan.csv, nstar.parquet, "
         f"agreement.csv, nstar_vs_N.csv) and the figures to "
         f"{terminal_text(out)}/ in {seconds(time.perf_counter() - t0)}. Figures, each as .html "
         f"(open it in any web browser; it works offline){also}:")
    for name, what in FIGURES.items():
        print(f"  {name}: {what}")
    first = (out / f"{next(iter(FIGURES))}.html").as_uri()
    print(f"To open one: python -m webbrowser {first}")
    return {"conclusions": concl, "nstar": res, "plan": todo_plan, "agreement": todo,
            "nstar_vs_N": sim}
