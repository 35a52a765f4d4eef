#!/usr/bin/env bash
# The packaged binary is stripped of its debug information, which the -debug archive carries
# (bin/.debug/gpuharness.debug, named by the binary's .gnu_debuglink): a stalled rank's stack in
# the timeout record still names the harness's functions, with their inlined frames and source
# lines while the debug file is there, and by name alone (the symbol table) without it.
# Usage: stripped_stacks_test.sh PACKAGES_DIR SOURCE
set -euo pipefail
packages=$1 src=$2
source "$src/tests/packaging/lib.sh"
main=$(ls "$packages"/gpuharness-*.tar.gz | grep -v -e '-debug\.tar\.gz$' -e '-tests\.tar\.gz$' | head -1)
debug=${main%.tar.gz}-debug.tar.gz
[ -f "$main" ] && [ -f "$debug" ] || fail "no TGZ and -debug TGZ in $packages (scripts/package.sh makes them)"
work=$(mktemp -d /tmp/gh_stripped_test.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
mkdir -p "$prefix"
tar -xzf "$main" -C "$prefix"
tar -xzf "$debug" -C "$prefix"
bin=$prefix/bin/gpuharness
dbg=$prefix/bin/.debug/gpuharness.debug
readelf -S "$bin" >"$work/sections.txt"
grep -q '\.debug_info' "$work/sections.txt" && fail "$bin still has .debug_info"
expect_in "$work/sections.txt" ".gnu_debuglink"
expect_in "$work/sections.txt" ".symtab"
readelf -S "$dbg" | grep -q '\.debug_info' || fail "$dbg has no .debug_info"
[ "$(readelf --string-dump=.gnu_debuglink "$bin" | grep -o 'gpuharness\.debug')" = gpuharness.debug ] ||
  fail "the debuglink does not name gpuharness.debug"
echo "sizes: binary $(stat -c %s "$bin") B, debug file $(stat -c %s "$dbg") B"

# Two ranks; rank 1 sleeps in step exchange past the 3 s timeout; the record holds its stack.
stall() {
  (cd "$work" && PATH="$prefix/bin:$PATH" mpirun -np 2 gpuharness run selftest/ring_shift_stall --backend host \
     --filter '*/fault=stall/* and */bytes=4K/*' --out "$work/$1" >"$work/$1.log" 2>&1) || true
  python3 - "$work/$1/records.jsonl" >"$work/$1.frames" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["outcome"] == "timeout":
        for rank in r["ranks"]:
            if rank["rank"] == 1:
                print("\n".join(rank.get("stack", [])))
                print("note:", rank.get("stack_note", ""))
PY
  [ -s "$work/$1.frames" ] || { cat "$work/$1.log"; fail "no timeout record with rank 1's stack ($1)"; }
}
stall with_debug
grep -E '^([^0].*)?Stall.* at ring_shift\.cc:[0-9]+ \[gpuharness\]$' "$work/with_debug.frames" ||
  { cat "$work/with_debug.frames"; fail "with the debug file, no 'Stall ... at ring_shift.cc:N [gpuharness]' frame"; }
mv "$dbg" "$work/moved.debug"
stall without_debug
grep -E '^(gh::)?.*RingShift.*\[gpuharness\]$' "$work/without_debug.frames" ||
  { cat "$work/without_debug.frames"; fail "without the debug file, no harness function named"; }
grep -q ' at ring_shift\.cc:' "$work/without_debug.frames" &&
  { cat "$work/without_debug.frames"; fail "source lines without the debug file?"; }
echo "stripped binary: stack names functions and lines with the debug file, functions without it"
