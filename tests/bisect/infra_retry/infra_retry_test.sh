#!/bin/bash
# Issue 20 end to end (tests/bisect.cmake): every version's first job fails to start as
# infrastructure (infra_once.sh, in srun's words); the bisect runs each such trial again and still
# answers exactly: first bad v4, last good v3, nothing unclassified. The infra attempts are not
# trials, are kept (trial0 beside trial0.retry1) and shown; a rerun resumes from the state file.
# usage: infra_retry_test.sh GPUHARNESS WORKDIR
set -eu
gh=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/marks"
cd "$work"
cat > infra_once.yaml <<YAML
name: infra_once
argv: [sh, "$here/infra_once.sh", "{program}", "{args}"]
YAML
cat > matrix.yaml <<YAML
name: infra_retry
scenarios: ["$here/../../faults/slow_check.yaml"]
defaults: {launcher: $work/infra_once.yaml, ranks: 1, backend: host, timeout: 60s}
versions:
  name: version
  values:
    - {label: v1, env: {GH_INFRA_VERSION: v1, GH_FAULT_BAD: "0"}}
    - {label: v2, env: {GH_INFRA_VERSION: v2, GH_FAULT_BAD: "0"}}
    - {label: v3, env: {GH_INFRA_VERSION: v3, GH_FAULT_BAD: "0"}}
    - {label: v4, env: {GH_INFRA_VERSION: v4, GH_FAULT_BAD: "1"}}
    - {label: v5, env: {GH_INFRA_VERSION: v5, GH_FAULT_BAD: "1"}}
YAML
fail() { echo "FAIL: $*"; exit 1; }
export GH_INFRA_MARKS=$work/marks
set +e
"$gh" bisect matrix.yaml --good v1 --bad v5 --max-trials 2 --out out > run.txt 2>&1
rc=$?
set -e
cat run.txt
[ "$rc" = 0 ] || fail "bisect exit $rc"
grep -q "^first bad: v4, last good: v3; " run.txt || fail "headline"
grep -q "unclassified" run.txt && fail "a version was left unclassified"
grep -q "trial 0: infrastructure: srun: error: Unable to create step for job 5: Socket timed out on send/recv operation (job exited with status 1): running it again (attempt 2 of 3)" run.txt \
  || fail "no retry line"
[ -f out/probes/v3/trial0/job.log ] || fail "the infra attempt's log is not kept"
grep -q "srun: error: Unable to create step" out/probes/v3/trial0/job.log || fail "trial0 is not the infra attempt"
[ -f out/probes/v3/trial0.retry1/records.jsonl ] || fail "no retry directory"
python3 - out/summary.json out/bisect_state.json <<'PY' || fail "summary.json / bisect_state.json"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["answer"]["first_bad"] == "v4" and s["answer"]["last_good"] == "v3", s["answer"]
assert s["answer"]["unclassified"] == [], s["answer"]
probes = {p["version"]: p for p in s["probes"]}
assert set(probes) == {"v1", "v3", "v4", "v5"}, sorted(probes)
total = 0
for v, p in probes.items():
    # each version's first job was infra, once: retried, not a trial, not a skip
    assert p["infra_retried"] == 1 and p["skips"] == 0 and p["infra_failure"] == "", (v, p)
    assert p["verdict"] == ("bad" if v in ("v4", "v5") else "good"), (v, p)
    first = p["trial_results"][0]
    assert len(first["infra_attempts"]) == 1, (v, first)
    assert first["infra_attempts"][0]["detail"].endswith("probes/%s/trial0" % v), first
    assert first["detail"].endswith("probes/%s/trial0.retry1" % v), first
    assert first["outcome"] == ("error" if v in ("v4", "v5") else "pass"), first
    total += p["trials"]
    assert p["trials"] == len(p["trial_results"]), (v, p)
assert s["total_trials"] == total, (s["total_trials"], total)
state = json.load(open(sys.argv[2]))
assert len(state["trials"]) == total, len(state["trials"])
assert sum(1 for t in state["trials"] if t.get("infra_attempts")) == 4, state["trials"]
PY
grep -q "1 infra attempt retried" out/summary.md || fail "summary.md does not show the retried attempts"

# Resume: every trial from the state file, no job started (a started job would now pass the
# launcher: the marks exist), the same answer.
"$gh" bisect matrix.yaml --good v1 --bad v5 --max-trials 2 --out out > again.txt 2>&1 || fail "resume exit $?"
cat again.txt
grep -q "^first bad: v4, last good: v3; .* (\([0-9]*\) from the state file)" again.txt || fail "resume headline"
n=$(python3 -c 'import json; print(json.load(open("out/summary.json"))["total_trials"])')
grep -q "$n trials ($n from the state file)" again.txt || fail "resume ran trials again"
grep -q "running it again" again.txt && fail "resume retried"
echo PASS
