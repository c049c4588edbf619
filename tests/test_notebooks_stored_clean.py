"""Notebooks are specs: stored without outputs, each with assert cells, all run by nbval."""

import json
from pathlib import Path

import pytest

NB_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("*.ipynb"))


def test_notebooks_exist():
    names = {p.name for p in NOTEBOOKS}
    assert {"00_quickstart.ipynb", "template_your_benchmark.ipynb"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_without_outputs_and_with_asserts(path):
    nb = json.loads(path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert not [c for c in code if c.get("outputs")], "clear the outputs before committing"
    assert all(c.get("execution_count") is None for c in code)
    assert any("assert " in "".join(c["source"]) for c in code), "a notebook pins its results"
    assert nb["cells"][0]["cell_type"] == "markdown"  # text first
