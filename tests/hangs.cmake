# Hangs explained (issue 19, docs/explanation/hangs.md). Host backend (label "mpi"): a stalled rank at 1
# and 4 ranks, a planted SIGSEGV, exec children in Python and native, and the timeout's
# overhead. GPU (label "gpu"; exit 77 = skipped where no GPU is visible): a stalled NCCL
# receive with 2 ranks sharing one GPU.
set(_gh_hangs_env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;NCCL_NVLS_ENABLE=0")

gh_harness_test_program(gh_hangs_test ${CMAKE_CURRENT_SOURCE_DIR}/hangs/run_hangs_test.cc
  LIBS gh_core GTest::gtest_main GTest::gmock DEFINES GH_MPIRUN_BIN="${GH_MPIRUN}")
foreach(case
    StalledRankAtFourRanksIsExplained
    StalledOnlyRankHasAStack
    PlantedSegfaultsStackNamesTheFaultingFunction
    PythonChildHangingInAKnownFunctionIsNamedWithFileAndLine
    PythonChildStacksComeFromPySpyWhenInstalled
    NativeChildSaysNothingCouldBeHad
    TimeoutOverheadIsWithinFiveSeconds)
  add_test(NAME gpuharness.hangs.${case} COMMAND gh_hangs_test --gtest_filter=HangsHost.${case})
  set_tests_properties(gpuharness.hangs.${case} PROPERTIES
    LABELS mpi TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT "${_gh_hangs_env}")
endforeach()

if(GH_HAVE_CUDA)
  gh_harness_test_program(gh_hangs_gpu_test ${CMAKE_CURRENT_SOURCE_DIR}/hangs/hangs_gpu_test.cc
    LIBS gh_runtime gh_core GTest::gmock)
  add_test(NAME gpuharness.gpu.HangsGpu.StalledNcclReceiveIsExplained
           COMMAND gh_hangs_gpu_test --gtest_filter=HangsGpu.StalledNcclReceiveIsExplained)
  set_tests_properties(gpuharness.gpu.HangsGpu.StalledNcclReceiveIsExplained PROPERTIES
    LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300 ENVIRONMENT "${_gh_hangs_env}")
endif()
