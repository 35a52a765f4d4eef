# collective whole-binary tests: the host backend under mpirun at 2, 3 and 4 ranks (label
# "collective": every op x dtype x reduction x in-place x root exact, split communicators,
# planted corrupt elements, the shipped scenario and reference table), and the cuda backend at
# 1 rank and with 2 ranks sharing one GPU (label "gpu"; exit 77 = skipped where no GPU is
# visible). Both read records.jsonl and assert rank by rank.
gh_scenario_kind_tests(collective
  HOST_LABEL collective HOST_TIMEOUT 900 HOST_CASES
  CollectiveHost.EveryOpTypeReductionAndRootIsExactAtTwoRanks
  CollectiveHost.EveryOpTypeReductionAndRootIsExactAtThreeRanks
  CollectiveHost.EveryOpTypeReductionAndRootIsExactAtFourRanks
  CollectiveHost.ACorruptElementFailsEveryOpOnItsRankAtTwoRanks
  CollectiveHost.ACorruptElementFailsEveryOpOnItsRankAtFourRanks
  CollectiveHost.TheShippedSweepPassesOnTheHostAtItsSmallSizes
  CollectiveReference.*
  GPU_TIMEOUT 900 GPU_SUITE CollectiveGpu GPU_CASES
  OneRankEveryOpAndTypeIsExact
  TwoRanksSharingTheGpuAreExact
  ACorruptElementFailsEveryOpOnTheGpu
  OptionsAndReductionsPassAtOneRank
  DeviceApiKernelsPassAtOneRank)
