# GPU tests (label "gpu"): gpuharness on the cuda backend at 1 rank and with 2 and 4 ranks
# sharing one GPU, plus planted faults, asserting records. Where no GPU is visible each test
# prints why and exits 77, which CTest reports as skipped. Every test runs with
# NCCL_NVLS_ENABLE=0 (NVLink multicast stays off on shared machines).
if(NOT GH_HAVE_CUDA)
  return()
endif()

gh_harness_case_tests(gh_gpu_test ${CMAKE_CURRENT_SOURCE_DIR}/gpu/ring_shift_gpu_test.cc
  LIBS gh_runtime gh_core LABEL gpu TIMEOUT 300 SUITE RingShiftGpu CASES
  OneRankAllDtypesPass
  TwoRanksSharingTheGpuPass
  FourRanksSharingTheGpuPass
  CorruptElementFailsNamingTheRank
  StaleAndPartialBlocksFailWithExactCounts
  StalledRankTimesOutNamingItsStep
  LostContextOnOneRankEndsTheJobWithoutAHang
  CopyEngineTransportPassesAndPlantedFaultsFail
  GraphReplayRecordsOneSamplePerReplayAndStillVerifies
  EveryDeviceAllocatorCarriesTheBlocks
  DeviceStoresAreExactAroundTheBulkChunks)
