#!/usr/bin/env bash
# The hostile-input corpus: cases/<entry point>/<case>/ each hold bad input for one entry point
# of gpuharness (sweep, bisect, minimize, repro, report, run, matrix, launcher, state files) and:
#   cmd       the arguments, one shell line, run from a copy of the case directory
#   expect    "exit N" (default 2), "stderr: TEXT" lines (each must appear in stderr: the file, the
#             key), "allow: GLOB" lines (new or changed paths the run may leave; default none)
#   setup.sh  optional: builds the input first (bytes a YAML file should not hold, state dirs)
# Each case must end within 10 s with that exit status and those substrings, and leave every
# file and directory of its copy as it found them (nothing half-written).
# usage: run_corpus.sh GPUHARNESS CORPUS_DIR WORK_DIR [CASE_GLOB]
set -u
bin=$1 corpus=$2 work=$3 only=${4:-*/*}
rm -rf "$work" && mkdir -p "$work" || exit 3
passed=0 failed=0 failures=""

snapshot() {  # every path with its type and, for files, its checksum
  (cd "$1" && find . -mindepth 1 ! -name . -printf '%y %p\n' | sort | while read -r type path; do
    if [ "$type" = f ]; then echo "f $path $(md5sum < "$path" | cut -d' ' -f1)"; else echo "$type $path"; fi
  done)
}

for case_dir in "$corpus"/cases/$only/; do
  name=${case_dir#"$corpus/cases/"}
  name=${name%/}
  w="$work/cases/$name"
  log="$work/logs/$name"
  mkdir -p "$w" "$log"
  cp -r "$case_dir". "$w"/
  problems=()
  if [ -f "$w/setup.sh" ] && ! (cd "$w" && bash setup.sh >"$log/setup.out" 2>&1); then
    problems+=("setup.sh failed: $(tail -3 "$log/setup.out")")
  fi
  rm -f "$w/setup.sh"
  want_exit=2
  allows=()
  wants=()
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      "exit "*) want_exit=${line#exit } ;;
      "stderr: "*) wants+=("${line#stderr: }") ;;
      "allow: "*) allows+=("${line#allow: }") ;;
      ""|"#"*) ;;
      *) problems+=("bad expect line: $line") ;;
    esac
  done < "$w/expect"
  before=$(snapshot "$w")
  start=$(date +%s.%N)
  eval "args=($(cat "$w/cmd"))"
  (cd "$w" && exec timeout -k 2 10 "$bin" "${args[@]}" >"$log/stdout" 2>"$log/stderr" </dev/null)
  status=$?
  elapsed=$(echo "$(date +%s.%N) - $start" | bc)
  [ "$status" = "$want_exit" ] || problems+=("exit $status, want $want_exit")
  if [ "$(echo "$elapsed > 10" | bc)" = 1 ]; then problems+=("took ${elapsed}s (limit 10s)"); fi
  for want in "${wants[@]}"; do
    grep -qF -- "$want" "$log/stderr" || problems+=("stderr lacks: $want")
  done
  after=$(snapshot "$w")
  while IFS= read -r changed; do
    [ -z "$changed" ] && continue
    path=${changed#[<>] }
    path=${path#? ./}
    path=${path%% *}
    ok=0
    for glob in "${allows[@]}"; do
      # shellcheck disable=SC2053
      [[ $path == $glob ]] && ok=1
    done
    [ $ok = 1 ] || problems+=("left behind or changed: $path")
  done < <(diff <(echo "$before") <(echo "$after") | grep '^[<>]')
  if [ ${#problems[@]} -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+="FAIL $name:"$'\n'
    for p in "${problems[@]}"; do failures+="    $p"$'\n'; done
    failures+="    stderr: $(head -c 600 "$log/stderr")"$'\n'
  fi
done
printf '%s' "$failures"
echo "hostile corpus: $((passed + failed)) cases, $passed passed, $failed failed"
[ "$failed" = 0 ]
