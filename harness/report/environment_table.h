// The Environment section of reports: what each job's environment.json says (GPU, driver, CUDA,
// NCCL, MPI, environment variables in force), collapsed where every cell agrees so the section
// stays short enough to paste.
#ifndef GPUHARNESS_REPORT_ENVIRONMENT_TABLE_H_
#define GPUHARNESS_REPORT_ENVIRONMENT_TABLE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nlohmann/json.hpp"

namespace gh {

// One job's environment.json (EnvironmentFingerprint::ToJson), labelled by its cell's display
// label ("" for a plain run's DIR/environment.json).
struct LabeledEnvironment {
  std::string label;
  nlohmann::json fingerprint;
};

struct EnvironmentTable {
  // "cell", then only the facts some environment has: "GPU", "driver", "CUDA driver API",
  // "CUDA runtime", "NCCL", "MPI", "backend", "ranks", "hosts", "harness".
  std::vector<std::string> headers;
  // One row per environment, or a single row labelled "all cells" when every row agrees.
  std::vector<std::vector<std::string>> rows;
  // Variables set to one value in every environment. Launcher plumbing (OMPI_MCA_orte_*, job
  // ids, URIs, session directories) is left out: it differs on every run.
  std::vector<std::pair<std::string, std::string>> common_env;
  // Variables that differ: headers "cell", NAME...; rows per environment ("(unset)" if absent).
  std::vector<std::string> varying_env_headers;
  std::vector<std::vector<std::string>> varying_env_rows;
  bool empty() const { return rows.empty(); }
};

EnvironmentTable SummarizeEnvironments(const std::vector<LabeledEnvironment>& environments);

// The distinct values one fact (a header of EnvironmentTable, "GPU" ... "harness") takes over
// `environments`, in first-seen order, empty ones left out. "hosts" gives each host once.
std::vector<std::string> DistinctFactValues(const std::vector<LabeledEnvironment>& environments,
                                            std::string_view header);

// The tables every report shows of `table`, in order, each with the sentence above it ("" for
// the facts table): the facts, the variables in force, the variables that differ. Empty
// tables are left out, so each report format only renders.
struct EnvironmentSection {
  std::string caption;
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
};
std::vector<EnvironmentSection> EnvironmentSections(const EnvironmentTable& table);
// The same for the environments a report shows (SummarizeEnvironments first).
std::vector<EnvironmentSection> EnvironmentSections(
    const std::vector<LabeledEnvironment>& environments);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_ENVIRONMENT_TABLE_H_
