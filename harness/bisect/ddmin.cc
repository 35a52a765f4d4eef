#include "harness/bisect/ddmin.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"

namespace gh {

namespace {

class MemoTest {
 public:
  explicit MemoTest(const DdTest& test) : test_(test) {}
  absl::StatusOr<DdOutcome> operator()(const std::vector<int>& changes) {
    if (changes.empty()) return DdOutcome::kPass;
    if (auto it = memo_.find(changes); it != memo_.end()) return it->second;
    absl::StatusOr<DdOutcome> outcome = test_(changes);
    if (!outcome.ok()) return outcome.status();
    memo_.emplace(changes, *outcome);
    return *outcome;
  }
  int tests_run() const { return static_cast<int>(memo_.size()); }

 private:
  const DdTest& test_;
  std::map<std::vector<int>, DdOutcome> memo_;
};

// Splits `set` into n contiguous parts of near-equal size.
std::vector<std::vector<int>> Split(const std::vector<int>& set, int n) {
  std::vector<std::vector<int>> parts;
  size_t start = 0;
  for (int i = 0; i < n; ++i) {
    size_t end = start + (set.size() - start) / (n - i);
    parts.emplace_back(set.begin() + start, set.begin() + end);
    start = end;
  }
  return parts;
}

std::vector<int> Minus(const std::vector<int>& set, const std::vector<int>& part) {
  std::vector<int> out;
  std::set_difference(set.begin(), set.end(), part.begin(), part.end(), std::back_inserter(out));
  return out;
}

}  // namespace

absl::StatusOr<DdminResult> Ddmin(int n, const DdTest& test) {
  if (n < 1) return absl::FailedPreconditionError("ddmin: no changes between the two configurations");
  MemoTest memo(test);
  std::vector<int> current(n);
  for (int i = 0; i < n; ++i) current[i] = i;
  absl::StatusOr<DdOutcome> all = memo(current);
  if (!all.ok()) return all.status();
  if (*all != DdOutcome::kFail) {
    return absl::FailedPreconditionError(absl::StrCat(
        "ddmin: applying all ", n, " changes does not fail (",
        *all == DdOutcome::kPass ? "passes" : "unresolved", "); the failure is not in these changes"));
  }
  int granularity = 2;
  while (current.size() >= 2) {
    granularity = std::min<int>(granularity, static_cast<int>(current.size()));
    const std::vector<std::vector<int>> parts = Split(current, granularity);
    bool reduced = false;
    // Reduce to a subset.
    for (const std::vector<int>& part : parts) {
      absl::StatusOr<DdOutcome> outcome = memo(part);
      if (!outcome.ok()) return outcome.status();
      if (*outcome == DdOutcome::kFail) {
        current = part;
        granularity = 2;
        reduced = true;
        break;
      }
    }
    // Reduce to a complement.
    if (!reduced && granularity > 2) {
      for (const std::vector<int>& part : parts) {
        std::vector<int> complement = Minus(current, part);
        absl::StatusOr<DdOutcome> outcome = memo(complement);
        if (!outcome.ok()) return outcome.status();
        if (*outcome == DdOutcome::kFail) {
          current = std::move(complement);
          granularity = std::max(granularity - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (reduced) continue;
    if (granularity >= static_cast<int>(current.size())) break;  // 1-minimal
    granularity = std::min<int>(2 * granularity, static_cast<int>(current.size()));
  }
  return DdminResult{current, memo.tests_run()};
}

}  // namespace gh
