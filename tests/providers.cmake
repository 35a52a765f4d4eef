# Version providers end to end (docs/reference/matrix-yaml.md "Version providers", docs/reference/bisect.md
# "Acceptance"). The git-provider bisect builds a repository it makes (default suite, label
# "providers"); the JAX bisect downloads real releases from PyPI (label "network", only with
# -DGH_ENABLE_NETWORK_TESTS=ON: `ctest -L network`).
if(NOT TARGET gh_driver)
  return()
endif()
set(_gh_providers_env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
add_test(NAME gpuharness.providers.git_bisect
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/providers/git_bisect_test.sh $<TARGET_FILE:gpuharness>
          ${CMAKE_BINARY_DIR}/test_tmp/providers_git_bisect)
set_tests_properties(gpuharness.providers.git_bisect PROPERTIES LABELS "providers" TIMEOUT 300
  ENVIRONMENT "${_gh_providers_env}")
# A git version whose set-up builds another commit than its label: infrastructure naming both.
add_test(NAME gpuharness.providers.git_provenance
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/providers/git_provenance_test.sh $<TARGET_FILE:gpuharness>
          ${CMAKE_BINARY_DIR}/test_tmp/providers_git_provenance)
set_tests_properties(gpuharness.providers.git_provenance PROPERTIES LABELS "providers" TIMEOUT 300
  ENVIRONMENT "${_gh_providers_env}")
option(GH_ENABLE_NETWORK_TESTS "tests that download from PyPI (label network)" OFF)
if(GH_ENABLE_NETWORK_TESTS)
  add_test(NAME gpuharness.providers.jax_bisect
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/providers/jax_bisect_test.sh $<TARGET_FILE:gpuharness>
            ${CMAKE_BINARY_DIR}/test_tmp/providers_jax_bisect)
  set_tests_properties(gpuharness.providers.jax_bisect PROPERTIES LABELS "network" TIMEOUT 1800 RUN_SERIAL TRUE
    ENVIRONMENT "${_gh_providers_env}")
  add_test(NAME gpuharness.providers.jax_reworded
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/providers/jax_reworded_test.sh $<TARGET_FILE:gpuharness>
            ${CMAKE_BINARY_DIR}/test_tmp/providers_jax_reworded)
  set_tests_properties(gpuharness.providers.jax_reworded PROPERTIES LABELS "network" TIMEOUT 1800 RUN_SERIAL TRUE
    ENVIRONMENT "${_gh_providers_env}")
endif()
