# The hostile-input corpus (label "hostile", in the default suite, about a second a case): every
# case in tests/hostile/cases/<entry point>/<case>/ runs gpuharness on bad input and must exit 2
# naming the file and the key, within 10 s, leaving nothing half-written (tests/hostile/
# run_corpus.sh says how a case is written).
if(NOT TARGET gpuharness)
  return()
endif()

add_test(NAME gpuharness.hostile.corpus
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/hostile/run_corpus.sh $<TARGET_FILE:gpuharness>
          ${CMAKE_CURRENT_SOURCE_DIR}/hostile ${CMAKE_BINARY_DIR}/test_tmp/hostile_corpus)
set_tests_properties(gpuharness.hostile.corpus PROPERTIES LABELS "hostile" TIMEOUT 600
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;NCCL_NVLS_ENABLE=0")
