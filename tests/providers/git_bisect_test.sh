#!/bin/bash
# The git provider end to end (tests/providers.cmake): a repository made here with 8 commits of
# a CMake project, the planted change in the 6th; `gpuharness bisect` over `range: FIRST..HEAD`
# builds only the revisions it probes (each in its own worktree and prefix) and names the 6th.
# usage: git_bisect_test.sh GPUHARNESS WORKDIR
. "$(dirname "$0")/../common/e2e_preamble.sh"
. "$here/answer_repo.sh"
answer_repo "$work/repo" 8 6
{ answer_git_matrix git_provider_bisect; cat <<YAML
    range: "${rev[1]}..main"
    build: "cmake -S {src} -B {prefix}/build -DCMAKE_INSTALL_PREFIX={prefix} -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build {prefix}/build >/dev/null && cmake --install {prefix}/build >/dev/null"
YAML
} > "$work/matrix.yaml"
cd "$work"
"$gh" sweep matrix.yaml --dry-run > dry.txt || fail "dry-run exited $?"
grep -q "version ${rev[3]}: set-up in DIR/versions/${rev[3]}:" dry.txt || fail "dry-run lacks the set-up of ${rev[3]}: $(cat dry.txt)"
start=$(date +%s)
set +e
"$gh" bisect matrix.yaml --good "${rev[1]}" --bad "${rev[8]}" --out out --max-trials 1 > bisect.txt 2>&1
rc=$?
set -e
echo "bisect took $(( $(date +%s) - start ))s, exit $rc"
cat bisect.txt
[ "$rc" = 0 ] || fail "bisect exit $rc, expected 0 (a first bad version found)"
python3 - "$work/out/summary.json" "${rev[6]}" "${rev[5]}" <<'PY' || fail "summary.json"
import json, sys
s = json.load(open(sys.argv[1]))
text = json.dumps(s)
assert sys.argv[2] in text and sys.argv[3] in text, (sys.argv[2:], text[:2000])
PY
grep -q "first bad.*${rev[6]}\|${rev[6]}.*first bad" out/summary.md || fail "summary.md names no first bad ${rev[6]}: $(head -40 out/summary.md)"
grep -q "ValueError: the answer is 41, not 42" out/summary.md || fail "the hunted signature is not the program's error line"
grep -q "git commit \`${full[6]}\`; checked against the label: \`commit ${full[6]}\`" out/summary.md ||
  fail "summary.md does not show the first bad arm's commit checked against its label"
# Lazy: only the probed revisions were built; every one of them from its own worktree.
built=$(ls -d out/versions/*/prefix/bin/answer | wc -l)
[ "$built" -lt 8 ] || fail "all 8 revisions were built"
for d in out/versions/*/prefix/bin/answer; do
  v=$(basename "$(dirname "$(dirname "$(dirname "$d")")")")
  git -C "out/versions/$v/src" rev-parse --short=12 HEAD | grep -q "^$v" || fail "$v built from another revision"
done
echo "PASS: first bad ${rev[6]}, $built of 8 revisions built"
