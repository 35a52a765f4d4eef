#!/usr/bin/env bash
# `gpuharness history summary` on a night whose bisect found no answer (summary.json "answer":
# null, as bisect_summary.cc writes it): the regression row and the bisect section say so, the
# summary is written and nightly.json keeps "answer": null; then the state files it reads, each
# malformed in turn, are refused (exit 2) with file, line and key named, nothing written.
# Usage: night_summary_no_answer_test.sh GPUHARNESS_BIN
set -u
bin=${1:?usage: night_summary_no_answer_test.sh GPUHARNESS_BIN}
d=$(mktemp -d /tmp/gh_night_summary.XXXXXX)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
summary() { "$bin" history summary "$d" --night night2 --cluster test --version n08 --status 1 --db "$d/none.sqlite" "$@"; }
mkdir -p "$d/nightly" "$d/bisect/b1"
printf 'nightly\t1\n' >"$d/sweeps.tsv"
cat >"$d/nightly/regressions.json" <<'JSON'
{"schema_version": 1, "matrix": "nightly", "version_axis": ["nightly"],
 "regressions": [{"point": "ring_shift/bytes=4K", "cell": {"transport": "p2p"}, "cell_arg": "transport=p2p",
  "baseline": "pass", "now": "fail", "failed_trials": 1, "trials": 1, "signature": "wrong data | ranks 1",
  "version": "n08", "baseline_version": "n03", "new": true}]}
JSON
printf 'nightly\tring_shift/bytes=4K\ttransport=p2p\t%s\t2\t\n' "$d/bisect/b1" >"$d/bisects.tsv"
echo '{"kind": "bisect", "status": "no_answer", "answer": null}' >"$d/bisect/b1/summary.json"
summary >/dev/null || fail "history summary exited $?"
grep -qF '| ring_shift/bytes=4K | transport=p2p | pass | fail | 1/1 | wrong data \| ranks 1 | yes | bisect exit 2, no answer |' \
  "$d/summary.md" || fail "no 'bisect exit 2, no answer' row: $(cat "$d/summary.md")"
grep -qF 'The bisect found no answer (exit 2); see `bisect/b1/`.' "$d/summary.md" \
  || fail "no no-answer section: $(cat "$d/summary.md")"
grep -qF -- '- Baseline: none yet (the first good night becomes it)' "$d/summary.md" || fail "baseline line: $(cat "$d/summary.md")"
python3 -c '
import json, sys
n = json.load(open(sys.argv[1]))
b = n["bisects"]
ok = (n["schema_version"] == 1 and n["night"] == "night2" and n["status"] == 1 and n["good"] is False
      and len(b) == 1 and b[0]["answer"] is None and b[0]["exit"] == 2 and b[0]["dir"] == "bisect/b1"
      and n["matrices"][0]["regressions"][0]["baseline_version"] == "n03")
sys.exit(0 if ok else 1)' "$d/nightly.json" || fail "nightly.json: $(cat "$d/nightly.json")"

# Malformed state files: exit 2, the file (and line or key) named, summary.md left as it was.
before=$(md5sum <"$d/summary.md")
expect_refused() {  # MESSAGE: the summary exits 2 with MESSAGE on stderr
  local rc=0 err
  err=$(summary 2>&1 >/dev/null) || rc=$?
  [ "$rc" -eq 2 ] || fail "$1: exit $rc, expected 2 ($err)"
  [[ "$err" == *"$1"* ]] || fail "stderr '$err', expected '$1'"
  [ "$(md5sum <"$d/summary.md")" = "$before" ] || fail "$1: summary.md was rewritten"
}
printf 'nightly\t1\nbroken line\n' >"$d/sweeps.tsv"
expect_refused "$d/sweeps.tsv:2: expected 2 tab-separated fields (matrix, sweep exit), got 1"
printf 'nightly\tone\n' >"$d/sweeps.tsv"
expect_refused "$d/sweeps.tsv:1: sweep exit: expected an exit status, got 'one'"
printf 'nightly\t1\n' >"$d/sweeps.tsv"
sed -i 's/"new": true/"new": "yes"/' "$d/nightly/regressions.json"
expect_refused "$d/nightly/regressions.json: regressions[0].new: expected"
sed -i 's/"new": "yes"/"new": true/' "$d/nightly/regressions.json"
echo '{"answer": "n06"}' >"$d/bisect/b1/summary.json"
expect_refused "$d/bisect/b1/summary.json: answer: expected an object"
echo '{"answer": null}' >"$d/bisect/b1/summary.json"
mkdir -p "$d/base" && echo '{"schema_version": 1, "night": "night\tone"}' >"$d/base/nightly.json"
rc=0; err=$(summary --baseline "$d/base" 2>&1 >/dev/null) || rc=$?
[ "$rc" -eq 2 ] && [[ "$err" == *"$d/base/nightly.json: night: label 'night\\x09one'"* ]] || fail "baseline nightly.json: exit $rc, '$err'"
echo '{"schema_version": 1, "night": "night1", "version": "n03"}' >"$d/base/nightly.json"
summary --baseline "$d/base" >/dev/null || fail "with a baseline: exit $?"
grep -qF -- '- Baseline: the last good night, night1 (version n03)' "$d/summary.md" || fail "baseline line: $(cat "$d/summary.md")"
echo "PASS"
