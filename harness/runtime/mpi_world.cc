#include "harness/runtime/mpi_world.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "harness/runtime/mpi_errors.h"

namespace gh {
namespace {

constexpr int kHostNameCapacity = 256;

absl::Status MpiStatus(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, ": ", MpiErrorSignature(rc)));
}

}  // namespace

int LauncherRank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const char* value = std::getenv(name);
    int rank = 0;
    if (value != nullptr && absl::SimpleAtoi(value, &rank)) return rank;
  }
  return 0;
}

std::string ThisHostName() {
  if (const char* forced = std::getenv("GH_HOSTNAME"); forced != nullptr && *forced != '\0') {
    return std::string(forced).substr(0, kHostNameCapacity - 1);
  }
  char name[kHostNameCapacity] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown-host";
  return name;
}

absl::StatusOr<std::unique_ptr<MpiWorld>> MpiWorld::Init(int* argc, char*** argv) {
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    return absl::InternalError("MPI_Init_thread failed");
  }
  std::unique_ptr<MpiWorld> world(new MpiWorld());
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (provided < MPI_THREAD_MULTIPLE) {
    return absl::InternalError(absl::StrCat(
        "the MPI library provides thread level ", provided,
        ", below MPI_THREAD_MULTIPLE: the watchdog needs MPI from a second thread"));
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &world->rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &world->size_);
  // Duplicates inherit MPI_ERRORS_RETURN.
  absl::Status status = MpiStatus(MPI_Comm_dup(MPI_COMM_WORLD, &world->scenario_comm_), "MPI_Comm_dup");
  if (status.ok()) status = MpiStatus(MPI_Comm_dup(MPI_COMM_WORLD, &world->gather_comm_), "MPI_Comm_dup");
  if (status.ok()) status = MpiStatus(MPI_Comm_dup(MPI_COMM_WORLD, &world->watchdog_comm_), "MPI_Comm_dup");
  if (!status.ok()) return status;

  char mine[kHostNameCapacity] = {};
  const std::string host = ThisHostName();
  std::memcpy(mine, host.data(), std::min<size_t>(host.size(), kHostNameCapacity - 1));
  std::vector<char> all(static_cast<size_t>(world->size_) * kHostNameCapacity);
  status = MpiStatus(MPI_Allgather(mine, kHostNameCapacity, MPI_CHAR, all.data(),
                                   kHostNameCapacity, MPI_CHAR, world->gather_comm_),
                     "gathering host names");
  if (!status.ok()) return status;
  for (int r = 0; r < world->size_; ++r) {
    const char* name = all.data() + static_cast<size_t>(r) * kHostNameCapacity;
    world->hosts_.emplace_back(name, strnlen(name, kHostNameCapacity));
    world->host_hashes_.push_back(HostNameHash(world->hosts_.back()));
  }
  world->local_ = ComputeLocalRank(world->host_hashes_, world->rank_);
  return world;
}

MpiWorld::~MpiWorld() {
  for (MPI_Comm* comm : {&scenario_comm_, &gather_comm_, &watchdog_comm_}) {
    if (*comm != MPI_COMM_NULL) MPI_Comm_free(comm);
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::string MpiWorld::library_version() const {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  // Open MPI counts the terminating NUL in `length`: cut at the first NUL or line break.
  std::string version(text, static_cast<size_t>(length));
  if (const size_t newline = version.find_first_of(std::string_view("\r\n\0", 3));
      newline != std::string::npos) {
    version.resize(newline);
  }
  while (!version.empty() && (version.back() == ' ' || version.back() == ',')) version.pop_back();
  return version;
}

std::vector<int> MpiWorld::AllGather(int value) const {
  std::vector<int> values(size_);
  MPI_Allgather(&value, 1, MPI_INT, values.data(), 1, MPI_INT, gather_comm_);
  return values;
}

bool MpiWorld::AllTrue(bool value) const {
  int mine = value ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, gather_comm_);
  return all == 1;
}

int MpiWorld::Broadcast(int value) const {
  MPI_Bcast(&value, 1, MPI_INT, 0, gather_comm_);
  return value;
}

}  // namespace gh
