# Slurm tests (label "slurm"): tests/slurm/ scripts start a throw-away one-node Slurm cluster
# on localhost (munged, slurmctld, slurmd; needs root and the slurm-wlm and munge packages that
# scripts/setup.sh installs) and sweep through the real srun launcher. Exit 77 (not root) is a
# skip; missing packages or a cluster that does not come up fail the test.
add_test(NAME gpuharness.slurm.srun_sweep
         COMMAND ${GH_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/slurm/srun_sweep_test.sh
                 $<TARGET_FILE:gpuharness> ${PROJECT_SOURCE_DIR})
set_tests_properties(gpuharness.slurm.srun_sweep PROPERTIES
  LABELS "slurm" TIMEOUT 300 RUN_SERIAL TRUE SKIP_RETURN_CODE 77)

# Multi-node rank binding on one machine (label "mpi", no Slurm needed): ranks given host names
# of two "nodes" per rank through GH_HOSTNAME; asserts local ranks and the records' hosts.
add_test(NAME gpuharness.multinode.binding
         COMMAND ${GH_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/slurm/multinode_binding_test.sh
                 $<TARGET_FILE:gpuharness> ${PROJECT_SOURCE_DIR})
set_tests_properties(gpuharness.multinode.binding PROPERTIES LABELS "mpi" TIMEOUT 300 RUN_SERIAL TRUE)
