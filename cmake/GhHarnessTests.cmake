# The whole-binary tests' two building blocks (tests/*.cmake): a test program that runs the
# gpuharness binary, and one CTest test per gtest case of it.

# What every whole-binary test runs under: Open MPI allowed to run as root (CI containers) and
# NVLink multicast off (shared GPU machines).
set(GH_HARNESS_TEST_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;NCCL_NVLS_ENABLE=0")

# gh_harness_test_program(TARGET SOURCE [LIBS lib...] [DEFINES def...] [DEPENDS target...])
# A test program built after gpuharness and told where it and the source tree are
# (GH_GPUHARNESS_BIN, GH_SOURCE_DIR, as tests/common/harness_run.h expects); it links GTest and
# the warnings plus LIBS (GTest::gtest_main unless it has its own main()).
function(gh_harness_test_program target source)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "LIBS;DEFINES;DEPENDS")
  add_executable(${target} ${source})
  target_link_libraries(${target} PRIVATE ${arg_LIBS} GTest::gtest gh_warnings)
  target_compile_definitions(${target} PRIVATE GH_GPUHARNESS_BIN="$<TARGET_FILE:gpuharness>"
                             GH_SOURCE_DIR="${PROJECT_SOURCE_DIR}" ${arg_DEFINES})
  add_dependencies(${target} gpuharness ${arg_DEPENDS})
endfunction()

# gh_harness_test_cases(PROGRAM LABEL mpi|gpu TIMEOUT S [SUITE S] CASES case...)
# One CTest test gpuharness.LABEL.FILTER per case, running PROGRAM --gtest_filter=FILTER, where
# FILTER is SUITE.case (or the case itself without SUITE); a filter "Suite.*" names its test
# "Suite". Every test runs under GH_HARNESS_TEST_ENV; label gpu reads exit 77 as skipped (no GPU).
function(gh_harness_test_cases program)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "LABEL;TIMEOUT;SUITE" "CASES")
  set(skip)
  if(arg_LABEL STREQUAL "gpu")
    set(skip SKIP_RETURN_CODE 77)
  endif()
  foreach(case ${arg_CASES})
    set(filter ${case})
    if(arg_SUITE)
      set(filter ${arg_SUITE}.${case})
    endif()
    string(REPLACE ".*" "" name ${filter})
    add_test(NAME gpuharness.${arg_LABEL}.${name} COMMAND ${program} --gtest_filter=${filter})
    set_tests_properties(gpuharness.${arg_LABEL}.${name} PROPERTIES
      LABELS ${arg_LABEL} TIMEOUT ${arg_TIMEOUT} ${skip} ENVIRONMENT "${GH_HARNESS_TEST_ENV}")
  endforeach()
endfunction()
