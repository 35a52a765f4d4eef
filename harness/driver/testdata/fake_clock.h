// Test-only: the driver's clock seam advanced by hand. SleepFor moves it on (and calls
// `on_sleep`, where a test makes things happen at a time), so timeouts and grace periods are
// tested without waiting.
#ifndef GPUHARNESS_DRIVER_TESTDATA_FAKE_CLOCK_H_
#define GPUHARNESS_DRIVER_TESTDATA_FAKE_CLOCK_H_

#include <functional>

#include "harness/driver/clock.h"

namespace gh::testing {

class FakeClock : public driver::Clock {
 public:
  absl::Time Now() override { return now_; }
  void SleepFor(absl::Duration d) override {
    now_ += d;
    if (on_sleep) on_sleep();
  }
  absl::Duration Elapsed() const { return now_ - absl::UnixEpoch(); }
  std::function<void()> on_sleep;

 private:
  absl::Time now_ = absl::UnixEpoch();
};

}  // namespace gh::testing

#endif  // GPUHARNESS_DRIVER_TESTDATA_FAKE_CLOCK_H_
