#!/usr/bin/env bash
# On the GPU machine (through scripts/device-run.sh): the perf comparison's acceptance runs of
# issue 17 (docs/performance.md, "Perf comparison on the H200").
#   aa    ring_shift 1K..4G (scenarios/ring_shift_bandwidth.yaml) run twice, each its own
#         process, the second compared with the first: every flagged metric is a false alarm.
#   slow  the same configuration once more under a slowing environment (default
#         NCCL_MAX_NCHANNELS=1; --env 'NCCL_PROTO=LL'), compared with the first run.
# Usage: scripts/device-perf-compare.sh aa|slow [--name NAME] [--env 'VAR=VALUE ...']
#        [--threshold PCT]. Results under $OUT/perf_<mode>/; summary to $OUT/perf_<mode>.txt.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/device-flags.sh"
mode=${1:-}
case "$mode" in aa|slow) shift ;; *) echo "usage: $0 aa|slow [--name NAME] [--env 'VAR=VALUE ...'] [--threshold PCT]" >&2; exit 2 ;; esac
name=device
env_text="NCCL_MAX_NCHANNELS=1"
threshold=5%
gh_device_flags device-perf-compare.sh --name:name --env:env_text --threshold:threshold -- "$@"
cd "$root"
gh=build-$name/bin/gpuharness
out=${OUT:-/tmp/gh_device_out}
dir=$out/perf_$mode
rm -rf "$dir"
mkdir -p "$dir"
scenario=scenarios/ring_shift_bandwidth.yaml
"$gh" run "$scenario" --backend cuda --out "$dir/base" >"$dir/base.log" 2>&1
if [ "$mode" = aa ]; then
  "$gh" run "$scenario" --backend cuda --out "$dir/now" >"$dir/now.log" 2>&1
else
  # shellcheck disable=SC2086  # VAR=VALUE words on purpose
  env $env_text "$gh" run "$scenario" --backend cuda --out "$dir/now" >"$dir/now.log" 2>&1
fi
"$gh" report "$dir/now" --baseline "$dir/base" --perf-threshold "$threshold" >"$dir/report.log" 2>&1
status=$?
{
  echo "# perf $mode, $(date -u +%FT%TZ), threshold $threshold$([ "$mode" = slow ] && echo ", now under $env_text")"
  tail -n 3 "$dir/report.log"
  echo "report exit status: $status"
  # Every compared metric: the change column of the markdown table, or "no change".
  sed -n '/^## Performance vs baseline/,/^## /p' "$dir/now/summary.md"
} | tee "$out/perf_$mode.txt"
