# Whole-binary tests of kind exec (label "mpi"): gpuharness runs the small programs in
# tests/exec_programs/ (pass, fail with a signature, crash, hang, garbage, skip, missing
# program) alone and under mpirun at 2 ranks, and the records are asserted rank by rank. The
# JAX case runs the shipped single-device program on CPU jax, skipping with the reason when jax
# is not importable.

gh_harness_test_suite(gh_exec_test ${CMAKE_CURRENT_SOURCE_DIR}/exec/run_exec_test.cc
  NAME exec LABEL mpi TIMEOUT 300 SERIAL LIBS gh_core GTest::gtest_main
  DEFINES GH_MPIRUN_BIN="${GH_MPIRUN}" GH_PYTHON3_BIN="${GH_PYTHON3}")
