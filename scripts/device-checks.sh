#!/usr/bin/env bash
# The checks hooke runs on a CUDA machine (the lent H200: ../shared/device/README.md), from a build
# folder made elsewhere and carried there: the cuda-labelled tests, compute-sanitizer on chosen
# tests, `hooke render` frame timing through CUDA–GL interop, the GPU soak. Logs and results go to
# $OUT. Builds nothing and never touches the GPU's settings.
#   Usage: scripts/device-checks.sh [BUILD_DIR] [tests|sanitize|frames|soak]...   (default: all)
set -u
cd "$(dirname "$0")/.."
B=${1:-build-device}
shift || true
steps=("$@")
((${#steps[@]})) || steps=(tests sanitize frames soak)
OUT=${OUT:-/tmp/hooke-device-out}
mkdir -p "$OUT"
export PATH=$PATH:/usr/local/cuda/bin
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}

# the tests spawn the hooke the build names by its absolute path (…/main/build-device/…)
root=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$B/CMakeCache.txt")
if [ -n "$root" ] && [ "$root" != "$PWD" ] && [ ! -e "$root" ]; then
  mkdir -p "$(dirname "$root")" && ln -s "$PWD" "$root"
fi
# GL dispatch libraries (libglvnd) for EGL on the NVIDIA driver, when carried in .gl/
if [ -d .gl ] && ! ldconfig -p | grep -q libEGL.so.1; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >"$OUT/smi.txt" 2>&1
git rev-parse HEAD >"$OUT/commit.txt" 2>/dev/null

for step in "${steps[@]}"; do
  case $step in
    tests)
      timeout "${TEST_TIMEOUT:-300}" ctest --test-dir "$B" -L cuda --output-on-failure \
        --output-junit "$OUT/ctest-cuda.xml" >"$OUT/ctest-cuda.log" 2>&1
      echo "ctest -L cuda rc=$?"
      tail -n 25 "$OUT/ctest-cuda.log"
      # the CLI tests that use the device (failover through the CUDA fault hook)
      timeout 120 "$B/tests/hooke_unit_tests" --gtest_filter='*Failover*:*failover*' \
        >"$OUT/failover.log" 2>&1
      echo "failover cli rc=$?"
      grep -E "^\[  (FAILED|PASSED|SKIPPED) " "$OUT/failover.log" | head
      # hooke render through CUDA–GL interop (label gl, run here for the CUDA case)
      timeout 120 "$B/tests/hooke_gl_tests" --gtest_filter='RenderCommand.*' >"$OUT/render-gl.log" 2>&1
      echo "render gl tests rc=$?"
      grep -E "^\[  (FAILED|PASSED|SKIPPED) " "$OUT/render-gl.log" | head
      ;;
    sanitize)
      # the fault-injection tests launch a refused kernel on purpose: sanitizers count it
      for tool in memcheck racecheck synccheck; do
        filter=${SANITIZE_FILTER:-*-CudaFaultInjection.*}
        [ $tool = racecheck ] && filter=${RACECHECK_FILTER:-$filter}
        timeout "${SANITIZE_TIMEOUT:-100}" compute-sanitizer --tool $tool --error-exitcode 9 \
          "$B/tests/hooke_cuda_tests" --gtest_filter="$filter" \
          >"$OUT/sanitizer-$tool.log" 2>&1
        echo "$tool rc=$?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-$tool.log" | tr '\n' ' ')"
        grep -E "^\[  (FAILED|PASSED) " "$OUT/sanitizer-$tool.log" | head -3
      done
      ;;
    frames)
      # the app's loop at 60 Hz: cloth 128 and 256, implicit, dt 0.01, skip auto; CUDA through
      # interop, and the CPU backend's host upload for comparison
      for run in cuda:128 cpu:128 cuda:256; do
        backend=${run%%:*} res=${run##*:} frames=600
        [ $backend = cpu ] && frames=30
        {
          timeout 200 "$B/src/app/hooke" render --scene cloth --res $res --dt 0.01 --time 1 \
            --frames $frames --backend $backend --width 1280 --height 800 \
            --out "$OUT/frame-$backend-$res.png" --frame-report "$OUT/frames-$backend-$res.json" \
            2>&1 | tee -a "$OUT/frames.log" | head -3
        }
      done
      ;;
    soak)
      timeout "${SOAK_TIMEOUT:-400}" scripts/soak.sh headless --build "$B" --backend cuda \
        --solves "${SOAK_SOLVES:-1000000}" --out "$OUT/soak" ${SOAK_ARGS:-} 2>&1 | tail -n 5
      ;;
  esac
done
