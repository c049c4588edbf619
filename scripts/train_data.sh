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
# the small ViT pre-trained on fractals (about 2-3 CPU-minutes of compute on one idle core;
# 38 min of wall time on the shared machine), then its pools
"$PY" -m genexpy_nb.experiments.pretrain --out data/vit_fractal_backbone.npz
"$PY" -m genexpy_nb.experiments.transfer --out data/transfer_vit_fractal.npz --backbone fractal-vit --models 90 --seed 0
"$PY" -m genexpy_nb.experiments.transfer --out data/transfer_vit_random.npz --backbone random-vit --models 90 --seed 0
"$PY" -m genexpy_nb.experiments.transfer --out data/finetune_vit_fractal.npz --backbone finetune-vit --models 40 --seed 0
# the 'both' pool at 300 models (Table I up to 200 members from 200 candidates)
"$PY" -m genexpy_nb.experiments.cnn_seeds --out data/cnn_digits_both300.npz --source both --models 300 --seed 0
# a harder task (fractals, 8x8): does initialisation still vary more than batch order?
for src in init order; do
    "$PY" -m genexpy_nb.experiments.cnn_seeds --out "data/cnn_fractals_${src}.npz" --source "$src" \
        --models 50 --seed 0 --dataset fractals --epochs 20
done
"$PY" -m genexpy_nb.experiments.manifest data
