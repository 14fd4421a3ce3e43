#!/usr/bin/env bash
# Runs, on the GPU machine and from a build folder carried there: the CUDA tests, compute-sanitizer
# (memcheck, racecheck) on the whole-CG tests, then hooke-bench-gpu; logs and the JSON go to $OUT.
# Builds nothing and never touches the GPU's settings. Usage: run_on_device.sh [BUILD_DIR]
set -u
B=${1:-build-gpubench}
OUT=${OUT:-/tmp/hooke-gpu-out}
mkdir -p "$OUT"
export PATH=$PATH:/usr/local/cuda/bin
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
for d in /opt/torch/.venv/lib/python3*/site-packages/nvidia/*/lib; do
  [ -d "$d" ] && LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$d
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv >"$OUT/smi.txt" 2>&1
ldd "$B/bench/gpu/hooke-bench-gpu" | grep "not found"

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  timeout "${TEST_TIMEOUT:-120}" "$B/tests/hooke_cuda_tests" >"$OUT/tests.log" 2>&1
  echo "tests rc=$?"
  grep -E "^\[  FAILED  \]|^\[  PASSED  \]|tests? ran|^\[  SKIPPED \] [0-9]" "$OUT/tests.log" | head -40
  timeout 45 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/tests/hooke_cuda_tests" \
    --gtest_filter='WholeCgCap.*:WholeCgChoice.*' >"$OUT/sanitizer.log" 2>&1
  echo "memcheck rc=$?"
  timeout 45 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/tests/hooke_cuda_tests" \
    --gtest_filter='WholeCgCap.*' >>"$OUT/sanitizer.log" 2>&1
  echo "racecheck rc=$?"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.log" | head
fi

timeout "${BENCH_TIMEOUT:-260}" "$B/bench/gpu/hooke-bench-gpu" \
  --json "$OUT/gpu-h200-$(date -u +%F).json" --budget "${BUDGET:-200}" >"$OUT/bench.log" 2>&1
echo "bench rc=$?"
grep -E "^hooke-bench-gpu|^floors" "$OUT/bench.log"
sed -n '/^tolerance/,$p' "$OUT/bench.log"
