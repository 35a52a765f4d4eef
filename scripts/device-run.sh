#!/usr/bin/env bash
# On the GPU machine (the `run` device tool): makes the bundle staged by scripts/device-bundle.sh
# runnable, then runs a command (or, when sourced, only sets up the current shell).
#   - LD_LIBRARY_PATH: the carried libraries (.deps/<name>/lib), and NCCL: the pip wheel's
#     (2.28.9, matching the headers we compile against) unless --nccl system (2.28.3);
#   - the CTest paths: /work/main -> this checkout and build-<name> -> .deps/<name>/build;
#   - NCCL_NVLS_ENABLE=0 (and the other multicast switches): NVLink multicast stays off;
#     OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1: commands run as root there;
#   - PATH: build-<name>/bin first, so `gpuharness` is the carried binary.
# It prints one preflight block: GPU, NCCL chosen, and any library the binaries cannot find.
#
# Usage: scripts/device-run.sh [--name NAME] [--nccl wheel|system] [--] COMMAND [ARGS...]
#        source scripts/device-run.sh [--name NAME] [--nccl wheel|system]
# Example run-tool command (carry [".deps/device"]):
#   scripts/device-run.sh -- bash -c 'ctest --test-dir build-device -L gpu --output-on-failure 2>&1 | tee $OUT/gpu.log'

gh_dr_name=device
gh_dr_nccl=wheel
while [[ $# -gt 0 ]]; do
  case "$1" in
    --name) gh_dr_name=$2; shift 2 ;;
    --nccl) gh_dr_nccl=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done

gh_dr_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gh_dr_stage=$gh_dr_root/.deps/$gh_dr_name

gh_dr_setup() {
  if [[ ! -d "$gh_dr_stage/build/bin" ]]; then
    echo "device-run.sh: $gh_dr_stage/build/bin is missing: bundle with scripts/device-bundle.sh --name $gh_dr_name and carry .deps/$gh_dr_name" >&2
    return 3
  fi
  # CTest files and test binaries hold /work/main/build-<name>/... paths from the build machine.
  if [[ "$gh_dr_root" != /work/main ]]; then
    if [[ -e /work/main && ! -L /work/main ]]; then
      echo "device-run.sh: warning: /work/main exists and is not ours; ctest paths may not resolve" >&2
    else
      mkdir -p /work && ln -sfn "$gh_dr_root" /work/main
    fi
  fi
  local link=$gh_dr_root/build-$gh_dr_name
  if [[ -L "$link" || ! -e "$link" ]]; then
    ln -sfn "$gh_dr_stage/build" "$link"
  fi

  local nccl_dir=""
  if [[ "$gh_dr_nccl" == wheel ]]; then
    nccl_dir=$(python3 -c 'import nvidia.nccl as m, os; print(os.path.join(list(m.__path__)[0], "lib"))' 2>/dev/null || true)
    if [[ -z "$nccl_dir" || ! -e "$nccl_dir/libnccl.so.2" ]]; then
      echo "device-run.sh: warning: no NCCL pip wheel found; using the system NCCL" >&2
      nccl_dir=""
    fi
  elif [[ "$gh_dr_nccl" != system ]]; then
    echo "device-run.sh: --nccl must be wheel or system, got '$gh_dr_nccl'" >&2
    return 2
  fi
  export LD_LIBRARY_PATH="$gh_dr_stage/lib${nccl_dir:+:$nccl_dir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PATH="$link/bin:$PATH"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

  echo "== device-run.sh preflight ($(date -u +%FT%TZ))"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
  local nccl_lib
  nccl_lib=$(ldd "$link/bin/gpuharness" 2>/dev/null | awk '/libnccl/ {print $3}')
  echo "nccl: ${nccl_lib:-not linked} (${gh_dr_nccl})"
  echo "mpirun: $(command -v mpirun || echo missing) $(mpirun --version 2>/dev/null | head -1)"
  local missing
  missing=$(for b in "$link"/bin/*; do ldd "$b" 2>/dev/null | grep 'not found' | sed "s|^|$(basename "$b"): |"; done | sort -u)
  if [[ -n "$missing" ]]; then
    echo "device-run.sh: libraries not found:" >&2
    echo "$missing" >&2
  else
    echo "libraries: all found"
  fi
  echo "=="
  return 0
}

if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then
  gh_dr_setup   # sourced: set up this shell only
else
  gh_dr_setup || exit $?
  if [[ $# -eq 0 ]]; then
    echo "device-run.sh: no command given (see the header of $0)" >&2
    exit 2
  fi
  exec "$@"
fi
