# The history database's whole-command test (label "history"): tests/history/history_cli_test.sh
# runs `gpuharness history` and checks its errors (a truncated or foreign database, unknown
# flags) and a concurrent ingest of two nights.

find_program(GH_HISTORY_BASH NAMES bash REQUIRED)
add_test(NAME gpuharness.history.cli
         COMMAND ${GH_HISTORY_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/history/history_cli_test.sh
                 $<TARGET_FILE:gpuharness>)
set_tests_properties(gpuharness.history.cli PROPERTIES LABELS "history" TIMEOUT 120)
