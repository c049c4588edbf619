"""The main job: the example study shipped with the package, analysed end to end, offline.

``genexpy-nb demo --out DIR`` (or ``python -m genexpy_nb demo``) loads the results of the
package's own benchmark (8 scikit-learn classifiers on 80 datasets, see
:mod:`genexpy_nb.example_study`), declares the roles of its factors, runs the whole
generalizability analysis (every configuration x the four research questions x the 5 x 5
(alpha*, delta*) grid, resampled estimate, closed-form approximation and bound), says which
configurations need more datasets, simulates the study growing (the paper's Algorithm 1),
and writes the tidy frames and the figures (HTML that opens offline, PNG, SVG) to DIR.

DIR is written atomically: it is built under a hidden temporary name and renamed at the
end, so an interrupted demo leaves no folder that looks complete; a folder written by an
earlier demo is replaced, a folder holding other files is refused.
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import polars as pl

from . import config
from ._words import plural
from .example_study import load_example_study
from .generalizability import GeneralizabilityAnalysis
from .kernels import RBF, Borda, Jaccard, Mallows
from .planner import plan, simulate_preliminary_study
from .study import Study
from .summary import study_words

#: the roles of the example study's columns
ROLES = dict(alternatives="model", target="score", generalize="dataset",
             design=["metric", "train_size"], average_over="fold", higher_is_better=True)

#: how the demo's tables are printed: every row, no truncation, no dtype line
_TABLE = dict(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=60, tbl_width_chars=160,
              tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True)

#: the figures: file stem -> what it shows
FIGURES = {
    "nstar_boxplots_alpha": "n* of every configuration as alpha* varies",
    "nstar_boxplots_delta": "n* of every configuration as delta* varies",
    "deficits": "n* - N per configuration and question (negative: datasets to spare)",
    "nstar_vs_N": "n* estimated from the first N datasets, as the study grows",
    "ngen_curves": "generalizability as a function of the number of datasets n",
}


def _say(text: str) -> None:
    """Print a paragraph wrapped for a terminal."""
    print(textwrap.fill(text, width=100))


def example_study() -> Study:
    """The shipped example study as a :class:`Study` with its roles declared."""
    return Study(load_example_study(), **ROLES)


def example_kernels() -> list:
    """The four research questions asked of the example study.

    ``Borda()`` asks about the alternative with the best mean rank (chosen from the data).
    """
    return [Borda(), Jaccard(k=1), Mallows(), RBF()]


def _nstar_table(head: pl.DataFrame, design: list[str], labels: list[str]) -> pl.DataFrame:
    """One row per configuration: N, n* (rounded up) per question, the worst fit r2."""
    wide = head.pivot(on="kernel_label", index=[*design, "N"], values="nstar_ceil",
                      aggregate_function=None)
    fit = head.group_by(design, maintain_order=True).agg(pl.col("r2").min().alias("min_r2"))
    return wide.select(*design, "N", *labels).join(
        fit.with_columns(pl.col("min_r2").round(3)), on=design, how="left",
        maintain_order="left")


def worst_first(todo: pl.DataFrame) -> pl.DataFrame:
    """The plan with its configurations in one order, the worst first: the largest deficit,
    ties broken by the larger n*, then by the study's order; ``priority`` renumbered."""
    return (todo.drop("priority")
            .sort(["deficit", pl.col("nstar").fill_nan(None)], descending=[True, True],
                  nulls_last=True, maintain_order=True)
            .with_row_index("priority", offset=1))


def run_demo(out_dir: str | Path = "genexpy_demo", *, rep: int = config.REP, seed: int = 0,
             progress: bool = True) -> dict[str, pl.DataFrame]:
    """Run the main job and write its outputs to the folder ``out_dir``; returns the frames.

    The folder is complete or absent (see the module docstring); the tables are
    ``nstar.parquet`` (every estimate), ``plan.csv`` and ``nstar_vs_N.csv``, each figure is
    written as ``.html`` (opens offline), ``.png`` and ``.svg``.
    """
    from ._io import atomic_dir, check_output_dir, write_frame

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
        _say(f"How many datasets does each configuration need for its conclusions to "
             f"generalize? n* at alpha* = {alpha}, delta* = {delta}, for each research "
             "question:")
        for k in ga.kernels:
            print(f"  {k.label:22s} {k.question}")
        with pl.Config(**_TABLE):
            print(_nstar_table(head, design, labels))
        _say(f"Columns: N = the datasets the configuration has; one column per question = "
             "n* rounded up, the number of datasets needed for two independent studies of "
             "that size to reach the same answer to the question (differing by at most "
             f"delta*) with probability alpha*; min_r2 = how well the power law that n* is "
             "read from fits (1 = perfectly; the smallest over the questions). n* is the "
             "resampled estimate (the paper's Algorithm 1: pairs of disjoint sub-studies of n "
             f"datasets drawn {rep} times for each n, a curve fitted to them and solved for "
             "alpha*); nstar.parquet also holds the closed-form approximation and the bound, "
             "for every alpha* and delta*.")
        print()

        todo = worst_first(plan(res, alpha=alpha, delta=delta))
        write_frame(todo, tmp / "plan.csv")
        short = todo.filter(pl.col("to_run") > 0)
        # one worst configuration, named the same in every paragraph below
        worst = todo.row(0, named=True)
        cfg = tuple(worst[c] for c in design)
        top_cfg = ", ".join(map(str, cfg))
        if short.height == 0:
            n_min, n_max = head["N"].min(), head["N"].max()
            has = f"{n_min}" if n_min == n_max else f"{n_min} to {n_max}"
            _say(f"Every configuration already generalizes for every research question: each "
                 f"has {has} datasets, and the largest n* is {worst['nstar_ceil']} "
                 f"({worst['kernel_label']}, {top_cfg}). No configuration needs more "
                 "datasets.")
        else:
            _say(f"{short.height} of {plural(todo.height, 'configuration')} "
                 f"need{'s' if short.height == 1 else ''} more datasets to "
                 "generalize; extend them in this order (to_run = datasets to add, for the "
                 "question that needs the most):")
            with pl.Config(**_TABLE):
                print(short.select("priority", *design, "N", "kernel_label", "nstar_ceil",
                                   "to_run"))

        grow = [Jaccard(k=1), Mallows()]
        sim = simulate_preliminary_study(study, grow, cfg, N0=10, rep=rep, seed=seed,
                                         progress=progress)
        write_frame(sim, tmp / "nstar_vs_N.csv")
        print()
        _say(f"The study as it grows: n* estimated from its first N_sub datasets only, for "
             f"the configuration that needs the most ({top_cfg}); it "
             "generalizes once N_sub >= n* for both questions.")
        grown = sim.group_by("N_sub", "kernel_label", maintain_order=True).agg(
            pl.col("nstar").mean().round(1), pl.col("generalizable").all())
        with pl.Config(**_TABLE):
            print(grown.pivot(on="kernel_label", index="N_sub", values="nstar",
                              aggregate_function=None)
                  .join(grown.group_by("N_sub").agg(pl.col("generalizable").all()),
                        on="N_sub", maintain_order="left"))

        from .charts import generalizability as ch  # Altair is imported only here

        jac = ga.kernel_index("jaccard")
        levels = dict(zip(design, cfg))
        charts = {
            "nstar_boxplots_alpha": ch.nstar_boxplots(res, vary="alpha"),
            "nstar_boxplots_delta": ch.nstar_boxplots(res, vary="delta"),
            "deficits": ch.deficit_heatmap(todo),
            "nstar_vs_N": ch.nstar_vs_N(sim, levels=levels),
            "ngen_curves": ch.ngen_curves(
                ga.ngen_frame(study.sample(cfg).config_id, labels[jac]), alpha=alpha,
                eps=ga.kernels[jac].eps(delta), levels=levels, question=labels[jac]),
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
    _say(f"Wrote the tables (nstar.parquet, plan.csv, nstar_vs_N.csv) and the figures to "
         f"{out}/ in {time.perf_counter() - t0:.0f} s. Figures, each as .html (open it in any "
         f"web browser; it works offline){also}:")
    for name, what in FIGURES.items():
        print(f"  {name}: {what}")
    first = (out / f"{next(iter(FIGURES))}.html").as_uri()
    print(f"To open one: python -m webbrowser {first}")
    return {"nstar": res, "plan": todo, "nstar_vs_N": sim}
