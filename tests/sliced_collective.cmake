# sliced_collective whole-binary tests: the host backend under mpirun (label "mpi": every
# allocator x registration x collective the host has, faults, errors, skips) and the cuda
# backend at 1 rank and with 2 ranks sharing one GPU (label "gpu"; exit 77 = skipped where no
# GPU is visible). Both read records.jsonl and assert rank by rank.
set(_gh_sliced_dir ${CMAKE_CURRENT_SOURCE_DIR}/sliced_collective)

gh_harness_case_tests(gh_sliced_collective_mpi_test
  ${_gh_sliced_dir}/sliced_collective_mpi_test.cc LIBS gh_core GTest::gtest_main
  LABEL mpi TIMEOUT 300 CASES
  SlicedCollectiveHost.EveryCombinationIsExactAtOneRank
  SlicedCollectiveHost.EveryCombinationIsExactAtTwoRanks
  SlicedCollectiveHost.EveryCombinationIsExactAtFourRanks
  SlicedCollectiveFaults.*)

if(GH_HAVE_CUDA)
  gh_harness_case_tests(gh_sliced_collective_gpu_test
    ${_gh_sliced_dir}/sliced_collective_gpu_test.cc LIBS gh_runtime gh_core
    LABEL gpu TIMEOUT 600 SUITE SlicedCollectiveGpu CASES
    OneRankEveryAllocatorAndCollectiveIsExact
    TwoRanksSharingTheGpuAreExact
    PlantedFaultsFailOnTheRankTheyDamage
    ShippedExpectationsHoldAtOneRank
    ShippedExpectationsHoldWithTwoRanksSharing
    DeviceRingShiftRecordsItsBandwidthBesideACopy)
endif()
