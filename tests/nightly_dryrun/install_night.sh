#!/bin/sh
# A synthetic nightly version's set-up (run by the sweep or the bisect in the version's
# directory, GH_VERSION naming it): installs the fake MPI library (tests/bisect_versions/
# fake_version.cc, preloaded into the ranks) and says how this night's build behaves:
#   n01..n05 pass
#   n06..n08 corrupt the data MPI_Sendrecv receives (the planted regression, first bad n06)
# GH_NIGHTLY_FAKE_LIB is the built libgh_bisect_fake_version.so (tests/nightly_dryrun.cmake).
set -eu
case "$GH_VERSION" in
  n01|n02|n03|n04|n05) behaviour=pass ;;
  n06|n07|n08) behaviour=corrupt ;;
  *) echo "error: unknown version '$GH_VERSION'" >&2; exit 1 ;;
esac
cp "$GH_NIGHTLY_FAKE_LIB" ./libfake_version.so
echo "$behaviour" > ./behaviour
