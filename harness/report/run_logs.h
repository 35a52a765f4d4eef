// Where a failing run left its output in a results directory, for the reports to link to: each
// rank's own log (kind exec writes one per rank and trial, core/rank_log_path.h) and, in a sweep,
// the log of the job that ran it (every rank's stdout and stderr, and the launcher's lines).
//
// A plain run's DIR is its job's directory. A sweep cell's jobs are
// DIR/cells/<cell>/[process<k>/]<job>[.retry<a>][.cont<c>]/, each with <job>...log beside it
// (docs/reference/sweep.md); the job that ran a trial is the last one, in run order, whose planned.runs
// lists it (a continuation lists only what its predecessors left). At its end the sweep gathers
// each cell's rank logs, whichever job wrote them, at one path a person can guess:
// DIR/logs/<cell>/[process<k>/]<scenario>/<param>=<value>/.../np=<n>/rank<r>[.trial<t>].log
// (driver/rank_log_links.h); the reports link there. This file is the one place that knows that
// layout on the reading side.
#ifndef GPUHARNESS_REPORT_RUN_LOGS_H_
#define GPUHARNESS_REPORT_RUN_LOGS_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/core/comparison.h"
#include "harness/core/run_list.h"
#include "harness/report/sweep_info.h"

namespace gh {

// The job directories under DIR/`base` ("cells/<cell>" or "cells/<cell>/process<k>"), in run
// order (<job>, <job>.retry<a>, <job>.retry<a>.cont<c>), relative to DIR.
std::vector<std::string> JobDirsInRunOrder(const std::string& results_dir, const std::string& base);

// Where the sweep gathers a cell's rank log, relative to DIR: "logs/<cell dir>[/process<k>]/"
// and `rank_log` (core/rank_log_path.h) without its leading "logs/".
std::string GatheredRankLog(const std::string& cell_dir, int process, const std::string& rank_log);

class RunLogs {
 public:
  // `results_dir` as the user named it; `sweep` (DIR/sweep.json) null for a plain run. It must
  // outlive this object.
  RunLogs(std::string results_dir, const SweepInfo* sweep);

  const std::string& results_dir() const { return results_dir_; }

  // Rank `rank`'s log of the trial `point.evidence` names, relative to DIR; "" when no such file
  // was kept (kinds other than exec keep none; --rerun-failed replaces a cell's directory).
  std::string RankLog(const PointTrials& point, int rank) const;
  // The log of the sweep job that ran that trial, relative to DIR; "" for a plain run or when
  // it is not there.
  std::string JobLog(const PointTrials& point) const;

 private:
  // The job's directory relative to DIR ("" for DIR itself), nullopt when none is known.
  std::optional<std::string> JobDir(const PointTrials& point) const;
  // The cell's folder name (under DIR/cells and DIR/logs).
  std::string CellDir(const PointTrials& point) const;
  // Where a cell process's jobs live, relative to DIR.
  std::string JobsBase(const PointTrials& point) const;
  // The job directories under `base`, in run order, relative to DIR.
  const std::vector<std::string>& JobsUnder(const std::string& base) const;
  const std::set<RunKey>& PlannedRuns(const std::string& job_dir) const;
  bool Exists(const std::string& path_in_results) const;

  std::string results_dir_;
  const SweepInfo* sweep_;
  mutable std::map<std::string, std::vector<std::string>> jobs_;
  mutable std::map<std::string, std::set<RunKey>> planned_;
};

}  // namespace gh

#endif  // GPUHARNESS_REPORT_RUN_LOGS_H_
