# The hostile-input corpus (label "hostile", in the default suite, about a second a case): every
# case in tests/hostile/cases/<entry point>/<case>/ runs gpuharness on bad input and must exit 2
# naming the file and the key, within 10 s, leaving nothing half-written (tests/hostile/
# run_corpus.sh says how a case is written). And hostile version labels (tags, pip versions, a
# list command's output, image file names: $(...), ;, backquotes, quotes) against each version
# provider: the sweep, --dry-run and a repro script run none of them (providers_test.sh).
add_test(NAME gpuharness.hostile.corpus
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/hostile/run_corpus.sh $<TARGET_FILE:gpuharness>
          ${CMAKE_CURRENT_SOURCE_DIR}/hostile ${CMAKE_BINARY_DIR}/test_tmp/hostile_corpus)
set_tests_properties(gpuharness.hostile.corpus PROPERTIES LABELS "hostile" TIMEOUT 600
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;NCCL_NVLS_ENABLE=0")
foreach(provider git pip list container)
  add_test(NAME gpuharness.hostile.provider_labels_${provider}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/hostile/providers_test.sh $<TARGET_FILE:gpuharness>
            ${CMAKE_BINARY_DIR}/test_tmp/hostile_provider_${provider} ${provider})
  set_tests_properties(gpuharness.hostile.provider_labels_${provider} PROPERTIES LABELS "hostile" TIMEOUT 300
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;NCCL_NVLS_ENABLE=0")
endforeach()
