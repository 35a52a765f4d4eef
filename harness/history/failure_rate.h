// How often a point fails, with how sure that figure is: the share of its judged trials that
// failed and a 95 % Wilson score interval around it (which stays inside 0..1 and is honest
// about few trials: 1 failure in 2 trials reads 9 % .. 91 %, not 50 %).
#ifndef GPUHARNESS_HISTORY_FAILURE_RATE_H_
#define GPUHARNESS_HISTORY_FAILURE_RATE_H_

#include <string>

namespace gh {

struct FailureRate {
  int failed = 0;
  int trials = 0;
  double rate = 0;  // failed / trials (0 without trials)
  double low = 0;   // the 95 % Wilson score interval
  double high = 1;
  // "2 of 8 trials (25 %, 95 % interval 7.15-59.1 %)"
  std::string ToString() const;
};

FailureRate FailureRateOf(int failed, int trials);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_FAILURE_RATE_H_
