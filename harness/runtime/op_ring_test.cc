#include "harness/runtime/op_ring.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(OpRing, CountsEachStepsOccurrencesInOrder) {
  OpRing ring;
  ring.Reset();
  for (const char* step : {"start", "setup", "exchange", "setup", "exchange", "verify"}) ring.Record(step);
  const std::vector<OpEntry> ops = ring.Snapshot();
  ASSERT_EQ(ops.size(), 6u);
  EXPECT_EQ(ops[4], (OpEntry{5, "exchange", 2}));
  EXPECT_EQ(FormatOp(ops[4]), "exchange #2");
  EXPECT_EQ(ops[5], (OpEntry{6, "verify", 1}));
}

TEST(OpRing, KeepsTheLastEntriesAndResetForgets) {
  OpRing ring;
  ring.Reset();
  for (int i = 0; i < 100; ++i) ring.Record("exchange");
  std::vector<OpEntry> ops = ring.Snapshot();
  ASSERT_EQ(ops.size(), static_cast<size_t>(OpRing::kCapacity));
  EXPECT_EQ(ops.front().sequence, 100 - OpRing::kCapacity + 1);
  EXPECT_EQ(ops.back(), (OpEntry{100, "exchange", 100}));
  ring.Reset();
  EXPECT_TRUE(ring.Snapshot().empty());
  ring.Record("setup");
  ops = ring.Snapshot();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0], (OpEntry{1, "setup", 1}));
}

TEST(OpRing, StepsAreComparedByNameNotPointer) {
  OpRing ring;
  ring.Reset();
  const std::string a = "exchange", b = "exchange";  // two buffers, one name
  ring.Record(a.c_str());
  ring.Record(b.c_str());
  EXPECT_EQ(ring.Snapshot().back().occurrence, 2);
}

}  // namespace
}  // namespace gh
