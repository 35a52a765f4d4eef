// The job's MPI side: initialisation (MPI_THREAD_MULTIPLE, also as a singleton without
// mpirun), who runs where (host names gathered, local rank by host-name hash), and the
// communicators the harness keeps apart: one for scenarios, one for gathering outcomes, one
// for the watchdogs. Every communicator returns errors (MPI_ERRORS_RETURN) instead of aborting.
#ifndef GPUHARNESS_RUNTIME_MPI_WORLD_H_
#define GPUHARNESS_RUNTIME_MPI_WORLD_H_

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/runtime/local_rank.h"

namespace gh {

// This process's rank as the launcher announced it (Open MPI, PMIx, PMI, Slurm), before
// MPI_Init; 0 when launched alone. For deciding who prints errors found before MPI starts.
int LauncherRank();

// The host name this rank reports: $GH_HOSTNAME when set (tests simulate several nodes),
// else gethostname().
std::string ThisHostName();

class MpiWorld {
 public:
  // Collective. Internal when MPI cannot start or lacks MPI_THREAD_MULTIPLE.
  static absl::StatusOr<std::unique_ptr<MpiWorld>> Init(int* argc, char*** argv);
  ~MpiWorld();  // frees the communicators and finalises MPI
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& host() const { return hosts_[rank_]; }
  const std::vector<std::string>& hosts() const { return hosts_; }          // per rank
  const std::vector<uint64_t>& host_hashes() const { return host_hashes_; }  // per rank
  const LocalRankInfo& local() const { return local_; }
  std::string library_version() const;  // MPI_Get_library_version's first line

  MPI_Comm scenario_comm() const { return scenario_comm_; }
  MPI_Comm gather_comm() const { return gather_comm_; }
  MPI_Comm watchdog_comm() const { return watchdog_comm_; }

  // Collective helpers over the world (on the gather communicator).
  std::vector<int> AllGather(int value) const;
  bool AllTrue(bool value) const;
  int Broadcast(int value) const;  // rank 0's value

 private:
  MpiWorld() = default;
  int rank_ = 0;
  int size_ = 1;
  std::vector<std::string> hosts_;
  std::vector<uint64_t> host_hashes_;
  LocalRankInfo local_;
  MPI_Comm scenario_comm_ = MPI_COMM_NULL;
  MPI_Comm gather_comm_ = MPI_COMM_NULL;
  MPI_Comm watchdog_comm_ = MPI_COMM_NULL;
};

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_MPI_WORLD_H_
