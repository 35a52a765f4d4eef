# Whole-binary command-line tests (label "cli"): every subcommand's flags in both spellings, the
# one wording of an unknown flag or command, `help CMD` against `CMD --help`, --version,
# `list --json`.
if(NOT TARGET gh_driver)
  return()
endif()

gh_harness_test_program(gh_cli_e2e_test ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_test.cc
  LIBS gh_core GTest::gmock GTest::gtest_main)

include(GoogleTest)
gtest_discover_tests(gh_cli_e2e_test TEST_PREFIX "gpuharness.cli." DISCOVERY_TIMEOUT 60
  PROPERTIES LABELS "cli" TIMEOUT 120)
