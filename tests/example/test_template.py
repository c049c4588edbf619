"""The template notebook is one cell to edit: point it at your own CSV and it runs.

The test copies the template, replaces only the cell tagged ``config`` with a study of its
own (5 methods x 15 datasets x 2 metrics, some results missing, method names unlike the
example's), and runs the copy under nbval in a subprocess: every cell must pass.
"""

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "notebooks" / "template_your_benchmark.ipynb"

CONFIG = '''
import genexpy_nb as gx

RESULTS = {csv!r}
ROLES = dict(
    alternatives="method",
    target="error",
    higher_is_better=False,
    generalize="dataset",
    design=["metric"],
    average_over=None,
    held_constant={{}},
)
MISSING = "study"
QUESTIONS = [gx.Jaccard(k=1), gx.Mallows(), gx.Borda()]
ALPHA, DELTA = 0.9, 0.1
ALPHAS = (0.8, 0.9)
DELTAS = (0.1, 0.2)
REP, SEED = 30, 1
OUTPUT_DIR = {out!r}
'''


def _write_study(path: Path) -> None:
    """5 methods x 15 datasets x 2 metrics; 'tabnet' has the lowest error; 4 results missing."""
    rng = np.random.default_rng(7)
    methods = ["ridge", "forest", "boosting", "tabnet", "knn"]
    skill = {"ridge": 0.30, "forest": 0.22, "boosting": 0.20, "tabnet": 0.12, "knn": 0.35}
    rows = [{"dataset": f"ds{d}", "metric": metric, "method": m,
             "error": float(skill[m] + rng.normal(0, 0.05))}
            for d in range(15) for metric in ("logloss", "brier") for m in methods]
    df = pl.DataFrame(rows)
    missing = [("ds2", "logloss", "knn"), ("ds5", "brier", "forest"), ("ds9", "brier", "knn"),
               ("ds11", "logloss", "ridge")]
    for ds, metric, m in missing:
        df = df.filter(~((pl.col("dataset") == ds) & (pl.col("metric") == metric)
                         & (pl.col("method") == m)))
    assert df.height == 150 - 4
    df.write_csv(path)


def test_template_has_one_config_cell_and_no_outputs():
    nb = nbformat.read(TEMPLATE, as_version=4)
    tagged = [c for c in nb.cells if "config" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and tagged[0].cell_type == "code"
    for c in nb.cells:
        if c.cell_type == "code":
            assert not c.outputs and c.execution_count is None
    # no other cell names the example's alternatives
    from genexpy_nb.example.study import load_example_study

    names = set(load_example_study()["model"].unique().to_list())
    for c in nb.cells:
        if c is not tagged[0]:
            assert not [n for n in names if n in c.source], c.source


def test_template_runs_on_your_own_csv(tmp_path):
    csv = tmp_path / "my_results.csv"
    _write_study(csv)
    out = tmp_path / "exported"
    nb = nbformat.read(TEMPLATE, as_version=4)
    edited = 0
    for c in nb.cells:
        if "config" in c.metadata.get("tags", []):
            c.source = CONFIG.format(csv=str(csv), out=str(out)).strip()
            edited += 1
    assert edited == 1
    copy = tmp_path / "my_template.ipynb"
    nbformat.write(nb, copy)

    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("NUMBA_NUM_THREADS", "2")
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--nbval-lax",
         "--nbval-current-env", "--nbval-cell-timeout=600", str(copy)],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and "failed" not in r.stdout

    # what the run wrote: the verdict of the two configurations x three questions
    verdict = pl.read_csv(out / "verdict.csv")
    assert verdict.height == 2 * 3
    assert sorted(verdict["metric"].unique().to_list()) == ["brier", "logloss"]
    # Borda's a* was derived from the data: the method with the lowest error on average
    assert "Borda(a*=tabnet)" in verdict["kernel_label"].to_list()
    names = {p.name for p in out.iterdir()}
    assert {"nstar.parquet", "plan.csv", "deficits.html", "nstar_by_alpha.svg"} <= names
    assert not list(tmp_path.glob(".exported.partial-*"))


def test_a_validation_error_is_one_message(tmp_path):
    """Failed runs (blank cells) stop the validation cell with one message naming the option,
    not a traceback (issue 26: ~40 lines whose last one was good)."""
    from nbclient import NotebookClient

    csv = tmp_path / "my_results.csv"
    _write_study(csv)
    df = pl.read_csv(csv)
    df.with_columns(pl.when(pl.col("dataset") == "ds3").then(None)
                    .otherwise(pl.col("error")).alias("error")).write_csv(csv)
    nb = nbformat.read(TEMPLATE, as_version=4)
    for c in nb.cells:
        if "config" in c.metadata.get("tags", []):
            c.source = CONFIG.format(csv=str(csv), out=str(tmp_path / "out")).strip()
    env_before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(ROOT) + os.pathsep + (env_before or "")
    try:
        NotebookClient(nb, timeout=600, allow_errors=True,
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
    finally:
        if env_before is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = env_before
    errors = [(i, o) for i, c in enumerate(nb.cells) if c.cell_type == "code"
              for o in c.outputs if o.output_type == "error"]
    i, err = errors[0]
    assert "gx.Study(data, **ROLES)" in nb.cells[i].source  # the validation cell
    assert err.ename == "GenexpyInputError" and len(err.traceback) == 1
    assert "invalid_target='drop'" in err.traceback[0]
    assert "study.py" not in err.traceback[0]


#: a configuration cell from an earlier template: without MISSING (added later), and with
#: only some of the other settings (REP, SEED, OUTPUT_DIR, the grids left out)
OLD_CONFIG = '''
import genexpy_nb as gx

RESULTS = gx.data.shipped_path("example_study.parquet")
ROLES = dict(alternatives="model", target="score", higher_is_better=True, generalize="dataset",
             design=["metric", "train_size"], average_over="fold", held_constant={})
QUESTIONS = [gx.Jaccard(k=1), gx.Mallows(), gx.Borda(), gx.RBF()]
ALPHA, DELTA = 0.95, 0.05
'''


def _run_until_validation(nb, tmp_path):
    """Execute the template's cells up to its validation cell; return those cells."""
    from nbclient import NotebookClient

    last = next(i for i, c in enumerate(nb.cells) if "gx.Study(data, **ROLES)" in c.source)
    nb.cells = nb.cells[:last + 1]
    env_before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(ROOT) + os.pathsep + (env_before or "")
    try:
        NotebookClient(nb, timeout=600, allow_errors=True,
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
    finally:
        if env_before is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = env_before
    return nb.cells


def _text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def test_an_older_configuration_cell_still_runs(tmp_path):
    """Issue 54: a configuration cell from before MISSING existed stopped later cells with
    NameError. The settings added later have defaults; the notebook says which it used."""
    nb = nbformat.read(TEMPLATE, as_version=4)
    for c in nb.cells:
        if "config" in c.metadata.get("tags", []):
            c.source = OLD_CONFIG.strip()
    cells = _run_until_validation(nb, tmp_path)
    errors = [o for c in cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors, errors
    said = next(_text(c) for c in cells if "DEFAULTS_USED" in c.source)
    assert said.startswith("not set in the configuration cell, so at their defaults: ")
    for name in ("MISSING = 'study'", "REP = 200", "SEED = 0", "ALPHAS = (0.7",
                 "OUTPUT_DIR = 'my_benchmark_results'"):
        assert name in said, said
    assert "QUESTIONS" not in said and "ALPHA = " not in said  # those the cell did set
    assert "running on the shipped example: True" in _text(cells[-1])


def test_the_current_configuration_cell_uses_no_default(tmp_path):
    cells = _run_until_validation(nbformat.read(TEMPLATE, as_version=4), tmp_path)
    said = next(_text(c) for c in cells if "DEFAULTS_USED" in c.source)
    assert said.strip() == "every setting comes from the configuration cell"


def test_a_configuration_cell_without_the_table_says_so(tmp_path):
    nb = nbformat.read(TEMPLATE, as_version=4)
    for c in nb.cells:
        if "config" in c.metadata.get("tags", []):
            c.source = "import genexpy_nb as gx\nQUESTIONS = [gx.Mallows()]"
    cells = _run_until_validation(nb, tmp_path)
    err = next(o for c in cells for o in c.get("outputs", []) if o.output_type == "error")
    assert err.ename == "NameError"
    assert "must set RESULTS and ROLES" in err.evalue
