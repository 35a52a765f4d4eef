#include "harness/runtime/point_context.h"

#include "harness/runtime/watchdog.h"

namespace gh {

void PointContext::SetStep(const char* step) {
  if (watchdog_ != nullptr) watchdog_->SetStep(step);
}

void PointContext::SetStep(const char* step, const char* operation, int64_t bytes) {
  if (watchdog_ != nullptr) watchdog_->SetStep(step, operation, bytes);
}

}  // namespace gh
