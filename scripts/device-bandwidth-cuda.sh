#!/usr/bin/env bash
# On a GPU node (under scripts/node-run.sh --package TGZ --tests TESTS): ring_shift through the harness against raw
# NCCL at one rank, each run both as launched and pinned to one core (taskset), to tell host
# enqueue effects (small sizes are bound by the CPU's ncclGroupEnd) from the harness's own cost.
# Also prints the CPU affinity a singleton gpuharness gets. Tables to stdout and
# OUT/cuda_bandwidth.txt. Usage: scripts/device-bandwidth-cuda.sh [--out OUT] [--core N]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/device-flags.sh"
out=$PWD/gpu-results
core=3
gh_device_flags device-bandwidth-cuda.sh --out:out --core:core -- "$@"
gh=$(gh_node_program gpuharness)
baseline=$(gh_node_program nccl_sendrecv_baseline)
cd "$root"
work=$(mktemp -d /tmp/gh_bw.XXXXXX)
mkdir -p "$out"
report=$out/cuda_bandwidth.txt
: >"$report"
note() { echo "$*" | tee -a "$report"; }

note "# ring_shift vs raw NCCL, 1 rank, $(date -u +%FT%TZ); nproc $(nproc); launcher affinity: $(grep Cpus_allowed_list /proc/self/status | cut -f2)"
"$gh" run scenarios/ring_shift_bandwidth.yaml --out "$work/affinity" --backend cuda >/dev/null 2>&1 &
pid=$!
sleep 1
note "singleton gpuharness affinity: $(grep Cpus_allowed_list /proc/$pid/status 2>/dev/null | cut -f2)"
wait $pid

for pass in 1 2; do
  for mode in free pinned; do
    pin=()
    [[ $mode == pinned ]] && pin=(taskset -c "$core")
    "${pin[@]}" "$baseline" >"$work/base_${mode}_$pass.txt" 2>&1
    "${pin[@]}" "$gh" run scenarios/ring_shift_bandwidth.yaml \
      --out "$work/bw_${mode}_$pass" --backend cuda >"$work/bw_${mode}_$pass.log" 2>&1
    note ""
    note "## pass $pass, $mode$( [[ $mode == pinned ]] && echo " (taskset -c $core)")"
    python3 scripts/compare_ring_shift_bandwidth.py "$work/base_${mode}_$pass.txt" \
      "$work/bw_${mode}_$pass/records.jsonl" 2>&1 | tee -a "$report"
  done
done
tar czf "$out/cuda_bandwidth_logs.tgz" -C "$work" .
