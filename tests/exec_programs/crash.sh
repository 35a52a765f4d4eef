#!/bin/sh
# Rank $2 modulo $3 dies of SIGSEGV after some output; the others pass.
rank=$1 crash_rank=$(( $2 % $3 ))
echo "process $rank: about to touch freed memory"
if [ "$rank" = "$crash_rank" ]; then
  kill -SEGV $$
fi
echo "process $rank: ok"
