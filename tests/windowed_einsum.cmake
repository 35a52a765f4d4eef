# windowed_einsum whole-binary tests: the host backend under mpirun at 2, 3 and 4 ranks (label
# "mpi"), and the cuda backend at 1 rank and with 2 and 4 ranks sharing one GPU (label "gpu";
# exit 77 = skipped where no GPU is visible). Both read records.jsonl and assert rank by rank.
set(_gh_einsum_dir ${CMAKE_CURRENT_SOURCE_DIR}/windowed_einsum)

gh_harness_case_tests(gh_windowed_einsum_mpi_test
  ${_gh_einsum_dir}/windowed_einsum_mpi_test.cc LIBS gh_core GTest::gtest_main
  LABEL mpi TIMEOUT 300 SUITE WindowedEinsumHost CASES
  EveryVariantIsExactAtTwoRanks
  EveryVariantIsExactAtThreeRanks
  EveryVariantIsExactAtFourRanks
  CorruptOutputFailsOnThatRankWithOneWrongElement
  StaleWindowFailsOnTheRanksAndRowsTheScheduleDamages
  InexactSizesAreSkippedWithTheReason)

if(GH_HAVE_CUDA)
  gh_harness_case_tests(gh_windowed_einsum_gpu_test
    ${_gh_einsum_dir}/windowed_einsum_gpu_test.cc LIBS gh_runtime gh_core
    LABEL gpu TIMEOUT 300 SUITE WindowedEinsumGpu CASES
    OneRankEveryVariantPasses
    TwoRanksSharingTheGpuPass
    FourRanksSharingTheGpuPass
    PlantedFaultsFailOnTheRanksTheyDamage)
endif()
