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
  EXPECT_EQ(ops[4], (OpEntry{5, "exchange", 2, "", 0}));
  EXPECT_EQ(FormatOp(ops[4]), "exchange #2");
  EXPECT_EQ(ops[5], (OpEntry{6, "verify", 1, "", 0}));
}

TEST(OpRing, KeepsTheLastEntriesAndResetForgets) {
  OpRing ring;
  ring.Reset();
  for (int i = 0; i < 100; ++i) ring.Record("exchange");
  std::vector<OpEntry> ops = ring.Snapshot();
  ASSERT_EQ(ops.size(), static_cast<size_t>(OpRing::kCapacity));
  EXPECT_EQ(ops.front().sequence, 100 - OpRing::kCapacity + 1);
  EXPECT_EQ(ops.back(), (OpEntry{100, "exchange", 100, "", 0}));
  ring.Reset();
  EXPECT_TRUE(ring.Snapshot().empty());
  ring.Record("setup");
  ops = ring.Snapshot();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0], (OpEntry{1, "setup", 1, "", 0}));
}

TEST(OpRing, KeepsTheOperationAndItsSize) {
  OpRing ring;
  ring.Reset();
  ring.Record("setup");
  ring.Record("exchange", "send/recv", 4096);
  ring.Record("verify", "all_gather", 1000);
  const std::vector<OpEntry> ops = ring.Snapshot();
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0], (OpEntry{1, "setup", 1, "", 0}));
  EXPECT_EQ(ops[1], (OpEntry{2, "exchange", 1, "send/recv", 4096}));
  EXPECT_EQ(FormatOpWithCall(ops[0]), "setup #1");
  EXPECT_EQ(FormatOpWithCall(ops[1]), "exchange #1 (send/recv 4 KiB)");
  EXPECT_EQ(FormatOpWithCall(ops[2]), "verify #1 (all_gather 1000 B)");
  EXPECT_EQ(FormatOpWithCall(OpEntry{3, "capture race", 2, "cudaStreamBeginCapture", 0}),
            "capture race #2 (cudaStreamBeginCapture)");
  // A slot reused after wrapping forgets the operation of the entry it held.
  for (int i = 0; i < OpRing::kCapacity; ++i) ring.Record("setup");
  EXPECT_EQ(ring.Snapshot().back(), (OpEntry{3 + OpRing::kCapacity, "setup", 1 + OpRing::kCapacity, "", 0}));
}

TEST(OpRing, SizesReadAsAPersonReadsThem) {
  EXPECT_EQ(FormatOpBytes(4096), "4 KiB");
  EXPECT_EQ(FormatOpBytes(3 << 20), "3 MiB");
  EXPECT_EQ(FormatOpBytes(int64_t{1} << 30), "1 GiB");
  EXPECT_EQ(FormatOpBytes(1), "1 B");
  EXPECT_EQ(FormatOpBytes(4097), "4097 B");
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
