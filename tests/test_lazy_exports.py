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
