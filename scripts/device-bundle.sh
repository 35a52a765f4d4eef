#!/usr/bin/env bash
# Builds gpuharness HERE for the GPU machine (Release, sm_90, tests on) and stages what the `run`
# device tool must carry into .deps/<name>/ (ignored by git):
#   build/  a mirror of the build tree holding only bin/ (debug info stripped) and the CTest files, so that
#           `ctest` runs there once scripts/device-run.sh has linked build-<name> to it;
#   lib/    the shared libraries the GPU machine lacks: Abseil, yaml-cpp 0.7 (it has 0.8),
#           Google Benchmark, GoogleTest, RE2. Never CUDA, NCCL, MPI or libc: those are there.
# Then name ".deps/<name>" in the run tool's `carry` (64 MiB at most) and start the device
# command with `scripts/device-run.sh --name <name> -- ...` (see docs/gpu.md).
#
# Usage: scripts/device-bundle.sh [--name NAME] [--targets "T1 T2 ..."] [--jobs N]
#   --name     build dir build-NAME, staging dir .deps/NAME (default: device). Use your own name
#              when several people bundle at once.
#   --targets  CMake targets to build (default: all).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/device-flags.sh"
name=device
targets=all
jobs=2
help=0
GH_FLAGS_HINT=" (see --help)" gh_device_flags device-bundle.sh --name:name --targets:targets \
  --jobs:jobs -h:help=1 --help:help=1 -- "$@"
if [[ $help == 1 ]]; then sed -n '2,17p' "$0"; exit 0; fi
if [[ ! "$name" =~ ^[A-Za-z0-9_-]+$ ]]; then
  echo "device-bundle.sh: --name must be letters, digits, '_' or '-', got '$name'" >&2
  exit 2
fi

build=$root/build-$name
stage=$root/.deps/$name

# The CTest files hold absolute paths under /work/main: device-run.sh recreates them there.
if [[ "$root" != /work/main ]]; then
  echo "device-bundle.sh: warning: repo is at $root, not /work/main; CTest paths will point here" >&2
fi

# Test binaries link libcuda.so.1 (the driver), which a machine without a GPU lacks, and
# GoogleTest lists their tests by running them after the build. The toolkit's stub library
# lets them start here (every CUDA call then fails, so GPU tests list but would skip).
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  stub=$(ls /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/lib/stubs/libcuda.so \
           /usr/local/cuda/targets/*/lib/stubs/libcuda.so 2>/dev/null | head -1 || true)
  if [[ -n "$stub" ]]; then
    mkdir -p "$build/driver-stub"
    ln -sfn "$stub" "$build/driver-stub/libcuda.so.1"
    export LD_LIBRARY_PATH="$build/driver-stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
fi

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DGH_BUILD_TESTS=ON >/dev/null
# shellcheck disable=SC2086  # targets is a word list on purpose
cmake --build "$build" -j"$jobs" --target $targets

if ! grep -Eq '^NCCL_LIBRARY:FILEPATH=/' "$build/CMakeCache.txt" ||
   ! grep -Eq '^CMAKE_CUDA_COMPILER:[A-Z]+=/' "$build/CMakeCache.txt"; then
  echo "device-bundle.sh: this build has no cuda backend (CUDA or NCCL not found)" >&2
  exit 3
fi

rm -rf "$stage"
mkdir -p "$stage/build/bin" "$stage/lib"

# CTest files (GoogleTest's discovered-test lists, the tests' TEST_TMPDIR set-up), keeping their directory layout and
# timestamps (gtest's include files re-discover when a binary looks newer than its list).
(cd "$build" && find . -name CMakeFiles -prune -o -type f \
   \( -name CTestTestfile.cmake -o -name gh_test_env.cmake -o -name '*_tests.cmake' -o -name '*_include.cmake' \) -print) |
  while read -r f; do
    mkdir -p "$stage/build/$(dirname "$f")"
    cp -p "$build/$f" "$stage/build/$f"
  done

for bin in "$build"/bin/*; do
  [[ -f "$bin" && -x "$bin" ]] || continue
  out="$stage/build/bin/$(basename "$bin")"
  # Debug information goes, the symbol table stays: a timeout's stacks name the harness's own
  # functions from it (docs/hangs.md).
  strip --strip-debug -o "$out" "$bin"
  touch -r "$bin" "$out"
done

# Shared libraries the GPU machine lacks, as this machine resolves them.
for bin in "$stage"/build/bin/*; do
  ldd "$bin" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | grep -E '/lib(absl_|yaml-cpp|benchmark|gtest|gmock|re2)[^/]*$' | sort -u |
  while read -r lib; do
    cp -L "$lib" "$stage/lib/$(basename "$lib")"
  done
strip --strip-unneeded "$stage"/lib/*.so* 2>/dev/null || true

size_mib=$(du -sm "$stage" | cut -f1)
echo "device-bundle.sh: staged $stage: $(ls "$stage/build/bin" | wc -l) binaries, $(ls "$stage/lib" | wc -l) libraries, ${size_mib} MiB"
if (( size_mib > 56 )); then
  echo "device-bundle.sh: warning: over 56 MiB; the run tool carries 64 MiB with the tree" >&2
fi
echo "device-bundle.sh: carry [\".deps/$name\"]; on the device: scripts/device-run.sh --name $name -- <command>"
