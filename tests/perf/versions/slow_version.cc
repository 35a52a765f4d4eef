// One "version" of the library under test for the perf acceptance tests: MPI_Sendrecv, and
// then a busy wait that makes each call take kWorkUs times the version's factor. The factor is
// in the file `slowdown` beside the library (install_version.sh writes it): 1.00, 1.01 (a
// planted 1 % change) or 1.10 (a planted 10 % slowdown). The time is really spent, on the
// clock, so a loaded machine slows every version alike; the timed iterations see it.
// MPI symbols are looked up at call time, so the library also loads harmlessly into mpirun.
#define OMPI_SKIP_MPICXX 1  // the C API only
#include <dlfcn.h>
#include <mpi.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr double kWorkUs = 200;
double factor = 1.0;

__attribute__((constructor)) void LoadFactor() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&LoadFactor), &info) || info.dli_fname == nullptr) return;
  char path[4096];
  std::snprintf(path, sizeof path, "%s", info.dli_fname);
  char* slash = std::strrchr(path, '/');
  if (slash == nullptr) return;
  std::snprintf(slash + 1, sizeof path - static_cast<size_t>(slash + 1 - path), "slowdown");
  if (std::FILE* f = std::fopen(path, "r")) {
    if (std::fscanf(f, "%lf", &factor) != 1) factor = 1.0;
    std::fclose(f);
  }
}

double NowUs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

using SendrecvFn = int (*)(const void*, int, MPI_Datatype, int, int, void*, int, MPI_Datatype, int,
                           int, MPI_Comm, MPI_Status*);

}  // namespace

extern "C" int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                            MPI_Comm comm, MPI_Status* status) {
  static SendrecvFn real_sendrecv;
  if (real_sendrecv == nullptr) real_sendrecv = reinterpret_cast<SendrecvFn>(dlsym(RTLD_NEXT, "MPI_Sendrecv"));
  const double start = NowUs();
  const int rc = real_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                               source, recvtag, comm, status);
  const double until = start + kWorkUs * factor;
  while (NowUs() < until) {
  }
  return rc;
}
