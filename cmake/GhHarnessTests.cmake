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
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})  # tests/common/*.h
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

# gh_harness_case_tests(TARGET SOURCE LIBS lib... LABEL mpi|gpu TIMEOUT S [SUITE S] CASES case...)
# The two blocks in one: the test program (gh_harness_test_program with LIBS) and its CTest test
# per case (gh_harness_test_cases), for a program whose tests are all of one label.
function(gh_harness_case_tests target source)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "LABEL;TIMEOUT;SUITE" "LIBS;CASES")
  gh_harness_test_program(${target} ${source} LIBS ${arg_LIBS})
  set(suite)
  if(arg_SUITE)
    set(suite SUITE ${arg_SUITE})
  endif()
  gh_harness_test_cases(${target} LABEL ${arg_LABEL} TIMEOUT ${arg_TIMEOUT} ${suite}
    CASES ${arg_CASES})
endfunction()

# gh_harness_test_suite(TARGET SOURCE NAME N LABEL L TIMEOUT S [SERIAL] [LIBS lib...]
#                       [DEFINES def...] [DEPENDS target...] [PROPERTIES prop value...])
# A test program (gh_harness_test_program; LIBS default to gh_core GTest::gmock
# GTest::gtest_main) whose gtest cases CTest discovers as gpuharness.N.<Suite>.<case>, each
# labelled L with TIMEOUT S, RUN_SERIAL when SERIAL, and any further test PROPERTIES
# (SKIP_REGULAR_EXPRESSION ...). Not an ENVIRONMENT list: CMake 3.25's gtest_discover_tests keeps
# only its first entry; what every test needs is set in gh_test_env.cmake (CMakeLists.txt).
function(gh_harness_test_suite target source)
  cmake_parse_arguments(PARSE_ARGV 2 arg "SERIAL" "NAME;LABEL;TIMEOUT" "LIBS;DEFINES;DEPENDS;PROPERTIES")
  if(NOT arg_LIBS)
    set(arg_LIBS gh_core GTest::gmock GTest::gtest_main)
  endif()
  gh_harness_test_program(${target} ${source} LIBS ${arg_LIBS} DEFINES ${arg_DEFINES}
    DEPENDS ${arg_DEPENDS})
  set(serial)
  if(arg_SERIAL)
    set(serial RUN_SERIAL TRUE)
  endif()
  include(GoogleTest)
  gtest_discover_tests(${target} TEST_PREFIX "gpuharness.${arg_NAME}." DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS "${arg_LABEL}" TIMEOUT ${arg_TIMEOUT} ${serial} ${arg_PROPERTIES})
endfunction()

# gh_scenario_kind_tests(KIND HOST_LABEL L HOST_TIMEOUT S [HOST_SUITE S] HOST_CASES case...
#                        GPU_TIMEOUT S GPU_SUITE S GPU_CASES case...)
# A scenario kind's two whole-binary test programs (gh_harness_case_tests): gh_KIND_mpi_test from
# tests/KIND/KIND_mpi_test.cc, the host backend under mpirun (links gh_core), and, where CUDA is
# built, gh_KIND_gpu_test from tests/KIND/KIND_gpu_test.cc, the cuda backend (label gpu; links
# gh_runtime and gh_core).
function(gh_scenario_kind_tests kind)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "HOST_LABEL;HOST_TIMEOUT;HOST_SUITE;GPU_TIMEOUT;GPU_SUITE"
    "HOST_CASES;GPU_CASES")
  set(dir ${CMAKE_CURRENT_SOURCE_DIR}/${kind})
  set(host_suite)
  if(arg_HOST_SUITE)
    set(host_suite SUITE ${arg_HOST_SUITE})
  endif()
  gh_harness_case_tests(gh_${kind}_mpi_test ${dir}/${kind}_mpi_test.cc LIBS gh_core GTest::gtest_main
    LABEL ${arg_HOST_LABEL} TIMEOUT ${arg_HOST_TIMEOUT} ${host_suite} CASES ${arg_HOST_CASES})
  if(GH_HAVE_CUDA)
    gh_harness_case_tests(gh_${kind}_gpu_test ${dir}/${kind}_gpu_test.cc LIBS gh_runtime gh_core
      LABEL gpu TIMEOUT ${arg_GPU_TIMEOUT} SUITE ${arg_GPU_SUITE} CASES ${arg_GPU_CASES})
  endif()
endfunction()
