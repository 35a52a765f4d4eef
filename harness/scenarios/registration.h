// Registration as a scenario axis: how a buffer is made known to the transport before a
// collective uses it. Seed 000 fails at NCCL symmetric window registration, seed 003 on the
// user-buffer path, so each way is its own value:
//   none               nothing (both backends)
//   nccl_register      ncclCommRegister, NCCL's user-buffer path (cuda)
//   window             ncclCommWindowRegister with NCCL_WIN_DEFAULT (cuda)
//   window_symmetric   ncclCommWindowRegister with NCCL_WIN_COLL_SYMMETRIC (cuda)
//   mpi_window         MPI_Win_create over the buffer, the CPU analogue of a window (host)
// A Registration is undone by Deregister() (idempotent) or its destructor; RegisteredBuffer
// keeps the order right on every path: deregister first, then free.
#ifndef GPUHARNESS_SCENARIOS_REGISTRATION_H_
#define GPUHARNESS_SCENARIOS_REGISTRATION_H_

#include <mpi.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/enum_names.h"
#include "harness/core/param.h"
#include "harness/core/registry.h"
#include "harness/scenarios/allocators.h"

// Opaque handles, so this header stays free of nccl.h.
typedef struct ncclComm* ncclComm_t;
typedef struct ncclWindow_vidmem* ncclWindow_t;

namespace gh {

enum class RegistrationKind { kNone, kNcclRegister, kWindow, kWindowSymmetric, kMpiWindow };
GH_ENUM_NAMES(RegistrationKind, {RegistrationKind::kNone, "none"},
    {RegistrationKind::kNcclRegister, "nccl_register"}, {RegistrationKind::kWindow, "window"},
    {RegistrationKind::kWindowSymmetric, "window_symmetric"},
    {RegistrationKind::kMpiWindow, "mpi_window"});

// A kind's name: EnumToName (param.h); parse with ParseEnum.
bool RegistrationSupports(RegistrationKind kind, Backend backend);
// Whether registering is a collective call every rank must make together (windows are; the
// user-buffer path is not).
bool RegistrationIsCollective(RegistrationKind kind);

class Registration {
 public:
  virtual ~Registration() = default;
  virtual absl::Status Deregister() = 0;
  RegistrationKind kind() const { return kind_; }
  MPI_Win mpi_window() const { return mpi_window_; }        // mpi_window only
  ncclWindow_t nccl_window() const { return nccl_window_; }  // window, window_symmetric only

 protected:
  RegistrationKind kind_ = RegistrationKind::kNone;
  MPI_Win mpi_window_ = MPI_WIN_NULL;
  ncclWindow_t nccl_window_ = nullptr;
};

// Registration kind none, on either backend: nothing to deregister.
std::unique_ptr<Registration> NoRegistration();

// Host: none or mpi_window (collective over `comm`). Errors name the MPI error.
absl::StatusOr<std::unique_ptr<Registration>> RegisterHost(RegistrationKind kind,
                                                            const Allocation& buffer,
                                                            MPI_Comm comm);
#if defined(GH_HAVE_CUDA)
// Cuda: none, nccl_register, window, window_symmetric. Errors carry the NCCL signature
// ("ncclInvalidArgument: Window address must be suitably aligned.").
absl::StatusOr<std::unique_ptr<Registration>> RegisterDevice(RegistrationKind kind,
                                                              const Allocation& buffer,
                                                              ncclComm_t comm);
#endif

// A buffer and its registration, released in the right order: deregistration before free,
// also when the scenario returns early or registration failed.
struct RegisteredBuffer {
  std::unique_ptr<Allocation> allocation;
  std::unique_ptr<Registration> registration;  // declared second: destroyed first

  // Deregisters, then frees; returns the first error and still does both.
  absl::Status Release();
  // For a collective registration that failed on another rank: deregistering would wait for
  // that rank forever, so the registration is dropped without deregistering (the
  // communicator's destruction reclaims it) and only the memory is freed.
  absl::Status ReleaseWithoutDeregistering();
  ~RegisteredBuffer() { (void)Release(); }
};

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_REGISTRATION_H_
