// What a bisect or minimize runs, checked before anything runs or is written: the matrix planned
// as a sweep would plan it, the scenario job (the matrix's scenarios, or --scenario/--points),
// and the cells chosen by label sets. Every error is InvalidArgument naming the file:line:col
// and key, or the flag; the commands exit 2 on them.
#ifndef GPUHARNESS_BISECT_BISECT_PLAN_H_
#define GPUHARNESS_BISECT_BISECT_PLAN_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/bisect/bisect_jobs.h"
#include "harness/driver/sweep_plan.h"

namespace gh {

using LabelSet = std::map<std::string, std::string>;  // axis name -> label

// "proto=ll,np=4" -> {proto: ll, np: 4}. `flag` names the option in errors.
absl::StatusOr<LabelSet> ParseLabelSet(std::string_view text, std::string_view flag);
std::string FormatLabelSet(const LabelSet& labels);  // "np=4,proto=ll"

struct ProbePlanOptions {
  std::string matrix_path;
  std::string scenario_path;         // "": the matrix's scenarios
  std::string points;                // a point filter glob (--points); "": the matrix's
  // A boundary search (--param) may name a scenario file instead of a matrix: it then runs in a
  // matrix of that one scenario with the default settings (1 rank, mpirun, backend auto).
  bool scenario_may_stand_for_matrix = false;
};

struct ProbePlan {
  driver::SweepPlan sweep;
  driver::PlannedJob job;
  bool override_points = false;  // --scenario or --points given: cells' own point filters are dropped
  std::string job_hash;  // scenario files' contents and filters
};

// Plans the matrix and the job. A --points filter matching no point of the scenario is an error.
absl::StatusOr<ProbePlan> PlanProbes(const ProbePlanOptions& options);

// The cells whose labels include every entry of `labels` (unknown axes and labels are errors
// naming `flag` and listing what the matrix has).
absl::StatusOr<std::vector<const driver::PlannedCell*>> SelectCells(const driver::SweepPlan& plan,
                                                                     const LabelSet& labels,
                                                                     std::string_view flag);

// The settings hash that keys a config's cached trials.
std::string ProbeSettingsHash(const ProbePlan& plan, const driver::PlannedCell& cell);

// A config for one planned cell, labelled `label`; its set-up is its version's; its one job is
// the plan's job with its points at the cell expanded.
absl::StatusOr<ProbeConfig> MakeProbeConfig(const ProbePlan& plan, const driver::PlannedCell& cell,
                                            std::string label);

struct BisectVersions {
  std::string axis;                   // the version axis's name
  std::vector<ProbeConfig> configs;   // one per version, in version order
  std::vector<std::string> settings;  // ProbeSettingsHash per config
  std::vector<std::string> excluded;  // versions the matrix excludes for the chosen cell
};

// The version axis of `plan` with the flag axes fixed by `cell` (--cell): exactly one cell per
// version must match. Errors: no version axis; an ambiguous or empty selection.
absl::StatusOr<BisectVersions> PlanBisectVersions(const ProbePlan& plan, const LabelSet& cell);

// Index of `label` among the versions; `flag` (--good / --bad) names it in the error, which
// lists the versions.
absl::StatusOr<int> FindVersion(const BisectVersions& versions, const std::string& label,
                                std::string_view flag);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_BISECT_PLAN_H_
