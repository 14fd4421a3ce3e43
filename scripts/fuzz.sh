#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each from its seed corpus for a
# bounded time. Any crash, hang (> 10 s per input) or sanitizer report fails the script.
# Usage: scripts/fuzz.sh [seconds per target, default 60]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
bash scripts/install-deps.sh
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --parallel "$(nproc)" --target hooke_fuzz_scene_json hooke_fuzz_tetgen
for target in scene_json tetgen; do
  work="build-fuzz/corpus-$target"
  mkdir -p "$work" "build-fuzz/artifacts-$target"
  echo "fuzz: $target for ${seconds}s"
  "build-fuzz/tests/fuzz/hooke_fuzz_$target" "$work" "tests/fuzz/corpus/$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="build-fuzz/artifacts-$target/" -print_final_stats=1 2>&1 |
    grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY|Done)" || true
  if ls "build-fuzz/artifacts-$target"/* >/dev/null 2>&1; then
    echo "fuzz: $target found a failing input: $(ls build-fuzz/artifacts-$target/)" >&2
    exit 1
  fi
done
echo "fuzz: no crash, hang or sanitizer report"
