# Whole-binary command-line tests (label "cli"): every subcommand's flags in both spellings, the
# one wording of an unknown flag or command, `help CMD` against `CMD --help`, --version,
# `list --json`.
if(NOT TARGET gh_driver)
  return()
endif()

gh_harness_test_suite(gh_cli_e2e_test ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_test.cc
  NAME cli LABEL cli TIMEOUT 120)
