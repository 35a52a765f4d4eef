# windowed_einsum whole-binary tests: the host backend under mpirun at 2, 3 and 4 ranks (label
# "mpi"), and the cuda backend at 1 rank and with 2 and 4 ranks sharing one GPU (label "gpu";
# exit 77 = skipped where no GPU is visible). Both read records.jsonl and assert rank by rank.
if(NOT TARGET gpuharness)
  return()
endif()

set(_gh_einsum_dir ${CMAKE_CURRENT_SOURCE_DIR}/windowed_einsum)
set(_gh_einsum_env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;NCCL_NVLS_ENABLE=0")

add_executable(gh_windowed_einsum_mpi_test ${_gh_einsum_dir}/windowed_einsum_mpi_test.cc)
target_link_libraries(gh_windowed_einsum_mpi_test PRIVATE gh_core GTest::gtest GTest::gtest_main
                      gh_warnings)
target_compile_definitions(gh_windowed_einsum_mpi_test PRIVATE
  GH_GPUHARNESS_BIN="$<TARGET_FILE:gpuharness>" GH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(gh_windowed_einsum_mpi_test gpuharness)
foreach(case
    EveryVariantIsExactAtTwoRanks
    EveryVariantIsExactAtThreeRanks
    EveryVariantIsExactAtFourRanks
    CorruptOutputFailsOnThatRankWithOneWrongElement
    StaleWindowFailsOnTheRanksAndRowsTheScheduleDamages
    InexactSizesAreSkippedWithTheReason)
  add_test(NAME gpuharness.mpi.WindowedEinsumHost.${case}
           COMMAND gh_windowed_einsum_mpi_test --gtest_filter=WindowedEinsumHost.${case})
  set_tests_properties(gpuharness.mpi.WindowedEinsumHost.${case} PROPERTIES
    LABELS mpi TIMEOUT 300 ENVIRONMENT "${_gh_einsum_env}")
endforeach()

if(GH_HAVE_CUDA)
  add_executable(gh_windowed_einsum_gpu_test ${_gh_einsum_dir}/windowed_einsum_gpu_test.cc)
  target_link_libraries(gh_windowed_einsum_gpu_test PRIVATE gh_runtime gh_core GTest::gtest
                        gh_warnings)
  target_compile_definitions(gh_windowed_einsum_gpu_test PRIVATE
    GH_GPUHARNESS_BIN="$<TARGET_FILE:gpuharness>" GH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_dependencies(gh_windowed_einsum_gpu_test gpuharness)
  foreach(case
      OneRankEveryVariantPasses
      TwoRanksSharingTheGpuPass
      FourRanksSharingTheGpuPass
      PlantedFaultsFailOnTheRanksTheyDamage)
    add_test(NAME gpuharness.gpu.WindowedEinsumGpu.${case}
             COMMAND gh_windowed_einsum_gpu_test --gtest_filter=WindowedEinsumGpu.${case})
    set_tests_properties(gpuharness.gpu.WindowedEinsumGpu.${case} PROPERTIES
      LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300 ENVIRONMENT "${_gh_einsum_env}")
  endforeach()
endif()
