#!/bin/sh
# A version's set-up (run by the sweep or bisect in the version's directory, GH_VERSION naming
# it): installs the slow library and its factor. The range, oldest first:
#   s00..s02  1.00  the reference speed
#   s03..s04  1.01  a planted 1 % change (below any sane threshold: never flagged)
#   s05..s07  1.10  a planted 10 % slowdown (first bad: s05)
# GH_PERF_FAKE_LIB is the built libgh_perf_slow_version.so (tests/perf.cmake sets it).
set -eu
case "$GH_VERSION" in
  s00|s01|s02) factor=1.00 ;;
  s03|s04) factor=1.01 ;;
  s05|s06|s07) factor=1.10 ;;
  *) echo "error: unknown version '$GH_VERSION'" >&2; exit 1 ;;
esac
cp "$GH_PERF_FAKE_LIB" ./libslow_version.so
echo "$factor" > ./slowdown
