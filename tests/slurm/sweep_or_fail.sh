# Sourced by the sweep tests of tests/slurm/:
#   sweep_or_fail GPUHARNESS_BIN MATRIX OUT
# runs `gpuharness sweep MATRIX --out OUT`; when it does not exit 0, prints FAIL with the status
# and the tail of every cell's job log, and exits 1.
sweep_or_fail() {
  local bin=$1 matrix=$2 out=$3 status=0
  "$bin" sweep "$matrix" --out "$out" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAIL: gpuharness sweep exited $status (expected 0); job logs:"
    tail -n 30 "$out"/cells/*/job.log
    exit 1
  fi
}
