// `gpuharness history`: the results history database (docs/reference/history.md).
//   history ingest DIR [--night LABEL] | status | show POINT... | flips [--night N] | flaky
//           | report --out FILE.html | regressions DIR --baseline DIR [--night N] [--out FILE]
//           | summary NIGHT_DIR --night N --cluster C --version V --status S [--good] [--baseline DIR]
//   [--db FILE] (default results/history.sqlite) [--points GLOB]... [--format text|tsv]
#ifndef GPUHARNESS_HISTORY_HISTORY_COMMAND_H_
#define GPUHARNESS_HISTORY_HISTORY_COMMAND_H_

namespace gh {

inline constexpr char kDefaultHistoryDb[] = "results/history.sqlite";

// argv[0] is "history". Exit 0 done (`regressions`: and none found); 1 `regressions` found
// some; 2 bad input (flags, a directory, a database not ours, a night or point it does not
// have); 3 the database or an output could not be written or read.
int HistoryCommand(int argc, char** argv);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_COMMAND_H_
