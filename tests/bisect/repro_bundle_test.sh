#!/bin/bash
# `gpuharness repro DIR POINT --bundle OUTDIR` travels (tests/bisect.cmake, label "mpi"): a sweep
# of an exec scenario whose program, a script beside it (tests/bisect/repro_bundle/), fails on
# purpose, run under a planted XLA_FLAGS and JAX_PLATFORMS and a version whose set-up writes a file
# the program reads. The bundle holds run.sh, the scenario and the program and no path of this
# test's directories; with the scenario's tree and the results gone (moved away, and where
# `unshare -m` works, this checkout hidden under an empty mount), run.sh from another directory
# sets the version up in the bundle, reproduces the failure and hands the recorded variables to
# the program. Without gpuharness it says so (exit 3); bad --bundle uses exit 2.
# usage: repro_bundle_test.sh GPUHARNESS WORKDIR
. "$(dirname "$0")/../common/e2e_preamble.sh"
checkout=$(cd "$here/../.." && pwd)
tree=$work/tree
mkdir -p "$tree/src" "$work/elsewhere"
cp "$here/repro_bundle/"* "$tree/src/"
cd "$tree"
set +e
XLA_FLAGS=--xla_planted_flag=1 JAX_PLATFORMS=cpu "$gh" sweep src/matrix.yaml --out results > sweep.txt 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || fail "sweep exit $rc, expected 1: $(cat sweep.txt)"
grep -q '"JAX_PLATFORMS": "cpu"' results/cells/*default*/environment.json ||
  fail "environment.json does not record JAX_PLATFORMS: $(cat results/cells/*default*/environment.json)"

"$gh" repro results bundled/np=2 --bundle "$tree/bundle" > repro.txt 2>&1 || fail "repro --bundle exit $?: $(cat repro.txt)"
grep -qF "wrote $tree/bundle: run.sh, scenario/bundle.yaml, scenario/prog.sh; run it with: $tree/bundle/run.sh" repro.txt ||
  fail "no 'wrote' line: $(cat repro.txt)"
files=$(cd "$tree/bundle" && find . -type f | sort | tr '\n' ' ')
[ "$files" = "./run.sh ./scenario/bundle.yaml ./scenario/prog.sh " ] || fail "the bundle holds: $files"
[ -x "$tree/bundle/run.sh" ] && [ -x "$tree/bundle/scenario/prog.sh" ] || fail "run.sh or prog.sh lost its x bit"
# No path of this test's directories or of the checkout: the bundle names places relative to itself.
for path in "$work" "$checkout"; do
  if grep -rlF "$path" "$tree/bundle"; then fail "the bundle names $path: $(grep -rnF "$path" "$tree/bundle")"; fi
done
grep -q "^ *export XLA_FLAGS=--xla_planted_flag=1$" "$tree/bundle/run.sh" || fail "run.sh does not export the recorded XLA_FLAGS"

# Bad input: both --out and --bundle; a bundle over a directory that holds something.
set +e
"$gh" repro results bundled/np=2 --bundle "$work/b2" --out x.sh > both.txt 2>&1; brc=$?
"$gh" repro results bundled/np=2 --bundle "$tree/bundle" > again.txt 2>&1; arc=$?
set -e
[ "$brc" = 2 ] || fail "--out and --bundle: exit $brc, expected 2"
grep -qF -- "--out and --bundle: give one" both.txt || fail "$(cat both.txt)"
[ "$arc" = 2 ] || fail "--bundle onto a full directory: exit $arc, expected 2"
grep -qF -- "--bundle: $tree/bundle exists and is not an empty directory" again.txt || fail "$(cat again.txt)"
[ ! -e "$work/b2" ] || fail "a refused --bundle left $work/b2"

# The bundle travels: the tree (scenario, program, results) gone, gpuharness copied out of the
# checkout, run from another directory.
travel=$(mktemp -d "${TMPDIR:-/tmp}/gh-bundle-travel.XXXXXX")
trap 'rm -rf "$travel"' EXIT
mv "$tree/bundle" "$travel/bundle"
mkdir -p "$travel/bin" && cp "$gh" "$travel/bin/gpuharness"
mv "$tree" "$work/tree.gone"
run_bundle() {  # OUT-DIR: run.sh's console in $travel/console.txt, its status in $?
  local cmd="cd $travel && GH_REPRO_OUT=$1 GPUHARNESS=$travel/bin/gpuharness PATH=/usr/bin:/bin bash bundle/run.sh"
  if unshare -m true 2>/dev/null; then
    echo "   (the checkout hidden under an empty mount)"
    env -u XLA_FLAGS -u JAX_PLATFORMS unshare -m bash -c "mount -t tmpfs none $(printf %q "$checkout") && $cmd" \
      > "$travel/console.txt" 2>&1
  else
    env -u XLA_FLAGS -u JAX_PLATFORMS bash -c "$cmd" > "$travel/console.txt" 2>&1
  fi
}
set +e
run_bundle "$travel/out"; rc=$?
set -e
console=$(cat "$travel/console.txt")
[ "$rc" = 0 ] || fail "run.sh exit $rc, expected 0: $console"
grep -qxF "reproduced: the failing arm fails, the workaround arm passes" <<<"$console" || fail "not reproduced: $console"
grep -qxF "version 2.0: setting it up ($travel/bundle/versions/2.0 is missing)" <<<"$console" ||
  fail "the version was not set up in the bundle: $console"
log=$(find "$travel/out/failing/logs" -name rank0.log | head -n 1)
[ -n "$log" ] || fail "the failing arm left no rank0.log under $travel/out/failing/logs"
for line in "XLA_FLAGS=--xla_planted_flag=1" "JAX_PLATFORMS=cpu" "fw: 2.0" "ValueError: planted failure"; do
  grep -qxF "$line" "$log" || fail "the failing arm's program did not print '$line': $(cat "$log")"
done
grep -q '"outcome":"error"' "$travel/out/failing/records.jsonl" || fail "the failing arm recorded no error"
grep -q '"outcome":"pass"' "$travel/out/workaround/records.jsonl" || fail "the workaround arm did not pass"

# Without gpuharness on PATH or in GPUHARNESS: a clear message, exit 3.
set +e
(cd "$travel" && env -u GPUHARNESS PATH=/usr/bin:/bin bash bundle/run.sh > missing.txt 2>&1); mrc=$?
set -e
[ "$mrc" = 3 ] || fail "no gpuharness: exit $mrc, expected 3"
grep -qxF "bundle/run.sh: gpuharness not found: put it on PATH or set GPUHARNESS=/path/to/gpuharness" "$travel/missing.txt" ||
  fail "$(cat "$travel/missing.txt")"
echo "PASS"
