#include "harness/report/report_palette.h"

#include <algorithm>

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(ContrastRatioTest, KnownValues) {
  EXPECT_NEAR(ContrastRatio("#000000", "#ffffff"), 21.0, 1e-9);
  EXPECT_NEAR(ContrastRatio("#777777", "#777777"), 1.0, 1e-9);
  EXPECT_NEAR(ContrastRatio("#767676", "#ffffff"), 4.54, 0.01);  // the WCAG AA grey
  // Issue 16's measurements of the old markers: one colour cannot do it.
  EXPECT_NEAR(ContrastRatio("#0969da", "#8250df"), 1.03, 0.01);  // "fixed" ring on timeout
  EXPECT_LT(ContrastRatio("#ffd33d", "#d4a72c"), 1.8);            // "unmet" ring on flaky
}

// Every marker has a ring that reaches 3:1 on every outcome colour (WCAG 1.4.11, non-text).
TEST(PaletteTest, EveryMarkerReachesThreeToOneOnEveryOutcomeColour) {
  for (const MarkerColours& marker : kMarkers) {
    for (const OutcomeColour& outcome : kOutcomeColours) {
      const double best = std::max(ContrastRatio(marker.outer, outcome.background),
                                   ContrastRatio(marker.inner, outcome.background));
      EXPECT_GE(best, 3.0) << marker.name << " on " << outcome.name;
    }
  }
}

// Entry text stays readable (WCAG AA for 12px text: 4.5:1) on its outcome colour.
TEST(PaletteTest, EntryTextReadsOnItsOutcomeColour) {
  for (const OutcomeColour& outcome : kOutcomeColours) {
    EXPECT_GE(ContrastRatio(outcome.text, outcome.background), 4.5) << outcome.name;
  }
}

}  // namespace
}  // namespace gh
