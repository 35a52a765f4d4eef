# Every shipped matrix in matrices/ plans (label "cli"): `gpuharness sweep M --dry-run` loads the
# matrix, its launchers and every scenario file it names, and exits 0. A shipped file broken by
# an edit then fails CI instead of its next user. (ci/matrices need the nightly's environment:
# tests/nightly_dryrun covers them.)
file(GLOB _gh_shipped_matrices CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/matrices/*.yaml)
# nccl_releases reads a tags repository under .deps/ that a fresh clone lacks: its own test plans
# it beside a throwaway one (tests/cli/nccl_releases_dryrun.sh).
list(FILTER _gh_shipped_matrices EXCLUDE REGEX "/nccl_releases\\.yaml$")
add_test(NAME gpuharness.cli.shipped_matrix.nccl_releases
         COMMAND bash ${PROJECT_SOURCE_DIR}/tests/cli/nccl_releases_dryrun.sh $<TARGET_FILE:gpuharness>
                 ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/test_tmp/nccl_releases_dryrun)
set_tests_properties(gpuharness.cli.shipped_matrix.nccl_releases PROPERTIES LABELS cli TIMEOUT 60)
foreach(matrix ${_gh_shipped_matrices})
  get_filename_component(_name ${matrix} NAME_WE)
  add_test(NAME gpuharness.cli.shipped_matrix.${_name}
           COMMAND $<TARGET_FILE:gpuharness> sweep ${matrix} --dry-run)
  set_tests_properties(gpuharness.cli.shipped_matrix.${_name} PROPERTIES LABELS cli TIMEOUT 60)
endforeach()
