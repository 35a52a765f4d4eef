#include "harness/runtime/timeout_outcome.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "harness/runtime/gpu_binding.h"
#include "harness/runtime/hang_report.h"

namespace gh {
namespace {

// 0: a scenario's step, 1: the runtime's, 2: no report.
int StepClass(const std::string& step) {
  if (step == kUnresponsiveStep) return 2;
  if (step == kStepStart || step == kStepCollect || step == "idle") return 1;
  return 0;
}

}  // namespace

PointOutcome TimeoutOutcome(absl::Duration timeout, const std::vector<WatchdogReport>& reports,
                            const std::vector<std::string>& hosts,
                            const std::vector<int>& devices) {
  PointOutcome result;
  result.outcome = Outcome::kTimeout;
  struct Group {
    std::string step;
    std::vector<int> ranks;
  };
  std::vector<Group> groups;
  for (const WatchdogReport& report : reports) {
    RankOutcome rank;
    rank.rank = report.rank;
    if (report.rank < static_cast<int>(hosts.size())) rank.host = hosts[report.rank];
    if (report.rank < static_cast<int>(devices.size())) rank.device = devices[report.rank];
    rank.outcome = Outcome::kTimeout;
    rank.step = report.step;
    rank.signature = report.step == kUnresponsiveStep
                         ? std::string("unresponsive: no report within the grace period")
                         : absl::StrCat("in step '", report.step, "'");
    rank.stack = report.stack;
    rank.stack_note = report.stack_note;
    result.ranks.push_back(std::move(rank));
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const Group& g) { return g.step == report.step; });
    if (group == groups.end()) {
      groups.push_back(Group{report.step, {}});
      group = groups.end() - 1;
    }
    group->ranks.push_back(report.rank);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return StepClass(a.step) < StepClass(b.step);
  });
  std::string signature = absl::StrCat("timeout after ", absl::FormatDuration(timeout));
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& group = groups[i];
    absl::StrAppend(&signature, i == 0 ? " " : "; ");
    if (group.step == kUnresponsiveStep) {
      absl::StrAppend(&signature, "unresponsive");
    } else {
      absl::StrAppend(&signature, i == 0 ? "in " : "", "step '", group.step, "'");
    }
    absl::StrAppend(&signature, " [ranks ", FormatRankList(group.ranks), "]");
  }
  result.signature = std::move(signature);
  result.hang.summary = HangSummaryLines(reports);
  result.hang.divergence = DivergenceLine(reports);
  return result;
}

}  // namespace gh
