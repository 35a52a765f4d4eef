# Whole-binary MPI tests (label "mpi"): gpuharness on the host backend alone (a singleton) and
# under mpirun at 2 and 4 ranks, asserting the records it writes: outcomes, per-rank details,
# metrics, planted faults, the watchdog's timeout, the crash guard, bad input.
# Each case spawns whole jobs; the stall case waits for its 3 s timeout. CTest's timeout is a
# backstop far above what the cases assert themselves.
# (The test program itself sets OMPI_ALLOW_RUN_AS_ROOT* for the jobs it starts.)
gh_harness_test_suite(gh_mpi_test ${CMAKE_CURRENT_SOURCE_DIR}/mpi/run_mpi_test.cc
  NAME mpi LABEL mpi TIMEOUT 300 SERIAL LIBS gh_core GTest::gtest_main
  DEFINES GH_MPIRUN_BIN="${GH_MPIRUN}")
