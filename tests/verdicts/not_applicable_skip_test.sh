#!/bin/bash
# A "not applicable here" skip at the sweep level (tests/verdicts.cmake; core/skip_cause.h):
# an exec point that skips with "built against NCCL 2.28.9, runtime 2.29.2: ..." (as the
# device-API points do when gpuharness's NCCL headers and the runtime differ) meets the
# scenario's `expect: pass` (exit 0), and its record stays a skip naming both versions; a point
# skipping with the same versions on both sides does not meet it (exit 1).
# usage: not_applicable_skip_test.sh GPUHARNESS WORKDIR
. "$(dirname "$0")/../common/e2e_preamble.sh"
cd "$work"
cat > s.yaml <<'YAML'
name: device_api
kind: exec
ranks: 1
timeout: 30s
params: {variant: [mismatch, same]}
exec:
  argv: [sh, -c, "echo skip-{variant}"]
  skip:
    - {regex: "^skip-mismatch$", reason: "built against NCCL 2.28.9, runtime 2.29.2: Cannot create device communicator"}
    - {regex: "^skip-same$", reason: "built against NCCL 2.29.2, runtime 2.29.2: Cannot create device communicator"}
expect: pass
YAML
printf 'name: m\nscenarios: [s.yaml]\ndefaults: {backend: host, ranks: 1, timeout: 60s, launcher: direct}\n' > m.yaml
set +e
"$gh" sweep m.yaml --out both > both.txt 2>&1; both=$?
"$gh" sweep m.yaml --filter 'device_api/variant=mismatch*' --out mismatch > mismatch.txt 2>&1; mismatch=$?
set -e
cat both.txt mismatch.txt
[ "$mismatch" = 0 ] || fail "the not-applicable skip alone: exit $mismatch, expected 0 (it meets pass)"
[ "$both" = 1 ] || fail "with the same-version skip: exit $both, expected 1 (that one is unmet)"
python3 - "$work/both/records.jsonl" <<'PY' || fail "records"
import json, sys
recs = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    recs[r["point"]] = r
m = [r for p, r in recs.items() if "variant=mismatch" in p]
s = [r for p, r in recs.items() if "variant=same" in p]
assert len(m) == 1 and len(s) == 1, recs.keys()
m, s = m[0], s[0]
def sig(r): return r.get("signature") or r.get("result", {}).get("signature")
def outcome(r): return r.get("outcome") or r.get("result", {}).get("outcome")
assert outcome(m) == "skip" and outcome(s) == "skip", (m, s)
assert sig(m) == "built against NCCL 2.28.9, runtime 2.29.2: Cannot create device communicator", m
assert m["matched"] is True, m
assert s["matched"] is False, s
PY
grep -q "built against NCCL 2.28.9, runtime 2.29.2" both/summary.md || fail "summary.md hides the not-applicable skip: $(cat both/summary.md)"
echo PASS
