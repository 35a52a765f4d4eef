#!/bin/sh
# Passes when the harness filled every placeholder: argv is RANK NRANKS LOCAL_RANK COORDINATOR
# OUT; it leaves proof of what it saw in OUT/seen.rankR for the test to read.
rank=$1 nranks=$2 local_rank=$3 coordinator=$4 out=$5
case "$coordinator" in
  *:[0-9]*) ;;
  *) echo "bad coordinator '$coordinator'"; exit 3 ;;
esac
printf 'rank=%s nranks=%s local_rank=%s coordinator=%s cwd=%s probe=%s\n' \
  "$rank" "$nranks" "$local_rank" "$coordinator" "$(pwd)" "$GH_EXEC_PROBE" > "$out/seen.rank$rank"
echo "warming up"
echo "process $rank: ok"
