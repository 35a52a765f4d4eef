#!/bin/sh
# Prints what real XLA verifier errors look like at scale, then exits 1. VARIANT ($1):
#   line_match / line_nomatch  one ~1 MiB line, ending in "async_computation" or not
#   bulk_match / bulk_nomatch  10 MiB of 64-byte lines, then a last line that matches or not
variant=$1
filler=$(printf '%063d' 0 | tr 0 x)
case "$variant" in
  line_*)
    printf 'jax.errors.JaxRuntimeError: FAILED_PRECONDITION: verifier: '
    head -c 1048576 /dev/zero | tr '\0' h
    if [ "$variant" = line_match ]; then echo ' in async_computation'; else echo ' in main'; fi
    ;;
  bulk_*)
    yes "$filler" | head -n 163840
    if [ "$variant" = bulk_match ]; then
      echo "E: FAILED_PRECONDITION: Buffer for all-gather-start.1 in async_computation is not ready"
    else
      echo "E: FAILED_PRECONDITION: Buffer for all-gather-start.1 is not ready"
    fi
    ;;
  *) echo "unknown variant '$variant'"; exit 3 ;;
esac
exit 1
