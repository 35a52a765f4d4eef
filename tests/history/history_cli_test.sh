#!/usr/bin/env bash
# `gpuharness history` as a command (CTest gpuharness.history.cli): two processes ingesting two
# nights into one new database at once both land; ingesting again adds nothing; a truncated
# database, a text file and another application's SQLite file are clean errors (exit 2, the
# file named, the file unchanged); a directory with a bad records.jsonl is refused (exit 2,
# file:line) without creating the database; an unknown flag is exit 2 in the project's words;
# a database its reader may not write (its file, or also its directory) still answers queries
# and leaves no file behind, while an ingest into it is exit 3.
#   bash tests/history/history_cli_test.sh GH_HISTORY_TOOL
set -uo pipefail
gpuharness=${1:?usage: history_cli_test.sh GPUHARNESS_BIN}
tool() { "$gpuharness" history "$@"; }
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gh-history-cli-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Two nights of many records each (the report test data's records, renamed per copy).
for n in 1 2; do
  mkdir -p "$work/night$n"
  for i in $(seq 1 150); do
    sed "s#\"point\":\"\([^\"]*\)\"#\"point\":\"\1/i=$i\"#" "$src/harness/report/testdata/cli/baseline/records.jsonl"
  done >"$work/night$n/records.jsonl"
done
expected=$(( $(wc -l <"$work/night1/records.jsonl") * 2 ))

db="$work/h.sqlite"
tool ingest "$work/night1" --night night1 --db "$db" >"$work/a.out" 2>&1 & a=$!
tool ingest "$work/night2" --night night2 --db "$db" >"$work/b.out" 2>&1 & b=$!
wait $a || fail "concurrent ingest 1 exited $?: $(cat "$work/a.out")"
wait $b || fail "concurrent ingest 2 exited $?: $(cat "$work/b.out")"
rows=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from results").fetchone()[0])' "$db")
[ "$rows" = "$expected" ] || fail "after two concurrent ingests: $rows results, expected $expected"
out=$(tool ingest "$work/night1" --night night1 --db "$db") || fail "re-ingest exited $?"
[[ "$out" == *", 0 new ("* ]] || fail "re-ingest added records: $out"

expect_error() {  # FILE MESSAGE: history flaky --db FILE exits 2 with MESSAGE, FILE unchanged
  local before after rc=0 err
  before=$(md5sum <"$1")
  err=$(tool flaky --db "$1" 2>&1 >/dev/null) || rc=$?
  after=$(md5sum <"$1")
  [ "$rc" -eq 2 ] || fail "$1: exit $rc, expected 2"
  [[ "$err" == "gpuharness history: $1: $2"* ]] || fail "$1: stderr '$err', expected '$2'"
  [ "$before" = "$after" ] || fail "$1 was modified"
}
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("pragma wal_checkpoint(truncate)")' "$db"
cp "$db" "$work/truncated.sqlite"
truncate -s $(( $(stat -c %s "$db") / 2 )) "$work/truncated.sqlite"
expect_error "$work/truncated.sqlite" "not a gpuharness history database ("
printf 'night,point,outcome\n' >"$work/notes.txt"
expect_error "$work/notes.txt" "not a gpuharness history database (not an SQLite file)"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("create table results(x)"); c.commit()' "$work/other.sqlite"
expect_error "$work/other.sqlite" "not a gpuharness history database (an SQLite database of another application)"

# A directory whose records.jsonl is bad is refused before the database file exists.
mkdir -p "$work/badnight"
{ head -n 1 "$work/night1/records.jsonl"; printf '{"point": 7}\n'; head -n 1 "$work/night1/records.jsonl"; } \
  >"$work/badnight/records.jsonl"  # a bad middle line (a torn last line is a killed run's, and tolerated)
rc=0; err=$(tool ingest "$work/badnight" --db "$work/new.sqlite" 2>&1) || rc=$?
[ "$rc" -eq 2 ] && [[ "$err" == "gpuharness history: $work/badnight/records.jsonl:2"* ]] ||
  fail "bad records.jsonl: exit $rc, '$err'"
[ ! -e "$work/new.sqlite" ] || fail "a refused ingest created $work/new.sqlite"

rc=0; err=$(tool flips --x --db "$db" 2>&1) || rc=$?
[ "$rc" -eq 2 ] && [[ "$err" == "gpuharness history: unknown flag --x"* ]] || fail "unknown flag: exit $rc, '$err'"

# Read-only: as root, a reader without write access is another user (root writes anything).
ro="$work/ro"
mkdir -p "$ro/dir" "$ro/file"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("pragma wal_checkpoint(truncate)")' "$db"
cp "$db" "$ro/dir/h.sqlite"
cp "$db" "$ro/file/h.sqlite"
chmod 755 "$work" "$ro"
if [ "$(id -u)" -eq 0 ]; then
  as_reader() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
  chmod 755 "$ro/dir"; chmod 644 "$ro/dir/h.sqlite"   # neither the file nor its directory
  chown 65534 "$ro/file"; chmod 644 "$ro/file/h.sqlite" # the directory, not the file
else
  as_reader() { "$@"; }
  chmod 444 "$ro/dir/h.sqlite" "$ro/file/h.sqlite"; chmod 555 "$ro/dir"
fi
want=$(tool flips --format tsv --db "$db")
for where in dir file; do
  rc=0; got=$(as_reader "$gpuharness" history flips --format tsv --db "$ro/$where/h.sqlite" 2>"$work/ro.err") || rc=$?
  [ "$rc" -eq 0 ] && [ "$got" = "$want" ] || fail "read-only $where: exit $rc, '$(cat "$work/ro.err")'"
  rc=0; as_reader "$gpuharness" history status --db "$ro/$where/h.sqlite" >/dev/null 2>"$work/ro.err" || rc=$?
  [ "$rc" -eq 0 ] || fail "read-only $where: status exit $rc, '$(cat "$work/ro.err")'"
  leftovers=$(ls "$ro/$where")
  [ "$leftovers" = "h.sqlite" ] || fail "read-only $where: a query left '$leftovers'"
done
rc=0; err=$(as_reader "$gpuharness" history ingest "$work/night1" --night night9 --db "$ro/dir/h.sqlite" 2>&1 >/dev/null) || rc=$?
[ "$rc" -eq 3 ] && [[ "$err" == "gpuharness history: $ro/dir/h.sqlite: "* ]] || fail "ingest into a read-only database: exit $rc, '$err'"
chmod -R u+w "$ro"

[ "$failures" -eq 0 ] || { echo "history cli: $failures failure(s)"; exit 1; }
echo "PASS: concurrent ingest, idempotent re-ingest, truncated and foreign databases refused, bad input creates no database, read-only databases queried"
