// One "version" of the library under test, for the bisect end-to-end test. A version is a
// directory holding this library (preloaded into every rank by the version's activation, the
// way an NCCL version is chosen by LD_LIBRARY_PATH) and a file `behaviour` beside it:
//   pass     MPI_Sendrecv passes through
//   segv     rank 1 dies of SIGSEGV in MPI_Sendrecv (the older, different failure)
//   corrupt  rank 1's received block has one byte flipped: ring_shift's verification reports
//            wrong data (the failure being hunted)
// GH_FAKE_BEHAVIOUR, when set, overrides the file: a setting that flips the behaviour within one
// version, for the minimize end-to-end test.
// ring_shift's mpi_p2p transport exchanges with MPI_Sendrecv; the harness's own collectives
// use other calls, so only the scenario's data path is touched. MPI symbols are looked up at
// call time, so the library also loads harmlessly into mpirun itself.
#define OMPI_SKIP_MPICXX 1  // the C API only
#include <dlfcn.h>
#include <mpi.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

char behaviour[32] = "pass";

__attribute__((constructor)) void LoadBehaviour() {
  if (const char* forced = std::getenv("GH_FAKE_BEHAVIOUR"); forced != nullptr && *forced != '\0') {
    std::snprintf(behaviour, sizeof behaviour, "%s", forced);
    return;
  }
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&LoadBehaviour), &info) || info.dli_fname == nullptr) return;
  char path[4096];
  snprintf(path, sizeof path, "%s", info.dli_fname);
  char* slash = strrchr(path, '/');
  if (slash == nullptr) return;
  std::snprintf(slash + 1, sizeof path - static_cast<size_t>(slash + 1 - path), "behaviour");
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return;
  if (std::fgets(behaviour, sizeof behaviour, f) != nullptr) behaviour[std::strcspn(behaviour, "\r\n")] = '\0';
  std::fclose(f);
}

using SendrecvFn = int (*)(const void*, int, MPI_Datatype, int, int, void*, int, MPI_Datatype, int,
                           int, MPI_Comm, MPI_Status*);
using CommRankFn = int (*)(MPI_Comm, int*);

}  // namespace

extern "C" int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  static SendrecvFn real_sendrecv;
  static CommRankFn comm_rank;
  if (real_sendrecv == nullptr) real_sendrecv = reinterpret_cast<SendrecvFn>(dlsym(RTLD_NEXT, "MPI_Sendrecv"));
  if (comm_rank == nullptr) comm_rank = reinterpret_cast<CommRankFn>(dlsym(RTLD_DEFAULT, "MPI_Comm_rank"));
  int rank = 0;
  comm_rank(comm, &rank);
  if (rank == 1 && std::strcmp(behaviour, "segv") == 0) raise(SIGSEGV);
  int rc = real_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
  if (rc == MPI_SUCCESS && rank == 1 && std::strcmp(behaviour, "corrupt") == 0 && recvcount > 0) {
    static_cast<unsigned char*>(recvbuf)[0] ^= 0x5a;
  }
  return rc;
}
