#!/usr/bin/env bash
# Runs the README's main-job command, exactly as written there, in a fresh clone of this
# repository's HEAD and a fresh virtual environment; checks that it wrote its outputs.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cmd=$(awk '/^\*\*Main job\*\*/{f=1} f && /^```bash/{getline; print; exit}' "$repo/README.md")
[ -n "$cmd" ] || { echo "main-job command not found in README.md"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/clone"
cd "$work/clone"
echo "main job: $cmd"
bash -c "$cmd"
for f in nstar.parquet plan.csv nstar_vs_N.csv deficits.html; do
  [ -s "genexpy_demo/$f" ] || { echo "main job did not write genexpy_demo/$f"; exit 1; }
done
echo "main job: OK ($(ls genexpy_demo | wc -l) files in genexpy_demo/)"
