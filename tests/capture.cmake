# Trials as a first-class feature and background_capture (issue 5). Host backend (label "mpi"):
# isolated trials that crash, hang or exit keep every other trial's record; background_capture
# is a skip with the reason. Cuda backend (label "gpu"; exit 77 = skipped where no GPU is
# visible): the shipped scenarios/background_capture.yaml holds on the device.
if(NOT TARGET gpuharness)
  return()
endif()

set(_gh_capture_dir ${CMAKE_CURRENT_SOURCE_DIR}/capture)
set(_gh_capture_env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;NCCL_NVLS_ENABLE=0")

add_executable(gh_trial_isolation_test ${_gh_capture_dir}/trial_isolation_test.cc)
target_link_libraries(gh_trial_isolation_test PRIVATE gh_core GTest::gtest GTest::gtest_main
                      gh_warnings)
target_compile_definitions(gh_trial_isolation_test PRIVATE
  GH_GPUHARNESS_BIN="$<TARGET_FILE:gpuharness>" GH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(gh_trial_isolation_test gpuharness)
foreach(case
    TrialIsolation.CrashHangAndExitStayInTheirTrialAlone
    TrialIsolation.CrashHangAndExitStayInTheirTrialAtTwoRanks
    TrialIsolation.RateVerdictUnmetExitsOne
    BackgroundCaptureHost.IsASkipWithTheReason)
  add_test(NAME gpuharness.mpi.${case} COMMAND gh_trial_isolation_test --gtest_filter=${case})
  set_tests_properties(gpuharness.mpi.${case} PROPERTIES
    LABELS mpi TIMEOUT 300 ENVIRONMENT "${_gh_capture_env}")
endforeach()

if(GH_HAVE_CUDA)
  add_executable(gh_background_capture_gpu_test ${_gh_capture_dir}/background_capture_gpu_test.cc)
  target_link_libraries(gh_background_capture_gpu_test PRIVATE gh_runtime gh_core GTest::gtest GTest::gmock
                        gh_warnings)
  target_compile_definitions(gh_background_capture_gpu_test PRIVATE
    GH_GPUHARNESS_BIN="$<TARGET_FILE:gpuharness>" GH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_dependencies(gh_background_capture_gpu_test gpuharness)
  add_test(NAME gpuharness.gpu.BackgroundCaptureGpu.ShippedExpectationsHold
           COMMAND gh_background_capture_gpu_test
                   --gtest_filter=BackgroundCaptureGpu.ShippedExpectationsHold)
  set_tests_properties(gpuharness.gpu.BackgroundCaptureGpu.ShippedExpectationsHold PROPERTIES
    LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600 ENVIRONMENT "${_gh_capture_env}")
endif()
