#!/usr/bin/env bash
# Packs a build tree's test programs for a GPU node (scripts/package.sh --with-tests calls it):
# OUT.tar.gz holds gpuharness-tests/ with
#   build/   the programs of BUILD/bin (debug info stripped, symbols kept), the fake plugins the
#            unit tests load, and the CTest files, in the build tree's layout;
#   source/  the checkout's tracked files (the tests read scenarios and data from it);
#   test-libs/  GoogleTest and Google Benchmark's shared libraries;
#   paths    the absolute build and source directories the programs and CTest files name.
# scripts/node-run.sh --tests OUT.tar.gz unpacks it and makes those two paths lead there.
# Usage: scripts/pack-tests.sh BUILD OUT.tar.gz
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 2 ] || { echo "usage: scripts/pack-tests.sh BUILD OUT.tar.gz" >&2; exit 2; }
build=$(cd "$1" && pwd)
out=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
tree=$stage/gpuharness-tests
mkdir -p "$tree/build/bin" "$tree/source"

# CTest files keep their timestamps: gtest's include files list the tests again when a program
# looks newer than its list.
(cd "$build" && find . -name CMakeFiles -prune -o -name packages -prune -o -type f \
   \( -name CTestTestfile.cmake -o -name gh_test_env.cmake -o -name '*_tests.cmake' \
      -o -name '*_include.cmake' \) -print) |
  while read -r f; do
    mkdir -p "$tree/build/$(dirname "$f")"
    cp -p "$build/$f" "$tree/build/$f"
  done
for bin in "$build"/bin/*; do
  [ -f "$bin" ] && [ -x "$bin" ] || continue
  strip --strip-debug -o "$tree/build/bin/$(basename "$bin")" "$bin"
  touch -r "$bin" "$tree/build/bin/$(basename "$bin")"
done
# GoogleTest and Google Benchmark as this machine resolves them (the gpuharness package carries
# the rest); node-run.sh puts test-libs/ on LD_LIBRARY_PATH.
mkdir -p "$tree/test-libs"
for bin in "$tree"/build/bin/*; do
  ldd "$bin" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | grep -E '/lib(gtest|gmock|benchmark)[^/]*$' | sort -u | while read -r lib; do
  cp -L "$lib" "$tree/test-libs/"
done
[ ! -d "$build/fake_nccl_device" ] || cp -a "$build/fake_nccl_device" "$tree/build/"
cp -a "$build/share" "$tree/build/"   # share/gpuharness/*: links into the source directory
(cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$tree/source"
printf 'build=%s\nsource=%s\n' "$build" "$root" >"$tree/paths"
tar -czf "$out" -C "$stage" gpuharness-tests
echo "pack-tests.sh: $out ($(du -h "$out" | cut -f1)): $(ls "$tree/build/bin" | wc -l) programs"
