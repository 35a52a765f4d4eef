// What a person would call the same failure, across versions that word it differently. A
// release that removes an API words its error one way ("jax.sharding.PositionalSharding was
// deprecated in JAX v0.6.0 and removed in JAX v0.7.0") and later releases another ("module
// 'jax.sharding' has no attribute 'PositionalSharding'"); both are an AttributeError raised by
// the same line of the user's program. A family keeps what such failures share:
//   - the outcome, and its type: an exception's class ("AttributeError", the last part of a
//     dotted name), a crash's signal ("SIGSEGV");
//   - the message normalised: quoted identifiers, numbers, versions, addresses and paths folded;
//   - where it happened: the failing source line of the user's program when a Python traceback
//     gives one ("prog.py: s = jax.sharding.PositionalSharding(d)"), else the harness step the
//     rank was in ("step exchange").
// Two failures are of one family when outcome and type agree and either their normalised
// messages or (both known) their places agree; a crash or a timeout by its signal and step
// alone. Pure functions, shared by the bisect and the sweep comparison.
#ifndef GPUHARNESS_CORE_FAILURE_FAMILY_H_
#define GPUHARNESS_CORE_FAILURE_FAMILY_H_

#include <string>
#include <string_view>

#include "harness/core/outcome.h"

namespace gh {

struct FailureFamily {
  Outcome outcome = Outcome::kFail;
  std::string type;     // "AttributeError", "SIGSEGV", "" when the line names none
  std::string message;  // NormalizeFailureMessage of the text after the type
  std::string where;    // FailingSourceLine or "step <name>"; "" when unknown
  std::string example;  // the line as printed (without " [ranks ...]") the family was made from
  // "error AttributeError at prog.py: s = jax.sharding.PositionalSharding(d)",
  // "crash SIGSEGV in step exchange", "fail '<n> of <n> elements wrong'".
  std::string ToString() const;
};

// The family of a failure: its outcome, its signature as recorded, and where it happened
// (FailureWhere; "" when unknown).
FailureFamily FailureFamilyOf(Outcome outcome, std::string_view signature, std::string_view where);

bool SameFailureFamily(const FailureFamily& a, const FailureFamily& b);

// `signature` without the " [ranks 1,3]" the reduction over ranks appends, spaces trimmed.
std::string_view WithoutRankList(std::string_view signature);

// Folds what varies between versions and runs of one failure: addresses ("0x7f3a..." -> <addr>),
// paths (a word with a '/' and a letter -> <path>), quoted identifiers ('jax.sharding' -> '<id>'),
// versions ("v0.6.0", "2.30.3" -> <ver>) and numbers standing alone (-> <n>; "float32" keeps its
// digits); runs of spaces become one.
std::string NormalizeFailureMessage(std::string_view message);

// The innermost frame of the user's program in the last Python traceback of `output` (frames
// under site-packages, dist-packages or the standard library, and "<frozen ...>", are not the
// user's): "<file name>: <its source line>", or "<file name>:<line> in <function>" where the
// traceback shows no source. "" when the output holds no such frame.
std::string FailingSourceLine(std::string_view output);

// Where the most severe ranks of `result` failed: the user's failing source line from the first
// such rank's output (kind exec), else "step <its step>" ("" for exec's own step and none).
std::string FailureWhere(const PointOutcome& result);

}  // namespace gh

#endif  // GPUHARNESS_CORE_FAILURE_FAMILY_H_
