"""The public names whose docstring lacks a numpydoc summary, Parameters or Returns section.

The public names are those of the API reference (``docs/_ext/gx_api.py``: ``__all__`` of
``genexpy_nb`` and of its public subpackages); constants and modules are left out. Each
function and class is checked with numpydoc's own validator (``numpydoc.validate``):

- **summary**: no one-line summary (SS01); a name with no docstring at all (GL08) lacks all
  three;
- **Parameters**: a parameter of the signature is not documented (PR01; for a class, the
  parameters of its constructor);
- **Returns**: a function that returns a value has no Returns section (RT01; classes and
  functions that return nothing need none).

Prints one line per name that lacks something and the count per module::

    PYTHONPATH=$PWD python scripts/check_docstrings.py            # report, exit 0
    PYTHONPATH=$PWD python scripts/check_docstrings.py --strict   # exit 1 if any lacks one

This is the checking tool of the docstring contract; ``tests/test_docstring_contract.py``
enforces it in the test command (no public name may lack a section).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

#: numpydoc error codes -> the section they mean is missing
CODES: dict[str, str] = {"GL08": "summary", "SS01": "summary", "PR01": "Parameters",
                         "RT01": "Returns"}
SECTIONS = ("summary", "Parameters", "Returns")


def missing_sections(import_path: str) -> list[str]:
    """The sections ``import_path``'s docstring lacks (numpydoc's validator)."""
    from numpydoc.validate import validate

    errors = validate(import_path)["errors"]
    if any(code == "GL08" for code, _ in errors):  # no docstring at all: nothing is there
        return list(SECTIONS)
    found = {CODES[code] for code, _ in errors if code in CODES}
    return [s for s in SECTIONS if s in found]


def _home(module: str, name: str) -> str:
    """The path of ``module.name`` where it is defined (``genexpy_nb.mmd`` is a function of
    :mod:`genexpy_nb.generalizability.mmd`; the validator would import the moved module path
    ``genexpy_nb.mmd`` first)."""
    import importlib

    obj = getattr(importlib.import_module(module), name)
    home, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return f"{home}.{qual}" if home and qual and "<" not in qual else f"{module}.{name}"


def report(modules: dict[str, list[tuple[str, str]]] | None = None
           ) -> tuple[dict[str, list[str]], Counter, Counter]:
    """``{qualified name: missing sections}``, the count of such names per module, and the
    count of checked names per module."""
    from gx_api import all_public_names

    modules = all_public_names() if modules is None else modules
    lacking: dict[str, list[str]] = {}
    per_module: Counter = Counter()
    checked: Counter = Counter()
    for module, names in modules.items():
        for name, kind in names:
            if kind not in ("function", "class", "exception"):
                continue
            full = f"{module}.{name}"
            checked[module] += 1
            miss = missing_sections(_home(module, name))
            if miss:
                lacking[full] = miss
                per_module[module] += 1
    return lacking, per_module, checked


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strict", action="store_true",
                    help="exit with 1 when a public name lacks a section")
    args = ap.parse_args(argv)
    lacking, per_module, checked = report()
    for full, miss in lacking.items():
        print(f"{full}: no {', no '.join(miss)}")
    print()
    for module in checked:
        print(f"{module}: {per_module[module]} of {checked[module]} public functions and "
              "classes lack a numpydoc summary, Parameters or Returns")
    total, n = sum(per_module.values()), sum(checked.values())
    by_section = Counter(s for miss in lacking.values() for s in miss)
    print(f"in all: {total} of {n} ({', '.join(f'{by_section[s]} lack {s}' for s in SECTIONS)})")
    return 1 if (args.strict and total) else 0


if __name__ == "__main__":
    sys.exit(main())
