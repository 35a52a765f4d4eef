#!/usr/bin/env bash
# On a GPU node (under scripts/node-run.sh --package TGZ): the side-by-side measurement against
# nccl-tests at one rank, in one run. Per pass (two by default), one program after another:
#   1. nccl-tests' sendrecv_perf, 1M..4G (x4), -w 10 -n 50, its default timing (no event between
#      iterations; `time` = host clock around the 50 back-to-back iterations / 50), then again with
#      -G 7 (the 50 iterations captured in a CUDA graph, launched 7 times: time / (50 x 7));
#   2. gpuharness ring_shift over nccl_p2p and nccl_device at the same sizes, warm-up 10,
#      50 iterations, and nccl_ce (the copy engine) when the binary knows it;
#   3. with --before BIN, the same nccl_p2p/nccl_device points through another gpuharness
#      (an older build: before/after in the same run);
#   4. like for like on the buffers: sendrecv_perf once per size with -b S -e S (its buffers
#      exactly S, as the harness's), loop and -G 7, against ring_shift nccl_p2p with
#      `allocator: nccl_mem_alloc` (what nccl-tests allocates with) and the default cudaMalloc.
#      nccl-tests' sweep moves size S in a prefix of buffers allocated for the largest size,
#      which shifts some sizes by 1-3 % on the H200 (docs/performance.md).
# scripts/compare_ring_shift_bandwidth.py then prints, per pass, every statistic side by side:
# nccl-tests' time against gpuharness's time_loop_mean_us (the same statistic) and its
# per-iteration median, nccl-tests -G against time_graph_mean_us (graph_replays: 7), and the
# device transports against the in-run copy. No NCCL tuning
# variable is set for either program (NCCL_NVLS_ENABLE=0 comes from node-run.sh).
# Output: stdout, OUT/perf_gaps.txt, OUT/perf_gaps_logs.tgz (every log and records file).
#
# Usage: scripts/device-perf-gaps.sh --sendrecv-perf PATH [--gpuharness BIN] [--before BIN]
#                                    [--passes N] [--out OUT]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/device-flags.sh"
out=$PWD/gpu-results
sendrecv_perf=""
gpuharness=""
before=""
passes=2
gh_device_flags device-perf-gaps.sh --out:out --sendrecv-perf:sendrecv_perf \
  --gpuharness:gpuharness --before:before --passes:passes -- "$@"
[[ -n $gpuharness ]] || gpuharness=$(gh_node_program gpuharness)
for f in "$sendrecv_perf" "$gpuharness" ${before:+"$before"}; do
  if [[ ! -x $f ]]; then
    echo "device-perf-gaps.sh: not an executable: '$f' (--sendrecv-perf is required)" >&2
    exit 2
  fi
done
work=$(mktemp -d /tmp/gh_perf_gaps.XXXXXX)
mkdir -p "$out"
report=$out/perf_gaps.txt
: >"$report"
note() { echo "$*" | tee -a "$report"; }

sizes="[1M, 4M, 16M, 64M, 256M, 1G, 4G]"
scenario() {  # NAME TRANSPORTS [EXTRA PARAMS]
  cat >"$work/$1.yaml" <<YAML
name: $1
kind: ring_shift
params: {bytes: $sizes, dtype: f32, transport: $2${3:+, $3}}
ranks: 1
timeout: 120s
warmup: 10
iterations: 50
YAML
}
has_ce=0 has_graph=0 has_allocator=0
listing=$("$gpuharness" list ring_shift 2>/dev/null)
grep -q nccl_ce <<<"$listing" && has_ce=1
grep -q graph_replays <<<"$listing" && has_graph=1
grep -q nccl_mem_alloc <<<"$listing" && has_allocator=1
# graph_replays is read by nccl_p2p only; an older --before binary without it gets none.
scenario perf_gaps "[nccl_p2p, nccl_device]" "$([[ $has_graph == 1 ]] && echo 'graph_replays: 7')"
scenario perf_gaps_before "[nccl_p2p, nccl_device]"
scenario perf_gaps_ce "[nccl_ce]"
scenario perf_gaps_ncclmem "[nccl_p2p]" "graph_replays: 7, allocator: nccl_mem_alloc"

note "# device-perf-gaps.sh, $(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
note "# nccl: $(ldd "$gpuharness" | awk '/libnccl/ {print $3}'); env: $(env | grep -E '^NCCL_' | sort | tr '\n' ' ')"
for pass in $(seq 1 "$passes"); do
  "$sendrecv_perf" -b 1M -e 4G -f 4 -g 1 -w 10 -n 50 >"$work/nccl_tests_$pass.txt" 2>&1
  "$sendrecv_perf" -b 1M -e 4G -f 4 -g 1 -w 10 -n 50 -G 7 >"$work/nccl_tests_graph_$pass.txt" 2>&1
  args=(--nccl-tests "$work/nccl_tests_$pass.txt" --nccl-tests-graph "$work/nccl_tests_graph_$pass.txt")
  if [[ -n $before ]]; then
    "$before" run "$work/perf_gaps_before.yaml" --out "$work/before_$pass" --backend cuda >"$work/before_$pass.log" 2>&1
    args+=(--records "before=$work/before_$pass/records.jsonl")
  fi
  "$gpuharness" run "$work/perf_gaps.yaml" --out "$work/after_$pass" --backend cuda >"$work/after_$pass.log" 2>&1
  args+=(--records "after=$work/after_$pass/records.jsonl")
  if [[ $has_ce == 1 ]]; then
    "$gpuharness" run "$work/perf_gaps_ce.yaml" --out "$work/ce_$pass" --backend cuda >"$work/ce_$pass.log" 2>&1
    args+=(--records "after_ce=$work/ce_$pass/records.jsonl")
  fi
  note ""
  note "## pass $pass"
  python3 "$root/scripts/compare_ring_shift_bandwidth.py" "${args[@]}" 2>&1 | tee -a "$report"
  if [[ $has_allocator == 1 ]]; then
    : >"$work/nccl_tests_exact_$pass.txt"
    : >"$work/nccl_tests_exact_graph_$pass.txt"
    for size in ${sizes//[][,]/}; do
      "$sendrecv_perf" -b "$size" -e "$size" -g 1 -w 10 -n 50 >>"$work/nccl_tests_exact_$pass.txt" 2>&1
      "$sendrecv_perf" -b "$size" -e "$size" -g 1 -w 10 -n 50 -G 7 >>"$work/nccl_tests_exact_graph_$pass.txt" 2>&1
    done
    "$gpuharness" run "$work/perf_gaps_ncclmem.yaml" --out "$work/ncclmem_$pass" --backend cuda \
      >"$work/ncclmem_$pass.log" 2>&1
    note ""
    note "## pass $pass, exact buffers: sendrecv_perf -b S -e S per size; ncclmem = allocator nccl_mem_alloc"
    python3 "$root/scripts/compare_ring_shift_bandwidth.py" --nccl-tests "$work/nccl_tests_exact_$pass.txt" \
      --nccl-tests-graph "$work/nccl_tests_exact_graph_$pass.txt" \
      --records "ncclmem=$work/ncclmem_$pass/records.jsonl" --records "after=$work/after_$pass/records.jsonl" \
      2>&1 | sed '/^device transports/,$d' | tee -a "$report"
  fi
done
tar czf "$out/perf_gaps_logs.tgz" -C "$work" .
