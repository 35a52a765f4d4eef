# Whole-binary sweep tests (label "mpi"): `gpuharness sweep` on the host backend with mpirun —
# matrices/demo.yaml into a temp dir (records, cell labels, outcomes), resume (the second run
# runs no cell), an MPI start-up failure against a baseline (infra, exit 3, no regression), a crashing rank and a hung
# job (crash and timeout records for the points never recorded), and a bad matrix (exit 2).
gh_harness_test_suite(gh_sweep_test ${CMAKE_CURRENT_SOURCE_DIR}/sweep/run_sweep_test.cc
  NAME sweep LABEL mpi TIMEOUT 600 SERIAL)

# Choosing what a sweep runs (label "mpi"): --collect-only, -k expressions, --maxfail and -x.
gh_harness_test_suite(gh_sweep_selection_test ${CMAKE_CURRENT_SOURCE_DIR}/sweep/sweep_selection_test.cc
  NAME sweep_selection LABEL mpi TIMEOUT 300 SERIAL)
