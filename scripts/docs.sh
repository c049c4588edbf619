#!/usr/bin/env bash
# The documentation site, built offline into docs/_build/html (open docs/_build/html/index.html;
# it works from file:// too, search included): the guide, every notebook executed with its
# charts, the API reference generated from the docstrings, the command-line reference.
#
#   bash scripts/docs.sh
#
# The public results files (notebooks 01, 02, 05) are found or downloaded once as in
# scripts/test.sh (scripts/public_data.py); offline, those notebooks' pages are built without
# outputs and the build says so in its last line.
#
# Like scripts/test.sh it installs what it needs into .venv (created if missing): the package
# editable with the `docs` extra (Sphinx, MyST-NB, numpydoc, sphinx-book-theme; pytest and
# Playwright for the check of the built site, and Chromium when run as root on
# Debian/Ubuntu), `train`
# (torch: notebooks 03/04 and the API pages of the training code) and `cluster` (dask).
# Executed notebooks are cached in docs/_build/.notebook_cache (keyed on each notebook's code
# and the package's source), so a second build executes only what changed. Warnings fail the
# build (-W --keep-going). Afterwards tests/test_docs_site.py checks the built site (pages,
# charts, no CDN, API and CLI coverage; in headless Chromium with the network off: charts
# draw, search finds).
#
# Environment: GENEXPY_NB_VENV   the virtual environment (default .venv)
#              GENEXPY_NB_DOCS_INSTALL=0   install nothing (scripts/test.sh has installed)
#              GENEXPY_NB_DOCS_CHECK=0     skip the check of the built site
#              GENEXPY_NB_DOCS_NOTEBOOKS=00_quickstart,...  execute only these (iterating;
#                                          the others: cached outputs, or none)
#              GENEXPY_NB_DOCS_EXECUTE=0   execute none (iterating)
set -euo pipefail

# A relative GENEXPY_NB_DATA_DIR means relative to where the command was run (as in test.sh)
if [ -n "${GENEXPY_NB_DATA_DIR:-}" ]; then
  case "$GENEXPY_NB_DATA_DIR" in
    /*) ;;
    *) GENEXPY_NB_DATA_DIR="$(pwd)/$GENEXPY_NB_DATA_DIR" ;;
  esac
  [ -d "$GENEXPY_NB_DATA_DIR" ] || {
    echo "GENEXPY_NB_DATA_DIR=$GENEXPY_NB_DATA_DIR is not a folder" >&2; exit 2; }
  GENEXPY_NB_DATA_DIR="$(cd "$GENEXPY_NB_DATA_DIR" && pwd)"
  export GENEXPY_NB_DATA_DIR
fi

cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
VENV="${GENEXPY_NB_VENV:-.venv}"
VPY="$VENV/bin/python"

if [ "${GENEXPY_NB_DOCS_INSTALL:-1}" != "0" ]; then
  [ -x "$VPY" ] || "$PY" -m venv "$VENV"
  "$VPY" -m pip install -q --upgrade pip
  # torch pinned as in scripts/test.sh (the CPU build on this machine's disk; PyPI's default
  # elsewhere); tests/test_docs_site.py keeps the two pins equal
  "$VPY" -m pip install -q "torch==2.13.0"
  "$VPY" -m pip install -q -e ".[docs,train,cluster]" "torch==2.13.0"
  # Chromium for the browser part of the check (as in scripts/test.sh): installed when this
  # runs as root on Debian/Ubuntu; elsewhere that part is skipped (apt-get install chromium)
  if [ "${GENEXPY_NB_DOCS_CHECK:-1}" != "0" ] && ! command -v chromium >/dev/null 2>&1 \
      && ! command -v chromium-browser >/dev/null 2>&1 && [ "$(id -u)" = 0 ] \
      && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium (apt-get) for the check of the built site ..."
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
      >/dev/null 2>&1 || echo "chromium could not be installed: the browser check is skipped"
  fi
fi

# the checkout's package, whatever else is installed (also in the notebooks' kernels)
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
# the public data files (scripts/test.sh has looked for them already when it runs this)
if [ -z "${GENEXPY_NB_NO_DATA:-}" ]; then
  data_line=$("$VPY" scripts/public_data.py)
  case "$data_line" in
    "found "*) export GENEXPY_NB_DATA_DIR="${data_line#found }" ;;
    *) export GENEXPY_NB_NO_DATA="${data_line#missing }"; unset GENEXPY_NB_DATA_DIR ;;
  esac
fi
# compile the numerical kernels into numba's cache first (10-20 s quiet, once): the
# notebooks then show no compile notes and do not each pay for compiling
"$VPY" -m genexpy_nb precompile --quiet
start=$(date +%s)
"$VPY" -m sphinx -W --keep-going -q -b html docs docs/_build/html
pages=$(find docs/_build/html -name '*.html' | wc -l)
echo "docs: site built in $(( $(date +%s) - start )) s, $pages pages: docs/_build/html/index.html"
if [ -n "${GENEXPY_NB_NO_DATA:-}" ]; then
  echo "docs: the notebooks that read the public data files are shown without outputs: $GENEXPY_NB_NO_DATA"
fi

if [ "${GENEXPY_NB_DOCS_CHECK:-1}" != "0" ]; then
  # addopts cleared: the project's defaults name nbval's options, and nbval comes with the
  # test extra, not with the docs extra this script installs
  "$VPY" -m pytest -p no:cacheprovider -o addopts="" -q tests/test_docs_site.py
fi
