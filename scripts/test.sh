#!/usr/bin/env bash
# Builds hooke and runs every test: the unit suite everywhere; the cuda suite runs where a GPU is
# present and is reported as skipped where not.
# Usage: scripts/test.sh [ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --preset release --parallel "$(nproc)" "$@"
