# Whole-binary command-line tests (label "cli"): every subcommand's flags in both spellings, the
# one wording of an unknown flag or command, `help CMD` against `CMD --help`, --version,
# `list --json`.
if(NOT TARGET gpuharness OR NOT TARGET gh_driver)
  return()
endif()

add_executable(gh_cli_e2e_test ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_test.cc)
target_link_libraries(gh_cli_e2e_test PRIVATE gh_core GTest::gtest GTest::gmock GTest::gtest_main gh_warnings)
target_compile_definitions(gh_cli_e2e_test PRIVATE
  GH_GPUHARNESS_BIN="$<TARGET_FILE:gpuharness>" GH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(gh_cli_e2e_test gpuharness)

include(GoogleTest)
gtest_discover_tests(gh_cli_e2e_test TEST_PREFIX "gpuharness.cli." DISCOVERY_TIMEOUT 60
  PROPERTIES LABELS "cli" TIMEOUT 120)
