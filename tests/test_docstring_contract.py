"""Docstrings as a contract (issue 28): every public function and class of the API reference
has a numpydoc summary, a Parameters section naming every parameter (for a class, the
constructor's: a dataclass's fields) and, when it returns a value, a Returns section.

The check is ``scripts/check_docstrings.py``'s (numpydoc's own validator). ``ALLOWED`` lists
the names that still lack a section, in modules being restructured on other branches when
this test was written; it only shrinks: a name that lacks a section and is not listed fails,
and so does a listed name that no longer lacks one (or is gone), so that the list is
emptied as the docstrings are completed.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: public names allowed to lack a section for now (module they are defined in)
ALLOWED: set[str] = {
    "genexpy_nb.distributed.as_client",  # distributed.py
    "genexpy_nb.charts.offline_renderer",  # charts/_offline.py
    "genexpy_nb.charts.to_vega",  # charts/_offline.py
    "genexpy_nb.charts.cd_diagram_svg",  # charts/cd_figure.py
    "genexpy_nb.charts.save_chart",  # charts/generalizability.py
    "genexpy_nb.charts.generalizability_example",  # charts/paper_figures.py
    "genexpy_nb.charts.nstar_by_parameter",  # charts/paper_figures.py
    "genexpy_nb.charts.alpha_hat_scatter",  # charts/variability.py
    "genexpy_nb.charts.ecdf_chart",  # charts/variability.py
    "genexpy_nb.charts.ensemble_size_chart",  # charts/variability.py
    "genexpy_nb.charts.thin_ecdf",  # charts/variability.py
    "genexpy_nb.charts.trimmed_distance_chart",  # charts/variability.py
    "genexpy_nb.distributed.analyze_on_cluster",  # distributed.py
    "genexpy_nb.distributed.chunks",  # distributed.py
    "genexpy_nb.distributed.local_client",  # distributed.py
    "genexpy_nb.distributed.map_unordered",  # distributed.py
    "genexpy_nb.distributed.require_distributed",  # distributed.py
    "genexpy_nb.experiments.SeedPool",  # experiments/pools.py
    "genexpy_nb.experiments.load_pool",  # experiments/pools.py
    "genexpy_nb.experiments.pool_seeds",  # experiments/pools.py
    "genexpy_nb.experiments.save_pool",  # experiments/pools.py
    "genexpy_nb.experiments.write_manifest",  # experiments/pools.py
    "genexpy_nb.experiments.BinaryTask",  # experiments/tasks.py
    "genexpy_nb.experiments.SourceTask",  # experiments/tasks.py
    "genexpy_nb.experiments.digits_transfer_tasks",  # experiments/tasks.py
    "genexpy_nb.experiments.batch_order",  # experiments/training.py
    "genexpy_nb.experiments.build_model",  # experiments/training.py
    "genexpy_nb.experiments.pretrain_digits_backbone",  # experiments/transfer.py
    "genexpy_nb.experiments.convert_hf_vit",  # experiments/vit.py
    "genexpy_nb.experiments.load_weights",  # experiments/vit.py
    "genexpy_nb.experiments.make_vit",  # experiments/vit.py
    "genexpy_nb.analyze",  # generalizability.py
    "genexpy_nb.approx_terms",  # generalizability.py
    "genexpy_nb.best_alternative",  # generalizability.py
    "genexpy_nb.bound_nstar",  # generalizability.py
    "genexpy_nb.exchange_scores",  # generalizability.py
    "genexpy_nb.mmd_quantile",  # generalizability.py
    "genexpy_nb.ConfigurationSample",  # study.py
    "genexpy_nb.FilterReport",  # study.py
    "genexpy_nb.rank_scores",  # study.py
}


@pytest.fixture(scope="module")
def lacking() -> dict[str, list[str]]:
    pytest.importorskip("numpydoc")  # the docs extra, which the test command installs
    spec = importlib.util.spec_from_file_location("check_docstrings",
                                                  ROOT / "scripts" / "check_docstrings.py")
    checker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checker)
    found, _, checked = checker.report()
    assert sum(checked.values()) > 100, checked  # the public names were found
    return found


def test_every_public_name_has_summary_parameters_returns(lacking):
    new = {name: miss for name, miss in lacking.items() if name not in ALLOWED}
    assert not new, "public names whose docstring lacks numpydoc sections:\n" + "\n".join(
        f"  {name}: no {', no '.join(miss)}" for name, miss in sorted(new.items()))


def test_the_allow_list_only_holds_names_that_still_lack_a_section(lacking):
    done = sorted(ALLOWED - set(lacking))
    assert not done, ("complete (or gone) now; remove them from ALLOWED in "
                      "tests/test_docstring_contract.py:\n  " + "\n  ".join(done))


def test_docstring_warnings_of_finished_modules_fail_the_docs_build():
    """The docs build holds back warnings from docstrings not yet through the docstrings
    phase; those of ``CLEAN_MODULES`` (this phase's modules) fail it like any other."""
    import logging
    import sys

    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    from gx_docstrings import CLEAN_MODULES, DocstringWarnings

    assert "genexpy_nb.kernels" in CLEAN_MODULES
    f = DocstringWarnings()

    def passes(location):  # True: the warning reaches the build (an error under -W)
        r = logging.LogRecord("sphinx.x", logging.WARNING, __file__, 1, "msg", None, None)
        r.location = location
        return f.filter(r)

    assert passes("/r/genexpy_nb/kernels.py:docstring of genexpy_nb.kernels.RBF:11")
    assert passes("/r/x.py:docstring of genexpy_nb.variability.robust_ks.alpha_hat:3")
    assert passes("/r/x.py:docstring of genexpy_nb.variability:3")  # the package's own
    assert not passes("/r/x.py:docstring of genexpy_nb.kernels_extra.f:3")  # not a prefix
    assert not passes("/r/x.py:docstring of genexpy_nb.generalizability.analyze:3")
    assert not passes(("api/genexpy_nb.rst:35:<autosummary>", 1))
