# The history database's whole-command test (label "history"): tests/history/history_cli_test.sh
# runs `gpuharness history` and checks its errors (a truncated or foreign database, unknown
# flags) and a concurrent ingest of two nights.

add_test(NAME gpuharness.history.cli
         COMMAND ${GH_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/history/history_cli_test.sh
                 $<TARGET_FILE:gpuharness>)
set_tests_properties(gpuharness.history.cli PROPERTIES LABELS "history" TIMEOUT 120)

# The history page in headless Chromium (label "browser"): the three leading sections, letters
# in the verdict boxes, and pass/failure colours measured apart under simulated colour
# blindness. Skipped (exit 77) without Chromium.
add_test(NAME gpuharness.history.page_browser
         COMMAND ${GH_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/history/history_page_browser_test.sh
                 $<TARGET_FILE:gpuharness>)
set_tests_properties(gpuharness.history.page_browser PROPERTIES LABELS "browser;history" TIMEOUT 180 SKIP_RETURN_CODE 77)
