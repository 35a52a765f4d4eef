// Range and environment conditions of expectation rules (issue 4): a scenario states the
// expected outcome per point by facts of the environment it ran in.
//   when: {nccl: ">=2.28.4,<2.29"}            NCCL runtime version range
//   when: {nranks: ">=2"}                      rank-count range (a plain list stays exact)
//   when: {env: {NCCL_CUMEM_ENABLE: "0"}}      environment variables; null means "unset"
//   when: {gpu_shared: true}                   ranks shared a GPU (--share-gpu)
// A range is comma-separated clauses that must all hold, each an operator (==, !=, <, <=, >,
// >=; none means ==) and a dotted number ("2.28.9", "4"). Numbers compare component by
// component, a missing component counting as 0, so "2.28" == "2.28.0" < "2.28.9".
#ifndef GPUHARNESS_CORE_EXPECTATION_CONDITIONS_H_
#define GPUHARNESS_CORE_EXPECTATION_CONDITIONS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/expectation.h"

namespace gh {

struct Point;

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };

struct RangeClause {
  CompareOp op = CompareOp::kEq;
  std::vector<int64_t> number;  // "2.28.9" -> {2, 28, 9}
};

// "2.28.9" -> {2, 28, 9}. Fails on anything but digits separated by single dots.
absl::StatusOr<std::vector<int64_t>> ParseDottedNumber(std::string_view text);
// ">=2.28.4,<2.29" -> two clauses. Errors say which clause is wrong and why.
absl::StatusOr<std::vector<RangeClause>> ParseRange(std::string_view text);
// Whether `value` (a dotted number; anything else never matches) meets every clause.
bool InRange(std::string_view value, const std::vector<RangeClause>& clauses);
// Whether `text` reads as a range rather than a plain value: it starts with an operator.
bool LooksLikeRange(std::string_view text);

// The facts ranges are checked against, by YAML key: "nccl" -> "nccl_version".
std::string RangeFactName(std::string_view yaml_key);

// The rule's range and environment conditions (when_ranges, when_env) hold for the point.
// A fact the environment does not report fails a range; "nranks" falls back to the point's.
bool RangeAndEnvConditionsHold(const ExpectationRule& rule, const Point& point,
                               const EnvironmentFacts& facts);

}  // namespace gh

#endif  // GPUHARNESS_CORE_EXPECTATION_CONDITIONS_H_
