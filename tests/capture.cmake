# Trials as a first-class feature and background_capture (issue 5). Host backend (label "mpi"):
# isolated trials that crash, hang or exit keep every other trial's record; background_capture
# is a skip with the reason. Cuda backend (label "gpu"; exit 77 = skipped where no GPU is
# visible): the shipped scenarios/background_capture.yaml holds on the device.
set(_gh_capture_dir ${CMAKE_CURRENT_SOURCE_DIR}/capture)

gh_harness_case_tests(gh_trial_isolation_test ${_gh_capture_dir}/trial_isolation_test.cc
  LIBS gh_core GTest::gtest_main LABEL mpi TIMEOUT 300 CASES
  TrialIsolation.CrashHangAndExitStayInTheirTrialAlone
  TrialIsolation.CrashHangAndExitStayInTheirTrialAtTwoRanks
  TrialIsolation.RateVerdictUnmetExitsOne
  BackgroundCaptureHost.IsASkipWithTheReason)

if(GH_HAVE_CUDA)
  gh_harness_case_tests(gh_background_capture_gpu_test
    ${_gh_capture_dir}/background_capture_gpu_test.cc LIBS gh_runtime gh_core GTest::gmock
    LABEL gpu TIMEOUT 600 SUITE BackgroundCaptureGpu CASES ShippedExpectationsHold)
endif()
