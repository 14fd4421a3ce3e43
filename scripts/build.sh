#!/usr/bin/env bash
# Installs the Debian packages hooke needs (if missing), configures and builds the release preset.
# Usage: scripts/build.sh [extra cmake configure arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release "$@"
cmake --build --preset release --parallel "$(nproc)"
