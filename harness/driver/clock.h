// The clock seam: the sweep reads time and sleeps through a Clock, so tests advance a fake one
// and timeouts are tested without waiting.
#ifndef GPUHARNESS_DRIVER_CLOCK_H_
#define GPUHARNESS_DRIVER_CLOCK_H_

#include "absl/time/time.h"

namespace gh::driver {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() = 0;
  virtual void SleepFor(absl::Duration duration) = 0;
};

class RealClock : public Clock {
 public:
  absl::Time Now() override;
  void SleepFor(absl::Duration duration) override;
};

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_CLOCK_H_
