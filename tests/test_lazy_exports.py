"""The panels are reachable from the top level, and ``import genexpy_nb`` stays light."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(code: str) -> None:
    """Run ``code`` in a fresh interpreter with this checkout on the path; it must succeed."""
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_panels_at_top_level_loaded_lazily():
    code = (
        "import sys, genexpy_nb as gx\n"
        "heavy = [m for m in ('altair', 'ipywidgets', 'anywidget', 'torch', 'dask')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "from genexpy_nb.panels import GeneralizabilityExplorer, SeedVariabilityExplorer\n"
        "assert gx.GeneralizabilityExplorer is GeneralizabilityExplorer\n"
        "assert gx.SeedVariabilityExplorer is SeedVariabilityExplorer\n"
        "assert 'GeneralizabilityExplorer' in dir(gx) and 'altair' in sys.modules\n"
        "try:\n"
        "    gx.NoSuchThing\n"
        "except AttributeError as e:\n"
        "    assert 'NoSuchThing' in str(e)\n"
        "else:\n"
        "    raise SystemExit('no AttributeError')\n"
    )
    _run(code)


def test_rank_tests_compile_nothing():
    """Friedman and Skillings-Mack run on NumPy: no numba import, so no first-use compile
    (the kernels they replaced took 6.5 s to compile in a new installation)."""
    code = (
        "import sys, numpy as np\n"
        "from genexpy_nb import significance as sg\n"
        "x = np.random.default_rng(0).normal(size=(6, 4))\n"
        "sg.friedman(x, higher_is_better=True)\n"
        "x[0, 1] = np.nan\n"
        "sg.skillings_mack(x, higher_is_better=True)\n"
        "sg.rank_within_conditions(x, higher_is_better=False)\n"
        "assert 'numba' not in sys.modules\n"
    )
    _run(code)


def test_beyond_pvalues_names_lazy():
    """The names of issue 29 are reachable from where users of the peers look, and
    ``import genexpy_nb`` imports none of their modules."""
    code = (
        "import sys, genexpy_nb as gx\n"
        "mods = ('genexpy_nb.aggregates.estimates', 'genexpy_nb.io.tables',"
        " 'genexpy_nb.leaderboards.rank_uncertainty',"
        " 'genexpy_nb.significance.bayesian')\n"
        "assert not [m for m in mods if m in sys.modules]\n"
        "for n in ('rank_probabilities', 'rank_intervals', 'top_group', 'read_lm_eval',"
        " 'split_id_column', 'wide_to_long', 'aggregates'):\n"
        "    assert n in gx.__all__ and getattr(gx, n) is not None, n\n"
        "for n in ('iqm', 'mean', 'median', 'optimality_gap', 'probability_of_improvement',"
        " 'performance_profile', 'interval_estimates'):\n"
        "    assert callable(getattr(gx.aggregates, n)), n\n"
        "from genexpy_nb import significance as sg\n"
        "for n in ('correlated_bayesian_ttest', 'bayesian_signed_rank', 'bayesian_sign_test',"
        " 'win_tie_loss', 'bayesian_section', 'aggregates_section'):\n"
        "    assert n in sg.__all__ and callable(getattr(sg, n)), n\n"
        "from genexpy_nb import charts\n"
        "for n in ('bayesian_posterior', 'aggregate_intervals', 'performance_profiles',"
        " 'rank_probability_heatmap'):\n"
        "    assert n in charts.__all__ and callable(getattr(charts, n)), n\n"
    )
    _run(code)


_DESCRIBE = '''
import importlib, json, sys, types, warnings
warnings.simplefilter("ignore", DeprecationWarning)
from genexpy_nb._lazy import MOVED_MODULES
if sys.argv[1] == "old-paths-first":
    for old in MOVED_MODULES:  # every old path, before any public name is looked up
        importlib.import_module(old)
parents = sorted({"genexpy_nb"} | {old.rpartition(".")[0] for old in MOVED_MODULES})

def describe(obj):
    if isinstance(obj, types.ModuleType):
        return "module " + obj.__name__
    where = getattr(obj, "__module__", "")
    return f"{type(obj).__name__} {where}.{getattr(obj, '__qualname__', '')}"

out = {}
for name in parents:
    pkg = importlib.import_module(name)
    for attr in getattr(pkg, "__all__", ()):
        out[f"{name}.{attr}"] = describe(getattr(pkg, attr))
print(json.dumps(out))
'''


def _public_names(mode: str) -> dict[str, str]:
    import json

    proc = subprocess.run([sys.executable, "-c", _DESCRIBE, mode], cwd=ROOT, capture_output=True,
                          text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_old_module_paths_never_change_a_public_name():
    """Issue 54: ``import genexpy_nb.mmd`` (a moved path) replaced the function ``gx.mmd``
    with the module. Every old path imported first, then every name in ``__all__`` of
    genexpy_nb (and of every package an old path lies in) is what a fresh import gives."""
    fresh = _public_names("fresh")
    after = _public_names("old-paths-first")
    assert "genexpy_nb.mmd" in fresh and fresh["genexpy_nb.mmd"].startswith("function ")
    assert after == fresh, {k: (fresh[k], after.get(k)) for k in fresh if after.get(k) != fresh[k]}


def test_an_old_path_still_imports_and_gx_mmd_still_computes():
    _run(
        "import warnings, numpy as np\n"
        "import genexpy_nb as gx\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    import genexpy_nb.mmd\n"
        "    from genexpy_nb.mmd import mmd_distribution\n"
        "assert any('genexpy_nb.generalizability.mmd' in str(x.message) for x in w)\n"
        "from genexpy_nb.generalizability.mmd import mmd_distribution as new\n"
        "assert mmd_distribution is new\n"
        "assert callable(gx.mmd) and gx.mmd is genexpy_nb.mmd\n"
        "import sys\n"
        "assert sys.modules['genexpy_nb.mmd'] is sys.modules['genexpy_nb.generalizability.mmd']\n"
    )
