#include "harness/history/history_text.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(HistoryTextTest, OneLineTextEscapesControlsAndKeepsUtf8) {
  EXPECT_EQ(OneLineText("plain — ünïcode"), "plain — ünïcode");
  EXPECT_EQ(OneLineText("a\nb\tc\rd\\e"), "a\\nb\\tc\\rd\\\\e");
  EXPECT_EQ(OneLineText("\x1b[31mred\x7f"), "\\x1b[31mred\\x7f");
  EXPECT_EQ(OneLineText("c1:\xc2\x85."), "c1:\\x85.");  // U+0085, a C1 line break
}

TEST(HistoryTextTest, TsvLinesNeverSplit) {
  EXPECT_EQ(TsvLine({"a", "b\tc", "Traceback:\n  File \"x.py\"", ""}), "a\tb\\tc\tTraceback:\\n  File \"x.py\"\t\n");
}

TEST(HistoryTextTest, ThreeSignificantDigits) {
  EXPECT_EQ(ThreeSignificant(0), "0");
  EXPECT_EQ(ThreeSignificant(2), "2");
  EXPECT_EQ(ThreeSignificant(15.94321), "15.9");
  EXPECT_EQ(ThreeSignificant(50.0), "50");
  EXPECT_EQ(ThreeSignificant(1.5), "1.5");
  EXPECT_EQ(ThreeSignificant(0.000123456), "0.000123");
  EXPECT_EQ(ThreeSignificant(12345.6), "12300");
  EXPECT_EQ(ThreeSignificant(999.7), "1000");
  EXPECT_EQ(ThreeSignificant(-4.5678), "-4.57");
  EXPECT_EQ(ThreeSignificant(4.2e10), "4.2e+10");
}

}  // namespace
}  // namespace gh
