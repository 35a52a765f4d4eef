// report.html's colours in one place: the outcome colours of heatmap entries and the markers
// drawn over them (regression, unmet expectation, fixed). Each marker pairs a dark and a light
// colour, so one of the two reaches WCAG 3:1 contrast on every outcome colour (a single colour
// cannot: no colour is 3:1 against both #6e0000 and #d0d7de). report_palette_test.cc checks it.
#ifndef GPUHARNESS_REPORT_REPORT_PALETTE_H_
#define GPUHARNESS_REPORT_REPORT_PALETTE_H_

#include <string_view>

namespace gh {

struct OutcomeColour {
  const char* name;        // CSS class suffix: o-pass, ...
  const char* background;  // "#rrggbb"
  const char* text;
};

inline constexpr OutcomeColour kOutcomeColours[] = {
    {"pass", "#2da44e", "#1f2328"},    {"skip", "#d0d7de", "#1f2328"},  {"fail", "#cf222e", "#ffffff"},
    {"error", "#fb8500", "#1f2328"},   {"timeout", "#8250df", "#ffffff"}, {"crash", "#6e0000", "#ffffff"},
    {"infra", "#57606a", "#ffffff"},   {"flaky", "#d4a72c", "#1f2328"},   {"none", "#ffffff", "#57606a"},
};

struct MarkerColours {
  const char* name;   // CSS class: regression, unexpected, fixed
  const char* outer;  // the outer ring
  const char* inner;  // the inner ring, just inside it
  const char* badge;  // the corner badge's glyph
};

inline constexpr MarkerColours kMarkers[] = {
    {"regression", "#000000", "#ffffff", "\\25BC"},  // ▼
    {"unexpected", "#000000", "#ffd33d", "!"},
    {"fixed", "#000000", "#9ecbff", "\\2713"},      // ✓
};

// WCAG 2 relative luminance of "#rrggbb", and the contrast ratio of two colours (1 to 21).
double RelativeLuminance(std::string_view hex);
double ContrastRatio(std::string_view a, std::string_view b);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_REPORT_PALETTE_H_
