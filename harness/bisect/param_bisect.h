// A boundary search on an ordered scenario parameter within one version (`gpuharness bisect
// --param NAME --good A --bad B`): where between two values of NAME does the failure start? The
// bisect's "versions" are then values of NAME: the scenario's listed values in their order, or
// (--numeric) every integer from A to B in steps of --step. Each value runs the scenario with NAME
// fixed to it (a copy of the scenario file with `params.NAME: value`, written into
// DIR/params/ when the value is first probed), in the one cell --cell selects; search, trial
// economy, resume and reports are the bisect's. The answer is the interval "(1024, 2048]": the
// last passing value and the first failing one, as seed 002's reporter found by hand.
#ifndef GPUHARNESS_BISECT_PARAM_BISECT_H_
#define GPUHARNESS_BISECT_PARAM_BISECT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/bisect/bisect_plan.h"
#include "harness/bisect/bisect_runner.h"

namespace gh {

struct ParamSearch {
  std::string name;          // --param
  std::string good, bad;     // --good, --bad: values of it
  bool numeric = false;      // --numeric: every integer between them
  int64_t step = 1;          // --step (numeric only)
};

// The values of a boundary search, and how to make each one runnable.
struct ParamVersions {
  BisectVersions versions;   // axis = the parameter; one config per value, jobs planned lazily
  int good = 0, bad = 0;     // indices of --good and --bad
  std::string scenario_path; // the scenario file the values are cut from (absolute)
  std::string scenario_text;
  std::string param;
  bool numeric = false;
};

// Checks the search before anything runs or is written, and lists its values. InvalidArgument
// naming the flag: the plan runs more than one scenario file (--scenario picks one); --cell does
// not select exactly one cell; NAME is no parameter of the scenario (the error lists them);
// list mode: --good/--bad not among the listed values; --numeric: a parameter that is not an
// integer, --good/--bad not integers, --step < 1, more than 100000 values; --good == --bad.
absl::StatusOr<ParamVersions> PlanParamVersions(const ProbePlan& plan, const LabelSet& cell,
                                                const ParamSearch& search);

// The scenario text with every document's `params.<param>` set to `value` (added where a
// document does not set it) and `{dir}` written out as the original file's directory, so the copy
// runs as the original would from DIR/params/.
absl::StatusOr<std::string> ScenarioWithParam(const std::string& text, const std::string& file,
                                              const std::string& param, const std::string& value);

// Makes `config` (one of values.versions' configs, moved where the session keeps them) runnable:
// writes its scenario copy into `out_dir`/params/ and plans the job over it. Does nothing when it
// is already planned.
absl::Status MaterializeParamValue(const ParamVersions& values, const ProbePlan& plan, ProbeConfig& config,
                                   const std::string& out_dir);

// Calls `prepare(version)` before a version's first trial reaches `inner`: a lazily planned
// version is made runnable only when it is probed (and not for trials the state file serves).
class PreparingTrialRunner : public TrialRunner {
 public:
  PreparingTrialRunner(TrialRunner& inner, std::function<absl::Status(int)> prepare)
      : inner_(inner), prepare_(std::move(prepare)) {}
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override;
  absl::Status Start(const Request& request) override;
  absl::StatusOr<Finished> Wait() override;

 private:
  TrialRunner& inner_;
  std::function<absl::Status(int)> prepare_;
};

// "n_shard in (1024, 2048]: 1024 passes, 2048 fails" (a fix: "... 2048 fails, 4096 passes
// again"); "" when the search found nothing.
std::string BoundaryText(const std::string& param, const BisectConfig& config, const BisectResult& result);
// summary.md's section on the boundary.
std::string BoundaryMarkdown(const std::string& param, const BisectConfig& config, const BisectResult& result,
                             bool numeric);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_PARAM_BISECT_H_
