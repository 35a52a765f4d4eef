// The one home of the status-propagation macros (absl has none public): every layer uses these.
#ifndef GPUHARNESS_CORE_STATUS_MACROS_H_
#define GPUHARNESS_CORE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Returns the status of `expr` (an absl::Status) from the enclosing function when it is not OK.
#define GH_RETURN_IF_ERROR(expr)                 \
  do {                                           \
    ::absl::Status gh_status_ = (expr);          \
    if (!gh_status_.ok()) return gh_status_;     \
  } while (false)

#define GH_STATUS_MACROS_CONCAT_INNER_(a, b) a##b
#define GH_STATUS_MACROS_CONCAT_(a, b) GH_STATUS_MACROS_CONCAT_INNER_(a, b)

// `GH_ASSIGN_OR_RETURN(auto x, F());` declares or assigns `lhs` from an absl::StatusOr, or
// returns its status from the enclosing function.
#define GH_ASSIGN_OR_RETURN(lhs, expr) \
  GH_ASSIGN_OR_RETURN_IMPL_(GH_STATUS_MACROS_CONCAT_(gh_statusor_, __LINE__), lhs, expr)
#define GH_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                              \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // GPUHARNESS_CORE_STATUS_MACROS_H_
