#!/bin/bash
# A failure reworded at the first bad release, end to end (tests/bisect.cmake): eight fake
# releases (matrix.yaml) where v5 removes an attribute and words the error one way, v6..v8
# another, both raised by the same line of the user's program. The bisect hunts the bad end's
# failure family, so v5 is bad and the report says it was reworded: deterministic (one trial per
# probe, the pair confirmed, --jobs 2 too), flaky (every other run fails: the pooled posterior),
# and with --hunt-signature, whose regex never reaches the title.
# usage: reworded_test.sh GPUHARNESS WORKDIR
. "$(dirname "$0")/../../common/e2e_preamble.sh"
cd "$work"
v8="AttributeError: module 'fakelib.sharding' has no attribute 'Sharding'"
v5="AttributeError: fakelib.sharding.Sharding was deprecated in fakelib 4.0 and removed in fakelib 5.0"
bisect() {  # bisect OUT [flags]: exit status in $rc, output in OUT.txt
  local out=$1; shift
  set +e
  "$gh" bisect "$here/matrix.yaml" --good v1 --bad v8 --out "$out" "$@" > "$out.txt" 2>&1
  rc=$?
  set -e
  [ "$rc" = 0 ] || fail "$out: exit $rc: $(cat "$out.txt")"
  grep -q "first bad: v5, last good: v4;" "$out.txt" || fail "$out: $(tail -3 "$out.txt")"
}
want() {  # want FILE TEXT
  grep -qF -- "$2" "$1" || fail "$1 lacks: $2
$(sed -n 1,12p "$1")"
}
report() {  # report OUT: the bug report names the failure as printed and v5's own words
  want "$1/summary.md" "# \`$v8\` since version v5"
  want "$1/summary.md" "- \`v5\` failed with a reworded message: \`$v5\`"
  want "$1/summary.md" "- The failure: an error, \`$v8\`"
  grep -q "Could not be tested\|Failed differently" "$1/summary.md" && fail "$1: versions between the pair: $(grep -n 'between them' "$1/summary.md")"
  want "$1.txt" "FAILED version=v5 :: reworded/np=1 — error: $v5"
  python3 - "$1/summary.json" "$2" <<'PY' || fail "$1/summary.json"
import json, sys
s = json.load(open(sys.argv[1]))
family = sys.argv[2] == "family"
assert s["answer"] == {"first_bad": "v5", "last_good": "v4", "unclassified": [], "contradictions": []}, s["answer"]
assert s["hunt"]["example"] == "AttributeError: module 'fakelib.sharding' has no attribute 'Sharding'", s["hunt"]
if family:
    assert s["hunt"]["family"]["type"] == "AttributeError", s["hunt"]
    assert s["hunt"]["family"]["where"] == "prog.py: s = fakelib.sharding.Sharding(devices)", s["hunt"]
v5 = [p for p in s["probes"] if p["version"] == "v5"][0]
assert v5["verdict"] == "bad" and v5["hunted"] >= 1 and v5["reworded"] == v5["hunted"] and v5["others"] == 0, v5
for p in s["probes"]:  # no version that failed is good
    failed = any(t["outcome"] != "pass" for t in p["trial_results"])
    assert not (failed and p["verdict"] == "good"), p
PY
}

# Deterministic: the bad end fails 2 of 2, each probe one trial, the pair confirmed.
bisect det --cell flaky=off
report det family
python3 - det/summary.json <<'PY' || fail "det economy"
import json, sys
e = json.load(open(sys.argv[1]))["economy"]
assert e["deterministic"] and e["one_trial_per_probe"] and not e["pooled"], e
assert e["risk"] <= e["risk_bound"] == 0.01, e
assert e["confirmation"].startswith("first bad v5 failed 2 of 2 runs, last good v4 passed "), e
PY
bisect jobs --cell flaky=off --jobs 2
report jobs family

# Flaky: every other run of a failing release fails; the posterior pools every trial.
bisect flaky --cell flaky=on
report flaky family
python3 - flaky/summary.json <<'PY' || fail "flaky economy"
import json, sys
e = json.load(open(sys.argv[1]))["economy"]
assert e["pooled"] and not e["deterministic"] and e["confidence"] >= 0.99, e
PY

# A regex hunt: it finds both wordings, and the title still quotes the line as printed.
bisect regex --cell flaky=off --hunt-signature 'fakelib\.sharding.*(deprecated|no attribute)'
report regex regex
sed '/^## Harness details/,$d' regex/summary.md | grep -qF 'fakelib\.sharding' &&
  fail "the regex on the report's first screen: $(sed -n 1,10p regex/summary.md)"
echo "PASS"
