#!/usr/bin/env bash
# On the machine that runs it (a GPU node, a container): unpacks the TGZ that scripts/package.sh
# built elsewhere, sets the shell up for it, checks the machine with `gpuharness doctor`, then
# runs a command (or, when sourced, only sets up the current shell). Copy the package and this
# script to the node any way you like (scp, a shared file system, a job's staging directory).
#   - PREFIX/bin first on PATH: `gpuharness` is the unpacked binary; its bundled libraries come
#     through its RPATH; CUDA, NCCL and MPI are the node's own;
#   - NCCL: the system's (default), the `nvidia-nccl` pip wheel's (--nccl wheel), or a lib
#     directory (--nccl DIR), first on LD_LIBRARY_PATH; the CUDA toolkit's lib64 ($CUDA_HOME,
#     else /usr/local/cuda) last, when the loader would not find libcudart or libcublas;
#   - NCCL_NVLS_ENABLE=0 unless set (NVLink multicast stays off on shared machines); as root,
#     Open MPI's run-as-root variables;
#   - with --tests T: the test archive (package.sh --with-tests) unpacked beside PREFIX, and the
#     build and source paths it names made to lead there (symbolic links, created only where
#     nothing exists), so `ctest --test-dir $GH_TESTS_BUILD -L gpu` runs there.
# It prints `gpuharness doctor` (and any library the binary cannot find) before the command;
# exit 3 when the package cannot be set up.
#
# Usage: scripts/node-run.sh --package TGZ [--debug TGZ] [--tests TGZ] [--prefix DIR]
#                            [--nccl system|wheel|DIR] [--ranks N] [--] [COMMAND [ARGS...]]
#        source scripts/node-run.sh --package TGZ [...]
#   --prefix  where to unpack (default: /tmp/gpuharness-<package name>); unpacked again only
#             when the package is newer than what is there
#   --ranks   passed to the doctor (default: its own, the GPUs seen)

gh_nr_fail() { echo "node-run.sh: $*" >&2; return 3; }

gh_nr_main() {
  GH_NR_COMMAND=()
  local package="" debug="" tests="" prefix="" nccl=system ranks=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --package|--debug|--tests|--prefix|--nccl|--ranks)
        [ $# -ge 2 ] && [ -n "$2" ] || { echo "node-run.sh: $1 needs a value" >&2; return 2; }
        case "$1" in
          --package) package=$2 ;; --debug) debug=$2 ;; --tests) tests=$2 ;;
          --prefix) prefix=$2 ;; --nccl) nccl=$2 ;; --ranks) ranks=$2 ;;
        esac
        shift 2 ;;
      -h|--help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "${BASH_SOURCE[0]}"; return 0 ;;
      --) shift; break ;;
      -*) echo "node-run.sh: unknown flag '$1' (see --help)" >&2; return 2 ;;
      *) break ;;
    esac
  done
  GH_NR_COMMAND=("$@")
  [ -n "$package" ] || { echo "node-run.sh: --package TGZ is required (see --help)" >&2; return 2; }
  [ -f "$package" ] || gh_nr_fail "no package '$package'" || return
  local name
  name=$(basename "$package" .tar.gz)
  [ -n "$prefix" ] || prefix=/tmp/gpuharness-$name
  mkdir -p "$prefix" || gh_nr_fail "cannot create $prefix" || return
  prefix=$(cd "$prefix" && pwd)
  if [ ! -x "$prefix/bin/gpuharness" ] || [ "$package" -nt "$prefix/bin/gpuharness" ]; then
    tar -xzf "$package" -C "$prefix" || gh_nr_fail "cannot unpack $package into $prefix" || return
    touch "$prefix/bin/gpuharness"
  fi
  if [ -n "$debug" ]; then
    tar -xzf "$debug" -C "$prefix" || gh_nr_fail "cannot unpack $debug into $prefix" || return
  fi
  [ -x "$prefix/bin/gpuharness" ] || gh_nr_fail "$package holds no bin/gpuharness" || return

  local nccl_dir=""
  case "$nccl" in
    system) ;;
    wheel)
      nccl_dir=$(python3 -c 'import nvidia.nccl as m, os; print(os.path.join(list(m.__path__)[0], "lib"))' 2>/dev/null || true)
      [ -e "$nccl_dir/libnccl.so.2" ] || gh_nr_fail "--nccl wheel: no nvidia-nccl wheel for python3 here" || return ;;
    *)
      [ -e "$nccl/libnccl.so.2" ] || gh_nr_fail "--nccl $nccl: no libnccl.so.2 there" || return
      nccl_dir=$nccl ;;
  esac
  export LD_LIBRARY_PATH="${nccl_dir:+$nccl_dir:}${LD_LIBRARY_PATH:-}"
  LD_LIBRARY_PATH=${LD_LIBRARY_PATH%:}
  export PATH="$prefix/bin:$PATH"
  export GPUHARNESS_ROOT=$prefix
  export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
  if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

  if [ -n "$tests" ]; then
    local tree="$prefix/../$name-tests"
    mkdir -p "$tree" && tar -xzf "$tests" -C "$tree" || gh_nr_fail "cannot unpack $tests" || return
    tree=$(cd "$tree/gpuharness-tests" && pwd)
    local kind path
    for kind in build source; do
      path=$(sed -n "s/^$kind=//p" "$tree/paths")
      if [ -L "$path" ] || [ ! -e "$path" ]; then
        mkdir -p "$(dirname "$path")" && ln -sfn "$tree/$kind" "$path" ||
          gh_nr_fail "cannot link $path to $tree/$kind" || return
      elif [ "$(cd "$path" && pwd -P)" != "$(cd "$tree/$kind" && pwd -P)" ]; then
        echo "node-run.sh: warning: $path exists and is not this test archive's; its tests may not resolve" >&2
      fi
    done
    export GH_TESTS_BUILD GH_TESTS_SOURCE
    GH_TESTS_BUILD=$(sed -n 's/^build=//p' "$tree/paths")
    GH_TESTS_SOURCE=$(sed -n 's/^source=//p' "$tree/paths")
    export LD_LIBRARY_PATH="$prefix/lib:$tree/test-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi

  echo "== node-run.sh: $package -> $prefix ($(date -u +%FT%TZ), $(hostname))"
  local missing cuda_lib
  missing=$(ldd "$prefix/bin/gpuharness" 2>&1 | grep 'not found' || true)
  # The CUDA runtime and cuBLAS of a toolkit the loader is not told about: the node's own.
  cuda_lib=${CUDA_HOME:-/usr/local/cuda}/lib64
  if grep -qE 'libcudart|libcublas' <<<"$missing" && [ -e "$cuda_lib/libcudart.so" ]; then
    export LD_LIBRARY_PATH="$LD_LIBRARY_PATH${LD_LIBRARY_PATH:+:}$cuda_lib"
    echo "node-run.sh: the CUDA libraries from $cuda_lib (added to LD_LIBRARY_PATH)"
    missing=$(ldd "$prefix/bin/gpuharness" 2>&1 | grep 'not found' || true)
  fi
  if [ -n "$missing" ]; then
    echo "node-run.sh: the binary's libraries not found on this machine:" >&2
    echo "$missing" >&2
    gh_nr_fail "install them (docs/how-to/install.md lists what the package needs) or put them on LD_LIBRARY_PATH" || return
  fi
  gpuharness --version
  gpuharness doctor ${ranks:+--ranks "$ranks"} --results-root "${TMPDIR:-/tmp}" || true
  echo "=="
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  gh_nr_main "$@"   # sourced: set up this shell only
else
  set -uo pipefail
  gh_nr_main "$@" || exit $?
  [ ${#GH_NR_COMMAND[@]} -gt 0 ] || exit 0
  exec "${GH_NR_COMMAND[@]}"
fi
