#include "harness/report/run_logs.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "harness/core/file_util.h"
#include "harness/core/path_under.h"
#include "harness/core/rank_log_path.h"
#include "harness/report/failure_lines.h"

namespace gh {
namespace {

namespace fs = std::filesystem;

std::string Join(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : absl::StrCat(dir, "/", name);
}

// A job directory's place in its cell's run order: the driver names them <job>, <job>.retry<a>,
// <job>.retry<a>.cont<c> (job0, job1, ... when a cell runs one job per point filter, one after
// the other).
std::tuple<std::string, int, int, std::string> RunOrder(const std::string& name) {
  std::vector<std::string> parts = absl::StrSplit(name, '.');
  int retry = 0, cont = 0;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (absl::StartsWith(parts[i], "retry")) (void)absl::SimpleAtoi(parts[i].substr(5), &retry);
    if (absl::StartsWith(parts[i], "cont")) (void)absl::SimpleAtoi(parts[i].substr(4), &cont);
  }
  return {parts[0], retry, cont, name};
}

std::set<std::string> ParamNames(const PointTrials& point) {
  std::set<std::string> names;
  if (point.params.is_object()) {
    for (const auto& [name, value] : point.params.items()) names.insert(name);
  }
  return names;
}

}  // namespace

RunLogs::RunLogs(std::string results_dir, const SweepInfo* sweep)
    : results_dir_(std::move(results_dir)), sweep_(sweep) {}

bool RunLogs::Exists(const std::string& path_in_results) const {
  std::error_code error;
  return fs::is_regular_file(fs::path(results_dir_) / path_in_results, error);
}

std::string RunLogs::CellDir(const PointTrials& point) const {
  std::string id;
  for (const SweepCellInfo& cell : sweep_->cells) {
    if (cell.axes == point.cell) id = cell.id;
  }
  if (id.empty()) id = FailureCellName(point.cell, sweep_);  // the cell's id: its axes in matrix order
  return SafeDirName(id);
}

std::string RunLogs::JobsBase(const PointTrials& point) const {
  std::string base = absl::StrCat("cells/", CellDir(point));
  const int process = point.evidence.process.value_or(0);
  if (process > 0) absl::StrAppend(&base, "/process", process);
  return base;
}

std::vector<std::string> JobDirsInRunOrder(const std::string& results_dir, const std::string& base) {
  std::vector<std::string> names;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(fs::path(results_dir) / base, error)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory(error)) continue;
    std::error_code missing;
    if (absl::StartsWith(name, "job") ||
        fs::is_regular_file(fs::path(results_dir) / base / name / kPlannedRunsFile, missing)) {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return RunOrder(a) < RunOrder(b); });
  std::vector<std::string> dirs;
  for (const std::string& name : names) dirs.push_back(Join(base, name));
  return dirs;
}

std::string GatheredRankLog(const std::string& cell_dir, int process, const std::string& rank_log) {
  std::string path = absl::StrCat("logs/", cell_dir);
  if (process > 0) absl::StrAppend(&path, "/process", process);
  return absl::StrCat(path, "/", absl::StripPrefix(rank_log, "logs/"));
}

const std::vector<std::string>& RunLogs::JobsUnder(const std::string& base) const {
  auto [it, inserted] = jobs_.try_emplace(base);
  if (inserted) it->second = JobDirsInRunOrder(results_dir_, base);
  return it->second;
}

const std::set<RunKey>& RunLogs::PlannedRuns(const std::string& job_dir) const {
  auto [it, inserted] = planned_.try_emplace(job_dir);
  if (!inserted) return it->second;
  const std::string path = (fs::path(results_dir_) / Join(job_dir, kPlannedRunsFile)).string();
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return it->second;
  absl::StatusOr<std::vector<RunKey>> runs = ParseRunList(*text, path);
  if (runs.ok()) it->second.insert(runs->begin(), runs->end());
  return it->second;
}

std::optional<std::string> RunLogs::JobDir(const PointTrials& point) const {
  if (sweep_ == nullptr) return std::string();
  if (point.evidence.empty()) return std::nullopt;
  const std::vector<std::string>& jobs = JobsUnder(JobsBase(point));
  const RunKey run{point.key.point, point.evidence.trial};
  for (auto job = jobs.rbegin(); job != jobs.rend(); ++job) {
    if (PlannedRuns(*job).count(run) != 0) return *job;
  }
  // No job planned it (it died before writing its plan): the last attempt.
  if (!jobs.empty()) return jobs.back();
  return std::nullopt;
}

std::string RunLogs::RankLog(const PointTrials& point, int rank) const {
  if (point.evidence.empty()) return "";
  const std::string rank_log = RankLogPath(point.key.point, ParamNames(point), rank, point.evidence.trial);
  if (sweep_ != nullptr) {
    // Where the sweep gathered it; else in the job that ran it (a directory the sweep did not finish).
    const std::string gathered = GatheredRankLog(CellDir(point), point.evidence.process.value_or(0), rank_log);
    if (Exists(gathered)) return gathered;
  }
  std::optional<std::string> job = JobDir(point);
  if (!job) return "";
  const std::string log = Join(*job, rank_log);
  return Exists(log) ? log : "";
}

std::string RunLogs::JobLog(const PointTrials& point) const {
  if (sweep_ == nullptr) return "";
  std::optional<std::string> job = JobDir(point);
  if (!job || job->empty()) return "";
  const std::string log = absl::StrCat(*job, ".log");
  return Exists(log) ? log : "";
}

}  // namespace gh
