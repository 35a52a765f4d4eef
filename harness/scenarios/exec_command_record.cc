#include "harness/scenarios/exec_command_record.h"

#include "harness/core/file_util.h"
#include "nlohmann/json.hpp"

namespace gh {

absl::Status WriteExecCommandRecord(const ExecCommand& command, const std::string& point, int rank, int nranks,
                                    const std::string& coordinator, int exit_status) {
  nlohmann::json env = nlohmann::json::array();
  for (const auto& [name, value] : command.env) env.push_back({name, value});
  const nlohmann::json record = {{"point", point},       {"rank", rank},       {"nranks", nranks},
                                 {"coordinator", coordinator}, {"argv", command.argv}, {"env", env},
                                 {"workdir", command.workdir}, {"exit_status", exit_status}};
  return WriteFileAtomically(command.log_path + ".command.json", record.dump(2) + "\n");
}

}  // namespace gh
