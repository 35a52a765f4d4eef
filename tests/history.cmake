# The history database's whole-command tests (label "history"): gh_history_tool runs
# `gpuharness history` alone; tests/history/history_cli_test.sh checks its errors (a truncated
# or foreign database, unknown flags) and a concurrent ingest of two nights.
add_executable(gh_history_tool ${CMAKE_CURRENT_SOURCE_DIR}/history/history_tool_main.cc)
target_link_libraries(gh_history_tool PRIVATE gh_history gh_warnings)

find_program(GH_HISTORY_BASH NAMES bash REQUIRED)
add_test(NAME gpuharness.history.cli
         COMMAND ${GH_HISTORY_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/history/history_cli_test.sh
                 $<TARGET_FILE:gh_history_tool>)
set_tests_properties(gpuharness.history.cli PROPERTIES LABELS "history" TIMEOUT 120)
