#!/usr/bin/env bash
# Long-run checks of hooke (docs/RELIABILITY.md "Long runs"):
#   headless  `hooke run` of N solves on a 32 x 32 cloth, resident memory (VmRSS) sampled every
#             second: start, after warm-up, peak, end, and the growth from warm-up to the end
#   gui       the desktop app under Xvfb for M seconds (`hooke --exit-after M --report`), with
#             the same sampling, plus the frames drawn and the GL errors from its report
#   lsan      an ASan build's `hooke run` (LeakSanitizer is on with ASan): any leak or sanitizer
#             report fails it
# Each prints one summary line and writes its samples and report under --out.
#
# Usage: scripts/soak.sh [headless|gui|lsan|all]... [options]
#   --build DIR        build with the hooke to soak (default: build)
#   --asan-build DIR   ASan build for lsan (default: build-asan)
#   --backend B        auto | cpu | cuda for headless and gui (default: auto)
#   --solves N         headless solves (default: 1000000)
#   --lsan-solves N    lsan solves (default: 20000)
#   --gui-seconds M    gui run length (default: 600)
#   --warmup S         seconds before the growth baseline (default: 10)
#   --out DIR          where samples and reports go (default: soak-out)
#   --run-args "..."   more `hooke run` flags for headless, e.g. "--integrator symplectic --dt 1e-4"
#                      (a flag given here replaces the default of the same name)
# Exit status: 0 when every check passed (growth under 1 %, no GL errors, no leaks), else 1.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
asan_build=build-asan
backend=auto
solves=1000000
lsan_solves=20000
gui_seconds=600
warmup=10
out=soak-out
checks=()
run_args=()
while (($#)); do
  case "$1" in
    headless | gui | lsan) checks+=("$1") ;;
    all) checks+=(headless gui lsan) ;;
    --build) build=$2; shift ;;
    --asan-build) asan_build=$2; shift ;;
    --backend) backend=$2; shift ;;
    --solves) solves=$2; shift ;;
    --lsan-solves) lsan_solves=$2; shift ;;
    --gui-seconds) gui_seconds=$2; shift ;;
    --warmup) warmup=$2; shift ;;
    --out) out=$2; shift ;;
    --run-args) read -r -a run_args <<<"$2"; shift ;;
    -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
((${#checks[@]})) || checks=(headless gui lsan)
mkdir -p "$out"
failed=0

# samples VmRSS (kB) of PID every second into FILE as "seconds,kB" until the process ends
sample_rss() {
  local pid=$1 file=$2 rss
  local t0=${EPOCHREALTIME/,/.}
  echo "seconds,rss_kb" >"$file"
  while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    if [[ -n "$rss" ]]; then
      awk -v a="$t0" -v b="${EPOCHREALTIME/,/.}" -v r="$rss" 'BEGIN { printf "%.2f,%d\n", b - a, r }' >>"$file"
    fi
    sleep 1
  done
}

# "start S kB, after warm-up W kB, peak P kB, end E kB, growth G %" from a samples file; the
# growth is from the first sample at or after the warm-up to the last one
summarize_rss() {
  awk -F, -v warm="$warmup" 'NR > 1 {
      n++; if (n == 1) start = $2; if (!base && $1 >= warm) base = $2
      if ($2 > peak) peak = $2; end = $2 }
    END {
      if (!base) base = start
      printf "samples %d, start %d kB, after %ss %d kB, peak %d kB, end %d kB, growth %.3f %% (peak %.3f %%)",
             n, start, warm, base, peak, end, 100 * (end - base) / base, 100 * (peak - base) / base }' "$1"
}

growth_ok() {  # growth from warm-up to end under 1 %
  awk -F, -v warm="$warmup" 'NR > 1 { n++; if (n == 1) start = $2; if (!base && $1 >= warm) base = $2; end = $2 }
    END { if (!base) base = start; exit !(n > 0 && 100 * (end - base) / base < 1.0) }' "$1"
}

run_headless() {
  local hooke="$build/src/app/hooke"
  [[ -x "$hooke" ]] || { echo "soak.sh: no $hooke (build it first)" >&2; exit 2; }
  # skip 0: one solve per tick, so --steps counts solves
  # the defaults, less any flag --run-args gives (hooke takes each flag once)
  local args=(run) flag value
  for flag in --scene:cloth --res:32 --backend:"$backend" --dt:0.01 --skip:0; do
    value=${flag#*:} flag=${flag%%:*}
    [[ " ${run_args[*]-} " == *" $flag "* ]] || args+=("$flag" "$value")
  done
  args+=(--steps "$solves" --report "$out/headless-report.json" ${run_args[@]+"${run_args[@]}"})
  echo "headless: ${hooke} ${args[*]}"
  local t0=$SECONDS
  "$hooke" "${args[@]}" >"$out/headless.out" 2>"$out/headless.err" &
  local pid=$!
  sample_rss "$pid" "$out/headless-rss.csv"
  local rc=0
  wait "$pid" || rc=$?
  local line
  line="headless: exit $rc, $solves solves in $((SECONDS - t0)) s, $(summarize_rss "$out/headless-rss.csv")"
  echo "$line" | tee "$out/headless-summary.txt"
  if ((rc != 0)) || ! growth_ok "$out/headless-rss.csv"; then failed=1; fi
}

run_gui() {
  local hooke="$build/src/app/hooke"
  [[ -x "$hooke" ]] || { echo "soak.sh: no $hooke (build it first)" >&2; exit 2; }
  local args=(--scene cloth --res 32 --backend "$backend" --no-settings
              --exit-after "$gui_seconds" --report "$out/gui-report.json")
  echo "gui: xvfb-run ${hooke} ${args[*]}"
  local t0=$SECONDS
  xvfb-run -a -s "-screen 0 1600x1000x24" "$hooke" "${args[@]}" >"$out/gui.out" 2>"$out/gui.err" &
  local wrapper=$!
  # the hooke process under xvfb-run
  local pid=""
  for _ in $(seq 1 50); do
    pid=$(pgrep -P "$wrapper" -f "src/app/hooke" || true)
    [[ -z "$pid" ]] && pid=$(pgrep -f "^$hooke ${args[0]}" | head -1 || true)
    [[ -n "$pid" ]] && break
    sleep 0.2
  done
  if [[ -n "$pid" ]]; then sample_rss "$pid" "$out/gui-rss.csv"; fi
  local rc=0
  wait "$wrapper" || rc=$?
  local gl_errors frames solves
  gl_errors=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['gl_errors'])" \
    "$out/gui-report.json" 2>/dev/null || echo "?")
  frames=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['frames'])" \
    "$out/gui-report.json" 2>/dev/null || echo "?")
  solves=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['solves'])" \
    "$out/gui-report.json" 2>/dev/null || echo "?")
  local logged
  logged=$(grep -c "OpenGL error" "$out/gui.err" || true)
  local line="gui: exit $rc, ${gui_seconds} s in $((SECONDS - t0)) s wall, $frames frames, $solves solves, GL errors $gl_errors (logged $logged)"
  if [[ -f "$out/gui-rss.csv" ]]; then line="$line, $(summarize_rss "$out/gui-rss.csv")"; fi
  echo "$line" | tee "$out/gui-summary.txt"
  if ((rc != 0)) || [[ "$gl_errors" != 0 ]] || [[ ! -f "$out/gui-rss.csv" ]] ||
    ! growth_ok "$out/gui-rss.csv"; then failed=1; fi
}

run_lsan() {
  local hooke="$asan_build/src/app/hooke"
  [[ -x "$hooke" ]] || { echo "soak.sh: no $hooke (cmake --preset asan && cmake --build --preset asan --target hooke)" >&2; exit 2; }
  local args=(run --scene cloth --res 32 --backend "$backend" --dt 0.01 --skip 0
              --steps "$lsan_solves" --report "$out/lsan-report.json")
  echo "lsan: ${hooke} ${args[*]}"
  local t0=$SECONDS rc=0
  ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$hooke" "${args[@]}" >"$out/lsan.out" 2>"$out/lsan.err" || rc=$?
  local reports
  reports=$(grep -cE "ERROR: (LeakSanitizer|AddressSanitizer)|runtime error:" "$out/lsan.err" || true)
  echo "lsan: exit $rc, $lsan_solves solves in $((SECONDS - t0)) s, sanitizer reports $reports" |
    tee "$out/lsan-summary.txt"
  if ((rc != 0 || reports != 0)); then failed=1; fi
}

for check in "${checks[@]}"; do
  "run_$check"
done
exit "$failed"
