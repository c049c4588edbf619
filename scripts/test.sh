#!/usr/bin/env bash
# The README's test command: a fresh venv, the package with its test extras, the whole suite
# (unit tests, property tests, notebooks under nbval).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
VENV="${GENEXPY_NB_VENV:-.venv}"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# torch: the CPU build (the [train] extra); installed first so that nothing pulls a CUDA build
"$VENV/bin/python" -m pip install -q "torch==2.13.0"
"$VENV/bin/python" -m pip install -q -e ".[test,train,browser,cluster]"
# the fast part once more with numba's JIT off, so that the kernels' Python source is what
# runs (and what coverage sees): same assertions against the same naive twins
NUMBA_DISABLE_JIT=1 "$VENV/bin/python" -m pytest -p no:cacheprovider -q \
    tests/test_kernels.py tests/test_mmd.py tests/test_generalizability.py \
    tests/test_variability_ks.py
# the whole suite: unit and property tests, the papers' numbers, every notebook (nbval)
exec "$VENV/bin/python" -m pytest -p no:cacheprovider "$@"
