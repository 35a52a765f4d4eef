#!/usr/bin/env bash
# ci/night_summary.py on a night whose bisect found no answer (summary.json "answer": null, as
# bisect_summary.cc writes it): the regression row and the bisect section say so, and the
# summary is written (it used to die on None.get and turn the night into exit 3).
# Usage: night_summary_no_answer_test.sh SOURCE_ROOT
set -u
src=$1
d=$(mktemp -d /tmp/gh_night_summary.XXXXXX)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$d/nightly" "$d/bisect/b1"
printf 'nightly\t1\n' >"$d/sweeps.tsv"
cat >"$d/nightly/regressions.json" <<'JSON'
{"regressions": [{"point": "ring_shift/bytes=4K", "cell_arg": "transport=p2p", "baseline": "pass",
  "now": "fail", "failed_trials": 1, "trials": 1, "signature": "wrong data", "new": true}]}
JSON
printf 'nightly\tring_shift/bytes=4K\ttransport=p2p\t%s\t2\t\n' "$d/bisect/b1" >"$d/bisects.tsv"
echo '{"kind": "bisect", "status": "no_answer", "answer": null}' >"$d/bisect/b1/summary.json"
python3 "$src/ci/night_summary.py" --night-dir "$d" --night night2 --cluster test --version n08 \
  --status 1 --good 0 --baseline "" --good-version "" || fail "night_summary.py exited $?"
grep -qF '| bisect exit 2, no answer |' "$d/summary.md" || fail "no 'bisect exit 2, no answer' row: $(cat "$d/summary.md")"
grep -qF 'The bisect found no answer (exit 2); see `bisect/b1/`.' "$d/summary.md" \
  || fail "no no-answer section: $(cat "$d/summary.md")"
python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["bisects"]; sys.exit(0 if len(b)==1 and b[0]["answer"] is None else 1)' \
  "$d/nightly.json" || fail "nightly.json: $(cat "$d/nightly.json")"
echo "PASS"
