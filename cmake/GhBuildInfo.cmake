# The build's facts, born once here: version, commit, build type, the CUDA, NCCL and CUDA
# architectures compiled in, the MPI compiled against, the compiler and the platform.
# harness/core/build_info.cc reads them from a generated header; `gpuharness --version` and every
# environment.json print them from there. The commit is read at build time (a new commit
# recompiles one file); a source tree without git says GH_BUILD_COMMIT, or "unknown".
set(GH_BUILD_COMMIT "" CACHE STRING "The commit to report where the source tree has no git (release tarballs)")

# "Open MPI 4.1.4 (MPI 3.1)" from the mpi.h the build compiles against.
function(gh_mpi_flavour out)
  set(text "unknown")
  foreach(dir ${MPI_CXX_INCLUDE_DIRS} ${MPI_CXX_HEADER_DIR})
    if(EXISTS "${dir}/mpi.h")
      file(STRINGS "${dir}/mpi.h" defs REGEX "^#define +(OMPI_(MAJOR|MINOR|RELEASE)_VERSION|MPICH_VERSION|I_MPI_VERSION|MVAPICH2?_VERSION|MPI_VERSION|MPI_SUBVERSION) ")
      set(std "")
      if(defs MATCHES "MPI_VERSION +([0-9]+)" AND defs MATCHES "MPI_SUBVERSION +([0-9]+)")
        string(REGEX REPLACE ".*#define +MPI_VERSION +([0-9]+).*" "\\1" major "${defs}")
        string(REGEX REPLACE ".*#define +MPI_SUBVERSION +([0-9]+).*" "\\1" minor "${defs}")
        set(std " (MPI ${major}.${minor})")
      endif()
      if(defs MATCHES "OMPI_MAJOR_VERSION")
        string(REGEX REPLACE ".*OMPI_MAJOR_VERSION +([0-9]+).*" "\\1" a "${defs}")
        string(REGEX REPLACE ".*OMPI_MINOR_VERSION +([0-9]+).*" "\\1" b "${defs}")
        string(REGEX REPLACE ".*OMPI_RELEASE_VERSION +([0-9]+).*" "\\1" c "${defs}")
        set(text "Open MPI ${a}.${b}.${c}${std}")
      elseif(defs MATCHES "I_MPI_VERSION +\"([^\"]+)\"")
        set(text "Intel MPI ${CMAKE_MATCH_1}${std}")
      elseif(defs MATCHES "MVAPICH2?_VERSION +\"([^\"]+)\"")
        set(text "MVAPICH ${CMAKE_MATCH_1}${std}")
      elseif(defs MATCHES "MPICH_VERSION +\"([^\"]+)\"")
        set(text "MPICH ${CMAKE_MATCH_1}${std}")
      else()
        set(text "MPI${std}")
      endif()
      break()
    endif()
  endforeach()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

gh_mpi_flavour(GH_BUILD_MPI)
if(GH_HAVE_CUDA)
  set(GH_BUILD_CUDA "${CUDAToolkit_VERSION}")
  set(GH_BUILD_NCCL "${NCCL_VERSION}")
  string(REPLACE ";" "," GH_BUILD_CUDA_ARCHS "${CMAKE_CUDA_ARCHITECTURES}")
else()
  set(GH_BUILD_CUDA "")
  set(GH_BUILD_NCCL "")
  set(GH_BUILD_CUDA_ARCHS "")
endif()
# What the build was made for, in a name (packages, the modulefile): cuda13-nccl2.28-ompi4, cpu-ompi4.
if(GH_BUILD_MPI MATCHES "^([A-Za-z ]+) ([0-9]+)")
  set(_mpi_short "${CMAKE_MATCH_1}")
  set(_mpi_major "${CMAKE_MATCH_2}")
  string(REPLACE "Open MPI" "ompi" _mpi_short "${_mpi_short}")
  string(REPLACE "Intel MPI" "impi" _mpi_short "${_mpi_short}")
  string(TOLOWER "${_mpi_short}" _mpi_short)
  set(_mpi_tag "${_mpi_short}${_mpi_major}")
else()
  set(_mpi_tag "mpi")
endif()
if(GH_HAVE_CUDA)
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" _nccl_mm "${NCCL_VERSION}")
  set(GH_BUILD_TAG "cuda${CUDAToolkit_VERSION_MAJOR}-nccl${_nccl_mm}-${_mpi_tag}")
else()
  set(GH_BUILD_TAG "cpu-${_mpi_tag}")
endif()
set(GH_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)

# Runs at every build; rewrites the header only when a fact changed.
add_custom_target(gh_build_info
  COMMAND ${CMAKE_COMMAND}
          -DOUT=${GH_GENERATED_DIR}/gh_build_info_values.h
          -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -DCOMMIT_OVERRIDE=${GH_BUILD_COMMIT}
          -DVERSION=${PROJECT_VERSION}
          -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
          -DCUDA=${GH_BUILD_CUDA}
          -DNCCL=${GH_BUILD_NCCL}
          "-DCUDA_ARCHS=${GH_BUILD_CUDA_ARCHS}"
          "-DMPI=${GH_BUILD_MPI}"
          "-DCOMPILER=${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}"
          "-DSYSTEM=${CMAKE_SYSTEM_NAME} ${CMAKE_SYSTEM_PROCESSOR}"
          -P ${PROJECT_SOURCE_DIR}/cmake/GhWriteBuildInfo.cmake
  BYPRODUCTS ${GH_GENERATED_DIR}/gh_build_info_values.h
  COMMENT "" VERBATIM)
# harness/core/build_info.cc is the one file that includes the header.
target_include_directories(gh_core PRIVATE ${GH_GENERATED_DIR})
add_dependencies(gh_core gh_build_info)
message(STATUS "build info: ${PROJECT_VERSION}-${GH_BUILD_TAG}, ${CMAKE_BUILD_TYPE}, MPI: ${GH_BUILD_MPI}")
