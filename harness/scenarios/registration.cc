#include "harness/scenarios/registration.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/runtime/mpi_errors.h"

namespace gh {
namespace {

class Unregistered : public Registration {
 public:
  Unregistered() { kind_ = RegistrationKind::kNone; }
  absl::Status Deregister() override { return absl::OkStatus(); }
};

class MpiWindowRegistration : public Registration {
 public:
  explicit MpiWindowRegistration(MPI_Win window) {
    kind_ = RegistrationKind::kMpiWindow;
    mpi_window_ = window;
  }
  ~MpiWindowRegistration() override { (void)Deregister(); }
  absl::Status Deregister() override {
    if (mpi_window_ == MPI_WIN_NULL) return absl::OkStatus();
    int rc = MPI_Win_free(&mpi_window_);
    mpi_window_ = MPI_WIN_NULL;
    if (rc != MPI_SUCCESS) return absl::InternalError(absl::StrCat(MpiErrorSignature(rc), " (MPI_Win_free)"));
    return absl::OkStatus();
  }
};

}  // namespace

bool RegistrationSupports(RegistrationKind kind, Backend backend) {
  switch (kind) {
    case RegistrationKind::kNone: return true;
    case RegistrationKind::kMpiWindow: return backend == Backend::kHost;
    case RegistrationKind::kNcclRegister:
    case RegistrationKind::kWindow:
    case RegistrationKind::kWindowSymmetric: return backend == Backend::kCuda;
  }
  return false;
}

bool RegistrationIsCollective(RegistrationKind kind) {
  return kind == RegistrationKind::kWindow || kind == RegistrationKind::kWindowSymmetric ||
         kind == RegistrationKind::kMpiWindow;
}

std::unique_ptr<Registration> NoRegistration() { return std::make_unique<Unregistered>(); }

absl::StatusOr<std::unique_ptr<Registration>> RegisterHost(RegistrationKind kind,
                                                            const Allocation& buffer,
                                                            MPI_Comm comm) {
  if (kind == RegistrationKind::kNone) return NoRegistration();
  if (kind != RegistrationKind::kMpiWindow) {
    return absl::InvalidArgumentError(
        absl::StrCat("registration ", std::string(EnumToName(kind)), " needs the cuda backend"));
  }
  // The job's communicators return errors (mpi_errors.h): a refused window is an outcome.
  MPI_Win window = MPI_WIN_NULL;
  int rc = MPI_Win_create(buffer.data(), static_cast<MPI_Aint>(buffer.bytes()), 1, MPI_INFO_NULL,
                          comm, &window);
  if (rc != MPI_SUCCESS) {
    return absl::InternalError(absl::StrCat(MpiErrorSignature(rc), " (MPI_Win_create)"));
  }
  MPI_Win_set_errhandler(window, MPI_ERRORS_RETURN);
  return std::unique_ptr<Registration>(new MpiWindowRegistration(window));
}

absl::Status RegisteredBuffer::Release() {
  absl::Status status;
  // Deregistration, like freeing, must not pull the memory from under enqueued work.
  if (allocation && registration) status.Update(allocation->WaitForPendingWork());
  if (registration) status.Update(registration->Deregister());
  registration.reset();
  if (allocation) status.Update(allocation->Free());
  allocation.reset();
  return status;
}

absl::Status RegisteredBuffer::ReleaseWithoutDeregistering() {
  (void)registration.release();  // deliberately dropped: see the header
  absl::Status status;
  if (allocation) status = allocation->Free();
  allocation.reset();
  return status;
}

}  // namespace gh
