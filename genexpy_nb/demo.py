"""The main job: the example study shipped with the package, analysed end to end, offline.

``genexpy-nb demo --out DIR`` (or ``python -m genexpy_nb demo``) loads the results of the
package's own benchmark (8 scikit-learn classifiers on 80 datasets, see
:mod:`genexpy_nb.example_study`), declares the roles of its factors, runs the whole
generalizability analysis (every configuration x the four research questions x the 5 x 5
(alpha*, delta*) grid, resampled estimate, closed-form approximation and bound), ranks the
configurations by how many more datasets they need, simulates the study growing (paper
Algorithm 1), and writes the tidy frames and the figures to DIR.
"""

from __future__ import annotations

import time
from pathlib import Path

import polars as pl

from . import config
from .example_study import load_example_study
from .generalizability import GeneralizabilityAnalysis
from .kernels import RBF, Borda, Jaccard, Mallows
from .planner import plan, simulate_preliminary_study
from .study import Study

#: the roles of the example study's columns (SPEC A1)
ROLES = dict(alternatives="model", target="score", generalize="dataset",
             design=["metric", "train_size"], average_over="fold", higher_is_better=True)


def example_study() -> Study:
    """The shipped example study as a :class:`Study` with its roles declared."""
    return Study(load_example_study(), **ROLES)


def example_kernels() -> list:
    """The four research questions asked of the example study."""
    return [Borda("LogReg"), Jaccard(k=1), Mallows(), RBF()]


def run_demo(out_dir: str | Path = "genexpy_demo", *, rep: int = config.REP, seed: int = 0,
             progress: bool = True) -> dict[str, pl.DataFrame]:
    """Run the main job and write its outputs to ``out_dir``; returns the frames."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    study = example_study()
    print(f"{study}\n")
    print("Missing-results report:")
    print(study.report, "\n")
    ga = GeneralizabilityAnalysis(study, example_kernels(), rep=rep, seed=seed,
                                  progress=progress)
    res = ga.nstar()
    res.write_parquet(out / "nstar.parquet")
    head = res.filter(pl.col("alpha") == config.HEADLINE_ALPHA,
                      pl.col("delta") == config.HEADLINE_DELTA, pl.col("method") == "resample")
    with pl.Config(tbl_rows=40, tbl_cols=12, fmt_str_lengths=40):
        print(f"n* at (alpha*, delta*) = ({config.HEADLINE_ALPHA}, {config.HEADLINE_DELTA}),"
              " resampled estimate:")
        print(head.select("metric", "train_size", "kernel_label", "N", "nstar", "nstar_ceil",
                          "generalizable", "r2"))
        todo = plan(res)
        todo.write_csv(out / "plan.csv")
        print("\nWhich configurations to extend first (largest deficit n* - N over the "
              "research questions):")
        print(todo.select("priority", "metric", "train_size", "N", "kernel_label", "nstar_ceil",
                          "deficit", "to_run"))
    worst = todo.row(0, named=True)
    cfg = (worst["metric"], worst["train_size"])
    sim = simulate_preliminary_study(study, [Jaccard(k=1), Mallows()], cfg, N0=10, rep=rep,
                                     seed=seed, progress=progress)
    sim.write_csv(out / "nstar_vs_N.csv")
    print(f"\nn* as the study of {cfg} grows (Algorithm 1, simulated):")
    print(sim.select("N_sub", "kernel_label", "nstar", "generalizable"))
    frames = {"nstar": res, "plan": todo, "nstar_vs_N": sim}
    from .charts import generalizability as ch  # Altair is imported only here

    worst_sample = study.sample(cfg)
    figs = {
        "nstar_boxplots_alpha.html": ch.nstar_boxplots(res, vary="alpha"),
        "nstar_boxplots_delta.html": ch.nstar_boxplots(res, vary="delta"),
        "deficits.html": ch.deficit_heatmap(todo),
        "nstar_vs_N.html": ch.nstar_vs_N(sim),
        "ngen_curves.html": ch.ngen_curves(
            ga.ngen_frame(worst_sample.config_id, "jaccard"), alpha=config.HEADLINE_ALPHA,
            eps=Jaccard().eps(config.HEADLINE_DELTA)),
    }
    for name, chart in figs.items():
        ch.save_chart(chart, out / name)
    print(f"\nwrote {sorted(p.name for p in out.iterdir())} to {out}/ in "
          f"{time.perf_counter() - t0:.1f} s")
    return frames
