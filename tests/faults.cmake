# Fault tests (label "faults"): `gpuharness sweep` over tests/faults/sweep.yaml (mpirun, 2 ranks,
# host backend) with the driver and single ranks killed at seeded pseudo-random moments, then
# rerun to completion: every planned run recorded once, no process left, no made-up verdict.
# Also two runs into one DIR, a SIGINTed bisect that resumes, and a version list command that
# is stopped, capped and timed out. About a minute; serial (they count processes).
gh_harness_test_suite(gh_faults_test ${CMAKE_CURRENT_SOURCE_DIR}/faults/fault_test.cc
  NAME faults LABEL faults TIMEOUT 300 SERIAL
  LIBS nlohmann_json::nlohmann_json GTest::gtest_main GTest::gmock
  DEFINES GH_FAULTS_DIR="${CMAKE_CURRENT_SOURCE_DIR}/faults" GH_FAULTS_MPIRUN="${GH_MPIRUN}")
