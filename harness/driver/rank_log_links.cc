#include "harness/driver/rank_log_links.h"

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "harness/report/run_logs.h"

namespace gh::driver {
namespace {

namespace fs = std::filesystem;

// Every regular file under `job`/logs into `target`, replacing what is there.
absl::Status LinkJobLogs(const fs::path& job, const fs::path& target) {
  std::error_code error;
  const fs::path logs = job / "logs";
  if (!fs::is_directory(logs, error)) return absl::OkStatus();
  for (fs::recursive_directory_iterator it(logs, error), end; !error && it != end; it.increment(error)) {
    if (!it->is_regular_file(error) || it->is_symlink(error)) continue;
    const fs::path to = target / it->path().lexically_relative(logs);
    fs::create_directories(to.parent_path(), error);
    if (error) return absl::InternalError(absl::StrCat("cannot create ", to.parent_path().string(), ": ", error.message()));
    fs::remove(to, error);
    fs::create_hard_link(it->path(), to, error);
    if (error) {
      error.clear();
      fs::copy_file(it->path(), to, fs::copy_options::overwrite_existing, error);
      if (error) return absl::InternalError(absl::StrCat("cannot write ", to.string(), ": ", error.message()));
    }
  }
  if (error) return absl::InternalError(absl::StrCat("cannot read ", logs.string(), ": ", error.message()));
  return absl::OkStatus();
}

}  // namespace

absl::Status GatherRankLogs(const std::string& results_dir, const std::string& cell_dir) {
  const fs::path root(results_dir);
  std::error_code error;
  fs::remove_all(root / "logs" / cell_dir, error);
  if (error) return absl::InternalError(absl::StrCat("cannot remove ", (root / "logs" / cell_dir).string(), ": ", error.message()));
  // The cell's own jobs (process 0), then each further process's.
  std::vector<std::pair<std::string, int>> bases = {{absl::StrCat("cells/", cell_dir), 0}};
  for (const fs::directory_entry& entry : fs::directory_iterator(root / "cells" / cell_dir, error)) {
    const std::string name = entry.path().filename().string();
    int process = 0;
    if (entry.is_directory(error) && absl::StartsWith(name, "process") &&
        absl::SimpleAtoi(name.substr(7), &process) && process > 0) {
      bases.emplace_back(absl::StrCat("cells/", cell_dir, "/", name), process);
    }
  }
  for (const auto& [base, process] : bases) {
    const fs::path target = root / GatheredRankLog(cell_dir, process, "logs/");
    for (const std::string& job : JobDirsInRunOrder(results_dir, base)) {
      if (absl::Status st = LinkJobLogs(root / job, target); !st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace gh::driver
