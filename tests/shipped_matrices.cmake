# Every shipped matrix in matrices/ plans (label "cli"): `gpuharness sweep M --dry-run` loads the
# matrix, its launchers and every scenario file it names, and exits 0. A shipped file broken by
# an edit then fails CI instead of its next user. (ci/matrices need the nightly's environment:
# tests/nightly_dryrun covers them.)
file(GLOB _gh_shipped_matrices CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/matrices/*.yaml)
foreach(matrix ${_gh_shipped_matrices})
  get_filename_component(_name ${matrix} NAME_WE)
  add_test(NAME gpuharness.cli.shipped_matrix.${_name}
           COMMAND $<TARGET_FILE:gpuharness> sweep ${matrix} --dry-run)
  set_tests_properties(gpuharness.cli.shipped_matrix.${_name} PROPERTIES LABELS cli TIMEOUT 60)
endforeach()
