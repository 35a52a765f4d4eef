# Whole-binary verdict tests (label "mpi"; issue 15 items 2-5, 13): infrastructure failures of
# the launcher are `infra` records and exit 3, never a met expectation; a rank SIGKILLed from
# outside is a crash naming it; a run cut short leaves planned.runs for `gpuharness report`; an
# unwritable --out is exit 3 for every command (the read-only mount case skips without
# CAP_SYS_ADMIN).
if(NOT TARGET gh_driver)
  return()
endif()

gh_harness_test_suite(gh_verdicts_e2e_test ${CMAKE_CURRENT_SOURCE_DIR}/verdicts/verdicts_test.cc
  NAME verdicts LABEL mpi TIMEOUT 300 SERIAL
  PROPERTIES SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
# (The Open MPI run-as-root settings are the test's own: set where unset, see verdicts_test.cc.)

# A "not applicable here" skip (core/skip_cause.h) meets `expect: pass` at the sweep level.
add_test(NAME gpuharness.verdicts.NotApplicableSkipMeetsAnExpectedPass
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/verdicts/not_applicable_skip_test.sh $<TARGET_FILE:gpuharness>
          ${CMAKE_BINARY_DIR}/test_tmp/verdicts_not_applicable_skip)
set_tests_properties(gpuharness.verdicts.NotApplicableSkipMeetsAnExpectedPass PROPERTIES LABELS "mpi" TIMEOUT 120)

# `known:` expectations (known failures apart from regressions, fixes upstream) and `valid_for:`
# (a point outside it is a skip saying why) through sweep, run and the reports.
add_test(NAME gpuharness.verdicts.KnownFailuresAndRangesOfValidity
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/verdicts/known_failure_test.sh $<TARGET_FILE:gpuharness>
          ${CMAKE_BINARY_DIR}/test_tmp/verdicts_known_failure)
set_tests_properties(gpuharness.verdicts.KnownFailuresAndRangesOfValidity PROPERTIES LABELS "mpi" TIMEOUT 120)
