# Whole-binary bisect tests (label "mpi"): `gpuharness bisect` over a synthetic version range
# (tests/bisect_versions: each version a directory holding a small library preloaded into the
# ranks) run through mpirun on the host backend, asserting the answer, the probes, resume, the
# repro script, and bad input.
if(NOT TARGET gh_driver)
  return()
endif()

gh_harness_test_suite(gh_bisect_e2e_test ${CMAKE_CURRENT_SOURCE_DIR}/bisect/bisect_e2e_test.cc
  NAME bisect LABEL mpi TIMEOUT 600 SERIAL
  LIBS nlohmann_json::nlohmann_json GTest::gtest_main GTest::gmock
  DEFINES GH_BISECT_TESTDATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/bisect_versions"
          GH_BISECT_FAKE_LIB_PATH="$<TARGET_FILE:gh_bisect_fake_version>"
  DEPENDS gh_bisect_fake_version)

# One fake version's library (the program above preloads it): wraps MPI_Sendrecv (symbols looked
# up at call time, so it links nothing but libdl).
add_library(gh_bisect_fake_version SHARED ${CMAKE_CURRENT_SOURCE_DIR}/bisect_versions/fake_version.cc)
target_include_directories(gh_bisect_fake_version PRIVATE
  $<TARGET_PROPERTY:MPI::MPI_CXX,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(gh_bisect_fake_version PRIVATE ${CMAKE_DL_LIBS})

# An exec bisect's summary.md as a bug report and its standalone repro script
# (tests/bisect/exec_repro_test.sh).
add_test(NAME gpuharness.bisect.ExecBugReportAndStandaloneRepro
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bisect/exec_repro_test.sh $<TARGET_FILE:gpuharness>
          ${CMAKE_BINARY_DIR}/test_tmp/bisect_exec_repro)
set_tests_properties(gpuharness.bisect.ExecBugReportAndStandaloneRepro PROPERTIES LABELS "mpi" TIMEOUT 300
  RUN_SERIAL TRUE)
# `gpuharness repro --bundle` travels: the bundle of a sweep's failing exec point, run from
# another directory with the scenario's tree and results gone and this checkout hidden
# (tests/bisect/repro_bundle_test.sh).
add_test(NAME gpuharness.bisect.ReproBundleTravels
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bisect/repro_bundle_test.sh $<TARGET_FILE:gpuharness>
          ${CMAKE_BINARY_DIR}/test_tmp/repro_bundle)
set_tests_properties(gpuharness.bisect.ReproBundleTravels PROPERTIES LABELS "mpi" TIMEOUT 300 RUN_SERIAL TRUE)
# The bisect's scenario tests, each tests/bisect/NAME/NAME_test.sh run on the built gpuharness
# in test_tmp/bisect_NAME:
#  refine, param: --refine (a version axis, then a finer one between its answer's ends) and
#    --param (a boundary on a scenario parameter) end to end, through the direct launcher and
#    mpirun on one rank;
#  infra_retry: every version's first job fails to start (infrastructure); the bisect retries
#    each and still answers exactly;
#  reworded: a failure worded otherwise by the first bad release, found by its family in both
#    economies, the report quoting both wordings;
#  provenance: a set-up that installs another version than its label names.
foreach(name refine param infra_retry reworded provenance)
  add_test(NAME gpuharness.bisect.${name}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bisect/${name}/${name}_test.sh $<TARGET_FILE:gpuharness>
            ${CMAKE_BINARY_DIR}/test_tmp/bisect_${name})
  set_tests_properties(gpuharness.bisect.${name} PROPERTIES LABELS "bisect" TIMEOUT 600)
endforeach()
