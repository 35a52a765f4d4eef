#!/usr/bin/env bash
# windowed_einsum's GPU run on one node, inside scripts/node-run.sh (which sets PATH,
# LD_LIBRARY_PATH, NCCL_NVLS_ENABLE=0 and the Open MPI root switches):
#   scripts/node-run.sh --package TGZ --tests TESTS -- scripts/windowed_einsum_device.sh OUT
# Writes six files to OUT (default gpu-results):
#   gemm_vs_cublas.md  the harness's GEMM step against cuBLAS alone, same shapes, one process
#   sweep.log          console of the 1-rank sweep and of 2 and 4 ranks sharing the GPU
#   table.md           the shard-sweep table (scripts/windowed_einsum_table.py)
#   records.jsonl      every record of the three sweeps
#   environment.json   the 1-rank run's environment fingerprint
#   gpu_tests.log      ctest -R WindowedEinsumGpu
# WE_SHARED_RANKS (default "2 4") picks the shared-GPU rank counts; WE_ONLY_SHARED=1 skips the
# 1-rank sweep and the GPU tests (for a follow-up run).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/device-flags.sh"
out=${1:-$PWD/gpu-results}
mkdir -p "$out"
gh_node_program gemm_step_baseline >/dev/null
bin=$GH_TESTS_BUILD/bin
results=$(mktemp -d /tmp/we_results.XXXXXX)

echo "== gemm_step_baseline $(date -u +%T)"
{
  "$bin/gemm_step_baseline" --dtype bf16
  "$bin/gemm_step_baseline" --dtype f32 \
    --shapes 1024x4096x1024,1024x4096x4096,4096x4096x1024,4096x4096x4096,2048x1024x4096
  "$bin/gemm_step_baseline" --dtype bf16 --shapes 2048x1024x4096,1024x2048x4096,2048x2048x4096
} > "$out/gemm_vs_cublas.md" 2>&1
tail -3 "$out/gemm_vs_cublas.md"

only_shared=${WE_ONLY_SHARED:-0}
: > "$out/sweep.log"
if [[ "$only_shared" != 1 ]]; then
  echo "== sweep at 1 rank $(date -u +%T)"
  timeout 240 "$bin/gpuharness" run scenarios/windowed_einsum.yaml --out "$results/np1" \
    --backend cuda >> "$out/sweep.log" 2>&1
  echo "exit $?" >> "$out/sweep.log"
fi
for np in ${WE_SHARED_RANKS:-2 4}; do
  echo "== $np ranks sharing the GPU $(date -u +%T)"
  timeout 120 mpirun --oversubscribe -np "$np" -x PATH -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE \
    "$bin/gpuharness" run scenarios/windowed_einsum_shared.yaml --out "$results/np$np" \
    --backend cuda --share-gpu >> "$out/sweep.log" 2>&1
  echo "exit $? (np=$np)" >> "$out/sweep.log"
done
grep -E "points:|^exit" "$out/sweep.log"

python3 scripts/windowed_einsum_table.py "$results"/np* > "$out/table.md" 2>&1
cat "$results"/np*/records.jsonl > "$out/records.jsonl" 2>/dev/null
cp "$(ls "$results"/np*/environment.json | head -1)" "$out/environment.json" 2>/dev/null

if [[ "$only_shared" == 1 ]]; then
  echo "== done $(date -u +%T)"
  exit 0
fi
echo "== GPU tests $(date -u +%T)"
ctest --test-dir "$GH_TESTS_BUILD" -R WindowedEinsumGpu --output-on-failure --timeout 240 \
  > "$out/gpu_tests.log" 2>&1
tail -12 "$out/gpu_tests.log"
echo "== done $(date -u +%T)"
