// Expected outcomes of points. A scenario's `expect:` is a list of rules; the first rule whose
// conditions hold for a point gives its expectation (issue: conditional expectations extends
// conditions with version ranges and environment facts).
#ifndef GPUHARNESS_CORE_EXPECTATION_H_
#define GPUHARNESS_CORE_EXPECTATION_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/glob.h"
#include "harness/core/outcome.h"

namespace gh {

// An upstream change the expectation is known to break under: the public reference (an issue's
// URL, or who measured it and when) and the library versions it holds for. Inside those versions
// a point that does not meet the expectation, failing as `signature` says (any failure when
// unset), is a known failure: reported apart from regressions, never failing the run; a point
// there that meets the expectation is "fixed upstream".
struct KnownIssue {
  std::string reference;
  // Library -> version range ("nccl" -> ">=2.30.3"): the NCCL runtime for `nccl`, else the
  // label of the sweep's version axis of that name. Every range must hold.
  std::map<std::string, std::string> versions;
  std::optional<std::string> signature_regex;
  std::string VersionsText() const;  // "nccl >=2.30.3"
  std::string ToString() const;      // "known in nccl >=2.30.3: <reference>"
};

struct Expectation {
  Outcome outcome = Outcome::kPass;
  std::optional<std::string> signature_regex;  // RE2/ECMAScript regex searched in the signature
  std::string reason;                          // why, for reports
  // The rule's known issue, set only where the point's versions are inside its range.
  std::optional<KnownIssue> known = std::nullopt;
  std::string ToString() const;                // "pass", "error ~ /Cuda failure 1/"
};

// A rule: conditions on parameter values (by formatted value) and on environment facts.
struct ExpectationRule {
  std::map<std::string, std::vector<std::string>> when_params;  // param -> accepted values
  // Environment fact -> accepted values ("backend" -> {"cuda"}, "nranks" -> {"2","4"}). A fact
  // the environment does not report fails the condition; "nranks" falls back to the point's.
  std::map<std::string, std::vector<std::string>> when_facts;
  // Range conditions (expectation_conditions.h): fact -> clauses that must all hold
  // ("nccl_version" -> ">=2.28.4,<2.29", "nranks" -> ">=2").
  std::map<std::string, std::string> when_ranges;
  // Environment variables -> accepted values; std::nullopt accepts "unset".
  std::map<std::string, std::vector<std::optional<std::string>>> when_env;
  // Ranges on integer and size parameters (`bytes: ">=1G"`): param -> clauses (operator
  // "==", "!=", "<", "<=", ">", ">=" and a number) that must all hold.
  std::map<std::string, std::vector<std::pair<std::string, int64_t>>> when_param_ranges;
  // `gpu: "NVIDIA H200*"`: glob patterns ('*' any run, '?' one character), one of which must
  // match the GPU model the job ran on (fact "gpu"; absent on the host backend).
  std::vector<std::string> when_gpu;
  Expectation expect;
  std::optional<KnownIssue> known;  // `known:`; copied into the expectation inside its versions
};

struct ExpectationSet {
  std::vector<ExpectationRule> rules;  // first match wins; none matching means `pass`
};

// Facts about the environment a point ran in, for conditions. Kept as strings.
struct EnvironmentFacts {
  std::map<std::string, std::string> values;  // "backend", "nranks", "nccl_version", env vars
};

struct Point;

// The expectation for a point: the first rule whose conditions hold, else plain `pass`.
Expectation ExpectationFor(const ExpectationSet& set, const Point& point,
                           const EnvironmentFacts& facts);

// Whether every condition of `rule` holds for the point in `facts` (the rule's expectation
// aside): what ExpectationFor checks per rule, and what metric bounds use.
bool ConditionsHold(const ExpectationRule& rule, const Point& point, const EnvironmentFacts& facts);

// Whether `known`'s version ranges all hold in `facts` (a version the facts do not give fails).
bool KnownVersionsHold(const KnownIssue& known, const EnvironmentFacts& facts);

// Whether an outcome that does not meet `expected` is its known failure: the expectation carries
// a known issue, the outcome is a failure (fail, error, timeout, crash) and its signature matches
// the issue's regex, if any.
bool IsKnownFailure(const Expectation& expected, Outcome observed, const std::string& signature);

// Whether an observed outcome and signature meet an expectation. An infra outcome meets none:
// it says the machinery failed, not what the code under test did.
bool MeetsExpectation(const Expectation& expected, Outcome observed, const std::string& signature);

// An outcome a scenario may expect: any but infra. InvalidArgument "unknown outcome 'x'
// (expected one of pass, skip, fail, error, timeout, crash)", or for "infra" why not.
absl::StatusOr<Outcome> ParseExpectableOutcome(std::string_view name);

}  // namespace gh

#endif  // GPUHARNESS_CORE_EXPECTATION_H_
