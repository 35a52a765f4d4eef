# Packaging tests (label "packaging"): the install rules, the packages and the split debug
# information, each checked where a user would meet it.
#   install_relocated  cmake --install of this tree, the checkout hidden: doctor, list, the demo,
#                      shipped names, the srun launcher; RPATH and bundled libraries (about 1 min)
#   release_packages   scripts/package.sh: the release preset, CPU-only, and cpack (the fixture
#                      of the two below; a full Release build of gpuharness)
#   stripped_stacks    the stripped binary's stacks with and without its debug file (about 20 s)
#   debian12_root      the .deb and the TGZ in clean Debian 12 roots (debootstrap, cached in this
#                      tree after its first run; Debian's mirror)
# The last three are also labelled packaging-long (docs/reference/tests.md gives their times).
# The release build sits beside this tree (build-packaging), at the depth of package.sh's own
# build-release, so both compile with the same relative paths and share ccache's entries.
set(_release ${CMAKE_BINARY_DIR}-packaging)
set(_cache ${CMAKE_BINARY_DIR}/packaging/cache)
set(_tests ${CMAKE_CURRENT_SOURCE_DIR}/packaging)

add_test(NAME gpuharness.packaging.install_relocated
         COMMAND bash ${_tests}/install_test.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(gpuharness.packaging.install_relocated PROPERTIES
  LABELS packaging TIMEOUT 600 SKIP_RETURN_CODE 77)

add_test(NAME gpuharness.packaging.release_packages
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/package.sh --build-dir ${_release} --cuda off --jobs 2)
set_tests_properties(gpuharness.packaging.release_packages PROPERTIES
  LABELS "packaging;packaging-long" TIMEOUT 3600 FIXTURES_SETUP gh_packages)

add_test(NAME gpuharness.packaging.stripped_stacks
         COMMAND bash ${_tests}/stripped_stacks_test.sh ${_release}/packages ${PROJECT_SOURCE_DIR})
set_tests_properties(gpuharness.packaging.stripped_stacks PROPERTIES
  LABELS "packaging;packaging-long" TIMEOUT 300 SKIP_RETURN_CODE 77 FIXTURES_REQUIRED gh_packages)

add_test(NAME gpuharness.packaging.debian12_root
         COMMAND bash ${_tests}/debian_root_test.sh ${_release}/packages ${PROJECT_SOURCE_DIR} ${_cache})
set_tests_properties(gpuharness.packaging.debian12_root PROPERTIES
  LABELS "packaging;packaging-long" TIMEOUT 1800 SKIP_RETURN_CODE 77 FIXTURES_REQUIRED gh_packages)
