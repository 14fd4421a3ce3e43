#!/usr/bin/env bash
# The main job on a fresh machine: builds hooke, then runs it with the given arguments.
# Without arguments it simulates 5 s of the 32x32 cloth and writes out/report.json.
# Usage: scripts/run.sh [hooke arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >&2
if [ $# -eq 0 ]; then
  mkdir -p out
  set -- run --scene cloth --res 32 --duration 5 --report out/report.json
fi
exec ./build/src/app/hooke "$@"
