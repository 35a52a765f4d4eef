#include "harness/history/failure_rate.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "harness/history/history_text.h"

namespace gh {

FailureRate FailureRateOf(int failed, int trials) {
  FailureRate r;
  r.failed = failed;
  r.trials = trials;
  if (trials <= 0) return r;
  constexpr double z = 1.959963984540054;  // the normal quantile of 97.5 %
  const double n = trials, p = static_cast<double>(failed) / trials;
  const double centre = (p + z * z / (2 * n)) / (1 + z * z / n);
  const double half = z / (1 + z * z / n) * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n));
  r.rate = p;
  // At 0 or all failures the bound is exactly 0 or 1; rounding must not leave 1e-17 there.
  r.low = failed == 0 ? 0.0 : std::max(0.0, centre - half);
  r.high = failed == trials ? 1.0 : std::min(1.0, centre + half);
  return r;
}

std::string FailureRate::ToString() const {
  return absl::StrCat(failed, " of ", trials, " trials (", ThreeSignificant(100 * rate), " %, 95 % interval ",
                      ThreeSignificant(100 * low), "-", ThreeSignificant(100 * high), " %)");
}

}  // namespace gh
