# collective whole-binary tests: the host backend under mpirun at 2, 3 and 4 ranks (label
# "collective": every op x dtype x reduction x in-place x root exact, split communicators,
# planted corrupt elements, the shipped scenario and reference table), and the cuda backend at
# 1 rank and with 2 ranks sharing one GPU (label "gpu"; exit 77 = skipped where no GPU is
# visible). Both read records.jsonl and assert rank by rank.
set(_gh_collective_dir ${CMAKE_CURRENT_SOURCE_DIR}/collective)

gh_harness_case_tests(gh_collective_mpi_test
  ${_gh_collective_dir}/collective_mpi_test.cc LIBS gh_core GTest::gtest_main
  LABEL collective TIMEOUT 900 CASES
  CollectiveHost.EveryOpTypeReductionAndRootIsExactAtTwoRanks
  CollectiveHost.EveryOpTypeReductionAndRootIsExactAtThreeRanks
  CollectiveHost.EveryOpTypeReductionAndRootIsExactAtFourRanks
  CollectiveHost.ACorruptElementFailsEveryOpOnItsRankAtTwoRanks
  CollectiveHost.ACorruptElementFailsEveryOpOnItsRankAtFourRanks
  CollectiveHost.TheShippedSweepPassesOnTheHostAtItsSmallSizes
  CollectiveReference.*)

if(GH_HAVE_CUDA)
  gh_harness_case_tests(gh_collective_gpu_test
    ${_gh_collective_dir}/collective_gpu_test.cc LIBS gh_runtime gh_core
    LABEL gpu TIMEOUT 900 SUITE CollectiveGpu CASES
    OneRankEveryOpAndTypeIsExact
    TwoRanksSharingTheGpuAreExact
    ACorruptElementFailsEveryOpOnTheGpu
    OptionsAndReductionsPassAtOneRank)
endif()
