# NCCL's Inspector plugin for scenarios with `nccl_inspector: true` (issue 19, docs/explanation/hangs.md).
# Host backend (label "mpi"): asking where there is no NCCL says so in the record and the hang
# report; a bad value is bad input. GPU (label "gpu"; exit 77 = skipped without a GPU or
# without GH_NCCL_INSPECTOR_PLUGIN): 2 ranks sharing one GPU under the plugin.
gh_harness_test_program(gh_inspector_test ${CMAKE_CURRENT_SOURCE_DIR}/inspector/run_inspector_test.cc
  LIBS gh_core GTest::gtest_main DEFINES GH_MPIRUN_BIN="${GH_MPIRUN}")
foreach(case
    AskingOnTheHostBackendSaysThereIsNoNccl
    AHostStallsHangReportSaysWhyItHasNoInspectorLine
    ABadValueIsBadInputNamingFileLineColumnAndKey)
  add_test(NAME gpuharness.inspector.${case} COMMAND gh_inspector_test --gtest_filter=InspectorHost.${case})
  set_tests_properties(gpuharness.inspector.${case} PROPERTIES
    LABELS mpi TIMEOUT 300)
endforeach()

if(GH_HAVE_CUDA)
  gh_harness_test_program(gh_inspector_gpu_test ${CMAKE_CURRENT_SOURCE_DIR}/inspector/inspector_gpu_test.cc
    LIBS gh_runtime gh_core GTest::gmock)
  foreach(case
      TwoRanksSharingTheGpuRecordEveryCollective
      AStallsHangReportNamesEachRanksLastCompletedCollective)
    add_test(NAME gpuharness.gpu.InspectorGpu.${case}
             COMMAND gh_inspector_gpu_test --gtest_filter=InspectorGpu.${case})
    set_tests_properties(gpuharness.gpu.InspectorGpu.${case} PROPERTIES
      LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
  endforeach()
endif()
