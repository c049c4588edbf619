"""Renamed: the seed-pool package is :mod:`genexpy_nb.seedpools` since 0.2.

``genexpy_nb.experiments`` (and its submodules, e.g. ``genexpy_nb.experiments.pools``) still
import, with a DeprecationWarning, and are the very modules of :mod:`genexpy_nb.seedpools`:
``import genexpy_nb.experiments.pools`` gives ``genexpy_nb.seedpools.pools``. The alias goes
in a later release. (The word "experiments" names the conditions of a study in the
generalizability half of the package; the seed pools got their own name.)
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from typing import Any

_OLD = __name__
_NEW = "genexpy_nb.seedpools"

warnings.warn(f"{_OLD} was renamed {_NEW}; import from {_NEW} (the old name will be removed "
              "in a later release).", DeprecationWarning, stacklevel=2)


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``genexpy_nb.experiments.X`` as the module ``genexpy_nb.seedpools.X``."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not fullname.startswith(_OLD + "."):
            return None
        new = _NEW + fullname[len(_OLD):]
        if importlib.util.find_spec(new) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: Any) -> Any:
        module = importlib.import_module(_NEW + spec.name[len(_OLD):])
        spec.loader_state = module.__spec__  # the import system replaces __spec__: kept here
        return module

    def exec_module(self, module: Any) -> None:
        """Give the module (the seed-pool module itself, already executed) its own spec back.

        Its relative imports resolve against it.
        """
        module.__spec__ = module.__spec__.loader_state

    def get_code(self, fullname: str) -> Any:
        """Return the new module's code (``python -m genexpy_nb.experiments.X`` still runs)."""
        new = _NEW + fullname[len(_OLD):]
        return importlib.util.find_spec(new).loader.get_code(new)


if not any(isinstance(f, _Alias) for f in sys.meta_path):
    sys.meta_path.insert(0, _Alias())

_pkg = importlib.import_module(_NEW)
__all__ = list(_pkg.__all__)


def __getattr__(name: str) -> Any:
    return getattr(_pkg, name)


def __dir__() -> list[str]:
    return sorted(set(__all__) | set(globals()))
