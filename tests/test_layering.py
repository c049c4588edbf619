"""The import contract of the package: who may import whom (STYLE.md's picture).

A small AST walk over ``genexpy_nb/`` that counts every import, at module level or inside a
function, except those under ``if TYPE_CHECKING:`` (they never run). The rules:

* no import cycle;
* charts draw frames: they import no engine module;
* the statistics (``significance``) import no charts;
* the cluster plumbing (``_cluster``) imports no domain module;
* the seed-pool code imports neither the package's face nor the charts or panels;
* the numba kernels (``_numba``) take arrays: they import only ``config``, the leaf
  ``_validation`` and each other;
* the bottom (``config``, ``_validation``, ``_escape``, ``_codes``, ``_lazy``) imports
  nothing of the package; ``_progress`` (progress bars, costs known up front) only the
  bottom's ``config`` and ``_validation``;
* no private name of a public module is imported by another module (a ``_helper.py``
  module exists for that);
* each cross-cutting policy lives in its one helper: progress bars (``_progress``), atomic
  writes (``_io``), lazy exports and import hooks (``_lazy``), numba flags (``_numba``).

Modules are cut by job, not by length: there is no line gate.

What breaks a rule today is listed below, explicitly, with the reason; remove an entry when
its cause is gone.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from genexpy_nb._lazy import MOVED_MODULES

PKG = Path(__file__).resolve().parents[1] / "genexpy_nb"

#: the one arrow from the charts into the statistics: given raw scores instead of a result,
#: the CD diagram (``cd_diagram(scores, higher_is_better=...)``) turns them into the frame it
#: draws through the public ``critical_difference`` and ``cliques`` of the statistics
#: package, so that the critical difference is computed in one place. Nothing else of the
#: charts reaches an engine module (a Comparison is read duck-typed, through its methods).
CHARTS_ENGINE_ALLOWED = {
    ("genexpy_nb.charts.cd_figure", "genexpy_nb.significance.critical_difference"),
}

#: what charts may import from the package besides each other
CHART_DEPS = {"genexpy_nb._escape", "genexpy_nb._io", "genexpy_nb._validation",
              "genexpy_nb.config", "genexpy_nb._words", "genexpy_nb._lazy",
              "genexpy_nb.study._roles"}
#: the seed-pool package
SEED_POOLS = ("genexpy_nb.seedpools",)
BOTTOM = ("genexpy_nb.config", "genexpy_nb._validation", "genexpy_nb._escape",
          "genexpy_nb._codes", "genexpy_nb._lazy")
#: the progress bars and the costs known up front sit on the bottom: they read the limits
#: and the cost model (config) and refuse with the package's error (_validation), nothing else
ON_THE_BOTTOM = {"genexpy_nb._progress": {"genexpy_nb.config", "genexpy_nb._validation"}}


def _modules() -> dict[str, Path]:
    mods = {}
    for f in PKG.rglob("*.py"):
        parts = list(f.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = f
    return mods


MODS = _modules()


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:``."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return out


def _target(name: str) -> str | None:
    """The package module that importing ``name`` loads last (a name in a module, a module)."""
    while name and name not in MODS:
        name = name.rpartition(".")[0]
    return name or None


def _imports(mod: str) -> set[str]:
    path = MODS[mod]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_nodes(tree)
    base = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                pkg = base[: len(base) - (node.level - 1)]
                m = ".".join(pkg + ([node.module] if node.module else []))
            else:
                m = node.module or ""
            names = [f"{m}.{a.name}" for a in node.names]
        else:
            continue
        for n in names:
            if n.startswith("genexpy_nb"):
                t = _target(n)
                if t and t != mod:
                    out.add(t)
    return out


GRAPH = {m: _imports(m) for m in MODS}


def _cycles() -> list[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(frozenset(comp))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return out


def _under(mod: str, *prefixes: str) -> bool:
    return any(mod == p or mod.startswith(p + ".") for p in prefixes)


def test_the_walker_sees_function_level_imports():
    # module-level imports
    assert "genexpy_nb.generalizability.cluster" in GRAPH["genexpy_nb.generalizability.run"]
    assert "genexpy_nb._cluster" in GRAPH["genexpy_nb.variability._alpha_hat_core"]
    # a function-level import is counted (charts/cd_figure.py draws with Vega on demand)
    assert "genexpy_nb.charts.cd_vega" in GRAPH["genexpy_nb.charts.cd_figure"]


def test_no_import_cycle():
    cycles = set(_cycles())
    assert not cycles, sorted(map(sorted, cycles))


def test_charts_import_no_engine_module():
    bad = {(m, t) for m in GRAPH if _under(m, "genexpy_nb.charts") for t in GRAPH[m]
           if not _under(t, "genexpy_nb.charts") and t not in CHART_DEPS}
    assert bad <= CHARTS_ENGINE_ALLOWED, sorted(bad - CHARTS_ENGINE_ALLOWED)


def test_significance_imports_no_charts():
    bad = {(m, t) for m in GRAPH if _under(m, "genexpy_nb.significance") for t in GRAPH[m]
           if _under(t, "genexpy_nb.charts", "genexpy_nb.panels")}
    assert not bad, sorted(bad)


def test_cluster_plumbing_imports_no_domain_module():
    # (the progress bars' policy is plumbing too: it imports only the bottom)
    assert GRAPH["genexpy_nb._cluster"] <= {"genexpy_nb._validation", "genexpy_nb._progress"}


def test_seed_pools_import_neither_the_face_nor_charts():
    bad = {(m, t) for m in GRAPH if _under(m, *SEED_POOLS) for t in GRAPH[m]
           if t == "genexpy_nb" or _under(t, "genexpy_nb.charts", "genexpy_nb.panels")}
    assert not bad, sorted(bad)


def test_numba_kernels_import_only_config():
    allowed = {"genexpy_nb.config", "genexpy_nb._validation"}
    bad = {(m, t) for m in GRAPH if _under(m, "genexpy_nb._numba") for t in GRAPH[m]
           if t not in allowed and not _under(t, "genexpy_nb._numba")}
    assert not bad, sorted(bad)


#: the bottom's one arrow: ``config`` and ``_progress`` read boolean environment variables
#: with the package's one parser of them, ``_validation.env_flag`` (its errors are the
#: package's input errors); ``_validation`` itself imports nothing of the package
BOTTOM_ALLOWED = {("genexpy_nb.config", "genexpy_nb._validation"),
                  ("genexpy_nb._progress", "genexpy_nb._validation")}


@pytest.mark.parametrize("mod", BOTTOM)
def test_the_bottom_imports_nothing_of_the_package(mod):
    extra = {t for t in GRAPH[mod] if (mod, t) not in BOTTOM_ALLOWED}
    assert not extra, sorted(extra)
    assert not GRAPH["genexpy_nb._validation"]


@pytest.mark.parametrize("mod", sorted(ON_THE_BOTTOM))
def test_the_plumbing_on_the_bottom_imports_only_the_bottom(mod):
    assert GRAPH[mod] <= ON_THE_BOTTOM[mod], sorted(GRAPH[mod])


def _private_imports() -> set[tuple[str, str, str]]:
    """(importer, public module, private name) for every ``from public import _name``.

    A module is public when no part of its path below the package starts with ``_``; a
    private name imported from a ``_helper.py`` module is the helper's purpose and counts
    not. Importing a submodule (``from . import _trimmed_numpy``) is not a name.
    """
    out = set()
    for mod, path in MODS.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        base = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                pkg = base[: len(base) - (node.level - 1)]
                src = ".".join(pkg + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            if not src.startswith("genexpy_nb") or src == mod:
                continue
            if any(part.startswith("_") for part in src.split(".")[1:]):
                continue  # a helper module: its private names are for its siblings
            for alias in node.names:
                name = alias.name
                if (name.startswith("_") and not name.startswith("__")
                        and f"{src}.{name}" not in MODS):
                    out.add((mod, src, name))
    return out


#: private names of public modules still imported by a sibling: each entry is a seam to cut
#: (move the name into a ``_helper.py`` module, or make it public); remove it when it is gone.
#: Empty: the last 27 were cut in issue 36 (an entry added here needs its reason).
PRIVATE_IMPORTS_TO_CUT: set[tuple[str, str, str]] = set()


def test_no_private_name_of_a_public_module_is_imported_by_a_sibling():
    found = _private_imports()
    assert found <= PRIVATE_IMPORTS_TO_CUT, sorted(found - PRIVATE_IMPORTS_TO_CUT)
    gone = PRIVATE_IMPORTS_TO_CUT - found
    assert not gone, f"cut already, remove from the list: {sorted(gone)}"


#: one helper per policy: what may appear only in it
POLICY_HELPERS = {
    "progress bars (tqdm)": (r"^\s*(from|import) tqdm\b", {"genexpy_nb._progress"}),
    "atomic writes": (r"os\.replace\(|mkstemp\(|NamedTemporaryFile\(", {"genexpy_nb._io"}),
    "lazy exports (module __getattr__)": (r"^def __getattr__\(", {"genexpy_nb._lazy"}),
    "import hooks (sys.meta_path)": (r"sys\.meta_path", {"genexpy_nb._lazy"}),
    "numba flags (fastmath)": (r"""fastmath\s*=|["']fastmath["']""", {"genexpy_nb._numba"}),
}


def _code_lines(path: Path) -> str:
    """The module's code without its docstrings and comments (their words may name tqdm)."""
    import io
    import tokenize

    src = path.read_text(encoding="utf-8")
    tree = ast.parse(src)
    doc_lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(
                    getattr(body[0], "value", None), ast.Constant) and isinstance(
                    body[0].value.value, str):
                doc_lines |= set(range(body[0].lineno, body[0].end_lineno + 1))
    lines = src.splitlines()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            r, c = tok.start
            lines[r - 1] = lines[r - 1][:c]
    return "\n".join(line for i, line in enumerate(lines, 1) if i not in doc_lines)


@pytest.mark.parametrize("policy", sorted(POLICY_HELPERS))
def test_a_policy_lives_in_its_one_helper(policy):
    import re

    pattern, helpers = POLICY_HELPERS[policy]
    rx = re.compile(pattern, re.MULTILINE)
    where = {mod for mod, path in MODS.items() if rx.search(_code_lines(path))}
    assert where <= helpers, f"{policy} outside {sorted(helpers)}: {sorted(where - helpers)}"


@pytest.mark.parametrize("old", sorted(MOVED_MODULES))
def test_an_old_module_path_warns_and_is_the_same_module(old):
    import importlib
    import sys

    new = importlib.import_module(MOVED_MODULES[old])
    for name in [m for m in sys.modules if m == old or m.startswith(old + ".")]:
        del sys.modules[name]
    with pytest.warns(DeprecationWarning, match=MOVED_MODULES[old].replace(".", r"\.")):
        got = importlib.import_module(old)
    assert got is new
    assert got.__spec__.name == MOVED_MODULES[old]  # its relative imports resolve


#: the pipeline, bottom to top: a module may import its own layer and the layers below it,
#: never one above (io -> study -> analyses -> charts -> answers -> surfaces). The charts
#: draw frames and sit below the answers, whose pages embed them; the face of the package
#: (``genexpy_nb``) imports from every layer. A package's face may also re-export names of a
#: higher room lazily, by name (``significance.compare`` is the comparison workflow of
#: ``answers.compare``): a string in a table of names, not an import.
LAYERS = (
    ("helpers", ("genexpy_nb.config", "genexpy_nb._validation", "genexpy_nb._escape",
                 "genexpy_nb._codes", "genexpy_nb._progress", "genexpy_nb._lazy",
                 "genexpy_nb._io", "genexpy_nb._words", "genexpy_nb._cluster",
                 "genexpy_nb._numba", "genexpy_nb._version")),
    ("io", ("genexpy_nb.io",)),
    ("study", ("genexpy_nb.study",)),
    ("analyses", ("genexpy_nb.generalizability", "genexpy_nb.significance",
                  "genexpy_nb.aggregates", "genexpy_nb.variability", "genexpy_nb.evals",
                  "genexpy_nb.leaderboards", "genexpy_nb.seedpools")),
    ("charts", ("genexpy_nb.charts",)),
    ("answers", ("genexpy_nb.answers",)),
    ("surfaces", ("genexpy_nb.panels", "genexpy_nb.cli", "genexpy_nb.example",
                  "genexpy_nb.distributed", "genexpy_nb.__main__", "genexpy_nb")),
)


def _layer(mod: str) -> int:
    best = None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if _under(mod, p) and (best is None or len(p) > best[1]):
                best = (i, len(p))
    assert best is not None, f"{mod} is in no layer of the pipeline: place it"
    return best[0]


def test_every_module_has_a_place_in_the_pipeline():
    for mod in MODS:
        _layer(mod)


def test_no_arrow_goes_up_the_pipeline():
    up = sorted((m, t) for m in GRAPH for t in GRAPH[m] if _layer(t) > _layer(m))
    assert not up, up


def test_the_top_level_holds_only_the_face_and_the_helpers():
    top = sorted(p.stem for p in PKG.glob("*.py"))
    public = [n for n in top if not n.startswith("_") and n != "config"]
    assert not public, f"public modules at the top level: {public}; give each its room"


def test_an_old_module_path_never_replaces_a_public_name():
    import importlib
    import warnings

    import genexpy_nb as gx
    import genexpy_nb.significance as sig

    before = {n: getattr(gx, n) for n in gx.__all__}
    before_sig = {n: getattr(sig, n) for n in sig.__all__}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for old in MOVED_MODULES:
            importlib.import_module(old)
    assert {n: getattr(gx, n) for n in gx.__all__} == before
    assert {n: getattr(sig, n) for n in sig.__all__} == before_sig
    assert callable(gx.mmd) and callable(sig.compare)
