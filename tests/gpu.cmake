# GPU tests (label "gpu"): gpuharness on the cuda backend at 1 rank and with 2 and 4 ranks
# sharing one GPU, plus planted faults, asserting records. Where no GPU is visible each test
# prints why and exits 77, which CTest reports as skipped. Every test runs with
# NCCL_NVLS_ENABLE=0 (NVLink multicast stays off on shared machines).
if(NOT GH_HAVE_CUDA OR NOT TARGET gpuharness)
  return()
endif()

add_executable(gh_gpu_test ${CMAKE_CURRENT_SOURCE_DIR}/gpu/ring_shift_gpu_test.cc)
target_link_libraries(gh_gpu_test PRIVATE gh_runtime gh_core GTest::gtest gh_warnings)
target_compile_definitions(gh_gpu_test PRIVATE
  GH_GPUHARNESS_BIN="$<TARGET_FILE:gpuharness>" GH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(gh_gpu_test gpuharness)

foreach(case
    OneRankAllDtypesPass
    TwoRanksSharingTheGpuPass
    FourRanksSharingTheGpuPass
    CorruptElementFailsNamingTheRank
    StaleAndPartialBlocksFailWithExactCounts
    StalledRankTimesOutNamingItsStep
    LostContextOnOneRankEndsTheJobWithoutAHang)
  add_test(NAME gpuharness.gpu.RingShiftGpu.${case}
           COMMAND gh_gpu_test --gtest_filter=RingShiftGpu.${case})
  set_tests_properties(gpuharness.gpu.RingShiftGpu.${case} PROPERTIES
    LABELS gpu
    SKIP_RETURN_CODE 77
    TIMEOUT 300
    ENVIRONMENT "NCCL_NVLS_ENABLE=0;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endforeach()
