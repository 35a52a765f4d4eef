# Perf acceptance tests (label "perf"): baseline comparison and perf bisect over a fake version
# range whose MPI_Sendrecv really spends 200 us x the version's factor (tests/perf/versions),
# every run a one-rank mpirun job on the host backend.
if(NOT TARGET gh_driver)
  return()
endif()

add_library(gh_perf_slow_version SHARED ${CMAKE_CURRENT_SOURCE_DIR}/perf/versions/slow_version.cc)
target_include_directories(gh_perf_slow_version PRIVATE
  $<TARGET_PROPERTY:MPI::MPI_CXX,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(gh_perf_slow_version PRIVATE ${CMAKE_DL_LIBS})

gh_harness_test_program(gh_perf_e2e_test ${CMAKE_CURRENT_SOURCE_DIR}/perf/perf_e2e_test.cc
  LIBS nlohmann_json::nlohmann_json GTest::gtest_main GTest::gmock
  DEFINES GH_PERF_TESTDATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/perf/versions"
          GH_PERF_FAKE_LIB_PATH="$<TARGET_FILE:gh_perf_slow_version>"
  DEPENDS gh_perf_slow_version)

include(GoogleTest)
gtest_discover_tests(gh_perf_e2e_test TEST_PREFIX "gpuharness.perf." DISCOVERY_TIMEOUT 60
  PROPERTIES LABELS perf TIMEOUT 300 RUN_SERIAL TRUE)
