#include "harness/core/expectation_conditions.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "harness/core/point.h"

namespace gh {
namespace {

absl::string_view Absl(std::string_view text) { return absl::string_view(text.data(), text.size()); }

// -1, 0, 1; missing trailing components count as 0.
int CompareNumbers(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

bool Holds(CompareOp op, int c) {
  switch (op) {
    case CompareOp::kEq: return c == 0;
    case CompareOp::kNe: return c != 0;
    case CompareOp::kLt: return c < 0;
    case CompareOp::kLe: return c <= 0;
    case CompareOp::kGt: return c > 0;
    case CompareOp::kGe: return c >= 0;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> ParseDottedNumber(std::string_view text) {
  std::vector<int64_t> number;
  if (text.empty()) return absl::InvalidArgumentError("expected a number such as 2.28.9, got ''");
  for (absl::string_view part : absl::StrSplit(Absl(text), '.')) {
    int64_t value = 0;
    bool digits = !part.empty() && std::all_of(part.begin(), part.end(),
                                               [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || part.size() > 9 || !absl::SimpleAtoi(part, &value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected a number such as 2.28.9, got '", std::string(text), "'"));
    }
    number.push_back(value);
  }
  return number;
}

bool LooksLikeRange(std::string_view text) {
  return !text.empty() && (text[0] == '<' || text[0] == '>' || text[0] == '=' || text[0] == '!');
}

absl::StatusOr<std::vector<RangeClause>> ParseRange(std::string_view text) {
  std::vector<RangeClause> clauses;
  for (absl::string_view raw : absl::StrSplit(Absl(text), ',')) {
    absl::string_view clause = absl::StripAsciiWhitespace(raw);
    RangeClause parsed;
    static constexpr std::pair<absl::string_view, CompareOp> kOps[] = {
        {">=", CompareOp::kGe}, {"<=", CompareOp::kLe}, {"==", CompareOp::kEq},
        {"!=", CompareOp::kNe}, {">", CompareOp::kGt},  {"<", CompareOp::kLt},
        {"=", CompareOp::kEq}};
    for (const auto& [symbol, op] : kOps) {
      if (absl::StartsWith(clause, symbol)) {
        parsed.op = op;
        clause.remove_prefix(symbol.size());
        break;
      }
    }
    clause = absl::StripAsciiWhitespace(clause);
    absl::StatusOr<std::vector<int64_t>> number =
        ParseDottedNumber(std::string_view(clause.data(), clause.size()));
    if (!number.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad range clause '", std::string(absl::StripAsciiWhitespace(raw)), "' in '",
          std::string(text), "': expected an operator (==, !=, <, <=, >, >=) and a number such as 2.28.9"));
    }
    parsed.number = *std::move(number);
    clauses.push_back(std::move(parsed));
  }
  return clauses;
}

bool InRange(std::string_view value, const std::vector<RangeClause>& clauses) {
  absl::StatusOr<std::vector<int64_t>> number = ParseDottedNumber(value);
  if (!number.ok()) return false;
  for (const RangeClause& clause : clauses) {
    if (!Holds(clause.op, CompareNumbers(*number, clause.number))) return false;
  }
  return true;
}

std::string RangeFactName(std::string_view yaml_key) {
  if (yaml_key == "nccl") return "nccl_version";
  return std::string(yaml_key);
}

bool RangeAndEnvConditionsHold(const ExpectationRule& rule, const Point& point,
                               const EnvironmentFacts& facts) {
  for (const auto& [fact, range] : rule.when_ranges) {
    std::string value;
    if (auto it = facts.values.find(fact); it != facts.values.end()) {
      value = it->second;
    } else if (fact == "nranks") {
      value = absl::StrCat(point.nranks);
    } else {
      return false;
    }
    absl::StatusOr<std::vector<RangeClause>> clauses = ParseRange(range);
    if (!clauses.ok() || !InRange(value, *clauses)) return false;  // the loader rejects bad ranges
  }
  for (const auto& [name, accepted] : rule.when_env) {
    auto it = facts.values.find(absl::StrCat("env.", name));
    std::optional<std::string> value;
    if (it != facts.values.end()) value = it->second;
    if (std::find(accepted.begin(), accepted.end(), value) == accepted.end()) return false;
  }
  return true;
}

}  // namespace gh
