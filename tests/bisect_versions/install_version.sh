#!/bin/sh
# A version's set-up (run by the bisect in the version's directory, GH_VERSION naming it):
# installs the fake library and says how this version behaves. The range, oldest first:
#   v00..v02 crash with SIGSEGV (an older, different failure)
#   v03..v07 pass
#   v08..v11 fail with wrong data (the regression, first bad v08)
#   v07      cannot be set up (the build "fails")
# GH_BISECT_FAKE_LIB is the built libgh_bisect_fake_version.so (tests/bisect.cmake sets it).
set -eu
case "$GH_VERSION" in
  v07) echo "error: $GH_VERSION does not build (planted set-up failure)" >&2; exit 1 ;;
  v00|v01|v02) behaviour=segv ;;
  v03|v04|v05|v06) behaviour=pass ;;
  v08|v09|v10|v11) behaviour=corrupt ;;
  *) echo "error: unknown version '$GH_VERSION'" >&2; exit 1 ;;
esac
cp "$GH_BISECT_FAKE_LIB" ./libfake_version.so
echo "$behaviour" > ./behaviour
