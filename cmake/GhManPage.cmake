# cmake -P: writes the gpuharness(1) man page OUT from the binary BIN's own help: `--help`, then
# `gpuharness help CMD` for every command it lists, so the page never drifts from the code.
cmake_policy(VERSION 3.24)
function(gh_run out)
  execute_process(COMMAND ${BIN} ${ARGN} OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BIN} ${ARGN} failed (${rc}): ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Text as roff shows it verbatim: backslashes escaped, no line read as a request.
function(gh_roff out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

gh_run(usage --help)
string(REGEX MATCH "commands:\n(.*)\n\noptions:" _ "${usage}")
string(REGEX MATCHALL "\n  [a-z][a-z-]* " names "\n${CMAKE_MATCH_1}")
gh_roff(usage_roff "${usage}")
set(page ".TH GPUHARNESS 1 \"\" \"gpuharness ${VERSION}\" \"User Commands\"
.SH NAME
gpuharness \\- multi-process GPU regression test harness
.SH SYNOPSIS
.B gpuharness
\\fICOMMAND\\fR [\\fIARGS\\fR]
.SH DESCRIPTION
One MPI process per GPU runs YAML-described scenarios, verifies every rank's data and records
each outcome; a driver sweeps scenarios over flag and version matrices, compares them with a
baseline and bisects version ranges.
.PP
.nf
${usage_roff}.fi
.SH COMMANDS
")
foreach(name ${names})
  string(STRIP "${name}" name)
  if(name STREQUAL "help")
    continue()
  endif()
  gh_run(command_help help ${name})
  gh_roff(help_roff "${command_help}")
  string(APPEND page ".SS ${name}\n.nf\n${help_roff}.fi\n")
endforeach()
string(APPEND page ".SH FILES
.TP
.I <prefix>/share/gpuharness/
scenarios/, matrices/ and launchers/: a scenario, matrix or launcher named without a path
(\\fBgpuharness run ring_shift_bandwidth\\fR) is looked up there; ci/: the nightly script and
its Slurm templates; modulefiles/: the Lmod modulefile; results/reference/: the reference
bandwidth floors that \\fBmin: reference\\fR reads.
.TP
.I <prefix>/share/doc/gpuharness/
the user guide (install.md: installing, packages, \\fBgpuharness doctor\\fR).
.SH ENVIRONMENT
.TP
.B GH_DATA_DIR
the directory to use instead of <prefix>/share/gpuharness.
.SH EXIT STATUS
0 every outcome met its expectation; 1 some did not, or a regression; 2 bad input;
3 infrastructure (the launcher, MPI start-up or the results directory failed).
")
get_filename_component(dir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
file(WRITE "${OUT}" "${page}")
