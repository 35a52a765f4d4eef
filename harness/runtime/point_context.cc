#include "harness/runtime/point_context.h"

#include "harness/runtime/watchdog.h"

namespace gh {

void PointContext::SetStep(const char* step) {
  if (watchdog_ != nullptr) watchdog_->SetStep(step);
}

}  // namespace gh
