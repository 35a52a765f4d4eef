# Every third-party dependency is found here, in one place.
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(Threads REQUIRED)
find_package(absl REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)          # libcli11-dev: every subcommand's command line
find_package(SQLite3 REQUIRED)        # libsqlite3-dev: the results history database
# RE2 (libre2-dev) for every user regular expression: linear time, no recursion. Debian ships
# a pkg-config file, not a CMake package.
find_package(PkgConfig REQUIRED)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)

find_package(yaml-cpp REQUIRED)
if(TARGET yaml-cpp::yaml-cpp)
  set(GH_YAML_TARGET yaml-cpp::yaml-cpp)
else()
  set(GH_YAML_TARGET yaml-cpp)
endif()

if(GH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(GH_BUILD_BENCHMARKS)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    message(STATUS "Google Benchmark not found: benchmarks are not built")
    set(GH_BUILD_BENCHMARKS OFF)
  endif()
endif()

set(GH_HAVE_CUDA OFF)
if(GH_ENABLE_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
  find_package(CUDAToolkit QUIET)
  find_package(NCCL QUIET)
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND AND NCCL_FOUND)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # CUDA 13 has nothing below 75; default to Hopper (H100/H200) and Blackwell (GB200).
      set(CMAKE_CUDA_ARCHITECTURES 90 100)
    endif()
    enable_language(CUDA)
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      # CMake < 3.26 knows no C++20 flag for nvcc, which has accepted -std=c++20 since 12.0.
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(GH_HAVE_CUDA ON)
    message(STATUS "cuda backend: CUDA ${CUDAToolkit_VERSION}, NCCL ${NCCL_VERSION} (${NCCL_LIBRARY}), archs ${CMAKE_CUDA_ARCHITECTURES}")
  else()
    message(STATUS "cuda backend: off (CUDA compiler, toolkit or NCCL not found): CPU-only build")
  endif()
endif()
