# sliced_collective whole-binary tests: the host backend under mpirun (label "mpi": every
# allocator x registration x collective the host has, faults, errors, skips) and the cuda
# backend at 1 rank and with 2 ranks sharing one GPU (label "gpu"; exit 77 = skipped where no
# GPU is visible). Both read records.jsonl and assert rank by rank.
gh_scenario_kind_tests(sliced_collective
  HOST_LABEL mpi HOST_TIMEOUT 300 HOST_CASES
  SlicedCollectiveHost.EveryCombinationIsExactAtOneRank
  SlicedCollectiveHost.EveryCombinationIsExactAtTwoRanks
  SlicedCollectiveHost.EveryCombinationIsExactAtFourRanks
  SlicedCollectiveFaults.*
  GPU_TIMEOUT 600 GPU_SUITE SlicedCollectiveGpu GPU_CASES
  OneRankEveryAllocatorAndCollectiveIsExact
  TwoRanksSharingTheGpuAreExact
  PlantedFaultsFailOnTheRankTheyDamage
  ShippedExpectationsHoldAtOneRank
  ShippedExpectationsHoldWithTwoRanksSharing
  DeviceRingShiftRecordsItsBandwidthBesideACopy)
