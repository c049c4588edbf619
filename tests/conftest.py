"""Shared fixtures; skips with a reason when an optional dependency or data is missing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# Property tests are judged by what they assert, never by how long an example takes: no
# deadline and no "too slow" health check by default, so that a busy machine (other jobs on
# the cores) cannot fail them. A test's own @settings still choose its number of examples.
# (Hypothesis comes with the test extra; the documentation build's site check runs without it.)
try:
    from hypothesis import HealthCheck, settings
except ImportError:  # bash scripts/docs.sh alone: the docs extra, no property tests
    pass
else:
    settings.register_profile("genexpy_nb", deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("genexpy_nb")


def _data_dir() -> Path | None:
    d = os.environ.get("GENEXPY_NB_DATA_DIR")
    return Path(d) if d else None


#: set by scripts/test.sh when the public data could be neither found nor downloaded
#: (offline): the reason, in one line (scripts/public_data.py)
NO_DATA = os.environ.get("GENEXPY_NB_NO_DATA", "").strip()
#: the skip reason of everything that needs the public data files, when they are not here
NO_DATA_REASON = "needs the public data files (encoder benchmark, BIG-bench), not here"
#: calls by which a notebook reads the public data files
DATA_CALLS = ("load_encoders(", "load_bigbench(", "fetch_public_file(", "fetch_public_data(")


def reads_public_data(notebook: Path) -> bool:
    """Whether a notebook's code reads the public data files (and is skipped without them)."""
    import json

    cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
    code = "".join("".join(c.get("source", "")) for c in cells if c.get("cell_type") == "code")
    return any(call in code for call in DATA_CALLS)


@pytest.fixture(scope="session")
def public_data_dir() -> Path:
    d = _data_dir()
    if d is None or not (d / "encoders_results.parquet").is_file():
        pytest.skip(NO_DATA_REASON if NO_DATA else
                    "GENEXPY_NB_DATA_DIR is not set to a folder with the public data files")
    return d


@pytest.fixture(scope="module", params=["numpy", "kernel"])
def trimmed_ks_route(request):
    """The trimmed-KS distances and alpha-hat on one route for a whole module: NumPy (the
    route of small inputs) or the numba kernel (large ones)."""
    from genexpy_nb import config

    with config.force_route(ks_numpy_max_work=1e18 if request.param == "numpy" else 0):
        yield request.param


#: the quick subset, ``pytest -m quick`` (under a minute on a laptop's two cores, collection
#: included): the unit and property tests of the core and the house's gates, no notebook, no
#: browser, no install, no real data. Files outside it are not even collected under
#: ``-m quick``. CI runs the whole suite (``bash scripts/test.sh``).
QUICK_FILES = frozenset({
    "test_kernels.py", "test_mmd.py", "test_study.py", "test_distributions.py",
    "test_layering.py", "test_lazy_exports.py", "test_io.py", "test_progress.py",
    "test_rbf_scale.py", "test_studentized.py",
    "test_variability_metrics.py", "test_variability_errors.py", "test_readme_ci.py",
    "test_notebooks_stored_clean.py", "test_core_paths.py",
})


def _quick_only(config: pytest.Config) -> bool:
    return (config.getoption("markexpr", "") or "").strip() == "quick"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m quick``, skip collecting (importing) the files outside the quick subset."""
    if not _quick_only(config) or collection_path.is_dir():
        return None
    if collection_path.suffix == ".ipynb":
        return True
    if collection_path.name.startswith("test_") and collection_path.suffix == ".py":
        return collection_path.name not in QUICK_FILES
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of the quick subset ``quick``; without the public data (offline),
    skip the notebooks that read it (the tests that need it skip through their fixture)."""
    data_notebooks: dict[Path, bool] = {}
    for item in items:
        if item.path.name in QUICK_FILES:
            item.add_marker(pytest.mark.quick)
        if NO_DATA and item.path.suffix == ".ipynb":
            if item.path not in data_notebooks:
                data_notebooks[item.path] = reads_public_data(item.path)
            if data_notebooks[item.path]:
                item.add_marker(pytest.mark.skip(reason=NO_DATA_REASON))


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Offline: one line at the end (after pytest's short summary, before its count) saying
    what was skipped for want of the public data."""
    yield
    if not NO_DATA:
        return
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if NO_DATA_REASON in str(getattr(r, "longrepr", ""))]
    files = sorted({str(r.nodeid).split("::")[0] for r in skipped})
    named = ", ".join(files[:4]) + (f" and {len(files) - 4} more" if len(files) > 4 else "")
    terminalreporter.write_line(
        f"public data: {len(skipped)} tests skipped ({named or 'none collected'}), they need "
        f"the public data files: {NO_DATA}", yellow=True, bold=True)


@pytest.fixture(scope="session")
def scores_frame():
    """The builder of a long table from a (conditions, alternatives) score matrix."""
    import toys

    return toys.scores_frame


@pytest.fixture(scope="session")
def scores_study():
    """The builder of a Study from a (conditions, alternatives) score matrix."""
    import toys

    return toys.scores_study
