#!/bin/sh
# Prints the variables it runs under, then fails on purpose unless PROG_OK is set.
echo "XLA_FLAGS=${XLA_FLAGS:-<unset>}"
echo "JAX_PLATFORMS=${JAX_PLATFORMS:-<unset>}"
echo "fw: $(cat "$FW_HOME/fw.txt" 2>&1)"
if [ -z "${PROG_OK:-}" ]; then
  echo "Traceback (most recent call last):"
  echo '  File "prog.py", line 3, in <module>'
  echo "ValueError: planted failure"
  exit 1
fi
echo "process $1: ok"
