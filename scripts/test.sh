#!/usr/bin/env bash
# The README's test command: the package with every extra the tests use, installed editable
# into .venv (created if missing), then the whole suite (unit and property tests, the papers'
# numbers on the public data, every notebook under nbval, the notebooks in a headless
# JupyterLab).
#
#   bash scripts/test.sh [pytest arguments]
#
# Works in a fresh clone, before or after the README's main-job command in the same clone.
# The public results files (encoder benchmark, BIG-bench) come from GENEXPY_NB_DATA_DIR when
# set, else from ../shared/data beside the clone when it holds them, else they are downloaded
# once into the user's cache folder (checked by sha256, with a progress bar); offline, the
# tests and notebooks that need them are skipped and the run says so in one line at its end
# (scripts/public_data.py).
set -euo pipefail

# A relative GENEXPY_NB_DATA_DIR means relative to where the command was run: make it
# absolute before anything changes folder (notebook kernels run in notebooks/).
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
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
VPY="$VENV/bin/python"
"$VPY" -m pip install -q --upgrade pip

# Chromium for tests/test_browser.py (the notebooks in a headless JupyterLab). Installed here
# when this runs as root on Debian/Ubuntu (CI); otherwise install it yourself
# (apt-get install chromium). In CI (CI=true) a missing Chromium fails that test.
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 \
    && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing chromium (apt-get) for the browser test ..."
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
    >/dev/null 2>&1 || echo "chromium could not be installed: tests/test_browser.py will fail"
fi

# torch (the [train] extra, for tests/seedpools/test_experiments.py and notebooks 03/04) is installed
# first and pinned, so that pip takes the CPU build that lies on this machine's disk
# (/opt/wheels, found through pip's find-links) instead of downloading a CUDA build. On a
# plain machine with only PyPI the same line installs PyPI's default build of that version.
# The main job (pip install .) does not install torch at all.
"$VPY" -m pip install -q "torch==2.13.0"
# torch stays pinned here: the test oracle timm pulls torchvision, whose newest release would
# otherwise replace this torch (torchvision 0.28 is the release built for torch 2.13)
"$VPY" -m pip install -q -e ".[test,train,browser,cluster,docs]" "torch==2.13.0"

# numba keeps the compiled kernels in the user's cache folder (~/.cache/genexpy_nb/numba), not
# in the installed package, so pip replaces the main job's install with this editable one and
# leaves nothing behind (tests/test_install_paths.py). Environments made by earlier versions,
# which cached beside the sources, may hold such a left-over folder (no __init__.py): removed.
"$VPY" - <<'EOF'
import shutil
import sysconfig
from pathlib import Path

stale = Path(sysconfig.get_paths()["purelib"]) / "genexpy_nb"
if stale.is_dir() and not (stale / "__init__.py").exists():
    shutil.rmtree(stale)
    print(f"removed the left-over folder of an earlier install: {stale}")
EOF

# the public data files: found, downloaded once, or (offline) missing, with the reason
data_line=$("$VPY" scripts/public_data.py)
case "$data_line" in
  "found "*) export GENEXPY_NB_DATA_DIR="${data_line#found }"; unset GENEXPY_NB_NO_DATA ;;
  *) export GENEXPY_NB_NO_DATA="${data_line#missing }"; unset GENEXPY_NB_DATA_DIR ;;
esac

# the fast part once more with numba's JIT off, so that the kernels' Python source is what
# runs (and what coverage sees): same assertions against the same naive twins
NUMBA_DISABLE_JIT=1 "$VPY" -m pytest -p no:cacheprovider -q \
    tests/generalizability/test_kernels.py tests/generalizability/test_mmd.py tests/generalizability/test_generalizability.py \
    tests/variability/test_variability_ks.py
# the documentation site (scripts/docs.sh: every notebook executed, warnings are errors),
# built before the suite so that tests/test_docs_site.py checks it; GENEXPY_NB_DOCS=0 skips
# it (the check then skips too, except in CI)
if [ "${GENEXPY_NB_DOCS:-1}" != "0" ]; then
  GENEXPY_NB_VENV="$VENV" GENEXPY_NB_DOCS_INSTALL=0 GENEXPY_NB_DOCS_CHECK=0 bash scripts/docs.sh
fi
# the whole suite: unit and property tests, the papers' numbers, every notebook (nbval), the
# built site
exec "$VPY" -m pytest -p no:cacheprovider "$@"
