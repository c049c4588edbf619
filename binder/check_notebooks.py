"""Import every module the notebooks import, by the path they use (binder/postBuild).

A module that is missing, or imported by a moved path (a DeprecationWarning of this
package), fails Binder's build with the notebook and the module named, instead of a
notebook's first cell at launch.

    python binder/check_notebooks.py [notebooks folder]
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
import warnings
from pathlib import Path


def notebook_imports(path: Path) -> set[str]:
    """Return the modules a notebook's code imports (``import a.b``, ``from a.b import c``)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found: set[str] = set()
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source = "".join(cell.get("source", ""))
        try:
            tree = ast.parse(source)
        except SyntaxError:  # IPython magics: their Python lines are checked by running
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module)
    return found


def main(folder: str = "notebooks") -> int:
    """Import every notebook's modules; return 1 (and name them) when one fails."""
    failed = []
    notebooks = sorted(Path(folder).glob("*.ipynb"))
    modules: dict[str, list[str]] = {}
    for path in notebooks:
        for name in notebook_imports(path):
            modules.setdefault(name, []).append(path.name)
    for name, users in sorted(modules.items()):
        with warnings.catch_warnings():
            warnings.filterwarnings("error", category=DeprecationWarning,
                                    message=r".*moved to genexpy_nb")
            try:
                importlib.import_module(name)
            except Exception as exc:
                failed.append(f"{name} (imported by {', '.join(users)}): "
                              f"{type(exc).__name__}: {exc}")
    for line in failed:
        print(f"binder/check_notebooks.py: {line}", file=sys.stderr)
    print(f"binder: {len(modules)} modules imported by {len(notebooks)} notebooks: "
          f"{'all import' if not failed else f'{len(failed)} failed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
