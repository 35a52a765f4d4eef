#!/usr/bin/env bash
# The multi-GPU runs on one node of 2 or more GPUs, under scripts/node-run.sh --package TGZ, one
# rank per GPU: ring_shift bandwidth (NCCL
# send/recv vs device-initiated stores), sliced_collective with NCCL 2.28.9 (wheel) and 2.28.3
# (system), the packed-cells sweep against the same cells one after another, and the
# windowed_einsum shard sweep. Everything lands in OUT/multi_gpu.tar.gz after every step, so a
# run cut short still keeps what it measured.
#
# Usage: scripts/device-check-multi-gpu.sh [--out OUT] [--np N]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/device-flags.sh"
out=$PWD/gpu-results
np=2
gh_device_flags device-check-multi-gpu.sh --out:out --np:np -- "$@"
gh_node_program gpuharness >/dev/null
work=/tmp/gh_multi_gpu
rm -rf "$work"
mkdir -p "$work" "$out"
save() { tar -C "$(dirname "$work")" -czf "$out/multi_gpu.tar.gz" "$(basename "$work")"; }
launch="mpirun --oversubscribe -np $np -x LD_LIBRARY_PATH -x PATH -x NCCL_NVLS_ENABLE"

# step NAME LIMIT NCCL COMMAND...: runs with the chosen NCCL (wheel or system), logs, tars.
step() {
  local name=$1 limit=$2 nccl=$3
  shift 3
  echo "=== $name (NCCL $nccl)"
  (
    cd "$root"
    gh_use_nccl "$nccl" >"$work/$name.preflight.txt" 2>&1 || exit 3
    start=$(date +%s%N)
    timeout "$limit" "$@" >"$work/$name.txt" 2>&1
    rc=$?
    echo "exit $rc after $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee "$work/$name.exit.txt"
    grep -E "^[0-9]+ points|elapsed|^cells:" "$work/$name.txt" | tail -n 3
  )
  save
}

nvidia-smi topo -m >"$work/topo.txt" 2>&1
nvidia-smi --query-gpu=index,name,driver_version --format=csv >"$work/gpus.txt" 2>&1
cat "$work/gpus.txt"
step ring_shift 90 wheel $launch gpuharness run scenarios/multi_gpu/ring_shift_bandwidth.yaml \
  --out "$work/ring_shift" --backend cuda
step sliced_wheel 90 wheel $launch gpuharness run scenarios/sliced_collective.yaml \
  scenarios/ring_shift_device.yaml --out "$work/sliced_wheel" --backend cuda
step sliced_system 90 system $launch gpuharness run scenarios/sliced_collective.yaml \
  scenarios/ring_shift_device.yaml --out "$work/sliced_system" --backend cuda
step packed 60 wheel gpuharness sweep matrices/multi_gpu_packing.yaml --out "$work/packed" --gpus "$np"
step one_by_one 90 wheel gpuharness sweep matrices/multi_gpu_packing.yaml --out "$work/one_by_one" --gpus 1
step einsum 150 wheel $launch gpuharness run scenarios/windowed_einsum.yaml --out "$work/einsum" \
  --backend cuda
ls -la "$out"
