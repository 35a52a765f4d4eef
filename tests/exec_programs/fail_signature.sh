#!/bin/sh
# Rank FAULT ($2) modulo NRANKS ($3) prints seed 000's XLA error and exits 1; the others pass.
rank=$1 fault_rank=$(( $2 % $3 ))
echo "process $rank: starting"
if [ "$rank" = "$fault_rank" ]; then
  echo "jax.errors.JaxRuntimeError: FAILED_PRECONDITION: Buffer for all-gather-start.1 in async_computation is not ready" >&2
  exit 1
fi
echo "process $rank: ok"
