#!/bin/sh
# Every rank hangs, with a grandchild in its process group whose pid goes to OUT/hang.rankR so
# that the test can check the timeout killed the whole group, not just this shell.
rank=$1 out=$2
sleep 1000 &
echo $! > "$out/hang.rank$rank"
echo "process $rank: waiting forever"
sleep 1000
