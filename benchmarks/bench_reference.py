"""genexpy_nb against the reference implementation (genexpy, Matteucci et al.), same work.

The work: n* of one encoder configuration (the first with 40 < N < 50 results) for the
Jaccard kernel (k = 1), estimated on preliminary studies of N = 10, 20, 30, 40 results,
rep = 200 resampled pairs per n, 5 alpha* x 5 delta* — the reference's own pipeline
(``ProjectManager.generalizability_analysis`` with the "embedding" estimator) against
``genexpy_nb.Study`` + ``simulate_preliminary_study``, both starting from the same
one-configuration results table.

Timed, interleaved (reference, ours, reference, ours, ...), each in fresh processes:

* cold: the first analysis in a fresh process (imports and data loading excluded; our
  numba kernels come from the on-disk cache, as after any first use);
* warm: later analyses in the same process (min / median / max of the repeats);
* whole process: interpreter start, imports, data, one analysis, exit.

Usage (from the repository root)::

    python benchmarks/bench_reference.py --build-reference   # once: builds the reference
    python benchmarks/bench_reference.py                     # then: times both

``--build-reference`` makes a virtual environment with Python >= 3.13 (the reference
requires it; found through ``uv``, ``pyenv`` or ``python3.1x`` on the PATH) in a folder
outside this repository (``--ref-dir``, default ``~/.cache/genexpy_nb_bench``), installs
the reference's dependencies from the package index and the reference itself from its
public repository (``--reference-src``: a git URL or a local clone). Nothing of the
reference is copied into this repository. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REF_DIR = Path.home() / ".cache" / "genexpy_nb_bench"
DEFAULT_SRC = "https://github.com/DrCohomology/genexpy"
REF_DEPS = ["numpy>=2.3", "pandas>=2.3", "pyarrow", "pyyaml>=6.0", "scipy>=1.16",
            "scikit-learn>=1.7", "seaborn>=0.13", "matplotlib>=3.10", "tqdm>=4.67"]
ALPHAS = [0.7, 0.8, 0.9, 0.95, 0.99]
DELTAS = [0.01, 0.05, 0.1, 0.2, 0.3]
REP = 200
N0 = 10

# ---------------------------------------------------------------------------------------
# the two drivers, run in fresh processes; each prints one JSON line
# ---------------------------------------------------------------------------------------
REF_DRIVER = textwrap.dedent('''
    import json, sys, time, io, contextlib
    t0 = time.perf_counter()
    from genexpy.managers import ProjectManager
    t1 = time.perf_counter()
    workdir, repeats = sys.argv[1], int(sys.argv[2])
    with contextlib.redirect_stdout(io.StringIO()):
        pm = ProjectManager("config.yaml", demo_dir=workdir)
    t2 = time.perf_counter()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            df = pm.generalizability_analysis()
        times.append(time.perf_counter() - t)
    print(json.dumps({"import": t1 - t0, "data": t2 - t1, "times": times,
                      "rows": int(len(df)), "Ns": sorted(int(x) for x in set(df["N"]))}))
''')

OUR_DRIVER = textwrap.dedent('''
    import json, sys, time
    t0 = time.perf_counter()
    import genexpy_nb as gx
    import polars as pl
    t1 = time.perf_counter()
    workdir, repeats = sys.argv[1], int(sys.argv[2])
    df = pl.read_parquet(workdir + "/data/results.parquet")
    alphas, deltas = json.loads(sys.argv[3]), json.loads(sys.argv[4])
    rep, n0 = int(sys.argv[5]), int(sys.argv[6])
    t2 = time.perf_counter()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        study = gx.Study(df, alternatives="encoder", target="cv_score", generalize="dataset",
                         design=["model", "tuning", "scoring"], higher_is_better=True)
        res = gx.simulate_preliminary_study(study, [gx.Jaccard(k=1)], 0, N0=n0,
                                            alphas=alphas, deltas=deltas, rep=rep,
                                            progress=False)
        times.append(time.perf_counter() - t)
    print(json.dumps({"import": t1 - t0, "data": t2 - t1, "times": times,
                      "rows": res.height, "Ns": sorted(set(res["N_sub"].to_list()))}))
''')


def reference_config(model: str, tuning: str, scoring: str, nmax: int) -> str:
    return textwrap.dedent(f"""\
        paths:
          outputs_dir: outputs
          figures_dir: figures
        project_parameters:
          name: "bench"
          load_precomputed_mmd: False
          dump_results: False
          delete_existing_results: False
          verbose: False
        parameters:
          alpha: {ALPHAS}
          delta: {DELTAS}
          seed: 37
          rep: {REP}
          tol_missing_alternatives: 0.2
          tol_missing_conditions: 0.2
          Nmax: {nmax}
        data:
          dataset_path: data/results.parquet
          alternatives_col_name: "encoder"
          experimental_factors_name_lvl:
            dataset: null
            model: "{model}"
            tuning: "{tuning}"
            scoring: "{scoring}"
          target_col_name: "cv_score"
          target_is_error: False
        sampling:
          sample_size: {N0}
          disjoint: true
          replace: false
        nstar_estimation_methods:
          rankings:
            - "embedding"
          vectors:
            - "naive"
        kernels:
          - name: "JaccardKernel"
            params:
              k:
                - 1
        """)


# ---------------------------------------------------------------------------------------
# building the reference
# ---------------------------------------------------------------------------------------
def find_python313() -> str | None:
    """An interpreter >= 3.13: uv, pyenv, then python3.1x on the PATH."""
    cands: list[str] = []
    if shutil.which("uv"):
        out = subprocess.run(["uv", "python", "find", ">=3.13"], capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip():
            cands.append(out.stdout.strip())
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if pyenv_root.is_dir():
        for d in sorted(pyenv_root.iterdir(), reverse=True):
            cands.append(str(d / "bin" / "python"))
    for v in ("3.15", "3.14", "3.13"):
        p = shutil.which(f"python{v}")
        if p:
            cands.append(p)
    for c in cands:
        try:
            out = subprocess.run([c, "-c", "import sys; print(sys.version_info >= (3, 13))"],
                                 capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.stdout.strip() == "True":
            return c
    return None


def build_reference(ref_dir: Path, src: str, python: str | None) -> None:
    python = python or find_python313()
    if python is None:
        sys.exit("The reference implementation needs Python >= 3.13 and none was found "
                 "(tried uv, pyenv, python3.13+ on the PATH): install one, or pass --python.")
    ref_dir.mkdir(parents=True, exist_ok=True)
    venv = ref_dir / "venv"
    if venv.exists():
        shutil.rmtree(venv)
    print(f"building the reference with {python} in {venv}")
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run(pip + REF_DEPS, check=True)
    clone = ref_dir / "src"
    if clone.exists():
        shutil.rmtree(clone)
    # the package and its metadata only (the repository's demos hold large data files)
    subprocess.run(["git", "clone", "-q", "--no-checkout", "--depth", "1", src, str(clone)],
                   check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "HEAD", "--", "genexpy",
                    "pyproject.toml", "README.md"], check=True)
    subprocess.run(pip + ["--no-deps", str(clone)], check=True)
    print("reference built")


# ---------------------------------------------------------------------------------------
# timing
# ---------------------------------------------------------------------------------------
def prepare_workdir(data_dir: Path) -> tuple[Path, dict]:
    import polars as pl

    df = pl.read_parquet(data_dir / "encoders_results.parquet")
    keys = ["model", "tuning", "scoring"]
    sizes = (df.group_by(keys).agg(pl.col("dataset").n_unique().alias("N"))
             .filter((pl.col("N") > 40) & (pl.col("N") < 50)).sort(keys))
    cfg = sizes.row(0, named=True)
    one = df.filter((pl.col("model") == cfg["model"]) & (pl.col("tuning") == cfg["tuning"])
                    & (pl.col("scoring") == cfg["scoring"]))
    work = Path(tempfile.mkdtemp(prefix="genexpy_nb_bench_ref_"))
    (work / "data").mkdir()
    one.select(["dataset", "model", "tuning", "scoring", "encoder", "cv_score"]).write_parquet(
        work / "data" / "results.parquet")
    (work / "config.yaml").write_text(
        reference_config(cfg["model"], cfg["tuning"], cfg["scoring"], nmax=100))
    (work / "ref_driver.py").write_text(REF_DRIVER)
    (work / "our_driver.py").write_text(OUR_DRIVER)
    return work, cfg


def run(cmd: list[str], env: dict) -> tuple[dict, float]:
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    if out.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1]), wall


def stats(xs: list[float]) -> str:
    return (f"min {min(xs):8.4f}  median {statistics.median(xs):8.4f}  "
            f"max {max(xs):8.4f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-reference", action="store_true")
    ap.add_argument("--ref-dir", type=Path, default=DEFAULT_REF_DIR)
    ap.add_argument("--reference-src", default=DEFAULT_SRC)
    ap.add_argument("--python", default=None, help="interpreter >= 3.13 for the reference")
    ap.add_argument("--data-dir", type=Path,
                    default=Path(os.environ.get("GENEXPY_NB_DATA_DIR", ROOT / "data")))
    ap.add_argument("--processes", type=int, default=5, help="fresh processes per side")
    ap.add_argument("--warm", type=int, default=10, help="warm repeats per process")
    args = ap.parse_args()
    # an installed package has its bytecode compiled (pip does it); a source tree run with
    # PYTHONDONTWRITEBYTECODE may not, and would time the compiling of our modules
    compileall.compile_dir(str(ROOT / "genexpy_nb"), quiet=1)

    if args.build_reference:
        build_reference(args.ref_dir, args.reference_src, args.python)
    ref_py = args.ref_dir / "venv" / "bin" / "python"
    if not ref_py.exists():
        print(f"The reference is not built ({ref_py} missing): run with --build-reference "
              "(needs Python >= 3.13). Skipping the comparison.")
        return
    if not (args.data_dir / "encoders_results.parquet").exists():
        sys.exit(f"encoders_results.parquet not found in {args.data_dir}: set "
                 "GENEXPY_NB_DATA_DIR or pass --data-dir.")
    work, cfg = prepare_workdir(args.data_dir)
    print(f"configuration {cfg['model']}, {cfg['tuning']}, {cfg['scoring']} (N = {cfg['N']}); "
          f"Jaccard(k=1), N = 10..40 step 10, rep = {REP}, 5 alpha* x 5 delta*")
    print(f"cores: {os.cpu_count()} (shared machines are noisy: min and median of repeats)")
    env_ref = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env_ours = {**os.environ, "PYTHONPATH": str(ROOT)}
    # populate our numba disk cache once (a first use after installing), not timed
    run([sys.executable, str(work / "our_driver.py"), str(work), "1", json.dumps(ALPHAS),
         json.dumps(DELTAS), str(REP), str(N0)], env_ours)

    res: dict[str, dict[str, list[float]]] = {s: {"cold": [], "warm": [], "whole": [],
                                                  "import": []} for s in ("ref", "ours")}
    try:
        for _ in range(args.processes):
            for side in ("ref", "ours"):
                if side == "ref":
                    cmd = [str(ref_py), str(work / "ref_driver.py"), str(work),
                           str(1 + args.warm)]
                    env = env_ref
                else:
                    cmd = [sys.executable, str(work / "our_driver.py"), str(work),
                           str(1 + args.warm), json.dumps(ALPHAS), json.dumps(DELTAS),
                           str(REP), str(N0)]
                    env = env_ours
                out, wall = run(cmd, env)
                r = res[side]
                r["cold"].append(out["times"][0])
                r["warm"].extend(out["times"][1:])
                r["import"].append(out["import"])
                # whole process: start + imports + data + ONE analysis (the later warm
                # repeats of this process are subtracted)
                r["whole"].append(wall - sum(out["times"][1:]))
                r["rows"], r["Ns"] = out["rows"], out["Ns"]
    finally:
        shutil.rmtree(work, ignore_errors=True)

    for side, name in (("ref", "reference (genexpy)"), ("ours", "genexpy_nb")):
        r = res[side]
        print(f"\n{name}: {r['rows']} n* rows, N = {r['Ns']}")
        print(f"  import        {stats(r['import'])}")
        print(f"  cold (1st)    {stats(r['cold'])}")
        print(f"  warm          {stats(r['warm'])}")
        print(f"  whole process {stats(r['whole'])}")
    print("\nspeed-up (reference / genexpy_nb):")
    for key, label in (("cold", "cold, first analysis in a fresh process"),
                       ("warm", "warm"), ("whole", "whole process")):
        a, b = res["ref"][key], res["ours"][key]
        print(f"  {label:42s} median {statistics.median(a) / statistics.median(b):8.0f}x"
              f"   best {min(a) / min(b):8.0f}x")


if __name__ == "__main__":
    main()
