"""Interaction latency of the panels (prints timings; asserts nothing).

Run from the repository root:

    PYTHONPATH=$PWD python benchmarks/bench_panels.py [--quick] [--encoders]

Target (project issue 6): after the first computation, moving a slider of the
generalizability explorer re-estimates n* from the cached MMD_n distributions in under
100 ms. The panel refreshes in two steps and both are timed: "numbers" (n* of every
configuration for the question, the ranking, the summary and tables) and "charts" (the
three Altair charts rebuilt and serialised to their MIME bundle). Charts are cached by
their inputs, so going back to a slider position costs only the numbers. Every interaction
also reports its CPU time (``time.process_time``): on a loaded machine the wall time is the
CPU time plus waiting for a core. The chart builders are then timed alone on the panel's
frames (build, and build + MIME bundle).

What a browser then spends drawing the Vega-Lite spec is not measured here (see
``scripts/browser_check.py``).

``--encoders`` uses the categorical-encoders study (needs GENEXPY_NB_DATA_DIR or network);
the default is a synthetic study of 12 configurations x 40 conditions x 8 alternatives.
The machine load is printed: timings on a shared machine are upper bounds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import altair as alt
import numpy as np
import polars as pl

import genexpy_nb as gx
from genexpy_nb.panels import GeneralizabilityExplorer, SeedVariabilityExplorer


def synthetic_study(n_models=4, n_metrics=3, N=40, na=8, seed=0) -> gx.Study:
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(n_models):
        for s in range(n_metrics):
            noise = 0.3 + 0.4 * (m + s)
            for c in range(N):
                sc = np.arange(na, dtype=float)[::-1] + rng.normal(0, noise, na)
                for a in range(na):
                    rows.append((f"model{m}", f"metric{s}", f"d{c}", f"enc{a}", float(sc[a])))
    df = pl.DataFrame(rows, schema=["model", "metric", "dataset", "encoder", "score"],
                      orient="row")
    return gx.Study(df, alternatives="encoder", target="score", generalize="dataset",
                    design=["model", "metric"], higher_is_better=True)


def encoders_study() -> gx.Study:
    df = gx.load_encoders()
    return gx.Study(df, alternatives="encoder", target="cv_score", generalize="dataset",
                    design=["model", "tuning", "scoring"], higher_is_better=True)


def summarize(name: str, timings: list[dict]) -> None:
    parts = [p for p in ("numbers", "charts", "total", "cpu") if p in timings[0]]
    for part in parts:
        xs = [t[part] * 1e3 for t in timings]
        label = "cpu time" if part == "cpu" else part
        print(f"  {name:38s} {label:8s} median {statistics.median(xs):7.1f} ms   "
              f"max {max(xs):7.1f} ms   (n={len(xs)})")


def move(panel, widget, value) -> dict:
    """Set a widget (the panel refreshes) and return the panel's timings plus the CPU time
    of the whole interaction (separates the work from the machine's load)."""
    c0 = time.process_time()
    if widget is None:
        panel.select(value)
    else:
        widget.value = value
    return dict(panel.timings, cpu=time.process_time() - c0)


def best_of(fn, n: int = 7) -> tuple[float, float]:
    """Median wall and CPU milliseconds of ``fn()`` over ``n`` calls (after one warm-up)."""
    fn()
    wall, cpu = [], []
    for _ in range(n):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall) * 1e3, statistics.median(cpu) * 1e3


def bench_builders(panel: GeneralizabilityExplorer) -> None:
    """Each chart builder on the panel's current frames: build, and build + MIME bundle
    (what a slider move pays per chart when its inputs changed)."""
    from genexpy_nb.charts import deficit_heatmap, ngen_curves, nstar_boxplots, power_law_fit
    from genexpy_nb.panels.views import NGEN_EPS_POINTS, NGEN_MAX_CURVES, mimebundle

    ga, label, a, d = panel._current
    cid = panel.config_id
    row = panel.result.filter(pl.col("method") == "resample").row(0, named=True)
    kern = ga.kernels[ga.kernel_index(label)]
    ns, _ = ga.mmd_samples(cid, label)
    ng = ga.ngen_frame(cid, label, eps=np.linspace(0.0, kern.mmd_max, NGEN_EPS_POINTS))
    if ns.size > NGEN_MAX_CURVES:
        keep = ns[np.unique(np.linspace(0, ns.size - 1, NGEN_MAX_CURVES).round().astype(int))]
        ng = ng.filter(pl.col("n").is_in(keep.tolist()))
    qf = ga.quantile_frame(cid, label, a)
    many = ga.nstar([0.8, 0.9, 0.95], [0.05, 0.1], ("resample",))
    builders = {
        f"ngen_curves ({ng.height} rows)": lambda: ngen_curves(
            ng, alpha=a, eps=row["eps"], title="t"),
        f"power_law_fit ({qf.height} rows)": lambda: power_law_fit(
            qf, eps=row["eps"], nstar=row["nstar"], b0=row["b0"], b1=row["b1"],
            N=row["N"], title="t"),
        f"deficit_heatmap ({panel.ranking.height} rows)": lambda: deficit_heatmap(
            panel.ranking),
        f"nstar_boxplots ({many.height} rows)": lambda: nstar_boxplots(many, points="all"),
    }
    print("\nchart builders on the panel's frames (median of 7; ms)")
    with alt.utils.schemapi.debug_mode(False):
        for name, build in builders.items():
            bw, bc = best_of(build)
            tw, tc = best_of(lambda b=build: mimebundle(b()))
            print(f"  {name:34s} build wall {bw:6.1f} cpu {bc:6.1f}   "
                  f"build+bundle wall {tw:6.1f} cpu {tc:6.1f}")


def bench_generalizability(study: gx.Study, rep: int, quick: bool) -> None:
    print(f"\n{study!r}")
    t0 = time.perf_counter()
    panel = GeneralizabilityExplorer(study, rep=rep, seed=0, progress=False)
    print(f"first computation (4 kernels x {len(study)} configurations, rep={rep}) and "
          f"first draw: {time.perf_counter() - t0:.2f} s")
    alphas = [0.9, 0.8, 0.85, 0.7, 0.99, 0.75] if not quick else [0.9, 0.8]
    deltas = [0.1, 0.2, 0.02, 0.3, 0.15, 0.25] if not quick else [0.1, 0.2]
    new, back, conf = [], [], []
    for a in alphas:  # new positions: charts built
        new.append(move(panel, panel.alpha, a))
    for d in deltas:
        new.append(move(panel, panel.delta, d))
    # back to the first delta*: every alpha* above was drawn there
    back.append(move(panel, panel.delta, 0.05))
    for a in alphas[:3]:  # revisited positions: charts from the cache
        back.append(move(panel, panel.alpha, a))
    for cid in panel.configurations["config_id"].to_list()[: 4 if quick else 8]:
        conf.append(move(panel, None, int(cid)))
    summarize("slider to a new alpha*/delta*", new)
    summarize("slider back to a visited position", back)
    summarize("another configuration", conf)
    t0 = time.perf_counter()
    panel.family.value = "borda"
    panel.alternative.value = study.alternatives[-1]
    print(f"  new research question {panel.state['kernel_label']} (computed, cached): "
          f"{time.perf_counter() - t0:.2f} s")
    summarize("slider after the new question", [move(panel, panel.alpha, 0.9)])
    bench_builders(panel)


def bench_seed_variability(quick: bool) -> None:
    rng = np.random.default_rng(0)
    T, M, C = (1000, 20, 20) if not quick else (400, 10, 8)
    y = rng.integers(0, 2, T)
    signal = (2 * y - 1) * 1.5
    ref = signal + rng.normal(0, 1.5, (M, T))
    cand = signal + rng.normal(0, 1.5, (C, T))
    t0 = time.perf_counter()
    panel = SeedVariabilityExplorer(ref, cand, y, B=50, progress=False)
    print(f"\nseed variability: {M} reference and {C} candidate models, T={T}; "
          f"report (B=50) and first draw: {time.perf_counter() - t0:.2f} s")
    moves, cands = [], []
    for a in (0.1, 0.2, 0.3, 0.4, 0.15, 0.25):
        moves.append(move(panel, panel.alpha, a))
    for i in (1, 2, 3):
        cands.append(move(panel, panel.candidate, i))
    summarize("trimming-level slider", moves)
    summarize("another candidate (curve computed)", cands)


def bench_altair_channels() -> None:
    """Why chart builders pass channel objects: shorthand strings are resolved slowly."""
    d = pl.DataFrame({"a": [1.0]})

    def best(fn, n=20):
        fn()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        return (time.perf_counter() - t) / n * 1e3

    with alt.utils.schemapi.debug_mode(False):
        s = best(lambda: alt.Chart(d).mark_rule().encode(x="a:Q"))
        o = best(lambda: alt.Chart(d).mark_rule().encode(x=alt.X("a:Q")))
        v = best(lambda: alt.Chart(d).mark_rule().encode(x=alt.value(0)))
        vo = best(lambda: alt.Chart(d).mark_rule().encode(x=alt.XValue(0)))
    print(f"\nAltair encode, per channel: shorthand 'a:Q' {s:.2f} ms vs alt.X('a:Q') {o:.2f} "
          f"ms; alt.value(0) {v:.2f} ms vs alt.XValue(0) {vo:.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--encoders", action="store_true")
    args = ap.parse_args()
    print(f"load average (1, 5, 15 min): {os.getloadavg()}; cpus: {os.cpu_count()}")
    study = encoders_study() if args.encoders else synthetic_study()
    bench_generalizability(study, rep=50 if args.quick else 200, quick=args.quick)
    bench_seed_variability(args.quick)
    bench_altair_channels()
    print(f"\nload average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
