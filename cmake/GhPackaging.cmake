# cpack (run by scripts/package.sh): two packages from the install rules of cmake/GhInstall.cmake.
#   TGZ  gpuharness-<version>-<system>-<tag>.tar.gz: relocatable (unpack anywhere, run
#        bin/gpuharness), with the bundled libraries; beside it ...-debug.tar.gz, the debug
#        information, unpacked over the same directory.
#   DEB  gpuharness_<version>_<arch>.deb for /usr, depending on the distribution's libraries
#        (dpkg-shlibdeps) instead of bundling them, plus gpuharness-dbg with the debug file.
# <tag> names what the build was made for: cuda13-nccl2.28-ompi4, or cpu-ompi4.
set(CPACK_PACKAGE_NAME gpuharness)
set(CPACK_PACKAGE_VENDOR "gpuharness")
set(CPACK_PACKAGE_CONTACT "gpuharness maintainers <gpuharness@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Multi-process GPU regression test harness (scenarios, sweeps, bisects)")
set(CPACK_PACKAGE_DESCRIPTION_FILE ${PROJECT_SOURCE_DIR}/README.md)
string(TOLOWER "${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}" _gh_system)
set(CPACK_PACKAGE_FILE_NAME "gpuharness-${PROJECT_VERSION}-${_gh_system}-${GH_BUILD_TAG}")
set(CPACK_GENERATOR TGZ DEB)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/packages)
set(CPACK_STRIP_FILES OFF)  # GH_SPLIT_DEBUG_INFO strips, keeping the debuglink

# Components in two groups: main (binary, data, bundled libraries) and debug.
set(CPACK_COMPONENTS_ALL runtime data)
if(GH_BUNDLE_LIBS)
  list(APPEND CPACK_COMPONENTS_ALL bundled)
endif()
if(GH_SPLIT_DEBUG_INFO)
  list(APPEND CPACK_COMPONENTS_ALL debug)
endif()
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_ARCHIVE_COMPONENT_INSTALL ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENT_RUNTIME_GROUP main)
set(CPACK_COMPONENT_DATA_GROUP main)
set(CPACK_COMPONENT_BUNDLED_GROUP main)
set(CPACK_COMPONENT_DEBUG_GROUP debug)
set(CPACK_ARCHIVE_MAIN_FILE_NAME "${CPACK_PACKAGE_FILE_NAME}")
set(CPACK_ARCHIVE_DEBUG_FILE_NAME "${CPACK_PACKAGE_FILE_NAME}-debug")
# Both archives unpack into the current directory (tar -xzf X.tar.gz -C PREFIX), so the debug
# archive lands over the main one.
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY OFF)
set(CPACK_COMPONENT_INCLUDE_TOPLEVEL_DIRECTORY OFF)

# DEB: the distribution's libraries, never bundled copies (GhCPackProject.cmake drops them).
set(CPACK_DEBIAN_MAIN_PACKAGE_NAME gpuharness)
set(CPACK_DEBIAN_DEBUG_PACKAGE_NAME gpuharness-dbg)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_MAIN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_DEBUG_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_DEBUG_PACKAGE_DEPENDS "gpuharness (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_DEBUG_PACKAGE_SECTION debug)
# What dpkg-shlibdeps cannot see: the launcher (mpirun), and CUDA, cuBLAS and NCCL, which come
# from NVIDIA's apt repository (dpkg-shlibdeps skips libraries no package owns here).
set(_gh_deb_depends "")
if(GH_BUILD_MPI MATCHES "^Open MPI")
  list(APPEND _gh_deb_depends "openmpi-bin")
elseif(GH_BUILD_MPI MATCHES "^MPICH")
  list(APPEND _gh_deb_depends "mpich")
endif()
if(GH_HAVE_CUDA)
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" _gh_nccl_mm "${NCCL_VERSION}")
  list(APPEND _gh_deb_depends
       "cuda-cudart-${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}"
       "libcublas-${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}"
       "libnccl2 (>= ${_gh_nccl_mm})")
endif()
string(REPLACE ";" ", " CPACK_DEBIAN_MAIN_PACKAGE_DEPENDS "${_gh_deb_depends}")
set(CPACK_DEBIAN_MAIN_PACKAGE_RECOMMENDS "python3")
set(CPACK_DEBIAN_MAIN_PACKAGE_SUGGESTS "slurm-client, gdb")
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_SOURCE_DIR}/cmake/GhCPackProject.cmake)

include(CPack)
