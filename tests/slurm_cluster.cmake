# Three-node Slurm cluster tests (label "slurm-cluster", all in the CI suite, about 7 minutes
# serially; faults and nightly, about 0.5 and 3 minutes, are also labelled slurm-cluster-long so a
# quick run can leave them out with ctest -LE slurm-cluster-long):
# tests/slurm_cluster/cluster.sh starts munged, slurmctld and three slurmd "nodes" ghnode1..3,
# each in its own network, UTS and mount namespace on a private bridge; every case brings its
# own cluster up and down. Needs root, network namespaces, slurm-wlm and munge; exit 77 (not
# root, no namespaces, no Slurm) is a skip. The cluster's fixed bridge name makes them serial.
# gh_slurm_cluster_case(CASE LABELS TIMEOUT [EXTRA ARGS...]): one case of cluster_test.sh.
function(gh_slurm_cluster_case case labels timeout)
  add_test(NAME gpuharness.slurm_cluster.${case}
           COMMAND ${GH_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/slurm_cluster/cluster_test.sh
                   $<TARGET_FILE:gpuharness> ${PROJECT_SOURCE_DIR} ${case} ${ARGN})
  set_tests_properties(gpuharness.slurm_cluster.${case} PROPERTIES
    LABELS "${labels}" TIMEOUT ${timeout} RUN_SERIAL TRUE SKIP_RETURN_CODE 77)
endfunction()

foreach(case nodes mpi binding teardown packing submit nodefail nodesdead)
  gh_slurm_cluster_case(${case} "slurm-cluster" 300)
endforeach()
gh_slurm_cluster_case(faults "slurm-cluster;slurm-cluster-long" 300)

# The nightly end to end on the cluster (ci/slurm/nightly-ghcluster.sbatch through sbatch --wait)
# needs tests/bisect.cmake's fake MPI library, like tests/nightly_dryrun. About 3 minutes: label
# slurm-cluster-long too, so a quick run can leave it out (ctest -LE slurm-cluster-long).
if(TARGET gh_bisect_fake_version)
  # bisect --jobs 3 inside an allocation: probes as job steps across the nodes.
  gh_slurm_cluster_case(bisect "slurm-cluster" 300 $<TARGET_FILE:gh_bisect_fake_version>)
  gh_slurm_cluster_case(nightly "slurm-cluster;slurm-cluster-long" 600 $<TARGET_FILE:gh_bisect_fake_version>)
endif()
