// NCCL registrations: the user-buffer path (ncclCommRegister) and windows
// (ncclCommWindowRegister, default or symmetric). Each undoes itself with its own deregister.
#include <nccl.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/core/status_macros.h"
#include "harness/runtime/cuda_errors_cuda.h"
#include "harness/scenarios/cuda_point_status_cuda.h"
#include "harness/scenarios/registration.h"

namespace gh {
namespace {

class UserBufferRegistration : public Registration {
 public:
  UserBufferRegistration(ncclComm_t comm, void* handle) : comm_(comm), handle_(handle) {
    kind_ = RegistrationKind::kNcclRegister;
  }
  ~UserBufferRegistration() override { (void)Deregister(); }
  absl::Status Deregister() override {
    if (handle_ == nullptr) return absl::OkStatus();
    ncclResult_t r = ncclCommDeregister(comm_, handle_);
    handle_ = nullptr;
    return NcclOk(r, comm_, "ncclCommDeregister");
  }

 private:
  ncclComm_t comm_;
  void* handle_;
};

class WindowRegistration : public Registration {
 public:
  WindowRegistration(RegistrationKind kind, ncclComm_t comm, ncclWindow_t window) : comm_(comm) {
    kind_ = kind;
    nccl_window_ = window;
  }
  ~WindowRegistration() override { (void)Deregister(); }
  absl::Status Deregister() override {
    if (nccl_window_ == nullptr) return absl::OkStatus();
    ncclResult_t r = ncclCommWindowDeregister(comm_, nccl_window_);
    nccl_window_ = nullptr;
    return NcclOk(r, comm_, "ncclCommWindowDeregister");
  }

 private:
  ncclComm_t comm_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Registration>> RegisterDevice(RegistrationKind kind,
                                                              const Allocation& buffer,
                                                              ncclComm_t comm) {
  size_t bytes = static_cast<size_t>(buffer.bytes());
  switch (kind) {
    case RegistrationKind::kNone:
      return NoRegistration();
    case RegistrationKind::kNcclRegister: {
      void* handle = nullptr;
      GH_RETURN_IF_ERROR(
          NcclOk(ncclCommRegister(comm, buffer.data(), bytes, &handle), comm, "ncclCommRegister"));
      return std::unique_ptr<Registration>(new UserBufferRegistration(comm, handle));
    }
    case RegistrationKind::kWindow:
    case RegistrationKind::kWindowSymmetric: {
      ncclWindow_t window = nullptr;
      int flags = kind == RegistrationKind::kWindow ? NCCL_WIN_DEFAULT : NCCL_WIN_COLL_SYMMETRIC;
      GH_RETURN_IF_ERROR(NcclOk(ncclCommWindowRegister(comm, buffer.data(), bytes, &window, flags),
                                comm, "ncclCommWindowRegister"));
      return std::unique_ptr<Registration>(new WindowRegistration(kind, comm, window));
    }
    case RegistrationKind::kMpiWindow:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("registration ", std::string(EnumToName(kind)), " needs the host backend"));
}

}  // namespace gh
