#!/bin/bash
# What a version's set-up installed, checked against its label, end to end (tests/bisect.cmake):
# eight fake releases (matrix.yaml) whose v4 set-up installs fakelib 2.0 where the label asks for
# 4.0. The sweep records v4 as infrastructure (exit 3), never a pass; the bisect leaves v4
# untested between its answer's ends; the bug report shows what was checked per arm; a cached
# version whose venv was changed behind the harness's back is set up again.
# usage: provenance_test.sh GPUHARNESS WORKDIR
. "$(dirname "$0")/../../common/e2e_preamble.sh"
cd "$work"
why="provenance: asked fakelib 4.0, the set-up installed fakelib 2.0"

set +e
"$gh" sweep "$here/matrix.yaml" --out sweep > sweep.txt 2>&1; src=$?
set -e
[ "$src" = 3 ] || fail "sweep: exit $src, expected 3 (infrastructure): $(tail -5 sweep.txt)"
grep -q "\"outcome\":\"infra\".*$why" sweep/records.jsonl || fail "no infra record of v4 naming '$why': $(grep -c . sweep/records.jsonl) records"
grep "fakelib=v4" sweep/records.jsonl | grep -q '"outcome":"pass"' && fail "v4 passed in its label's name"
grep -q '"ok": false' sweep/versions/v4/provenance.json || fail "$(cat sweep/versions/v4/provenance.json)"

set +e
"$gh" bisect "$here/matrix.yaml" --good v1 --bad v8 --out bisect > bisect.txt 2>&1; brc=$?
set -e
[ "$brc" = 0 ] || fail "bisect: exit $brc: $(tail -5 bisect.txt)"
grep -q "first bad: v5, last good: v3, unclassified between: v4" bisect.txt || fail "$(tail -3 bisect.txt)"
grep -qF "$why" bisect/summary.md || fail "summary.md does not say why v4 could not be tested"
grep -qF '| fakelib v5 (first bad) | pip freeze: `fakelib==5.0`; checked against the label: `fakelib 5.0` |' bisect/summary.md ||
  fail "summary.md does not show the checked version per arm: $(grep -n 'pip freeze' bisect/summary.md)"
python3 - bisect/summary.json <<'PY' || fail "bisect/summary.json"
import json, sys
s = json.load(open(sys.argv[1]))
v4 = [p for p in s["probes"] if p["version"] == "v4"][0]
assert v4["verdict"] not in ("good", "bad"), v4
PY

# A cached version whose venv now holds another build: set up again before it is used.
mv sweep/versions/v5/venv/lib/python3.11/site-packages/fakelib-5.0.dist-info \
   sweep/versions/v5/venv/lib/python3.11/site-packages/fakelib-1.0.dist-info
set +e
"$gh" sweep "$here/matrix.yaml" --out sweep --filter 'reworded*' > again.txt 2>&1
set -e
[ -d sweep/versions/v5/venv/lib/python3.11/site-packages/fakelib-5.0.dist-info ] || fail "v5 was not set up again: $(tail -5 again.txt)"
echo "PASS"
