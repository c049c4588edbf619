"""Sphinx configuration of genexpy_nb's documentation site (``bash scripts/docs.sh``).

Toolchain: Sphinx with MyST-NB (notebooks and Markdown pages), numpydoc (the docstrings'
sections) and sphinx-book-theme. It is what the scientific-Python projects our users compare
us with use: NumPy, SciPy, pandas and Altair build with Sphinx + numpydoc on the PyData
theme, and sphinx-book-theme is that theme made for pages that are notebooks (Jupyter Book's
theme, from the same Executable Books project as MyST-NB), with a Binder launch button on
each notebook page. Everything runs offline: no extension here loads anything from a
network at build time or in the reader's browser (see ``_ext/gx_vega.py`` for the charts;
math is written in Unicode so that no MathJax is needed).

What is generated at each build (not in git): ``notebooks/`` (the executed notebooks,
``_ext/gx_notebooks.py``), ``api/`` and ``cli.rst`` (``_ext/gx_api.py``), ``_generated/``
and ``_static/generated/`` (the home page's figure) and ``_static/vendor/`` (Vega).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(ROOT))  # the checkout's package, whatever else is installed

import genexpy_nb  # noqa: E402

project = "genexpy_nb"
author = "genexpy_nb developers"
copyright = "genexpy_nb developers"
version = release = genexpy_nb.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx.ext.intersphinx",
    "gx_notebooks",
    "gx_api",
    "gx_vega",
]

root_doc = "index"
exclude_patterns = ["_build", "_ext", "**.ipynb_checkpoints", "README.md"]
templates_path: list[str] = []

# -- MyST and MyST-NB -----------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]  # no dollarmath: no MathJax needed
myst_heading_anchors = 3
nb_execution_mode = "off"  # gx_notebooks executes them, with a cache keyed on the package
nb_ipywidgets_js: dict = {}  # never load a widget manager from a CDN
nb_output_stderr = "show"
nb_merge_streams = True

# -- autodoc / numpydoc -----------------------------------------------------------------
autosummary_generate = False  # gx_api writes one page per public name itself
autodoc_typehints = "none"  # the numpydoc sections say the types
autodoc_member_order = "bysource"
autodoc_default_options = {"exclude-members": "__init__, __new__, __weakref__, __dict__"}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()  # scripts/check_docstrings.py reports them

# cross-references: nitpicky, so that a broken reference fails the build (-W), in the site's
# own pages and in the package's docstrings alike (nothing is held back)
nitpicky = True
intersphinx_mapping: dict = {}  # offline: no inventories are downloaded
# ... so names of other libraries (base classes, types) have no target here
nitpick_ignore_regex = [
    (r"py:.*", r"(torch|distributed|dask|polars|pl|numpy|np|altair|alt|pandas|pd|pyarrow|"
               r"scipy|ipywidgets|anywidget|sklearn|numba|statsmodels|builtins)(\..*)?"),
    # private base classes (shown by show-inheritance) have no page of their own
    (r"py:class", r"genexpy_nb(\.\w+)*\._\w+"),
]

# -- HTML ---------------------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_title = f"genexpy_nb {release}"
html_static_path = ["_static"]
html_css_files = ["genexpy.css"]
# opened from a file, the search lists its hits without snippets and says how to serve the
# folder (instead of an error per hit in the console)
html_js_files = ["genexpy_search.js"]
html_last_updated_fmt = None
html_copy_source = False  # no _sources/: the pages are the source (and notebooks on Binder)
html_show_sourcelink = False
html_theme_options = {
    # the README's Binder badge: .../v2/gh/genexpy-nb/genexpy_nb/HEAD?urlpath=lab/tree/...
    "repository_url": "https://github.com/genexpy-nb/genexpy_nb",
    "repository_branch": "HEAD",
    # notebook pages are docs/notebooks/<name>.ipynb, generated from the repository's
    # notebooks/<name>.ipynb: with an empty path_to_docs the launch button opens the latter
    "path_to_docs": "",
    "launch_buttons": {"binderhub_url": "https://mybinder.org",
                       "notebook_interface": "jupyterlab"},
    "use_repository_button": True,
    "use_edit_page_button": False,
    "use_source_button": False,
    "use_issues_button": False,
    "use_download_button": False,
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
html_context = {"default_mode": "light"}


def _strip_mathjax(app, pagename, templatename, context, doctree):  # pragma: no cover
    """No page loads MathJax from a CDN (the site has no math; this keeps it so)."""
    context["script_files"] = [s for s in context.get("script_files", [])
                               if not re.search(r"mathjax", str(s), re.I)]


def setup(app):
    app.connect("html-page-context", _strip_mathjax)
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
