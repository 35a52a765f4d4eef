# Whole-binary tests of what the nightly's console says (label "mpi"): `run` and `sweep` end
# with one FAILED line per unmet expectation, most important first, and nothing for passes
# unless -v; a resumed sweep counts from every record; --filter, --rerun-failed and --fresh and
# their effect on the records; per-point progress with heartbeats off a terminal (no carriage
# return, no escape), live in place on one (a pty from script(1)), NO_COLOR honoured.
if(NOT TARGET gh_driver)
  return()
endif()

gh_harness_test_suite(gh_nightly_console_test ${CMAKE_CURRENT_SOURCE_DIR}/nightly/nightly_console_test.cc
  NAME nightly LABEL mpi TIMEOUT 600 SERIAL)
