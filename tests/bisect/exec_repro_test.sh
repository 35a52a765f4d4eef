#!/bin/bash
# An exec bisect's outputs as a framework developer receives them (tests/bisect.cmake, label
# "mpi"): over six fake versions (tests/bisect/exec_repro/: v4 plants a ValueError), summary.md's
# first screen is a bug report with the exact sections and no path of this test's directories,
# and the repro script, run from another directory, runs the user's own command on 2 processes:
# the failing arm exits 1 with the traceback's line, the last good arm 0, --repeat counts; with
# the version's environment removed it sets the version up again, and a failure of another
# family is "not reproduced: failed differently"; its bundle (repro --bundle) reproduces with the
# checkout hidden.
# usage: exec_repro_test.sh GPUHARNESS WORKDIR
. "$(dirname "$0")/../common/e2e_preamble.sh"
here=$here/exec_repro
mkdir -p "$work/elsewhere"
cd "$work"
set +e
"$gh" bisect "$here/matrix.yaml" --good v1 --bad v6 --out "$work/out" > bisect.txt 2>&1
rc=$?
set -e
cat bisect.txt
[ "$rc" = 0 ] || fail "bisect exit $rc, expected 0"
grep -q "first bad: v4, last good: v3" bisect.txt || fail "no 'first bad: v4, last good: v3'"

md=$work/out/summary.md
first=$(sed '/^## Harness details$/,$d' "$md")
[ "$first" != "$(cat "$md")" ] || fail "summary.md has no '## Harness details' heading"
# The first screen's sections, exactly and in order.
sections=$(printf '%s\n' "$first" | grep '^#')
expected='# `ValueError: the answer is 41, not 42` since version v4
## What broke
## The command
## Output of the failing processes
## Environment
## Reproduce'
[ "$sections" = "$expected" ] || fail "first screen's headings:
$sections
expected:
$expected"
for path in "$work" "$here" "$(dirname "$here")" "$HOME"; do
  case "$first" in *"$path"*) fail "the first screen holds the machine path $path:
$first" ;; esac
done
for word in cell point probe trial; do
  printf '%s\n' "$first" | grep -qiw "$word" && fail "harness jargon '$word' on the first screen:
$first"
done
want() { printf '%s\n' "$first" | grep -qF -- "$1" || fail "first screen lacks: $1
$first"; }
want '- First bad: `v4` (failed 2 of 2 runs)'
want '- Last good: `v3` (passed 4 of 4 runs)'  # one trial per probe, then the pair confirmed
want '- The failure: an error, `ValueError: the answer is 41, not 42`'
want '2 processes, started by `mpirun'
want '    # process 0'
want '    fakeprog 127.0.0.1:'
want ' 2 0 --flag'
want ' 2 1 --flag'
want '`FAKE_SETTING=on`'
want 'Process 0: error, `ValueError: the answer is 41, not 42`'
want 'Process 1: error, `ValueError: the answer is 41, not 42`'
want '  File "fakeprog.py", line 7, in <module>'
want '| version v4 (first bad) | pip freeze: `fakelib==4.0` |'
want '| version v3 (last good) | pip freeze: `fakelib==3.0` |'
want '| Python | Python 3.11.2 (the versions'"'"' venvs) |'
want '| OS | Linux '
want '| MPI | '
want '    <DIR>/repro_first_bad.sh [--repeat N] [--arm NAME]'

# The repro, from another directory: the user's command per process, no harness.
cd "$work/elsewhere"
script=$work/out/repro_first_bad.sh
grep -q "GH_STACK_DUMP_DIR\|\.stacks" "$script" && fail "the repro script carries the harness's stack-dump variables"
grep -q "gpuharness" <(grep -v '^#' "$script") && fail "the repro script runs gpuharness:
$(cat "$script")"
set +e
GH_REPRO_OUT=$work/r1 "$script" --arm failing > failing.txt 2>&1; frc=$?
GH_REPRO_OUT=$work/r2 "$script" --arm workaround > working.txt 2>&1; wrc=$?
GH_REPRO_OUT=$work/r3 "$script" > both.txt 2>&1; brc=$?
GH_REPRO_OUT=$work/r4 "$script" --arm failing --repeat 3 > repeat.txt 2>&1; rrc=$?
GH_REPRO_OUT=$work/r5 "$work/out/repro_last_good.sh" > last_good.txt 2>&1; lrc=$?
"$script" --repeat x > bad_arg.txt 2>&1; xrc=$?
set -e
[ "$frc" = 1 ] || fail "failing arm exit $frc, expected 1: $(cat failing.txt)"
grep -q "^ValueError: the answer is 41, not 42$" failing.txt || fail "failing arm output lacks the signature: $(cat failing.txt)"
grep -q "^-- rank 1 of 2 exited 1" failing.txt || fail "failing arm does not name rank 1: $(cat failing.txt)"
[ "$wrc" = 0 ] || fail "workaround arm exit $wrc, expected 0: $(cat working.txt)"
grep -q "^process 1: ok$" "$work/r2/workaround/rank1.log" || fail "workaround rank 1 did not pass: $(cat "$work/r2/workaround/rank1.log")"
[ "$brc" = 0 ] || fail "both arms: exit $brc: $(cat both.txt)"
grep -q "reproduced: the failing arm fails, the workaround arm passes" both.txt || fail "$(cat both.txt)"
[ "$rrc" = 1 ] || fail "--repeat 3 of the failing arm: exit $rrc"
grep -q "^failing arm: failed 3 of 3 runs$" repeat.txt || fail "--repeat does not count: $(cat repeat.txt)"
grep -q "^   the bisect saw this fail 2 of 2 times$" repeat.txt || fail "no 'the bisect saw this fail': $(cat repeat.txt)"
[ -f "$work/r4/failing.run3/rank0.log" ] || fail "run 3 left no output"
[ "$lrc" = 0 ] || fail "repro_last_good.sh exit $lrc: $(cat last_good.txt)"
[ "$xrc" = 2 ] || fail "--repeat x: exit $xrc, expected 2"
grep -q -- "--repeat: expected a whole number >= 1, got 'x'" bad_arg.txt || fail "$(cat bad_arg.txt)"

# The version's environment removed (its directory kept, as a pruned venv leaves it): the script
# sets the version up again rather than run whatever `fakeprog` the system has, and reproduces.
rm -rf "$work/out/versions/v4/bin" "$work/out/versions/v4/venv"
set +e
GH_REPRO_OUT=$work/r6 "$script" > pruned.txt 2>&1; prc=$?
set -e
[ "$prc" = 0 ] || fail "repro with v4's environment removed: exit $prc: $(cat pruned.txt)"
grep -q "^version v4: setting it up (.*/versions/v4/bin is missing)$" pruned.txt || fail "v4 not set up again: $(cat pruned.txt)"
grep -q "^reproduced: the failing arm fails, the workaround arm passes$" pruned.txt || fail "$(cat pruned.txt)"
[ -x "$work/out/versions/v4/bin/fakeprog" ] || fail "the set-up did not put fakeprog back"
# The version set up, its program failing otherwise (as a venv without the package would): a
# failure of another family is no reproduction.
cat > "$work/out/versions/v4/bin/fakeprog" <<'PROG'
#!/bin/sh
echo "Traceback (most recent call last):"
echo '  File "fakeprog.py", line 1, in <module>'
echo "ModuleNotFoundError: No module named 'fakelib'"
exit 1
PROG
set +e
GH_REPRO_OUT=$work/r7 "$script" > other.txt 2>&1; orc=$?
set -e
[ "$orc" = 1 ] || fail "a failure of another family: exit $orc, expected 1: $(cat other.txt)"
grep -qxF "   failed differently: ModuleNotFoundError: No module named 'fakelib'" other.txt || fail "$(cat other.txt)"
grep -qxF "not reproduced: failed differently: ModuleNotFoundError: No module named 'fakelib' (recorded: ValueError: the answer is 41, not 42)" other.txt ||
  fail "no 'not reproduced: failed differently': $(cat other.txt)"
# The same repro as a bundle travels: run from another directory with this checkout (the matrix,
# its set-up script, the scenario and DIR) hidden under an empty mount where `unshare -m` works,
# it sets both versions up in the bundle and reproduces.
checkout=$(cd "$here/../../.." && pwd)
travel=$(mktemp -d "${TMPDIR:-/tmp}/gh-bisect-bundle.XXXXXX")
trap 'rm -rf "$travel"' EXIT
"$gh" repro "$work/out" exec_repro/np=2 --bundle "$travel/b" > bundle.txt 2>&1 || fail "repro --bundle: $(cat bundle.txt)"
grep -qF "run.sh, scenario/exec_repro.yaml, scenario/install_fakeprog.sh;" bundle.txt || fail "$(cat bundle.txt)"
if grep -rlF "$checkout" "$travel/b"; then fail "the bundle names $checkout"; fi
cmd="cd $travel && GH_REPRO_OUT=$travel/out bash b/run.sh"
set +e
if unshare -m true 2>/dev/null; then
  unshare -m bash -c "mount -t tmpfs none $(printf %q "$checkout") && $cmd" > "$travel/console.txt" 2>&1; trc=$?
else
  bash -c "$cmd" > "$travel/console.txt" 2>&1; trc=$?
fi
set -e
[ "$trc" = 0 ] || fail "the bundle's run.sh: exit $trc: $(cat "$travel/console.txt")"
grep -qxF "version v4: setting it up ($travel/b/versions/v4 is missing)" "$travel/console.txt" || fail "$(cat "$travel/console.txt")"
grep -qxF "reproduced: the failing arm fails, the workaround arm passes" "$travel/console.txt" || fail "$(cat "$travel/console.txt")"
echo "PASS"
