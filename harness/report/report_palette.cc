#include "harness/report/report_palette.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gh {

double RelativeLuminance(std::string_view hex) {
  if (hex.size() != 7 || hex[0] != '#') return 0;
  auto channel = [&](size_t at) {
    double c = std::stoi(std::string(hex.substr(at, 2)), nullptr, 16) / 255.0;
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

double ContrastRatio(std::string_view a, std::string_view b) {
  const double la = RelativeLuminance(a), lb = RelativeLuminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

}  // namespace gh
