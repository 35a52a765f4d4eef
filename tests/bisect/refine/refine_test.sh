#!/bin/bash
# `gpuharness bisect --refine` end to end (tests/bisect.cmake): a repository made here with 13
# commits of a shell "build", tagged v1.0..v1.4 every third commit, the planted change in the 9th
# (between v1.2 at the 7th and v1.3 at the 10th), fixed in the 12th (before v1.4 at the 13th).
# Over v1.0..v1.3 the tag level must answer first bad v1.3, the commit level between them the
# 9th ('planted change'), reusing the tags' ends (never setting up the 7th or 10th commit) and
# resuming from the state file at the level it reached; --find fix over v1.3..v1.4 names the 12th
# ('the fix'); bad refine input exits 2 naming file:line:col and the key.
# usage: refine_test.sh GPUHARNESS WORKDIR
. "$(dirname "$0")/../../common/e2e_preamble.sh"
scenario="$here/../../providers/answer.yaml"
mkdir -p "$work/repo"
cd "$work/repo"
git init -q -b main .
git config user.email t@example.com && git config user.name test
declare -A rev
for i in $(seq 1 13); do
  value=42
  [ "$i" -ge 9 ] && [ "$i" -le 11 ] && value=41   # the planted change, fixed in the 12th
  printf '#!/bin/sh\n# revision %d\necho "answer: %d"\n[ %d = 42 ] || { echo "ValueError: the answer is %d, not 42" >&2; exit 1; }\n' \
    "$i" "$value" "$value" "$value" > answer.sh
  git add -A
  case $i in 9) git commit -qm "planted change" ;; 12) git commit -qm "the fix" ;; *) git commit -qm "revision $i" ;; esac
  rev[$i]=$(git rev-parse --short=12 HEAD)
  case $i in 1) git tag v1.0 ;; 4) git tag v1.1 ;; 7) git tag v1.2 ;; 10) git tag v1.3 ;; 13) git tag v1.4 ;; esac
done
build='mkdir -p {prefix}/bin && cp {src}/answer.sh {prefix}/bin/answer && chmod +x {prefix}/bin/answer'
matrix() {  # matrix FILE REFINE_BLOCK
  cat > "$work/$1" <<YAML
name: refine_bisect
scenarios: ["$scenario"]
defaults: {launcher: direct, ranks: 1, backend: host, timeout: 60s}
versions:
  name: tag
  git:
    repo: "{matrix_dir}/repo"
    tags: "v*"
    build: "$build"
$2
YAML
}
matrix matrix.yaml '  refine:
    name: commit
    git:
      repo: "{matrix_dir}/repo"
      range: "{good}..{bad}"
      build: "'"$build"'"'
matrix plain.yaml ''
matrix norange.yaml '  refine:
    name: commit
    git:
      repo: "{matrix_dir}/repo"
      range: "v1.0..v1.4"
      build: "'"$build"'"'
matrix reversed.yaml '  refine:
    name: commit
    git:
      repo: "{matrix_dir}/repo"
      range: "{bad}..{good}"
      build: "'"$build"'"'
matrix fix.yaml '  refine:
    name: commit
    git:
      repo: "{matrix_dir}/repo"
      range: "{bad}..{good}"
      build: "'"$build"'"'
matrix noprovider.yaml '  refine:
    name: commit'
cd "$work"
run() {  # run OUT MATRIX [flags]: the bisect's exit status in $rc, its output in OUT.txt
  local out=$1 m=$2; shift 2
  set +e
  "$gh" bisect "$m" --good v1.0 --bad v1.3 --out "$out" --max-trials 1 "$@" > "$out.txt" 2>&1
  rc=$?
  set -e
}

# Level 1 alone first (no --refine): the tags' answer.
run out plain.yaml
[ "$rc" = 0 ] || fail "plain bisect exit $rc: $(cat out.txt)"
grep -q "first bad: v1.3, last good: v1.2" out.txt || fail "tag answer: $(tail -3 out.txt)"
level1=$(sed -n 's/.*, \([0-9]*\) trials (.*/\1/p' out.txt | tail -1)

# --refine into the same DIR: the tag level is replayed from the state file, the commit level runs.
run out matrix.yaml --refine
cat out.txt
[ "$rc" = 0 ] || fail "refine exit $rc"
want="tag: first bad v1.3 (v1.2 good); commit between them: first bad ${rev[9]} 'planted change' (${rev[8]} good)"
grep -qF "$want" out.txt || fail "headline lacks '$want'"
grep -q "refine: tag answered; commit between v1.2 and v1.3: 4 versions" out.txt || fail "no refine progress line"
cached=$(tail -1 out.txt | sed -n 's/.* trials (\([0-9]*\) from the state file).*/\1/p')
[ "$cached" -ge "$level1" ] || fail "the tag level's $level1 trials were not all replayed ($cached cached)"
grep -qF "$want" out/summary.md || fail "summary.md lacks the levels line"
grep -qF "$want" out/refine/summary.md || fail "refine/summary.md lacks the levels line"
grep -q "ValueError: the answer is 41, not 42" out/refine/summary.md || fail "refine/summary.md lacks the hunted signature"
[ -x out/refine/repro_first_bad.sh ] || fail "no refine/repro_first_bad.sh"
grep -q "commit=${rev[9]} (first bad)" out/refine/repro_first_bad.sh || fail "the repro's failing arm is not ${rev[9]}"
python3 - out/summary.json "${rev[9]}" "${rev[8]}" <<'PY' || fail "summary.json levels"
import json, sys
s = json.load(open(sys.argv[1]))
levels = s["levels"]
assert [l["axis"] for l in levels] == ["tag", "commit"], levels
assert levels[0]["first_bad"] == "v1.3" and levels[0]["last_good"] == "v1.2", levels
assert levels[1]["first_bad"] == sys.argv[2] and levels[1]["last_good"] == sys.argv[3], levels
assert levels[1]["subject"] == "planted change", levels
PY
# The commit level's ends are the tags' own: commits 7 and 10 are never set up.
for i in 7 10; do [ ! -e "out/versions/${rev[$i]}" ] || fail "commit $i (a tag's commit) was set up again"; done
[ -x "out/versions/${rev[9]}/prefix/bin/answer" ] || fail "commit 9 was not built"

# Resume: the same command again runs nothing and answers the same.
run out matrix.yaml --refine
[ "$rc" = 0 ] || fail "resume exit $rc: $(cat out.txt)"
grep -qF "$want" out.txt || fail "resume answered otherwise: $(tail -2 out.txt)"
line=$(tail -1 out.txt)
total=$(echo "$line" | sed -n 's/.* \([0-9]*\) trials (.*/\1/p')
cached=$(echo "$line" | sed -n 's/.* trials (\([0-9]*\) from the state file).*/\1/p')
[ -n "$total" ] && [ "$total" = "$cached" ] || fail "resume ran trials again: $line"

# --jobs 2 and --find fix over the same levels.
run jobs matrix.yaml --refine --jobs 2
[ "$rc" = 0 ] && grep -qF "$want" jobs.txt || fail "--jobs 2: exit $rc: $(tail -3 jobs.txt)"
# --find fix: the fix's range runs from the last bad tag to the first good one ({bad}..{good}).
set +e
"$gh" bisect fix.yaml --find fix --bad v1.3 --good v1.4 --out fix --max-trials 1 --refine > fix.txt 2>&1
rc=$?
set -e
fixed="tag: first good (the fix) v1.4 (v1.3 bad); commit between them: first good (the fix) ${rev[12]} 'the fix' (${rev[11]} bad)"
[ "$rc" = 0 ] && grep -qF "$fixed" fix.txt || fail "--find fix: exit $rc, expected '$fixed': $(tail -3 fix.txt)"

# Bad input: exit 2, the file:line:col and the key, nothing written.
expect_bad() {  # expect_bad OUT PATTERN MATRIX [flags]
  local out=$1 pattern=$2; shift 2
  run "$out" "$@"
  [ "$rc" = 2 ] || fail "$out: exit $rc, expected 2: $(cat "$out.txt")"
  grep -qE -- "$pattern" "$out.txt" || fail "$out: message lacks /$pattern/: $(cat "$out.txt")"
}
expect_bad bad1 "--refine: plain.yaml has no versions.refine" plain.yaml --refine
[ ! -e bad1 ] || fail "bad1: DIR was written"
expect_bad bad2 "norange.yaml:1[0-9]:[0-9]+: versions.refine.git: gives no range between the coarse answer's ends: name both \{good\} and \{bad\}" norange.yaml --refine
[ ! -e bad2 ] || fail "bad2: DIR was written"
expect_bad bad3 "noprovider.yaml:1[0-9]:[0-9]+: versions.refine: needs exactly one provider" noprovider.yaml --refine
# A reversed range ({bad}..{good}) lists only the bad end: no finer level (found after the tags).
expect_bad bad4 "reversed.yaml:1[0-9]:[0-9]+: versions.refine.git: lists 1 version\(s\) between v1.2 and v1.3" reversed.yaml --refine
echo "PASS: tag v1.3, commit ${rev[9]}"
