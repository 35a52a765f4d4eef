#!/usr/bin/env bash
# The cuda backend's GPU run on one node, under scripts/node-run.sh --package TGZ --tests TESTS:
# the cuda unit tests, the GPU CTest tests, `gpuharness run` at 1 rank and with
# 2 and 4 ranks sharing the GPU (console tables), and ring_shift through the harness against raw
# NCCL (bench/nccl_sendrecv_baseline), twice each, interleaved, in the same run.
# Writes OUT/cuda_summary.txt (everything the report needs) and OUT/cuda_logs.tgz (all logs);
# prints the summary last. Usage: scripts/device-check-cuda.sh [--out OUT] [--no-unit]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/device-flags.sh"
out=$PWD/gpu-results
unit=1
gh_device_flags device-check-cuda.sh --out:out --no-unit:unit=0 -- "$@"
gh_node_program gh_runtime_test >/dev/null
build=$GH_TESTS_BUILD
bin=$build/bin
cd "$root"
mkdir -p "$out"
work=$(mktemp -d /tmp/gh_cuda_check.XXXXXX)
logs=$work/cuda_logs
mkdir -p "$logs"
summary=$out/cuda_summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

# Runs a command (killed after $limit s) with its output in $logs/NAME.log; notes the exit
# status and the wall time.
limit=120
logged() {
  local log=$1; shift
  local start=$SECONDS
  echo "\$ $*" >"$logs/$log.log"
  timeout -k 5 "$limit" "$@" >>"$logs/$log.log" 2>&1
  local rc=$?
  note "[$log: exit $rc, $((SECONDS - start)) s]"
  return $rc
}

note "# gpuharness cuda check, $(date -u +%FT%TZ), $(hostname)"
nvidia-smi >"$logs/nvidia-smi.log" 2>&1
note "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv,noheader 2>&1 | head -1)"
note "nccl: $(ldd "$bin/gpuharness" | awk '/libnccl/ {print $3}')  cuda runtime: $(ldd "$bin/gpuharness" | awk '/libcudart/ {print $3}')"
note "mpi: $(mpirun --version 2>&1 | head -1)"
note "env: NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-unset} LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"

note ""
note "## cuda unit tests (gh_runtime_test)"
logged runtime_cuda_unit "$bin/gh_runtime_test" \
  --gtest_filter='*Nccl*:*Cuda*:*VisibleGpu*:*ReturnIfError*:*ProcDriver*'
grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$logs/runtime_cuda_unit.log" | tee -a "$summary"

note ""
note "## GPU tests: ctest -R gpuharness.gpu.RingShiftGpu"
limit=360 logged ctest_gpu ctest --test-dir "$build" -R 'gpuharness\.gpu\.RingShiftGpu' -V --timeout 120
grep -E 'Test +#|tests passed|tests failed|Skipped|SKIP:' "$logs/ctest_gpu.log" | tee -a "$summary"

for np in 1 2 4; do
  note ""
  if [[ $np == 1 ]]; then
    note "## gpuharness run tests/gpu/ring_shift_pass.yaml --backend cuda (1 rank)"
    logged "run_np$np" "$bin/gpuharness" run tests/gpu/ring_shift_pass.yaml --out "$work/np$np" --backend cuda
  else
    note "## mpirun -np $np gpuharness run tests/gpu/ring_shift_pass.yaml --backend cuda --share-gpu"
    logged "run_np$np" mpirun --oversubscribe -np "$np" -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH \
      "$bin/gpuharness" run tests/gpu/ring_shift_pass.yaml --out "$work/np$np" --backend cuda --share-gpu
  fi
  grep -v -E '^\$ ' "$logs/run_np$np.log" | grep -v -E 'NCCL (INFO|WARN)' | tail -30 >>"$summary"
  cp "$work/np$np/records.jsonl" "$logs/np${np}_records.jsonl" 2>/dev/null
  cp "$work/np$np/environment.json" "$logs/np${np}_environment.json" 2>/dev/null
done

note ""
note "## bandwidth: raw NCCL (nccl_sendrecv_baseline) vs ring_shift (scenarios/ring_shift_bandwidth.yaml), 1 rank, interleaved"
for pass in 1 2; do
  logged "baseline$pass" "$bin/nccl_sendrecv_baseline"
  logged "bandwidth$pass" "$bin/gpuharness" run scenarios/ring_shift_bandwidth.yaml --out "$work/bw$pass" --backend cuda
  cp "$work/bw$pass/records.jsonl" "$logs/bandwidth${pass}_records.jsonl" 2>/dev/null
  note ""
  note "### pass $pass: raw NCCL table"
  grep -v '^\$ ' "$logs/baseline$pass.log" | tee -a "$summary"
  note "### pass $pass: harness vs raw NCCL"
  python3 scripts/compare_ring_shift_bandwidth.py "$logs/baseline$pass.log" "$work/bw$pass/records.jsonl" 2>&1 | tee -a "$summary"
done
grep -v -E '^\$ |NCCL (INFO|WARN)' "$logs/bandwidth1.log" | tail -25 >>"$summary"

if [[ $unit == 1 ]]; then
  note ""
  note "## all unit tests built into this bundle (ctest -L unit)"
  limit=180 logged ctest_unit ctest --test-dir "$build" -L unit -j 8 --timeout 120
  grep -E 'tests passed|tests failed|\*\*\*|Failed|Not Run' "$logs/ctest_unit.log" | head -40 | tee -a "$summary"
fi

cp "$summary" "$logs/"
tar czf "$out/cuda_logs.tgz" -C "$work" cuda_logs
echo
echo "================ summary ($summary) ================"
cat "$summary"
