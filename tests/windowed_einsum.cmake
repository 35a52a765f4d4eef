# windowed_einsum whole-binary tests: the host backend under mpirun at 2, 3 and 4 ranks (label
# "mpi"), and the cuda backend at 1 rank and with 2 and 4 ranks sharing one GPU (label "gpu";
# exit 77 = skipped where no GPU is visible). Both read records.jsonl and assert rank by rank.
gh_scenario_kind_tests(windowed_einsum
  HOST_LABEL mpi HOST_TIMEOUT 300 HOST_SUITE WindowedEinsumHost HOST_CASES
  EveryVariantIsExactAtTwoRanks
  EveryVariantIsExactAtThreeRanks
  EveryVariantIsExactAtFourRanks
  CorruptOutputFailsOnThatRankWithOneWrongElement
  StaleWindowFailsOnTheRanksAndRowsTheScheduleDamages
  InexactSizesAreSkippedWithTheReason
  GPU_TIMEOUT 300 GPU_SUITE WindowedEinsumGpu GPU_CASES
  OneRankEveryVariantPasses
  TwoRanksSharingTheGpuPass
  FourRanksSharingTheGpuPass
  PlantedFaultsFailOnTheRanksTheyDamage)
