#include "harness/driver/slurm_node_failure.h"

#include <fstream>

#include "absl/strings/strip.h"
#include "harness/core/regex.h"
#include "harness/driver/slurm_allocation.h"

namespace gh::driver {

std::optional<SlurmNodeFailure> FindSlurmNodeFailure(const std::string& log_path) {
  static const Regex re = *Regex::Compile(R"(^srun: error: Node failure on (\S+)$)");
  std::ifstream in(log_path);
  std::string line;
  while (std::getline(in, line)) {
    std::string trimmed(absl::StripAsciiWhitespace(line));
    std::optional<std::vector<std::string>> m = re.SearchGroups(trimmed);
    if (!m) continue;
    absl::StatusOr<std::vector<std::string>> nodes = ExpandHostlist((*m)[1]);
    if (!nodes.ok() || nodes->empty()) continue;
    return SlurmNodeFailure{*std::move(nodes), trimmed};
  }
  return std::nullopt;
}

}  // namespace gh::driver
