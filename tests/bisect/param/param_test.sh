#!/bin/bash
# `gpuharness bisect --param` end to end (tests/bisect.cmake): threshold.yaml's exec program fails
# when `count` exceeds 1500. Over the listed values the boundary is (1024, 2048]; --numeric
# bisects every integer between them and finds (1500, 1501]. Bad input exits 2 naming the flag,
# with nothing written.
# usage: param_test.sh GPUHARNESS WORKDIR
. "$(dirname "$0")/../../common/e2e_preamble.sh"
cd "$work"
cat > matrix.yaml <<YAML
name: param_boundary
scenarios: ["$here/threshold.yaml"]
defaults: {launcher: direct, ranks: 1, backend: host, timeout: 60s}
YAML
run() {  # run OUT FILE [flags]: exit status in $rc, output in OUT.txt
  local out=$1 file=$2; shift 2
  set +e
  "$gh" bisect "$file" --param count --out "$out" --max-trials 1 "$@" > "$out.txt" 2>&1
  rc=$?
  set -e
}

# List mode, the scenario file itself standing for the matrix (1 rank, mpirun).
run list "$here/threshold.yaml" --good 1024 --bad 8192
cat list.txt
[ "$rc" = 0 ] || fail "list mode exit $rc"
grep -q "boundary: count in (1024, 2048\]: 1024 passes, 2048 fails" list.txt || fail "list mode headline"
grep -q "count in (1024, 2048\]" list/summary.md || fail "summary.md names no boundary: $(head -20 list/summary.md)"
grep -q "ValueError: the per-device shard exceeds 1500" list/summary.md || fail "summary.md lacks the signature"
grep -q "count in (1024, 2048\]" list/repro_first_bad.sh || fail "the repro names no boundary"
grep -q "count=2048 (first bad)" list/repro_first_bad.sh || fail "the repro's failing arm is not count=2048"
python3 - list/summary.json <<'PY' || fail "summary.json"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["boundary"]["param"] == "count", s["boundary"]
assert s["boundary"]["text"].startswith("count in (1024, 2048]"), s["boundary"]
PY
# The repro's failing arm fails and its workaround passes, with the values' own scenario copies.
set +e; GH_REPRO_OUT="$work/repro_out" bash list/repro_first_bad.sh > repro.txt 2>&1; repro_rc=$?; set -e
[ "$repro_rc" = 0 ] || fail "repro_first_bad.sh exit $repro_rc: $(tail -5 repro.txt)"

# Numeric mode (a matrix with the direct launcher): the exact boundary, with --jobs 2 too.
run numeric matrix.yaml --good 1024 --bad 8192 --numeric
[ "$rc" = 0 ] || fail "numeric exit $rc: $(cat numeric.txt)"
grep -q "boundary: count in (1500, 1501\]: 1500 passes, 1501 fails" numeric.txt || fail "numeric headline: $(tail -2 numeric.txt)"
probes=$(tail -1 numeric.txt | sed -n 's/.*; \([0-9]*\) probes,.*/\1/p')
[ "$probes" -le 16 ] || fail "numeric mode took $probes probes over 7169 values"
[ "$(ls numeric/params | wc -l)" = "$probes" ] || fail "scenario copies for values never probed: $(ls numeric/params | wc -l) for $probes probes"
run jobs matrix.yaml --good 1024 --bad 8192 --numeric --jobs 2
grep -q "boundary: count in (1500, 1501\]" jobs.txt || fail "--jobs 2: $(tail -2 jobs.txt)"
run step matrix.yaml --good 1000 --bad 2000 --numeric --step 100
grep -q "boundary: count in (1500, 1600\]" step.txt || fail "--step 100: $(tail -2 step.txt)"
# Resume: nothing runs again.
run numeric matrix.yaml --good 1024 --bad 8192 --numeric
line=$(tail -1 numeric.txt)
total=$(echo "$line" | sed -n 's/.* \([0-9]*\) trials (.*/\1/p')
cached=$(echo "$line" | sed -n 's/.* trials (\([0-9]*\) from the state file).*/\1/p')
[ -n "$total" ] && [ "$total" = "$cached" ] || fail "resume ran trials again: $line"

# Bad input.
expect_bad() {  # expect_bad OUT PATTERN [flags]
  local out=$1 pattern=$2; shift 2
  run "$out" matrix.yaml "$@"
  [ "$rc" = 2 ] || fail "$out: exit $rc, expected 2: $(cat "$out.txt")"
  grep -qE -- "$pattern" "$out.txt" || fail "$out: message lacks /$pattern/: $(cat "$out.txt")"
  [ ! -e "$out" ] || fail "$out: DIR was written"
}
set +e
"$gh" bisect matrix.yaml --param conut --good 1024 --bad 2048 --out bad0 > bad0.txt 2>&1; rc=$?
set -e
[ "$rc" = 2 ] && grep -q -- "--param: 'conut' is not a parameter of .*threshold.yaml (its parameters: .*count.*); did you mean count?" bad0.txt \
  || fail "unknown param: exit $rc: $(cat bad0.txt)"
expect_bad bad1 "--good: '1000' is not a listed value of count in .*threshold.yaml \(values: 256, 512, 1024, 2048, 4096, 8192\)" --good 1000 --bad 2048
expect_bad bad2 "--bad: '3000' is not a listed value" --good 1024 --bad 3000
expect_bad bad3 "--bad: 1024 is --good's value" --good 1024 --bad 1024
expect_bad bad4 "--bad: 1024 is --good's value" --good 1024 --bad 1024 --numeric
expect_bad bad5 "--good: 'abc' is not an integer" --good abc --bad 2048 --numeric
expect_bad bad6 "--step needs --numeric" --good 1024 --bad 2048 --step 2
expect_bad bad7 "--refine: refines a version axis" --good 1024 --bad 2048 --refine
expect_bad bad8 "--good: '8192' must come before --bad '1024'" --good 8192 --bad 1024
# The widest span of int64 counts its values without overflowing (and refuses them at once).
expect_bad bad9 "--step: 18446744073709551615 values from -9223372036854775807 to 9223372036854775807 \(at most 100000\)" \
  --good=-9223372036854775807 --bad=9223372036854775807 --numeric
expect_bad bad10 "--step: 18446744073709551616 values|--step: more than 18446744073709551615 values" \
  --good=-9223372036854775808 --bad=9223372036854775807 --numeric
echo "PASS: (1024, 2048] and (1500, 1501]"
