# sliced_collective whole-binary tests: the host backend under mpirun (label "mpi": every
# allocator x registration x collective the host has, faults, errors, skips) and the cuda
# backend at 1 rank and with 2 ranks sharing one GPU (label "gpu"; exit 77 = skipped where no
# GPU is visible). Both read records.jsonl and assert rank by rank.
if(NOT TARGET gpuharness)
  return()
endif()

set(_gh_sliced_dir ${CMAKE_CURRENT_SOURCE_DIR}/sliced_collective)
set(_gh_sliced_env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;NCCL_NVLS_ENABLE=0")

add_executable(gh_sliced_collective_mpi_test ${_gh_sliced_dir}/sliced_collective_mpi_test.cc)
target_link_libraries(gh_sliced_collective_mpi_test PRIVATE gh_core GTest::gtest GTest::gtest_main
                      gh_warnings)
target_compile_definitions(gh_sliced_collective_mpi_test PRIVATE
  GH_GPUHARNESS_BIN="$<TARGET_FILE:gpuharness>" GH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(gh_sliced_collective_mpi_test gpuharness)
foreach(case
    SlicedCollectiveHost.EveryCombinationIsExactAtOneRank
    SlicedCollectiveHost.EveryCombinationIsExactAtTwoRanks
    SlicedCollectiveHost.EveryCombinationIsExactAtFourRanks
    SlicedCollectiveFaults.*)
  string(REPLACE ".*" "" _name ${case})
  add_test(NAME gpuharness.mpi.${_name}
           COMMAND gh_sliced_collective_mpi_test --gtest_filter=${case})
  set_tests_properties(gpuharness.mpi.${_name} PROPERTIES
    LABELS mpi TIMEOUT 300 ENVIRONMENT "${_gh_sliced_env}")
endforeach()

if(GH_HAVE_CUDA)
  add_executable(gh_sliced_collective_gpu_test ${_gh_sliced_dir}/sliced_collective_gpu_test.cc)
  target_link_libraries(gh_sliced_collective_gpu_test PRIVATE gh_runtime gh_core GTest::gtest
                        gh_warnings)
  target_compile_definitions(gh_sliced_collective_gpu_test PRIVATE
    GH_GPUHARNESS_BIN="$<TARGET_FILE:gpuharness>" GH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_dependencies(gh_sliced_collective_gpu_test gpuharness)
  foreach(case
      OneRankEveryAllocatorAndCollectiveIsExact
      TwoRanksSharingTheGpuAreExact
      PlantedFaultsFailOnTheRankTheyDamage
      ShippedExpectationsHoldAtOneRank
      ShippedExpectationsHoldWithTwoRanksSharing
      DeviceRingShiftRecordsItsBandwidthBesideACopy)
    add_test(NAME gpuharness.gpu.SlicedCollectiveGpu.${case}
             COMMAND gh_sliced_collective_gpu_test --gtest_filter=SlicedCollectiveGpu.${case})
    set_tests_properties(gpuharness.gpu.SlicedCollectiveGpu.${case} PROPERTIES
      LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600 ENVIRONMENT "${_gh_sliced_env}")
  endforeach()
endif()
