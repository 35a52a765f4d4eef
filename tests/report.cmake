# `gpuharness report` as a user runs it (label "cli"): on the results directories under
# harness/report/testdata/cli (kept in step with the unit tests' small sweep), asserting exit
# statuses (0 met, 1 unmet or regression, 2 bad input), the headline and the files written.
# Reports go to --out under the build tree; the source tree is never written. (Output regexes
# use "." for ";", which CMake would take as a list separator.)
if(NOT TARGET gh_driver)
  return()
endif()

set(_data ${PROJECT_SOURCE_DIR}/harness/report/testdata/cli)
set(_out ${CMAKE_CURRENT_BINARY_DIR}/report_cli)

function(gh_report_cli_test name expect_exit)
  cmake_parse_arguments(T "FILES;NOTHING" "OUTPUT" "ARGS" ${ARGN})
  set(out_dir ${_out}/${name})
  add_test(NAME gpuharness.cli.report.${name}
           COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:gpuharness> "-DARGS=report;${T_ARGS}"
                   -DOUT_DIR=${out_dir} -DEXPECT_EXIT=${expect_exit} "-DEXPECT_OUTPUT=${T_OUTPUT}"
                   -DEXPECT_FILES=${T_FILES} -DEXPECT_NOTHING=${T_NOTHING}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/report/check_report.cmake)
  set_tests_properties(gpuharness.cli.report.${name} PROPERTIES LABELS cli TIMEOUT 60)
endfunction()

gh_report_cli_test(AllPassExitsZero 0 FILES
  ARGS ${_data}/pass --out ${_out}/AllPassExitsZero
  OUTPUT "3 points \\(3 trials\\): 3 pass. 0 unmet expectations")
gh_report_cli_test(UnmetExpectationExitsOne 1 FILES
  ARGS ${_data}/sweep --out ${_out}/UnmetExpectationExitsOne
  OUTPUT "16 points \\(32 trials\\): 13 pass, 1 skip, 1 error, 1 crash \\(expected\\). 1 unmet expectation")
gh_report_cli_test(RegressionAgainstBaselineExitsOne 1 FILES
  ARGS ${_data}/sweep --baseline ${_data}/baseline --out ${_out}/RegressionAgainstBaselineExitsOne
  OUTPUT "vs baseline: 1 regression, 0 fixes, 0 changed signatures, 8 new, 1 vanished")
gh_report_cli_test(BaselineAgainstItselfExitsZero 0 FILES
  ARGS ${_data}/baseline --baseline=${_data}/baseline --out=${_out}/BaselineAgainstItselfExitsZero
  OUTPUT "vs baseline: 0 regressions, 0 fixes, 0 changed signatures, 0 new, 0 vanished")
gh_report_cli_test(MissingDirIsBadInput 2 NOTHING
  ARGS ${_data}/no_such_dir --out ${_out}/MissingDirIsBadInput
  OUTPUT "no_such_dir: no such results directory")
gh_report_cli_test(MissingBaselineIsBadInput 2 NOTHING
  ARGS ${_data}/sweep --baseline ${_data}/no_such_baseline --out ${_out}/MissingBaselineIsBadInput
  OUTPUT "baseline: .*no_such_baseline: no such results directory")
gh_report_cli_test(UnknownFlagIsBadInput 2 NOTHING
  ARGS ${_data}/pass --bogus --out ${_out}/UnknownFlagIsBadInput
  OUTPUT "gpuharness report: unknown flag --bogus\n")
gh_report_cli_test(TwoDirsAreBadInput 2 NOTHING
  ARGS ${_data}/pass ${_data}/sweep --out ${_out}/TwoDirsAreBadInput
  OUTPUT "unexpected argument")
gh_report_cli_test(MissingDirArgumentIsBadInput 2 NOTHING
  ARGS --out ${_out}/MissingDirArgumentIsBadInput
  OUTPUT "missing DIR")
gh_report_cli_test(BaselineIgnoreThatMergesCellsIsBadInput 2 NOTHING
  ARGS ${_data}/sweep --baseline ${_data}/baseline --baseline-ignore nccl --out ${_out}/BaselineIgnoreThatMergesCellsIsBadInput
  OUTPUT "--baseline-ignore nccl: cells 'nccl=2.28.3,proto=simple' and 'nccl=2.28.9,proto=simple' of .*sweep would compare as one")
gh_report_cli_test(BaselineIgnoreOfAnUnknownAxisIsBadInput 2 NOTHING
  ARGS ${_data}/sweep --baseline ${_data}/baseline --baseline-ignore bogus --out ${_out}/BaselineIgnoreOfAnUnknownAxisIsBadInput
  OUTPUT "--baseline-ignore: no cell of .*sweep or .*baseline has an axis 'bogus'")
gh_report_cli_test(BaselineIgnoreWithoutValueIsBadInput 2 NOTHING
  ARGS ${_data}/sweep --baseline ${_data}/baseline --baseline-ignore
  OUTPUT "--baseline-ignore needs an axis name")
gh_report_cli_test(FlagWithoutValueIsBadInput 2 NOTHING
  ARGS ${_data}/pass --baseline
  OUTPUT "--baseline needs a directory")

# gh_report_python_check(NAME SCRIPT LABELS l TIMEOUT s [SERIAL] [ENVIRONMENT env])
# tests/report/SCRIPT run by python3 on the built gpuharness and the source tree, working under
# report_<work> in the build tree; exit 77 means skipped (a tool it needs is missing).
function(gh_report_python_check name script work)
  cmake_parse_arguments(PARSE_ARGV 3 arg "SERIAL" "LABELS;TIMEOUT;ENVIRONMENT" "")
  if(NOT GH_PYTHON3)
    return()
  endif()
  add_test(NAME gpuharness.report.${name}
           COMMAND ${GH_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/report/${script}
                   --gpuharness $<TARGET_FILE:gpuharness> --source ${PROJECT_SOURCE_DIR}
                   --work ${CMAKE_CURRENT_BINARY_DIR}/report_${work})
  set_tests_properties(gpuharness.report.${name} PROPERTIES
    LABELS "${arg_LABELS}" TIMEOUT ${arg_TIMEOUT} SKIP_RETURN_CODE 77)
  if(arg_SERIAL)
    set_tests_properties(gpuharness.report.${name} PROPERTIES RUN_SERIAL TRUE)
  endif()
  if(arg_ENVIRONMENT)
    set_tests_properties(gpuharness.report.${name} PROPERTIES ENVIRONMENT "${arg_ENVIRONMENT}")
  endif()
endfunction()

# junit.xml of a real multi-cell sweep (label "mpi": host backend under mpirun), validated against
# Jenkins xunit's junit-10.xsd (tests/report/junit-10.xsd) with xmllint and read by junitparser:
# distinct (classname, name) pairs, counts equal to summary.md's. Skips (77) without xmllint or
# junitparser; scripts/setup.sh installs both.
gh_report_python_check(JUnitOfARealSweepValidatesAndParses junit_sweep_check.py junit_sweep
  LABELS mpi TIMEOUT 300 SERIAL
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;CI=true")

# report.html in headless chromium (label "browser"; skips, 77, without chromium): the DOM the
# browser built has charts, legends of at most 8 entries and named axes; a screenshot is taken
# under the build tree. Not installed by scripts/setup.sh: `apt-get install -y chromium` to run it.
gh_report_python_check(HtmlInAHeadlessBrowser html_browser_check.py html_browser
  LABELS browser TIMEOUT 300)

# From a red result to its cause (label "browser"; skips, 77, without chromium): a baseline night
# and a broken night of ring shift with planted faults and a Python framework repro on the host
# backend; the console, summary.md, `report DIR` again, report.html's first screen in headless
# Chromium, junit.xml against Jenkins' classname rule and `history status` each show the
# regression first, with its traceback and the link to its rank's log (broken_night_check.py).
gh_report_python_check(BrokenNightFromRedToCause broken_night_check.py broken_night
  LABELS "browser;mpi" TIMEOUT 600 SERIAL)
