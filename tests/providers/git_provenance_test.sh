#!/bin/bash
# What a git version's set-up built, checked against its label (tests/providers.cmake): a
# repository of three commits whose build, for the second label only, checks out the first
# commit instead (a stale checkout). The sweep records that version as infrastructure, naming
# both commits (exit 3), never a verdict in the label's name; the other two build their own
# commit and pass, their provenance.json saying so.
# usage: git_provenance_test.sh GPUHARNESS WORKDIR
. "$(dirname "$0")/../common/e2e_preamble.sh"
. "$here/answer_repo.sh"
answer_repo "$work/repo" 3 0
{ answer_git_matrix git_provenance; cat <<YAML
    revisions: ["${rev[1]}", "${rev[2]}", "${rev[3]}"]
    build: "if [ {version} = ${rev[2]} ]; then git -c advice.detachedHead=false checkout -q ${full[1]}; fi; cmake -S {src} -B {prefix}/build -DCMAKE_INSTALL_PREFIX={prefix} >/dev/null && cmake --build {prefix}/build >/dev/null && cmake --install {prefix}/build >/dev/null"
YAML
} > "$work/matrix.yaml"
cd "$work"
set +e
"$gh" sweep matrix.yaml --out out > sweep.txt 2>&1; rc=$?
set -e
cat sweep.txt
[ "$rc" = 3 ] || fail "sweep: exit $rc, expected 3 (infrastructure: a version built another commit)"
why="provenance: asked commit ${full[2]}, the set-up built commit ${full[1]}"
grep -qF "$why" sweep.txt || fail "the console does not name both commits ('$why')"
grep "\"commit\":\"${rev[2]}\"" out/records.jsonl | grep -q '"outcome":"infra"' || fail "no infra record for ${rev[2]}"
grep "\"commit\":\"${rev[2]}\"" out/records.jsonl | grep -qF "$why" || fail "the infra record does not say why"
for i in 1 3; do
  grep "\"commit\":\"${rev[$i]}\"" out/records.jsonl | grep -q '"outcome":"pass"' || fail "${rev[$i]} did not pass"
  python3 - "out/versions/${rev[$i]}/provenance.json" "${full[$i]}" <<'PY' || fail "provenance.json of ${rev[$i]}"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["ok"] is True and p["asked"] == {"commit": sys.argv[2]} and p["installed"] == {"commit": sys.argv[2]}, p
PY
done
echo PASS
