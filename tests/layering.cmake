# The layers as includes (label "unit"): no file under harness/ includes a harness header from a
# layer above its own (runtime and scenarios never reach report/ or cli/; core reaches nothing
# outside core, nor CUDA, NCCL or MPI), and every folder of harness/ has a rule.
# tests/layering/check_layering.sh lists the rules; its self-test runs it on a tree with planted
# back-arrows and wants each one reported; plant_test.sh plants one in each folder of a scratch
# copy of harness/ and wants the check to fail each time.
find_program(GH_SH NAMES sh REQUIRED)
add_test(NAME gpuharness.layering.NoIncludeAgainstTheLayers
         COMMAND ${GH_SH} ${CMAKE_CURRENT_SOURCE_DIR}/layering/check_layering.sh ${PROJECT_SOURCE_DIR})
add_test(NAME gpuharness.layering.CheckReportsEveryPlantedBackArrow
         COMMAND ${GH_SH} ${CMAKE_CURRENT_SOURCE_DIR}/layering/check_layering.sh --self-test
                 ${CMAKE_CURRENT_SOURCE_DIR}/layering)
add_test(NAME gpuharness.layering.ABackArrowPlantedInAnyFolderFailsTheCheck
         COMMAND ${GH_SH} ${CMAKE_CURRENT_SOURCE_DIR}/layering/plant_test.sh ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_SOURCE_DIR}/layering/check_layering.sh)
set_tests_properties(gpuharness.layering.NoIncludeAgainstTheLayers
                     gpuharness.layering.CheckReportsEveryPlantedBackArrow
                     gpuharness.layering.ABackArrowPlantedInAnyFolderFailsTheCheck
                     PROPERTIES LABELS "unit;layering" TIMEOUT 120)
