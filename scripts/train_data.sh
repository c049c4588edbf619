#!/usr/bin/env bash
# Regenerate the seed pools shipped in data/ (SPEC B4 at small scale; see data/POOLS.md).
# Single-threaded on CPU; about 20-25 minutes of one core in all. Interrupt at any time: running
# the script again continues every pool where it stopped (per-model results in data/*.partial/).
# SCHEDULER=local (one worker process per core) or SCHEDULER=tcp://host:8786 trains the models
# on a Dask cluster (genexpy_nb[cluster]); the pools are the same bits either way.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
SCHED=(${SCHEDULER:+--scheduler "$SCHEDULER"})
"$PY" -m genexpy_nb.experiments.transfer --out data/transfer_digits.npz --models 90 --seed 0 \
    "${SCHED[@]}"
for src in init order both; do
    "$PY" -m genexpy_nb.experiments.cnn_seeds --out "data/cnn_digits_${src}.npz" \
        --source "$src" --models 200 --seed 0 "${SCHED[@]}"
done
"$PY" -m genexpy_nb.experiments.manifest data
