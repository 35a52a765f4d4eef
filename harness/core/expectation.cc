#include "harness/core/expectation.h"

#include <algorithm>
#include <cctype>
#include <variant>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/expectation_conditions.h"
#include "harness/core/point.h"
#include "harness/core/regex.h"
#include "harness/core/skip_cause.h"

namespace gh {
namespace {

bool Accepts(const std::vector<std::string>& accepted, const std::string& value) {
  return std::find(accepted.begin(), accepted.end(), value) != accepted.end();
}

bool ParamConditionsHold(const ExpectationRule& rule, const Point& point) {
  for (const auto& [name, accepted] : rule.when_params) {
    auto it = std::find_if(point.params.begin(), point.params.end(),
                           [&](const PointParam& p) { return p.name == name; });
    if (it == point.params.end()) return false;
    if (!Accepts(accepted, FormatParamValue(it->type, it->value))) return false;
  }
  return true;
}

bool FactConditionsHold(const ExpectationRule& rule, const Point& point,
                        const EnvironmentFacts& facts) {
  for (const auto& [name, accepted] : rule.when_facts) {
    auto it = facts.values.find(name);
    std::string value;
    if (it != facts.values.end()) {
      value = it->second;
    } else if (name == "nranks") {
      value = absl::StrCat(point.nranks);
    } else {
      return false;
    }
    if (!Accepts(accepted, value)) return false;
  }
  return true;
}

bool CompareInt(const std::string& op, int64_t value, int64_t bound) {
  if (op == "==") return value == bound;
  if (op == "!=") return value != bound;
  if (op == "<") return value < bound;
  if (op == "<=") return value <= bound;
  if (op == ">") return value > bound;
  return op == ">=" && value >= bound;
}

bool ParamRangesHold(const ExpectationRule& rule, const Point& point) {
  for (const auto& [name, clauses] : rule.when_param_ranges) {
    auto it = std::find_if(point.params.begin(), point.params.end(),
                           [&](const PointParam& p) { return p.name == name; });
    if (it == point.params.end() || !std::holds_alternative<int64_t>(it->value)) return false;
    const int64_t value = std::get<int64_t>(it->value);
    for (const auto& [op, bound] : clauses) {
      if (!CompareInt(op, value, bound)) return false;
    }
  }
  return true;
}

bool GpuConditionHolds(const ExpectationRule& rule, const EnvironmentFacts& facts) {
  if (rule.when_gpu.empty()) return true;
  auto it = facts.values.find("gpu");
  if (it == facts.values.end()) return false;
  return std::any_of(rule.when_gpu.begin(), rule.when_gpu.end(),
                     [&](const std::string& glob) { return GlobMatches(glob, it->second); });
}

// The version of `library` the job ran: the NCCL runtime's for "nccl", else the label of the
// sweep's version axis of that name (GH_VERSION_NAME / GH_VERSION in the job's environment),
// "v2.30.3-1" read as "2.30.3". "" when the facts do not say.
std::string VersionOf(const std::string& library, const EnvironmentFacts& facts) {
  if (auto it = facts.values.find(RangeFactName(library)); it != facts.values.end()) return it->second;
  auto name = facts.values.find("env.GH_VERSION_NAME");
  auto label = facts.values.find("env.GH_VERSION");
  if (name == facts.values.end() || label == facts.values.end() || name->second != library) return "";
  std::string_view text = label->second;
  if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) text.remove_prefix(1);
  size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  return std::string(text.substr(0, end));
}

// Whether `signature` matches `regex` (any signature when unset). The loader rejects bad
// regexes; one built in code simply never matches.
bool SignatureMatches(const std::optional<std::string>& regex, const std::string& signature) {
  if (!regex.has_value()) return true;
  absl::StatusOr<Regex> compiled = Regex::Compile(*regex);
  return compiled.ok() && compiled->Search(signature);
}

}  // namespace

std::string KnownIssue::VersionsText() const {
  return absl::StrJoin(versions, ", ", absl::PairFormatter(" "));
}

std::string KnownIssue::ToString() const {
  return absl::StrCat("known in ", VersionsText(), ": ", reference);
}

bool KnownVersionsHold(const KnownIssue& known, const EnvironmentFacts& facts) {
  for (const auto& [library, range] : known.versions) {
    absl::StatusOr<std::vector<RangeClause>> clauses = ParseRange(range);
    if (!clauses.ok() || !InRange(VersionOf(library, facts), *clauses)) return false;
  }
  return !known.versions.empty();
}

bool IsKnownFailure(const Expectation& expected, Outcome observed, const std::string& signature) {
  if (!expected.known.has_value() || observed == Outcome::kPass || observed == Outcome::kSkip ||
      observed == Outcome::kInfra) {
    return false;
  }
  return SignatureMatches(expected.known->signature_regex, signature);
}

bool ConditionsHold(const ExpectationRule& rule, const Point& point, const EnvironmentFacts& facts) {
  return ParamConditionsHold(rule, point) && ParamRangesHold(rule, point) &&
         FactConditionsHold(rule, point, facts) && GpuConditionHolds(rule, facts) &&
         RangeAndEnvConditionsHold(rule, point, facts);
}

std::string Expectation::ToString() const {
  std::string text(OutcomeName(outcome));
  if (signature_regex.has_value()) absl::StrAppend(&text, " ~ /", *signature_regex, "/");
  return text;
}

Expectation ExpectationFor(const ExpectationSet& set, const Point& point,
                           const EnvironmentFacts& facts) {
  for (const ExpectationRule& rule : set.rules) {
    if (!ConditionsHold(rule, point, facts)) continue;
    Expectation expectation = rule.expect;
    if (rule.known.has_value() && KnownVersionsHold(*rule.known, facts)) expectation.known = rule.known;
    return expectation;
  }
  return Expectation{};
}

bool MeetsExpectation(const Expectation& expected, Outcome observed,
                      const std::string& signature) {
  // A "not applicable here" skip (core/skip_cause.h: gpuharness built against another library
  // version than it runs) meets every expectation: it says nothing about the code under test.
  if (IsNotApplicableSkip(observed, signature)) return true;
  if (observed == Outcome::kInfra || expected.outcome != observed) return false;
  return SignatureMatches(expected.signature_regex, signature);
}

absl::StatusOr<Outcome> ParseExpectableOutcome(std::string_view name) {
  if (name == OutcomeName(Outcome::kInfra)) {
    return absl::InvalidArgumentError(
        "'infra' cannot be expected: it means the launcher, MPI start-up or the harness failed, "
        "which says nothing about the code under test (such a run never meets an expectation)");
  }
  std::vector<std::string> names;
  for (Outcome outcome : AllOutcomes()) {
    if (outcome == Outcome::kInfra) continue;
    if (OutcomeName(outcome) == name) return outcome;
    names.push_back(std::string(OutcomeName(outcome)));
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown outcome '", std::string(name),
                                                 "' (expected one of ", absl::StrJoin(names, ", "),
                                                 ")"));
}

}  // namespace gh
