#!/usr/bin/env bash
# Regenerate the seed pools shipped in data/ (SPEC B4 at small scale; see data/MANIFEST.md).
# Single-threaded on CPU; about 20-25 minutes of one core in all. Interrupt at any time: running
# the script again continues every pool where it stopped (per-model results in data/*.partial/).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
"$PY" -m genexpy_nb.experiments.transfer --out data/transfer_digits.npz --models 90 --seed 0
for src in init order both; do
    "$PY" -m genexpy_nb.experiments.cnn_seeds --out "data/cnn_digits_${src}.npz" \
        --source "$src" --models 200 --seed 0
done
"$PY" -m genexpy_nb.experiments.pools data
