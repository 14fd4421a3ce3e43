#!/usr/bin/env bash
# Builds hooke with AddressSanitizer + UndefinedBehaviorSanitizer (and LeakSanitizer) and runs the
# whole unit suite under it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset asan >/dev/null
cmake --build --preset asan --parallel "$(nproc)" --target hooke hooke_unit_tests
ctest --preset asan --parallel "$(nproc)"
