"""The docstring examples run, and fail when they are wrong (issue 28: docstrings as a contract).

Every module of ``genexpy_nb`` whose source holds an example (a ``>>>`` line) is imported and
its examples are run with :mod:`doctest` (the same finder and flags as
``pytest --doctest-modules``: no option flags unless an example asks for one with
``# doctest: +ELLIPSIS`` and the like). Under this project's ``filterwarnings = error`` a
warning raised by an example fails it too. Modules that need an optional dependency that is
not installed (torch: the ``train`` extra, which the test command installs; dask: ``cluster``)
are skipped, not failed.
"""

from __future__ import annotations

import doctest
import importlib
import io
import types
from pathlib import Path

import pytest

import genexpy_nb

PACKAGE = Path(genexpy_nb.__file__).resolve().parent
#: optional dependencies whose absence skips a module's examples
OPTIONAL = {"torch", "torchvision", "dask", "distributed"}


def _modules_with_examples() -> list[str]:
    """Dotted names of the package's modules whose source holds a ``>>>`` line."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>> " not in path.read_text(encoding="utf-8"):
            continue
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


MODULES = _modules_with_examples()
#: examples that are wrong in a file this branch does not own: each is an expected failure
#: (strict: once fixed, the xfail fails and the entry must go)
KNOWN_BROKEN: dict[str, str] = {}


def run_examples(module: types.ModuleType) -> tuple[int, int, str]:
    """(failed, found, report) of the examples in ``module``'s docstrings (``found`` counts
    the examples marked ``+SKIP`` too)."""
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=0)
    out = io.StringIO()
    found = 0
    for test in finder.find(module, module.__name__):
        found += len(test.examples)
        if test.examples:
            runner.run(test, out=out.write)
    failed, _ = runner.summarize(verbose=False)
    return failed, found, out.getvalue()


def test_there_are_examples_to_run():
    assert len(MODULES) >= 20, MODULES


@pytest.mark.parametrize("name", [
    pytest.param(m, marks=pytest.mark.xfail(reason=KNOWN_BROKEN[m], strict=True))
    if m in KNOWN_BROKEN else m for m in MODULES])
def test_examples_run(name: str):
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:  # an optional extra that is not installed
        if (e.name or "").split(".")[0] in OPTIONAL:
            pytest.skip(f"{name} needs {e.name} (an optional extra)")
        raise
    failed, found, report = run_examples(module)
    assert found > 0, f"{name} has '>>> ' in its source but doctest found no example"
    assert failed == 0, f"{failed} of {found} examples of {name} fail:\n{report}"


def test_a_wrong_example_fails():
    """The runner reports a wrong output, an exception and a warning-as-error as failures."""
    module = types.ModuleType("genexpy_nb_doctest_probe")
    source = '''
def f():
    """Example.

    >>> 1 + 1
    3
    >>> 1 / 0
    0
    """


def g():
    """Example.

    >>> 2 + 2
    4
    """
'''
    exec(compile(source, "<probe>", "exec"), module.__dict__)
    for obj in (module.f, module.g):
        obj.__module__ = module.__name__
    failed, attempted, report = run_examples(module)
    assert (failed, attempted) == (2, 3), report
    assert "Expected:\n    3\nGot:\n    2" in report
    assert "ZeroDivisionError" in report
