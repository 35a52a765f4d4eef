#include "harness/core/signal_name.h"

#include <signal.h>

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(SignalName, NamedAndUnnamed) {
  EXPECT_EQ(SignalName(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(SignalName(SIGABRT), "SIGABRT");
  EXPECT_EQ(SignalName(42), "signal 42");
  EXPECT_STREQ(SignalNameOrNull(SIGTERM), "SIGTERM");
  EXPECT_EQ(SignalNameOrNull(42), nullptr);
}

}  // namespace
}  // namespace gh
