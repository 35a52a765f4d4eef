# What `cmake --install` (and cpack) lays out under the prefix:
#   bin/gpuharness                  RPATH $ORIGIN/../lib (DT_RPATH: the bundled libraries' own
#                                   dependencies resolve there too)
#   bin/.debug/gpuharness.debug     the split debug information (GH_SPLIT_DEBUG_INFO; component
#                                   debug), found by addr2line and gdb through the debuglink
#   lib/                            Abseil, yaml-cpp, RE2, SQLite (GH_BUNDLE_LIBS; component bundled)
#   share/gpuharness/               scenarios/ (framework repros too), matrices/, launchers/, ci/
#                                   (the nightly and its Slurm templates), modulefiles/,
#                                   results/reference/ (the reference floors `min: reference`
#                                   finds above the scenario file: beside scenarios/)
#   share/man/man1/gpuharness.1, share/doc/gpuharness/
# The binary finds share/gpuharness from its own path (harness/core/shipped_data.h); the build
# tree gets the same shape, its share/gpuharness/* linked to the checkout.
include(GNUInstallDirs)
if(NOT CMAKE_INSTALL_BINDIR STREQUAL "bin" OR NOT CMAKE_INSTALL_DATAROOTDIR STREQUAL "share")
  message(FATAL_ERROR "gpuharness finds its data at ../share/gpuharness from its binary: keep "
                      "CMAKE_INSTALL_BINDIR=bin and CMAKE_INSTALL_DATAROOTDIR=share")
endif()

set(GH_DATA_DIRS scenarios matrices launchers ci)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/share/gpuharness)
foreach(dir ${GH_DATA_DIRS})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${dir} ${CMAKE_BINARY_DIR}/share/gpuharness/${dir} SYMBOLIC)
endforeach()

# RPATH (not RUNPATH): searched for every library's dependencies, before LD_LIBRARY_PATH, so the
# bundled Abseil is the one loaded; CUDA, NCCL and MPI, which are not bundled, still come from
# LD_LIBRARY_PATH or the system.
set_target_properties(gpuharness PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")
target_link_options(gpuharness PRIVATE "LINKER:--disable-new-dtags")

if(GH_SPLIT_DEBUG_INFO)  # gh_split_debug_info (cmake/GhSplitDebugInfo.cmake) made it
  install(FILES $<TARGET_FILE:gpuharness>.debug DESTINATION ${CMAKE_INSTALL_BINDIR}/.debug COMPONENT debug)
endif()

install(TARGETS gpuharness RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)

# The libraries a GPU node (or a framework's container) usually lacks, as this build resolved
# them. Never CUDA, NCCL, MPI or the C/C++ runtime: those must be the machine's own.
set(GH_BUNDLED_LIBRARIES "^lib(absl_[a-z0-9_]+|yaml-cpp|re2|sqlite3)[.]so")
if(GH_BUNDLE_LIBS)
  install(CODE "
    file(GET_RUNTIME_DEPENDENCIES EXECUTABLES \"$<TARGET_FILE:gpuharness>\"
         RESOLVED_DEPENDENCIES_VAR gh_libs UNRESOLVED_DEPENDENCIES_VAR gh_missing
         PRE_INCLUDE_REGEXES \"${GH_BUNDLED_LIBRARIES}\" PRE_EXCLUDE_REGEXES \".*\")
    if(gh_missing)
      message(FATAL_ERROR \"bundled libraries not found: \${gh_missing}\")
    endif()
    foreach(lib \${gh_libs})
      file(INSTALL \${lib} DESTINATION \"\${CMAKE_INSTALL_PREFIX}/lib\" FOLLOW_SYMLINK_CHAIN)
    endforeach()
  " COMPONENT bundled)
endif()

install(DIRECTORY scenarios matrices launchers DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuharness
        COMPONENT data PATTERN __pycache__ EXCLUDE)
install(DIRECTORY results/reference DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuharness/results COMPONENT data)
install(DIRECTORY ci DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuharness USE_SOURCE_PERMISSIONS
        COMPONENT data PATTERN __pycache__ EXCLUDE)
install(FILES README.md results/SCHEMA.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT data)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT data)

# The man page, from the built binary's own --help pages (cmake/GhManPage.cmake).
install(CODE "
  execute_process(COMMAND \"${CMAKE_COMMAND}\" -DBIN=$<TARGET_FILE:gpuharness>
                          -DOUT=${CMAKE_BINARY_DIR}/man/gpuharness.1 -DVERSION=${PROJECT_VERSION}
                          -P \"${PROJECT_SOURCE_DIR}/cmake/GhManPage.cmake\" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR \"writing the man page failed\")
  endif()
" COMPONENT data)
install(FILES ${CMAKE_BINARY_DIR}/man/gpuharness.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT data)

# The Lmod modulefile, named for what the build was made for: gpuharness/<version>-<tag>.
configure_file(${PROJECT_SOURCE_DIR}/packaging/gpuharness.lua.in
               ${CMAKE_BINARY_DIR}/modulefiles/gpuharness/${PROJECT_VERSION}-${GH_BUILD_TAG}.lua @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/modulefiles/gpuharness/${PROJECT_VERSION}-${GH_BUILD_TAG}.lua
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuharness/modulefiles/gpuharness COMPONENT data)
