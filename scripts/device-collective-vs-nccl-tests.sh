#!/usr/bin/env bash
# On a GPU node (under scripts/node-run.sh --package TGZ): the collective kind beside nccl-tests, one
# rank, one call. Per pass, for each of the 11 ops: nccl-tests' <op>_perf -b 1M -e 1G -f 4 -g 1
# -w 5 -n 20 (its default timing) and again with -G 5, each to JSON; then gpuharness over the same
# ops, sizes and placements (out of place and in place), warm-ups and iterations, in buffers
# allocated with ncclMemAlloc for 1 GiB and moved through slot by slot as nccl-tests does
# (`rotate_bytes: 1G`), with graph_replays: 5. scripts/compare_collective_nccl_tests.py then
# prints the ratios: nccl-tests time / harness time on the same statistic (loop vs `time`,
# graph vs -G). No NCCL tuning variable is set for either program (NCCL_NVLS_ENABLE=0 comes from
# node-run.sh).
# Output: stdout, OUT/collective_vs_nccl_tests.md, OUT/collective_vs_nccl_tests_logs.tgz.
#
# Usage: scripts/device-collective-vs-nccl-tests.sh --nccl-tests DIR [--gpuharness BIN]
#                                                   [--passes N] [--ops "all_reduce ..."]
#                                                   [--out OUT]
#   DIR: nccl-tests' build directory (its *_perf binaries); OUT: default ./gpu-results.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
nccl_tests=""
gpuharness=""
passes=2
out=$PWD/gpu-results
ops="all_reduce all_gather reduce_scatter broadcast reduce alltoall alltoallv gather scatter sendrecv hypercube"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nccl-tests) nccl_tests=$2; shift 2 ;;
    --gpuharness) gpuharness=$2; shift 2 ;;
    --passes) passes=$2; shift 2 ;;
    --ops) ops=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "device-collective-vs-nccl-tests.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n $gpuharness ]] || gpuharness=$(command -v gpuharness)
if [[ ! -x $gpuharness || ! -d $nccl_tests ]]; then
  echo "device-collective-vs-nccl-tests.sh: need --nccl-tests DIR and a gpuharness binary" >&2
  exit 2
fi
work=$(mktemp -d /tmp/gh_coll_vs_nt.XXXXXX)
mkdir -p "$out" "$work/nt"
warmup=${GH_COLL_WARMUP:-5} iters=${GH_COLL_ITERS:-20} graphs=5  # GH_COLL_*: the A/B of warm-up length

cat >"$work/collective_vs_nccl_tests.yaml" <<YAML
name: coll_vs_nt
kind: collective
params:
  op: [$(echo $ops | sed 's/ /, /g')]
  bytes: [1M, 4M, 16M, 64M, 256M, 1G]
  in_place: [false, true]
  rotate_bytes: 1G
  allocator: nccl_mem_alloc
  graph_replays: $graphs
ranks: 1
timeout: 300s
warmup: $warmup
iterations: $iters
YAML
# Ops without an in-place form skip it (only those asked for: the loader refuses a value the
# axis does not take).
no_in_place=$(for op in $ops; do case $op in sendrecv|alltoall|alltoallv) printf '%s, ' "$op" ;; esac; done)
if [[ -n $no_in_place ]]; then
  printf 'expect:\n  - when: {op: [%s], in_place: true}\n    outcome: skip\n' "${no_in_place%, }" \
    >>"$work/collective_vs_nccl_tests.yaml"
fi

{
  echo "# collective vs nccl-tests, $(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
  echo "# nccl: $(ldd "$gpuharness" | awk '/libnccl/ {print $3}'); env: $(env | grep -E '^NCCL_' | sort | tr '\n' ' ')"
  echo "# nccl-tests: <op>_perf -b 1M -e 1G -f 4 -g 1 -w $warmup -n $iters [-G $graphs] -J ...; gpuharness run $work/collective_vs_nccl_tests.yaml --backend cuda"
} | tee "$out/collective_vs_nccl_tests.md"
records=()
for pass in $(seq 1 "$passes"); do
  for op in $ops; do
    for mode in loop graph; do
      extra=()
      [[ $mode == graph ]] && extra=(-G "$graphs")
      "$nccl_tests/${op}_perf" -b 1M -e 1G -f 4 -g 1 -w "$warmup" -n "$iters" "${extra[@]}" \
        -J "$work/nt/${op}_${mode}_${pass}.json" >"$work/nt/${op}_${mode}_${pass}.log" 2>&1 ||
        echo "nccl-tests $op $mode pass $pass: exit $? (see its log)"
    done
  done
  "$gpuharness" run "$work/collective_vs_nccl_tests.yaml" --backend cuda --out "$work/gh_$pass" \
    >"$work/gh_$pass.log" 2>&1 || echo "gpuharness pass $pass: exit $? (see gh_$pass.log)"
  records+=(--records "$work/gh_$pass/records.jsonl")
done
python3 "$root/scripts/compare_collective_nccl_tests.py" --nccl-tests "$work/nt" "${records[@]}" |
  tee -a "$out/collective_vs_nccl_tests.md"
tar -czf "$out/collective_vs_nccl_tests_logs.tgz" -C "$work" . 2>/dev/null
