"""Names resolved on first use: lazy exports, moved modules and moved names, in one place.

Three jobs, one helper:

* **Lazy exports.** A package's public names that live in heavy submodules (Altair, scipy,
  ipywidgets) are imported when first used: :func:`lazy_exports` makes a package's module
  ``__getattr__`` and ``__dir__`` from one table ``{name: "submodule"}`` (``genexpy_nb.Study``
  needs no chart library).
* **Moved modules.** :data:`MOVED_MODULES` maps an old module path to where the module lives
  now (``genexpy_nb.kernels`` → ``genexpy_nb.generalizability.kernels``). Importing the old
  path gives the very same module object, with a :class:`DeprecationWarning` that names the
  new path; ``python -m old.path`` still runs it.
* **Moved names.** :data:`MOVED_NAMES` maps an old dotted name of a function or class to its
  new one; the old module's ``__getattr__`` returns it with a warning.

Both tables go at the next minor version (0.4): import from the new paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings
from collections.abc import Callable, Mapping
from typing import Any

#: old module path -> new module path: the rooms of the pipeline (io, study, leaderboards,
#: answers) and, before them, the rooms by job. 0.2's name of the seed pools
#: (``genexpy_nb.experiments``), announced for removal, is gone.
MOVED_MODULES: dict[str, str] = {
    # the top level reads as the pipeline: io -> study -> analyses -> answers -> surfaces
    "genexpy_nb.data": "genexpy_nb.io.public",
    "genexpy_nb.readers": "genexpy_nb.io.tables",
    "genexpy_nb.evals.readers": "genexpy_nb.io.eval_logs",
    "genexpy_nb.ranking": "genexpy_nb.study.ranking",
    "genexpy_nb.samples": "genexpy_nb.study.samples",
    "genexpy_nb.rank_uncertainty": "genexpy_nb.leaderboards.rank_uncertainty",
    "genexpy_nb.summary": "genexpy_nb.answers.summary",
    "genexpy_nb.summary_conclusions": "genexpy_nb.answers.conclusions",
    "genexpy_nb.report_page": "genexpy_nb.answers.report_page",
    "genexpy_nb.notebook": "genexpy_nb.answers.notebook",
    "genexpy_nb.precompile": "genexpy_nb.example.precompile",
    "genexpy_nb.significance.report": "genexpy_nb.answers.document",
    "genexpy_nb.significance.compare": "genexpy_nb.answers.compare",
    "genexpy_nb.significance.comparison": "genexpy_nb.answers.comparison",
    "genexpy_nb.significance.beyond_sections": "genexpy_nb.answers.beyond_sections",
    "genexpy_nb.significance.paper_table": "genexpy_nb.answers.paper_table",
    "genexpy_nb.variability.report": "genexpy_nb.variability.ensembles",
    # rooms by job
    "genexpy_nb.significance.cd_figure": "genexpy_nb.charts.cd_figure",
    "genexpy_nb.panel_generalizability": "genexpy_nb.panels.generalizability",
    "genexpy_nb.panel_seeds": "genexpy_nb.panels.seeds",
    "genexpy_nb.panel_views": "genexpy_nb.panels.views",
    "genexpy_nb.example_study": "genexpy_nb.example.study",
    "genexpy_nb.example_conditions": "genexpy_nb.example.conditions",
    "genexpy_nb.demo": "genexpy_nb.example.demo",
    "genexpy_nb._aggregate_input": "genexpy_nb.aggregates._input",
    "genexpy_nb.kernels": "genexpy_nb.generalizability.kernels",
    "genexpy_nb._gram": "genexpy_nb.generalizability._gram",
    "genexpy_nb.mmd": "genexpy_nb.generalizability.mmd",
    "genexpy_nb.distributions": "genexpy_nb.generalizability.distributions",
    "genexpy_nb.planner": "genexpy_nb.generalizability.planner",
    "genexpy_nb.sensitivity": "genexpy_nb.generalizability.sensitivity",
    "genexpy_nb.synthetic": "genexpy_nb.generalizability.synthetic",
}

#: old dotted name of a function or class -> its new dotted name
MOVED_NAMES: dict[str, str] = {
    # the alpha-hat engine left the robust KS test's module (0.3)
    **{f"genexpy_nb.variability.robust_ks.{name}": f"genexpy_nb.variability.alpha_hat.{name}"
       for name in ("alpha_hat", "alpha_hat_bootstrap", "trimming_curve", "ks_to_reference",
                    "draw_bootstrap", "check_alpha_hat_size", "alpha_hat_on_cluster")},
    "genexpy_nb.significance.save_cd_diagram": "genexpy_nb.charts.save_cd_diagram",
    "genexpy_nb.significance.cd_diagram_svg": "genexpy_nb.charts.cd_diagram_svg",
}


def resolve(dotted: str) -> Any:
    """Return the object named ``dotted`` (``"package.module.name"``), imported on demand."""
    module, _, attr = dotted.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def _warn_moved(old: str, new: str, stacklevel: int) -> None:
    warnings.warn(f"{old} moved to {new}; import it from there (the old path will be removed "
                  "in version 0.4).", DeprecationWarning, stacklevel=stacklevel)


def _moved_module(fullname: str) -> str | None:
    """Return the new path of an old module path, or None."""
    return MOVED_MODULES.get(fullname)


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module path as the module at its new path (the same object)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        new = _moved_module(fullname)
        if new is None or importlib.util.find_spec(new) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: Any) -> Any:
        new = _moved_module(spec.name)
        _warn_moved(spec.name, new, stacklevel=8)
        module = importlib.import_module(new)
        spec.loader_state = module.__spec__  # the import system replaces __spec__: kept here
        return module

    def exec_module(self, module: Any) -> None:
        """Give the module (already executed at its new path) its own spec back."""
        module.__spec__ = module.__spec__.loader_state

    def get_code(self, fullname: str) -> Any:
        """Return the new module's code (``python -m old.path`` still runs)."""
        new = _moved_module(fullname)
        return importlib.util.find_spec(new).loader.get_code(new)


class _WhenImported(importlib.abc.MetaPathFinder):
    """Calls ``callback(module)`` once, right after the module ``name`` is executed."""

    def __init__(self, name: str, callback: Callable[[Any], None]) -> None:
        self.name, self.callback = name, callback

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name or fullname in sys.modules:
            return None
        for finder in sys.meta_path:  # the spec the other finders give
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module, hook = spec.loader.exec_module, self

        def exec_then_call(module: Any) -> None:
            exec_module(module)
            if hook in sys.meta_path:
                sys.meta_path.remove(hook)
            hook.callback(module)

        spec.loader.exec_module = exec_then_call
        return spec


def when_imported(name: str, callback: Callable[[Any], None]) -> None:
    """Run ``callback(module)`` when the module ``name`` is imported (now, if it already is).

    How the charts switch on their offline renderer the moment Altair can draw, without
    importing Altair themselves.
    """
    if name in sys.modules:
        callback(sys.modules[name])
    elif not any(isinstance(f, _WhenImported) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _WhenImported(name, callback))


class _KeepsItsNames(types.ModuleType):
    """A package whose public names an old module path cannot replace.

    Importing ``genexpy_nb.mmd`` (an old path of ``genexpy_nb.generalizability.mmd``) makes
    the import system set the attribute ``mmd`` of ``genexpy_nb`` to the module it loaded,
    which would hide the function ``genexpy_nb.mmd``. A module whose own name is not
    ``package.attribute`` is such an alias: it is not set (``sys.modules`` still has it).
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if (isinstance(value, types.ModuleType)
                and value.__name__ != f"{self.__name__}.{name}"
                and f"{self.__name__}.{name}" in MOVED_MODULES):
            return
        super().__setattr__(name, value)


def _keep_names(package: Any) -> None:
    if type(package) is types.ModuleType:
        package.__class__ = _KeepsItsNames


def install_moved_modules() -> None:
    """Let the old module paths of :data:`MOVED_MODULES` import (once per process).

    The packages that hold an old path keep their public names: importing an old path never
    changes what ``genexpy_nb.<name>`` is (:class:`_KeepsItsNames`).
    """
    if not any(isinstance(f, _MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedModuleFinder())
    for parent in sorted({old.rpartition(".")[0] for old in MOVED_MODULES}):
        when_imported(parent, _keep_names)


def lazy_exports(package: str, names: Mapping[str, str],
                 namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Make the module ``__getattr__`` and ``__dir__`` of a package whose names load lazily.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    names : mapping
        ``{name: where}``: ``where`` is a submodule of ``package`` (``"kernels"``, relative)
        holding ``name``, or a dotted absolute module path (``"genexpy_nb.x.y"``); the
        special value ``"<module>"`` exports the submodule of that name itself, and a value
        ``"<module>:path"`` exports the module at ``path``.
    namespace : dict
        The package's ``globals()``: a resolved name is stored there, so later look-ups do
        not come back.

    Returns
    -------
    getattr_, dir_ : callable
        To assign as the package's ``__getattr__`` and ``__dir__``. An old name listed in
        :data:`MOVED_NAMES` or :data:`MOVED_MODULES` under ``package`` resolves too, with a
        DeprecationWarning.
    """

    def _module(where: str) -> Any:
        if where.startswith("genexpy_nb"):
            return importlib.import_module(where)
        return importlib.import_module(f"{package}.{where}")

    def getattr_(name: str) -> Any:
        where = names.get(name)
        if where is not None:
            if where == "<module>":
                value = _module(name)
            elif where.startswith("<module>:"):
                value = _module(where.split(":", 1)[1])
            else:
                value = getattr(_module(where), name)
            namespace[name] = value  # later look-ups do not come back here
            return value
        old = f"{package}.{name}"
        if old in MOVED_NAMES:
            _warn_moved(old, MOVED_NAMES[old], stacklevel=3)
            return resolve(MOVED_NAMES[old])
        if old in MOVED_MODULES:
            _warn_moved(old, MOVED_MODULES[old], stacklevel=3)
            return importlib.import_module(MOVED_MODULES[old])
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(names))

    return getattr_, dir_
