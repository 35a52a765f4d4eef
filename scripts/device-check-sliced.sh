#!/usr/bin/env bash
# sliced_collective's GPU run on one node, under scripts/node-run.sh --package TGZ [--tests
# TESTS]. Runs scenarios/sliced_collective.yaml and
# scenarios/ring_shift_device.yaml over:
#   NCCL 2.28.9 (pip wheel) x 2.28.3 (system),
#   NCCL_CUMEM_ENABLE unset x 0,
#   1 rank x 2 ranks sharing the GPU (--share-gpu).
# Optionally it also runs the sliced_collective GPU tests.
# Everything lands in one tarball, OUT/sliced_device.tar.gz; the console tables are printed as
# they come.
#
# Usage: scripts/device-check-sliced.sh [--out OUT] [--tests] [--configs "wheel:unset:1 system:0:2 ..."]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$PWD/gpu-results
work=/tmp/gh_sliced
run_tests=0
configs=""
for nccl in wheel system; do
  for cumem in unset 0; do
    for np in 1 2; do configs+="$nccl:$cumem:$np "; done
  done
done
source "$root/scripts/device-flags.sh"
gh_device_flags device-check-sliced.sh --out:out --tests:run_tests=1 --configs:configs -- "$@"
gh_node_program gpuharness >/dev/null
[[ $run_tests -eq 0 ]] || gh_node_program gh_sliced_collective_gpu_test >/dev/null
rm -rf "$work"
mkdir -p "$work" "$out"

for config in $configs; do
  IFS=: read -r nccl cumem np <<<"$config"
  name="nccl-${nccl}_cumem-${cumem}_np${np}"
  dir=$work/$name
  mkdir -p "$dir"
  launch=""
  share=""
  if [[ "$np" -gt 1 ]]; then
    launch="mpirun --oversubscribe -np $np -x LD_LIBRARY_PATH -x PATH -x NCCL_NVLS_ENABLE"
    [[ "$cumem" != unset ]] && launch+=" -x NCCL_CUMEM_ENABLE"
    share="--share-gpu"
  fi
  echo "=== $name"
  (
    [[ "$cumem" != unset ]] && export NCCL_CUMEM_ENABLE=$cumem
    gh_use_nccl "$nccl" || exit 3
    echo "nccl: $(ldd "$(command -v gpuharness)" | awk '/libnccl/ {print $3}') ($nccl)" | tee "$dir/preflight.txt"
    start=$(date +%s)
    # shellcheck disable=SC2086
    timeout 150 $launch gpuharness run "$root/scenarios/sliced_collective.yaml" \
      "$root/scenarios/ring_shift_device.yaml" --out "$dir/results" --backend cuda $share \
      >"$dir/console.txt" 2>&1
    echo "exit $? in $(( $(date +%s) - start ))s" | tee "$dir/exit.txt"
    grep -E "^[0-9]+ points:" "$dir/console.txt" || tail -n 5 "$dir/console.txt"
  )
  # After every configuration, so that a run cut short still brings back what it measured.
  tar -C "$work" -czf "$out/sliced_device.tar.gz" .
done

if [[ $run_tests -eq 1 ]]; then
  echo "=== ctest -R SlicedCollectiveGpu (NCCL wheel)"
  (
    gh_use_nccl wheel || exit 3
    timeout 300 ctest --test-dir "$GH_TESTS_BUILD" -R SlicedCollectiveGpu --output-on-failure \
      >"$work/ctest_gpu.txt" 2>&1
    echo "ctest exit $?"
    grep -E "tests passed|Test +#|Failed|Passed|\*\*\*" "$work/ctest_gpu.txt" | tail -n 20
  )
fi

tar -C "$work" -czf "$out/sliced_device.tar.gz" .
ls -la "$out"
