// Gathers a sweep cell's rank logs at paths a person can guess, whichever job wrote them: each
// job of the cell (DIR/cells/<cell>/[process<k>/]<job>[.retry<a>][.cont<c>]/logs/...) in run
// order, so that the attempt that ran a point last wins, to
//   DIR/logs/<cell>/[process<k>/]<scenario>/<param>=<value>/.../np=<n>/rank<r>[.trial<t>].log
// (report/run_logs.h GatheredRankLog). Hard links where the filesystem allows, else copies; the
// cell's earlier gathering is replaced.
#ifndef GPUHARNESS_DRIVER_RANK_LOG_LINKS_H_
#define GPUHARNESS_DRIVER_RANK_LOG_LINKS_H_

#include <string>

#include "absl/status/status.h"

namespace gh::driver {

// `cell_dir`: the cell's folder name (CellPlan::dir_name). Internal naming the file on a failure
// to write under DIR/logs.
absl::Status GatherRankLogs(const std::string& results_dir, const std::string& cell_dir);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_RANK_LOG_LINKS_H_
