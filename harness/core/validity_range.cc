#include "harness/core/validity_range.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/point.h"
#include "harness/core/skip_cause.h"

namespace gh {
namespace {

std::string FactOr(const EnvironmentFacts& facts, const std::string& name, const std::string& otherwise) {
  auto it = facts.values.find(name);
  return it == facts.values.end() ? otherwise : it->second;
}

std::string RanksText(const std::string& n) { return absl::StrCat(n, n == "1" ? " rank" : " ranks"); }

// What this run has of a rank count or a GPU sharing, in the skip's words.
std::string ThisRunsRanks(const Point& point, const EnvironmentFacts& facts) {
  return absl::StrCat("has ", RanksText(FactOr(facts, "nranks", absl::StrCat(point.nranks))));
}

std::string ThisRunsSharing(const EnvironmentFacts& facts) {
  if (FactOr(facts, "gpu_shared", "false") != "true") return "has one GPU per rank";
  return absl::StrCat("shares one GPU between ", RanksText(FactOr(facts, "ranks_per_gpu", "several")));
}

// The first failing condition of `range`, as (where the expectations hold, what this run has).
std::optional<std::pair<std::string, std::string>> FirstFailing(const ExpectationRule& range, const Point& point,
                                                                const EnvironmentFacts& facts) {
  auto fails = [&](ExpectationRule only) { return !ConditionsHold(only, point, facts); };
  for (const auto& [name, accepted] : range.when_facts) {
    ExpectationRule only;
    only.when_facts[name] = accepted;
    if (!fails(only)) continue;
    if (name == "gpu_shared") {
      return accepted == std::vector<std::string>{"false"}
                 ? std::make_pair(std::string("1 rank per GPU"), ThisRunsSharing(facts))
                 : std::make_pair(std::string("ranks sharing a GPU"), ThisRunsSharing(facts));
    }
    if (name == "nranks") return std::make_pair(RanksText(absl::StrJoin(accepted, " or ")), ThisRunsRanks(point, facts));
    return std::make_pair(absl::StrCat(name, " ", absl::StrJoin(accepted, " or ")),
                          absl::StrCat("has ", name, " ", FactOr(facts, name, "unknown")));
  }
  for (const auto& [fact, text] : range.when_ranges) {
    ExpectationRule only;
    only.when_ranges[fact] = text;
    if (!fails(only)) continue;
    if (fact == "nranks") return std::make_pair(absl::StrCat("nranks ", text), ThisRunsRanks(point, facts));
    const std::string name = fact == "nccl_version" ? "NCCL" : fact;
    const std::string value = FactOr(facts, fact, "");
    return std::make_pair(absl::StrCat(name, " ", text),
                          value.empty() ? absl::StrCat("reports no ", name, " version") : absl::StrCat("runs ", name, " ", value));
  }
  for (const auto& [var, accepted] : range.when_env) {
    ExpectationRule only;
    only.when_env[var] = accepted;
    if (!fails(only)) continue;
    std::vector<std::string> texts;
    for (const std::optional<std::string>& value : accepted) {
      texts.push_back(value ? absl::StrCat(var, "=", *value) : absl::StrCat(var, " unset"));
    }
    const std::string now = FactOr(facts, absl::StrCat("env.", var), "");
    return std::make_pair(absl::StrJoin(texts, " or "),
                          now.empty() ? absl::StrCat("has ", var, " unset") : absl::StrCat("has ", var, "=", now));
  }
  ExpectationRule gpu;
  gpu.when_gpu = range.when_gpu;
  if (fails(gpu)) {
    const std::string model = FactOr(facts, "gpu", "");
    return std::make_pair(absl::StrCat("GPUs ", absl::StrJoin(range.when_gpu, " or ")),
                          model.empty() ? std::string("has no GPU") : absl::StrCat("runs on ", model));
  }
  return std::nullopt;
}

}  // namespace

std::string OutsideValidity(const std::optional<ExpectationRule>& range, const Point& point,
                            const EnvironmentFacts& facts) {
  if (!range.has_value()) return "";
  std::optional<std::pair<std::string, std::string>> failing = FirstFailing(*range, point, facts);
  return failing ? OutsideValiditySkip(failing->first, failing->second) : "";
}

}  // namespace gh
