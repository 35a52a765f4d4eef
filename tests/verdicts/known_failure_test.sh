#!/bin/bash
# `known:` expectations and `valid_for:` through the whole binary (tests/verdicts.cmake), on the
# host backend with a fake library whose versions are a sweep's version axis:
#   - 2.30.3 fails as its known issue says: a known failure, apart from regressions, in the
#     console (KNOWN), summary.md and report.html (Known failures, naming the reference) and
#     junit.xml (<skipped type="known failure">); 2.31.0, inside the range, passes: announced as
#     fixed upstream, naming the reference; 2.29.7 is outside the range. The sweep exits 0.
#   - 2.30.3 failing another way is unmet (FAILED, exit 1), not a known failure.
#   - a scenario whose expectations hold for 2 ranks or more, run on 1: a skip saying why, which
#     meets its `expect: crash` (exit 0).
# usage: known_failure_test.sh GPUHARNESS WORKDIR
. "$(dirname "$0")/../common/e2e_preamble.sh"
cd "$work"
cat > s.yaml <<'YAML'
name: user_buffers
kind: exec
ranks: 1
timeout: 30s
exec:
  argv: [sh, -c, 'if [ "$FAKE_FAILURE" = known ]; then echo "ncclUnhandledCudaError: Cuda failure 1 (ncclCommRegister)"; exit 1; elif [ "$FAKE_FAILURE" = other ]; then echo "ncclInternalError: lost"; exit 1; fi; echo ok']
  signatures:
    - {name: "Cuda failure 1 'invalid argument'", regex: "Cuda failure 1"}
    - {name: "ncclInternalError", regex: "ncclInternalError"}
expect:
  - outcome: pass
    known:
      reference: https://example.org/fakelib/issues/7
      versions: {fakelib: ">=2.30.3"}
      signature: "Cuda failure 1"
YAML
matrix() {  # $1: what 2.30.3 does
  cat <<YAML
name: m
scenarios: [s.yaml]
defaults: {backend: host, ranks: 1, timeout: 60s, launcher: direct}
versions:
  name: fakelib
  values:
    - {label: "2.29.7"}
    - {label: "2.30.3", env: {FAKE_FAILURE: $1}}
    - {label: "2.31.0"}
YAML
}
matrix known > known.yaml
matrix other > other.yaml
set +e
"$gh" sweep known.yaml --out known > known.txt 2>&1; known=$?
"$gh" sweep other.yaml --out other > other.txt 2>&1; other=$?
set -e
cat known.txt other.txt
[ "$known" = 0 ] || fail "a known failure and a fix upstream: exit $known, expected 0"
[ "$other" = 1 ] || fail "another failure inside the known versions: exit $other, expected 1"
grep -q "^KNOWN fakelib=2.30.3 :: user_buffers/np=1 .*Cuda failure 1 .*(known in fakelib >=2.30.3: https://example.org/fakelib/issues/7)" known.txt ||
  fail "no KNOWN line for 2.30.3"
grep -q "^FIXED UPSTREAM fakelib=2.31.0 :: user_buffers/np=1 .*https://example.org/fakelib/issues/7" known.txt ||
  fail "no FIXED UPSTREAM line for 2.31.0"
grep -q "^FAILED" known.txt && fail "a known failure printed as FAILED"
grep -q "1 known failure. 1 fixed upstream" known.txt || fail "the headline does not count them"
grep -q "^FAILED fakelib=2.30.3 :: user_buffers/np=1 .*ncclInternalError" other.txt || fail "the other failure is no FAILED line"
grep -q "^KNOWN" other.txt && fail "another failure counted as known"
python3 - known other <<'PY' || fail "reports"
import html, re, sys, xml.etree.ElementTree as ET
known, other = sys.argv[1], sys.argv[2]
ref = "https://example.org/fakelib/issues/7"
md = html.unescape(open(f"{known}/summary.md").read())
def section(text, title):
    m = re.search(r"^#+ " + re.escape(title) + r" \((\d+)\)\n(.*?)(?=^#|\Z)", text, re.M | re.S)
    assert m, f"no section {title!r} in:\n{text}"
    return int(m.group(1)), m.group(2)
n, body = section(md, "Known failures")
assert n == 1 and "2.30.3" in body and "upstream, known in fakelib >=2.30.3: " + ref in body, body
n, body = section(md, "Fixed upstream")
assert n == 1 and "2.31.0" in body and ref in body, body
assert "Unmet expectations" not in md, md
page = open(f"{known}/report.html").read()
assert "Known failures" in page and "Fixed upstream" in page and ref in page
suite = ET.parse(f"{known}/junit.xml").getroot()
cases = suite.iter("testcase")
skipped = [s for c in suite.iter("testcase") for s in c.findall("skipped")]
assert [s.get("type") for s in skipped] == ["known failure"], [ET.tostring(s) for s in skipped]
assert ref in skipped[0].get("message") and "Cuda failure 1" in skipped[0].get("message"), skipped[0].get("message")
assert not [f for c in suite.iter("testcase") for f in c.findall("failure")]
outs = "".join(o.text or "" for o in suite.iter("system-out"))
assert "fixed upstream: meets pass inside fakelib >=2.30.3 (known issue " + ref + ")" in outs, outs
bad = ET.parse(f"{other}/junit.xml").getroot()
assert len([f for c in bad.iter("testcase") for f in c.findall("failure")]) == 1
PY

cat > holds.yaml <<'YAML'
name: race
kind: exec
timeout: 30s
valid_for: {nranks: ">=2"}
exec:
  argv: [sh, -c, "exit 1"]
expect: crash
YAML
set +e
"$gh" run holds.yaml --backend host --out holds > holds.txt 2>&1; holds=$?
set -e
cat holds.txt
[ "$holds" = 0 ] || fail "a point outside its range of validity: exit $holds, expected 0"
python3 - holds/records.jsonl <<'PY' || fail "the skip's record"
import json, sys
(r,) = [json.loads(line) for line in open(sys.argv[1])]
assert r["outcome"] == "skip", r
assert r["signature"] == "expectations hold for nranks >=2; this run has 1 rank", r["signature"]
assert r["matched"] is True, r
PY
echo PASS
