# Dry run of the nightly pipeline (label "mpi"): ci/nightly.sh over three nights of a synthetic
# version range on the host backend with mpirun, a regression planted at n06; asserts the
# baseline policy and that the bisect the regression triggers names n06. The versions reuse
# tests/bisect.cmake's fake MPI library (gh_bisect_fake_version). The nights go into a history
# database through `gpuharness history`, which also compares each night with the baseline and
# writes the night's summary.

# `gpuharness history summary` alone, on a night whose bisect found no answer, and on malformed
# state files (no MPI or fake library).
add_test(NAME gpuharness.nightly.summary_no_answer
         COMMAND ${GH_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/nightly_dryrun/night_summary_no_answer_test.sh
                 $<TARGET_FILE:gpuharness>)
set_tests_properties(gpuharness.nightly.summary_no_answer PROPERTIES LABELS "history;nightly" TIMEOUT 60)

if(NOT TARGET gh_bisect_fake_version)
  return()
endif()

add_test(NAME gpuharness.nightly.dryrun
         COMMAND ${GH_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/nightly_dryrun/nightly_dryrun_test.sh
                 $<TARGET_FILE:gpuharness> ${PROJECT_SOURCE_DIR} $<TARGET_FILE:gh_bisect_fake_version>)
set_tests_properties(gpuharness.nightly.dryrun PROPERTIES LABELS "mpi;nightly" TIMEOUT 300 RUN_SERIAL TRUE)
