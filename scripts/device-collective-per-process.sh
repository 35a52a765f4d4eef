#!/usr/bin/env bash
# On a GPU node: is the collective kind's gap to nccl-tests at one rank a matter of the process's
# history (the points before, their allocations)? Runs each size in a process of its own, REPEATS
# times (buffers allocated with ncclMemAlloc for 1 GiB and moved through slot by slot, as
# nccl-tests does), then one process over all sizes, then nccl-tests' <op>_perf over the same
# sizes with -e 1G (so it rotates through 1 GiB too), default timing and -G 5. Prints, per run,
# the per-iteration median, the loop mean and the graph-replay mean in microseconds.
#
# Usage: scripts/device-collective-per-process.sh --nccl-tests DIR [--gpuharness BIN] [--op OP]
#                                                 [--sizes "16M 64M 256M"] [--repeats N]
set -uo pipefail
nccl_tests="" gpuharness=$(command -v gpuharness || true) op=all_gather sizes="16M 64M 256M" repeats=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nccl-tests) nccl_tests=$2; shift 2 ;;
    --gpuharness) gpuharness=$2; shift 2 ;;
    --op) op=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    *) echo "device-collective-per-process.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ ! -x $gpuharness || ! -x $nccl_tests/${op}_perf ]]; then
  echo "device-collective-per-process.sh: need --nccl-tests DIR (with ${op}_perf) and a gpuharness binary" >&2
  exit 2
fi
work=$(mktemp -d /tmp/gh_coll_per_process.XXXXXX)
cat >"$work/s.yaml" <<YAML
name: per_process
kind: collective
params: {op: $op, bytes: [$(echo $sizes | sed 's/ /, /g')], rotate_bytes: 1G, allocator: nccl_mem_alloc, graph_replays: 5}
ranks: 1
warmup: 5
iterations: 20
YAML
show() {
  python3 - "$1" "$2" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    m = {x["name"]: x["value"] for x in r["metrics"]}
    print("%-16s %6s  median %8.2f  loop %8.2f  graph %8.2f" % (sys.argv[2], r["params"]["bytes"],
          m.get("time_median_us", 0), m.get("time_loop_mean_us", 0), m.get("time_graph_mean_us", 0)))
PY
}
echo "# $op, 1 rank, $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1); nccl: $(ldd "$gpuharness" | awk '/libnccl/ {print $3}')"
for s in $sizes; do
  for k in $(seq 1 "$repeats"); do
    "$gpuharness" run "$work/s.yaml" --backend cuda --filter "*/bytes=$s/*" --out "$work/p$s.$k" >"$work/p$s.$k.log" 2>&1 ||
      echo "gpuharness $s run $k: exit $? (see $work/p$s.$k.log)"
    show "$work/p$s.$k/records.jsonl" "process $k"
  done
done
"$gpuharness" run "$work/s.yaml" --backend cuda --out "$work/all" >"$work/all.log" 2>&1 || echo "gpuharness all sizes: exit $?"
show "$work/all/records.jsonl" "one process"
first=$(echo $sizes | awk '{print $1}')
for g in "" "-G 5"; do
  echo "nccl-tests ${op}_perf -b $first -e 1G -f 4 -g 1 -w 5 -n 20 $g (bytes, time us):"
  "$nccl_tests/${op}_perf" -b "$first" -e 1G -f 4 -g 1 -w 5 -n 20 $g 2>&1 | awk '/^ +[0-9]+ / {print "  " $1, $6}'
done
