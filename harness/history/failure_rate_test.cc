#include "harness/history/failure_rate.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(FailureRateTest, WilsonIntervalStaysInsideZeroToOne) {
  EXPECT_EQ(FailureRateOf(1, 2).ToString(), "1 of 2 trials (50 %, 95 % interval 9.45-90.5 %)");
  EXPECT_EQ(FailureRateOf(0, 10).ToString(), "0 of 10 trials (0 %, 95 % interval 0-27.8 %)");
  EXPECT_EQ(FailureRateOf(10, 10).ToString(), "10 of 10 trials (100 %, 95 % interval 72.2-100 %)");
  const FailureRate none = FailureRateOf(0, 0);
  EXPECT_EQ(none.rate, 0);
  EXPECT_EQ(none.low, 0);
  EXPECT_EQ(none.high, 1);
}

}  // namespace
}  // namespace gh
