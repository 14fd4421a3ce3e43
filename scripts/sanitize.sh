#!/usr/bin/env bash
# Builds hooke with AddressSanitizer + UndefinedBehaviorSanitizer (and LeakSanitizer) and runs the
# whole unit suite under it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset asan >/dev/null
# the unit-labelled executables: the core suite, and the desktop app's pure tests when it is built
targets=(hooke hooke_unit_tests)
if cmake --build --preset asan --target help | grep '^hooke_gui_unit_tests:' >/dev/null; then targets+=(hooke_gui_unit_tests); fi
cmake --build --preset asan --parallel "$(nproc)" --target "${targets[@]}"
ctest --preset asan --parallel "$(nproc)"
