// Where a rank's own output of one run of a point is kept, inside the results directory of the
// job that ran it:
//   logs/<scenario>/<param>=<value>/.../np=<n>/rank<r>.log        (the first trial)
//   logs/<scenario>/<param>=<value>/.../np=<n>/rank<r>.trial<t>.log (later trials, t 0-based)
// Kind exec writes there; the reports find the log again from a record (report/run_logs.h). Each
// part of the point's name is a SafeDirName (path_under.h), so no parameter value can place a log
// outside the job's logs/ folder.
#ifndef GPUHARNESS_CORE_RANK_LOG_PATH_H_
#define GPUHARNESS_CORE_RANK_LOG_PATH_H_

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gh {

// A point's name in its parts: the scenario, each "param=value" set in YAML, "np=<n>". A value
// holding '/' stays in its part: a '/' starts a new part only before "<param>=" of a name in
// `param_names` (the kind's parameters) or before the final "np=".
std::vector<std::string> PointNameParts(std::string_view point_name, const std::set<std::string>& param_names);

// The folder of a point's logs, relative to the job's results directory: "logs/<part>/...".
std::string PointLogDir(std::string_view point_name, const std::set<std::string>& param_names);

// Rank `rank`'s log of trial `trial` (0-based), relative to the job's results directory.
std::string RankLogPath(std::string_view point_name, const std::set<std::string>& param_names, int rank,
                        int trial);

}  // namespace gh

#endif  // GPUHARNESS_CORE_RANK_LOG_PATH_H_
