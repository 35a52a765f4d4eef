# The docs as code (label "docs", in the default suite; docs/CONTRIBUTING.md says how to write for
# them): every marked shell block of the tutorials and how-to pages runs on the CPU in a scratch
# directory and shows the output the page shows; links, commands and flags resolve; no internal
# vocabulary reaches a user; the reference pages match the binary and the loaders.
if(NOT TARGET gh_driver)
  return()
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter)

set(_gh_docs_tools ${CMAKE_CURRENT_SOURCE_DIR}/docs)
set(_gh_docs_args --source ${PROJECT_SOURCE_DIR} --binary $<TARGET_FILE:gpuharness>)

add_test(NAME gpuharness.docs.tools COMMAND ${Python3_EXECUTABLE} ${_gh_docs_tools}/docs_tools_test.py)
add_test(NAME gpuharness.docs.links
  COMMAND ${Python3_EXECUTABLE} ${_gh_docs_tools}/check_links.py --source ${PROJECT_SOURCE_DIR})
foreach(check flags vocabulary yaml_keys schema exit_status kinds)
  add_test(NAME gpuharness.docs.${check}
    COMMAND ${Python3_EXECUTABLE} ${_gh_docs_tools}/check_${check}.py ${_gh_docs_args})
endforeach()
add_test(NAME gpuharness.docs.cli_reference
  COMMAND ${Python3_EXECUTABLE} ${_gh_docs_tools}/cli_reference.py --binary $<TARGET_FILE:gpuharness>
          --check ${PROJECT_SOURCE_DIR}/docs/reference/cli.md)
set_tests_properties(gpuharness.docs.tools gpuharness.docs.links gpuharness.docs.flags
  gpuharness.docs.vocabulary gpuharness.docs.yaml_keys gpuharness.docs.schema gpuharness.docs.exit_status
  gpuharness.docs.kinds gpuharness.docs.cli_reference
  PROPERTIES LABELS docs TIMEOUT 300 ENVIRONMENT "${GH_HARNESS_TEST_ENV}")

# One test per tutorial and how-to page, gpuharness.docs.page.<dir>.<page>; a page whose every
# block needs a GPU or a cluster is reported skipped (exit 77).
file(GLOB _gh_docs_pages CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/tutorials/*.md
     ${PROJECT_SOURCE_DIR}/docs/how-to/*.md)
foreach(page ${_gh_docs_pages})
  get_filename_component(dir ${page} DIRECTORY)
  get_filename_component(dir ${dir} NAME)
  get_filename_component(name ${page} NAME_WE)
  add_test(NAME gpuharness.docs.page.${dir}.${name}
    COMMAND ${Python3_EXECUTABLE} ${_gh_docs_tools}/run_page.py --source ${PROJECT_SOURCE_DIR}
            --build ${CMAKE_BINARY_DIR} ${page})
  set_tests_properties(gpuharness.docs.page.${dir}.${name} PROPERTIES LABELS docs TIMEOUT 900
    SKIP_RETURN_CODE 77)
  # A page that measures time runs alone, as the perf tests do: a loaded machine moves its figures.
  file(STRINGS ${page} _gh_docs_serial REGEX "<!-- docs-test: serial -->")
  if(_gh_docs_serial)
    set_tests_properties(gpuharness.docs.page.${dir}.${name} PROPERTIES RUN_SERIAL TRUE)
  endif()
endforeach()

# docs/reference/cli.md from the binary's help: `cmake --build build --target docs_reference`.
add_custom_target(docs_reference
  COMMAND ${Python3_EXECUTABLE} ${_gh_docs_tools}/cli_reference.py --binary $<TARGET_FILE:gpuharness>
          --write ${PROJECT_SOURCE_DIR}/docs/reference/cli.md
  DEPENDS gpuharness VERBATIM)
