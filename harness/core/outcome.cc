#include "harness/core/outcome.h"

#include <algorithm>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gh {
namespace {

constexpr Outcome kAllOutcomes[] = {Outcome::kPass,    Outcome::kSkip,  Outcome::kFail,
                                    Outcome::kError,   Outcome::kTimeout, Outcome::kCrash,
                                    Outcome::kInfra};

}  // namespace

std::span<const Outcome> AllOutcomes() { return kAllOutcomes; }

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "pass";
    case Outcome::kSkip: return "skip";
    case Outcome::kFail: return "fail";
    case Outcome::kError: return "error";
    case Outcome::kTimeout: return "timeout";
    case Outcome::kCrash: return "crash";
    case Outcome::kInfra: return "infra";
  }
  return "unknown";
}

absl::StatusOr<Outcome> ParseOutcome(std::string_view name) {
  for (Outcome outcome : kAllOutcomes) {
    if (OutcomeName(outcome) == name) return outcome;
  }
  std::vector<std::string> names;
  for (Outcome outcome : kAllOutcomes) names.push_back(std::string(OutcomeName(outcome)));
  return absl::InvalidArgumentError(absl::StrCat("unknown outcome '", std::string(name),
                                                 "' (expected one of ", absl::StrJoin(names, ", "), ")"));
}

namespace {
RankOutcome Ending(Outcome outcome, std::string signature, std::string step) {
  RankOutcome out;
  out.outcome = outcome;
  out.signature = std::move(signature);
  out.step = std::move(step);
  return out;
}
PointOutcome PointEnding(Outcome outcome, std::string signature) {
  PointOutcome out;
  out.outcome = outcome;
  out.signature = std::move(signature);
  return out;
}
}  // namespace

RankOutcome RankOutcome::Skip(std::string reason) {
  return Ending(Outcome::kSkip, std::move(reason), "");
}
RankOutcome RankOutcome::Error(std::string signature, std::string step) {
  return Ending(Outcome::kError, std::move(signature), std::move(step));
}
RankOutcome RankOutcome::Fail(std::string signature, std::string step) {
  return Ending(Outcome::kFail, std::move(signature), std::move(step));
}
PointOutcome PointOutcome::Skip(std::string reason) {
  return PointEnding(Outcome::kSkip, std::move(reason));
}
PointOutcome PointOutcome::Error(std::string signature) {
  return PointEnding(Outcome::kError, std::move(signature));
}

PointOutcome ReduceRankOutcomes(std::vector<RankOutcome> ranks) {
  PointOutcome point;
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const RankOutcome& a, const RankOutcome& b) { return a.rank < b.rank; });
  if (ranks.empty()) {
    point.outcome = Outcome::kError;
    point.signature = "no rank reported an outcome";
    return point;
  }

  Outcome worst = Outcome::kPass;
  for (const RankOutcome& r : ranks) worst = std::max(worst, r.outcome);

  // The most common signature among the worst ranks; ties go to the lowest rank's.
  std::vector<int> worst_ranks;
  std::map<std::string, int> counts;
  std::vector<std::string> first_seen;
  for (const RankOutcome& r : ranks) {
    if (r.outcome != worst) continue;
    worst_ranks.push_back(r.rank);
    std::string signature = r.signature;
    if (signature.empty() && worst == Outcome::kFail) signature = "wrong data";
    if (counts[signature]++ == 0) first_seen.push_back(signature);
  }
  std::string best;
  int best_count = 0;
  for (const std::string& s : first_seen) {
    if (counts[s] > best_count) {
      best = s;
      best_count = counts[s];
    }
  }
  point.outcome = worst;
  point.signature = best;
  if (worst_ranks.size() != ranks.size()) {
    if (!point.signature.empty()) point.signature += " ";
    absl::StrAppend(&point.signature, "[ranks ", absl::StrJoin(worst_ranks, ","), "]");
  }

  for (const RankOutcome& r : ranks) {
    if (!r.metrics.empty()) {
      point.metrics = r.metrics;  // rank 0's, or the first rank that measured anything
      break;
    }
  }
  point.ranks = std::move(ranks);
  return point;
}

}  // namespace gh
