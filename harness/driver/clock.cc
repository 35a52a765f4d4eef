#include "harness/driver/clock.h"

#include "absl/time/clock.h"

namespace gh::driver {

absl::Time RealClock::Now() { return absl::Now(); }
void RealClock::SleepFor(absl::Duration duration) { absl::SleepFor(duration); }

}  // namespace gh::driver
