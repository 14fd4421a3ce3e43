#!/usr/bin/env bash
# A/B runs of hooke-bench-gpu builds, alternating, for the device machine (../shared/device):
# for each repeat, each system and each build in turn (the builds' order reversed on every second
# repeat), one process of
#   BINARY --scene SYSTEM [--paths PATHS] --budget BUDGET --json F --commit LABEL
# so that every build sees the same drift of the machine; then every result merged, in run order,
# into one {"runs": [...]} file that `scripts/perf_tables.py repeats OUT` reads (medians per build
# and path). A build's BINARY may be gzipped (NAME.gz, unpacked to a temporary file first). A
# process that fails, or writes no readable result, is reported on stderr and left out; the exit
# code is then 1.
#   Usage: scripts/device-ab.sh OUT.json REPEATS "SYSTEM ..." PATHS LABEL=BINARY [LABEL=BINARY...]
#          SYSTEM: cloth:RES or volume:RES; PATHS: a --paths list, or - for the main-table rows
#          only; LABEL: letters, digits, '.' and '_'. BUDGET: $AB_BUDGET seconds (20).
set -u
usage() { echo "device-ab.sh: $1 (usage: device-ab.sh OUT.json REPEATS \"SYSTEM ...\" PATHS LABEL=BINARY...)" >&2; exit 2; }
(($# >= 5)) || usage "expects an output, a repeat count, systems, paths and at least one build"
out=$1 repeats=$2 systems=$3 paths=$4
shift 4
[[ $repeats =~ ^[1-9][0-9]?$ ]] || usage "REPEATS is a whole number from 1 to 99, not '$repeats'"
budget=${AB_BUDGET:-20}
[[ $budget =~ ^[1-9][0-9]*$ ]] || usage "AB_BUDGET is a whole number of seconds, not '$budget'"
read -r -a system_list <<<"$systems"
((${#system_list[@]})) || usage "no system given"
for s in "${system_list[@]}"; do
  [[ $s =~ ^(cloth|volume):[0-9]+$ ]] || usage "a system is cloth:RES or volume:RES, not '$s'"
done
[[ $paths == - || $paths =~ ^[a-z0-9.,-]+$ ]] || usage "PATHS is a --paths list or -, not '$paths'"
[[ $out == *.json ]] || usage "the output is a .json file, not '$out'"
# the output's folder must take the merged file before any run is spent
(: >"$out.tmp") 2>/dev/null || usage "cannot write '$out.tmp'"
rm -f "$out.tmp"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
labels=() binaries=()
for build in "$@"; do
  label=${build%%=*} binary=${build#*=}
  [[ $build == *=* && $label =~ ^[A-Za-z0-9._]+$ ]] || usage "a build is LABEL=BINARY, LABEL of letters, digits, '.' and '_', not '$build'"
  for l in ${labels[@]+"${labels[@]}"}; do
    [[ $l != "$label" ]] || usage "the label '$label' is given twice"
  done
  [[ -f $binary ]] || usage "no file '$binary' for build '$label'"
  binary=$(realpath -- "$binary")  # a bare name would be looked up on PATH by timeout
  if [[ $binary == *.gz ]]; then
    gunzip -c "$binary" >"$work/$label.bin" 2>/dev/null || usage "'$binary' is not gzip"
    chmod +x "$work/$label.bin"
    binary=$work/$label.bin
  fi
  [[ -x $binary ]] || usage "'$binary' is not executable"
  labels+=("$label") binaries+=("$binary")
done
status=0 count=0
for ((rep = 1; rep <= repeats; ++rep)); do
  order=("${!labels[@]}")
  if ((rep % 2 == 0)); then
    for ((k = 0; k < ${#labels[@]}; ++k)); do order[k]=$((${#labels[@]} - 1 - k)); done
  fi
  for s in "${system_list[@]}"; do
    for k in "${order[@]}"; do
      count=$((count + 1))
      f=$work/run-$(printf %04d $count).json
      args=(--scene "$s" --budget "$budget" --json "$f" --commit "${labels[$k]}")
      [[ $paths == - ]] || args+=(--paths "$paths")
      if ! timeout $((budget * 3 + 60)) "${binaries[$k]}" "${args[@]}" >"$f.log" 2>&1 || [[ ! -s $f ]]; then
        echo "device-ab.sh: ${labels[$k]} $s (repeat $rep) failed: $(tail -n 1 "$f.log")" >&2
        rm -f "$f"
        status=1
      fi
    done
  done
  echo "device-ab.sh: repeat $rep of $repeats done" >&2
done
python3 - "$work" "$out.tmp" <<'PY'
import glob, json, os, sys
runs, bad = [], 0
for f in sorted(glob.glob(os.path.join(sys.argv[1], "run-*.json"))):
    try:
        with open(f) as fh:
            runs.append(json.load(fh))
    except (OSError, ValueError) as e:
        print(f"device-ab.sh: {os.path.basename(f)} is not a readable result: {e}", file=sys.stderr)
        bad += 1
with open(sys.argv[2], "w") as fh:
    json.dump({"runs": runs}, fh)
sys.exit(1 if bad else 0)
PY
merged=$?
[[ -f $out.tmp ]] || exit 1
mv "$out.tmp" "$out"
((merged == 0)) || status=1
exit $status
