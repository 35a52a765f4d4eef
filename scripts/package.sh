#!/usr/bin/env bash
# Builds gpuharness's packages: the release preset (Release, stripped, debug info split out,
# Abseil/yaml-cpp/RE2/SQLite bundled) in BUILD, then cpack. The packaging test, the container
# recipe (packaging/Containerfile) and anyone carrying a build to a GPU node run this script.
#   BUILD/packages/gpuharness-<v>-<system>-<tag>.tar.gz        relocatable: unpack anywhere, run bin/gpuharness
#   BUILD/packages/gpuharness-<v>-<system>-<tag>-debug.tar.gz  bin/.debug/gpuharness.debug, unpacked over it
#   BUILD/packages/gpuharness_<v>_<arch>.deb, gpuharness-dbg_<v>_<arch>.deb
#   BUILD/packages/gpuharness-<v>-<system>-<tag>-tests.tar.gz  (--with-tests) the test programs,
#       their CTest files and the source files they read, for scripts/node-run.sh --tests
# <tag> says what the build was made for: cuda13-nccl2.28-ompi4, or cpu-ompi4. Prints the
# packages and their sizes last.
#
# Usage: scripts/package.sh [--build-dir DIR] [--cuda auto|on|off] [--cuda-archs "90;100"]
#                           [--jobs N] [--install-deps] [--with-tests] [--commit C]
#   --build-dir     the build tree (default: build-release in the checkout)
#   --cuda          on: fail unless CUDA and NCCL are found; off: a CPU-only package; auto (default)
#   --cuda-archs    CMAKE_CUDA_ARCHITECTURES (default: 90;100, Hopper and Blackwell)
#   --install-deps  apt-get install the build's missing packages first (scripts/packages.sh)
#   --with-tests    also build every test program and pack the -tests archive
#   --commit        the commit --version reports where the source tree has no .git
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; }
bad() { echo "package.sh: $*" >&2; exit 2; }

build=$root/build-release cuda=auto archs="" jobs=$(nproc) deps=0 tests=0 commit=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir|--cuda|--cuda-archs|--jobs|--commit)
      [ $# -ge 2 ] && [ -n "$2" ] || bad "$1 needs a value"
      case "$1" in
        --build-dir) build=$2 ;; --cuda) cuda=$2 ;; --cuda-archs) archs=$2 ;;
        --jobs) jobs=$2 ;; --commit) commit=$2 ;;
      esac
      shift 2 ;;
    --install-deps) deps=1; shift ;;
    --with-tests) tests=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) bad "unknown argument '$1' (see --help)" ;;
  esac
done
case "$cuda" in auto|on|off) ;; *) bad "--cuda must be auto, on or off, got '$cuda'" ;; esac
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || bad "--jobs must be a positive integer, got '$jobs'"
mkdir -p "$build"
build=$(cd "$build" && pwd)

if [ $deps = 1 ]; then
  source "$root/scripts/packages.sh"
  gh_install_missing "${gh_build_packages[@]}"
  [ $tests = 0 ] || gh_install_missing libgtest-dev libgmock-dev libbenchmark-dev
fi

args=(-DGH_ENABLE_CUDA=$([ "$cuda" = off ] && echo OFF || echo ON))
[ -z "$archs" ] || args+=("-DCMAKE_CUDA_ARCHITECTURES=$archs")
[ -z "$commit" ] || args+=("-DGH_BUILD_COMMIT=$commit")
if [ $tests = 1 ]; then
  # Tests find their files through __FILE__: keep the absolute source paths for them.
  args+=(-DGH_BUILD_TESTS=ON -DGH_BUILD_BENCHMARKS=ON -DCMAKE_CXX_FLAGS= -DCMAKE_CUDA_FLAGS=)
  # gtest_discover_tests runs each test program after its link; a CUDA test program needs
  # libcuda.so.1, which a machine without a GPU lacks: the toolkit's stub lets it start.
  if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    stub=$(ls /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/targets/*/lib/stubs/libcuda.so \
             2>/dev/null | head -1 || true)
    if [ -n "$stub" ]; then
      mkdir -p "$build/driver-stub"
      ln -sfn "$stub" "$build/driver-stub/libcuda.so.1"
      export LD_LIBRARY_PATH="$build/driver-stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
  fi
fi
echo "== configuring $build (preset release ${args[*]})"
(cd "$root" && cmake --preset release -B "$build" "${args[@]}" >"$build/configure.log") ||
  { cat "$build/configure.log" >&2; echo "package.sh: configuring failed" >&2; exit 3; }
grep -E "cuda backend|build info" "$build/configure.log" || true
if [ "$cuda" = on ] && ! grep -q "cuda backend: CUDA" "$build/configure.log"; then
  echo "package.sh: --cuda on, but CUDA or NCCL was not found (see $build/configure.log)" >&2
  exit 3
fi

echo "== building with $jobs jobs"
if [ $tests = 1 ]; then
  cmake --build "$build" -j "$jobs"
else
  cmake --build "$build" -j "$jobs" --target gpuharness
fi
echo "== cpack"
(cd "$build" && cpack -B "$build/packages" >"$build/cpack.log" 2>&1) ||
  { cat "$build/cpack.log" >&2; echo "package.sh: cpack failed" >&2; exit 3; }
rm -rf "$build/packages/_CPack_Packages"

if [ $tests = 1 ]; then
  main=$(ls "$build"/packages/gpuharness-*.tar.gz | grep -v -e '-debug\.tar\.gz$' -e '-tests\.tar\.gz$' | head -1)
  "$root/scripts/pack-tests.sh" "$build" "${main%.tar.gz}-tests.tar.gz"
fi

echo "== packages"
for f in "$build"/packages/*; do
  [ -f "$f" ] && printf '%8s  %s\n' "$(du -h "$f" | cut -f1)" "$f"
done
