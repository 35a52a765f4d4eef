# docs/how-to/add-a-scenario-kind.md's template kind (harness/scenarios/fill_check.cc) runs as the doc says.
add_test(NAME gpuharness.adding_a_kind.fill_check
         COMMAND gpuharness run ${PROJECT_SOURCE_DIR}/scenarios/fill_check.yaml
                 --out ${CMAKE_CURRENT_BINARY_DIR}/adding_a_kind_out)
set_tests_properties(gpuharness.adding_a_kind.fill_check PROPERTIES LABELS "cli" TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "4 points: 4 pass; all expectations met")
