#!/bin/sh
# The layering check can fail for every folder: on a scratch copy of ROOT/harness it passes,
# then for each folder a back-arrow planted in one of its real files (an include of a layer the
# folder may not use), and a new folder without a rule, must each fail the check, named by file
# and line. cli may include every layer: nothing to plant there.
# usage: plant_test.sh ROOT CHECK_SCRIPT
set -u
root=$1
check=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gh_layering_plant.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/harness"
(cd "$root" && find harness -type f \( -name '*.h' -o -name '*.cc' -o -name '*.cu' \)) | while read -r f; do
  mkdir -p "$scratch/$(dirname "$f")"
  cp "$root/$f" "$scratch/$f"
done
fail() { echo "FAIL: $*"; exit 1; }
sh "$check" "$scratch" >/dev/null || fail "the clean copy does not pass: $(sh "$check" "$scratch")"
forbidden() {
  case $1 in
    core|report|scenarios|history) echo driver ;;
    runtime) echo report ;;
    driver|bisect) echo runtime ;;
    nccl_device_plugin) echo cli ;;
    *) echo "" ;;
  esac
}
planted=0
for dir in $(cd "$scratch/harness" && ls -d */ | tr -d /); do
  layer=$(forbidden "$dir")
  if [ -z "$layer" ]; then
    [ "$dir" = cli ] && continue
    fail "harness/$dir: no back-arrow to plant (add the folder to plant_test.sh and check_layering.sh)"
  fi
  file=$(cd "$scratch" && find "harness/$dir" -type f -name '*.cc' | LC_ALL=C sort | head -n 1)
  cp "$scratch/$file" "$scratch/$file.orig"
  printf '#include "harness/%s/planted.h"\n' "$layer" >>"$scratch/$file"
  line=$(wc -l <"$scratch/$file" | tr -d ' ')
  out=$(sh "$check" "$scratch")
  rc=$?
  mv "$scratch/$file.orig" "$scratch/$file"
  [ $rc -eq 1 ] || fail "$file: a planted include of harness/$layer passed the check (exit $rc)"
  printf '%s\n' "$out" | grep -q "^$file:$line: $dir includes harness/$layer/planted.h;" ||
    fail "$file: the planted back-arrow is not named; the check said: $out"
  planted=$((planted + 1))
done
mkdir -p "$scratch/harness/unruled"
printf '#include "harness/core/record.h"\n' >"$scratch/harness/unruled/x.cc"
out=$(sh "$check" "$scratch")
[ $? -eq 1 ] || fail "a folder without a rule passed the check"
printf '%s\n' "$out" | grep -q '^harness/unruled: no layering rule' || fail "the folder without a rule is not named: $out"
echo "PASS: a back-arrow planted in each of $planted folders, and a folder without a rule, fail the check"
