#include "harness/core/did_you_mean.h"

#include <algorithm>
#include <limits>

namespace gh {
namespace {

// Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a substring).
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

size_t AllowedEdits(size_t length) { return length <= 4 ? 1 : length <= 8 ? 2 : 3; }

}  // namespace

std::string ClosestChoice(std::string_view word, const std::vector<std::string>& choices) {
  if (std::find(choices.begin(), choices.end(), word) != choices.end()) return "";
  std::string best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const std::string& choice : choices) {
    const size_t distance = EditDistance(word, choice);
    if (distance < best_distance) {
      best_distance = distance;
      best = choice;
    }
  }
  if (best.empty() || best_distance > AllowedEdits(word.size())) return "";
  return best;
}

std::string DidYouMeanSuffix(std::string_view word, const std::vector<std::string>& choices) {
  const std::string closest = ClosestChoice(word, choices);
  return closest.empty() ? "" : "; did you mean " + closest + "?";
}

}  // namespace gh
