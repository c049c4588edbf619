"""The API and command-line references, generated from the package at every build.

**API.** The documented modules are ``genexpy_nb``, every public subpackage of it that
declares ``__all__``, every module named in ``genexpy_nb.__all__``, :data:`EXTRA_MODULES`
and :data:`PLAIN_MODULES` (see :func:`documented_modules`); their public names are their
``__all__``. Each module gets a page (``api/<module>.rst``: its summary and a table of its
names) and each name a page of its own (``api/generated/<module>.<name>.rst``) whose anchor
is the qualified name, e.g.
``api/generated/genexpy_nb.analyze.html#genexpy_nb.analyze``. Nothing is listed by hand, so
the reference follows the package when modules move.

**CLI.** ``cli.rst`` holds ``genexpy-nb --help`` and, for every subcommand the parser of
:func:`genexpy_nb.cli.build_parser` has, a section with its ``--help`` text as the user sees
it (argparse's own formatting, 100 columns).

Files are rewritten only when their text changes, and pages of names that disappeared are
removed, so incremental builds re-read only what changed.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import io
import os
import pkgutil
import types
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

#: modules documented besides those found from the package
EXTRA_MODULES: tuple[str, ...] = ()
#: subpackages not documented on a page of their own: the panels' explorers, the readers of
#: ``io`` and the ``Study`` of ``study`` are documented under :mod:`genexpy_nb` (a second page
#: for a class is a duplicate object description), and the command line has its own page
#: (``cli.rst``)
SKIPPED_MODULES: frozenset[str] = frozenset({"genexpy_nb.panels", "genexpy_nb.cli",
                                             "genexpy_nb.io", "genexpy_nb.study"})


def documented_modules() -> list[str]:
    """The modules whose ``__all__`` the API reference documents, package first."""
    import genexpy_nb

    mods = ["genexpy_nb"]
    for name in genexpy_nb.__all__:
        value = getattr(genexpy_nb, name, None)
        if isinstance(value, types.ModuleType):  # under the name of its room
            mods.append(value.__name__)
    for info in pkgutil.iter_modules(genexpy_nb.__path__):
        if info.ispkg and not info.name.startswith("_"):
            full = f"genexpy_nb.{info.name}"
            if full in SKIPPED_MODULES:
                continue
            try:
                mod = importlib.import_module(full)
            except ImportError:
                continue
            if hasattr(mod, "__all__"):
                mods.append(full)
    for full in (*EXTRA_MODULES, *PLAIN_MODULES):
        try:
            importlib.import_module(full)
        except ImportError:
            continue
        mods.append(full)
    return list(dict.fromkeys(mods))


#: plain modules (not subpackages, not in genexpy_nb.__all__) whose public names are not all
#: documented elsewhere: the result classes of nstar_summary / seeds_summary (genexpy_nb.panels
#: is not one: its explorers are documented under genexpy_nb, and a second page for a class
#: is a duplicate object description)
PLAIN_MODULES: tuple[str, ...] = ("genexpy_nb.answers.summary",)


def kind_of(obj: Any) -> str:
    if isinstance(obj, types.ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return "data"


def public_names(module: str) -> list[tuple[str, str]]:
    """``(name, kind)`` for every name of ``module.__all__`` (kind: module, class, ...)."""
    mod = importlib.import_module(module)
    return [(name, kind_of(getattr(mod, name))) for name in mod.__all__]


def all_public_names() -> dict[str, list[tuple[str, str]]]:
    return {m: public_names(m) for m in documented_modules()}


_DIRECTIVE = {"class": "autoclass", "exception": "autoexception", "function": "autofunction",
              "data": "autodata"}
_HEADINGS = (("module", "Modules"), ("class", "Classes"), ("exception", "Exceptions"),
             ("function", "Functions"), ("data", "Constants"))


def _title(text: str, under: str = "=") -> str:
    return f"{text}\n{under * len(text)}\n"


def name_page(module: str, name: str, kind: str, same_as: str | None = None) -> str:
    """The page of one public name; ``same_as``: the page that already documents its object.

    A class exported by two documented modules (``genexpy_nb.GeneralizabilityAnalysis`` is
    ``genexpy_nb.generalizability.GeneralizabilityAnalysis``) is described in full once, on
    the first module's page: autodoc registers a class under its defining module's name too
    (its canonical name), so a second full description would be a duplicate object. The
    second page keeps its anchor and points to the first.
    """
    full = f"{module}.{name}"
    if same_as is not None:
        role = "exc" if kind == "exception" else "class"
        return "\n".join([_title(full), "", f".. currentmodule:: {module}", "",
                          f".. py:{role}:: {name}", "   :no-index-entry:", "",
                          f"   The same {kind} as :{role}:`{same_as}`, documented there.",
                          ""])
    body = [_title(full), "",
            f".. currentmodule:: {module}", "", f".. {_DIRECTIVE[kind]}:: {name}"]
    if kind in ("class", "exception"):
        body += ["   :members:", "   :show-inheritance:"]
    return "\n".join(body) + "\n"


def module_page(module: str, names: list[tuple[str, str]], documented: list[str]) -> str:
    lines = [f".. _api-{module}:", "", _title(module), "",
             f".. automodule:: {module}", "   :no-members:", "",
             f".. currentmodule:: {module}", ""]
    pages: list[str] = []
    for kind, heading in _HEADINGS:
        group = [n for n, k in names if k == kind]
        if not group:
            continue
        lines += [_title(heading, "-"), ""]
        if kind == "module":
            for n in group:
                full = f"{module}.{n}"
                target = f":doc:`{full}`" if full in documented else f"``{full}``"
                lines.append(f"* {target}")
            lines.append("")
            continue
        lines += [".. autosummary::", "   :nosignatures:", ""]
        lines += [f"   {n}" for n in group]
        lines.append("")
        pages += [f"generated/{module}.{n}" for n in group]
    if pages:
        lines += [".. toctree::", "   :hidden:", ""] + [f"   {p}" for p in pages] + [""]
    return "\n".join(lines)


def index_page(modules: list[str], counts: dict[str, int]) -> str:
    lines = [".. _api:", "", _title("API reference"), "",
             "Every public name of the package, one page each, generated from the docstrings "
             "of the installed package (the names each module lists in ``__all__``). "
             "``import genexpy_nb as gx`` gives the names of the first page; the others are "
             "imported from their module, e.g. ``from genexpy_nb import variability as vb``.",
             "", ".. list-table::", "   :header-rows: 1", "", "   * - module",
             "     - public names"]
    for m in modules:
        lines += [f"   * - :doc:`{m}`", f"     - {counts[m]}"]
    lines += ["", ".. toctree::", "   :hidden:", ""] + [f"   {m}" for m in modules] + [""]
    return "\n".join(lines)


def _write(path: Path, text: str, keep: set[Path]) -> None:
    keep.add(path)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def write_api(srcdir: Path) -> None:
    api = srcdir / "api"
    keep: set[Path] = set()
    names = all_public_names()
    modules = list(names)
    first: dict[int, str] = {}  # id of a class -> the name it is documented under
    for m, ns in names.items():
        _write(api / f"{m}.rst", module_page(m, ns, modules), keep)
        for n, k in ns:
            if k == "module":
                continue
            same_as = None
            if k in ("class", "exception"):
                obj = getattr(importlib.import_module(m), n)
                same_as = first.setdefault(id(obj), f"{m}.{n}")
                same_as = None if same_as == f"{m}.{n}" else same_as
            _write(api / "generated" / f"{m}.{n}.rst", name_page(m, n, k, same_as), keep)
    _write(api / "index.rst", index_page(modules, {m: len(ns) for m, ns in names.items()}),
           keep)
    for p in api.rglob("*.rst"):
        if p not in keep:
            p.unlink()


# --------------------------------------------------------------------------------------
# command line


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands of ``parser`` (name -> parser), in the parser's order."""
    for action in parser._actions:  # argparse keeps subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _help(parser: argparse.ArgumentParser) -> str:
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal's width
    try:
        buf = io.StringIO()
        with redirect_stdout(buf):
            parser.print_help()
        return buf.getvalue().rstrip()
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


def _literal(text: str) -> list[str]:
    return [".. code-block:: text", ""] + [("    " + line) if line.strip() else ""
                                            for line in text.splitlines()]


def cli_page() -> str:
    from genexpy_nb.cli import build_parser

    parser = build_parser()
    subs = subcommands(parser)
    lines = [".. _cli:", "", _title("Command line"), "",
             "``genexpy-nb`` is installed with the package (``python -m genexpy_nb`` does the "
             "same). Every command reads tidy files and writes tidy files, atomically. This "
             "page is generated from the command's own parser, so it is what ``--help`` "
             "prints.", "", ".. contents:: Commands", "   :local:", "   :depth: 1", "",
             _title("genexpy-nb", "-"), ""]
    lines += _literal(_help(parser)) + [""]
    helps = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
    for name, sub in subs.items():
        lines += [f".. _cli-{name}:", "", _title(f"genexpy-nb {name}", "-"), ""]
        if helps.get(name):
            lines += [helps[name][0].upper() + helps[name][1:] + ".", ""]
        lines += _literal(_help(sub)) + [""]
    return "\n".join(lines)


def write_cli(srcdir: Path) -> None:
    _write(srcdir / "cli.rst", cli_page(), set())


def generate(app: Sphinx) -> None:
    srcdir = Path(app.srcdir)
    write_api(srcdir)
    write_cli(srcdir)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", generate, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
