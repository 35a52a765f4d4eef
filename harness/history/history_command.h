// `gpuharness history`: the results history database (docs/history.md).
//   history ingest DIR [--night LABEL] | status | show POINT... | flips [--night N] | flaky
//           | report --out FILE.html
//   [--db FILE] (default results/history.sqlite) [--points GLOB]... [--format text|tsv]
#ifndef GPUHARNESS_HISTORY_HISTORY_COMMAND_H_
#define GPUHARNESS_HISTORY_HISTORY_COMMAND_H_

namespace gh {

inline constexpr char kDefaultHistoryDb[] = "results/history.sqlite";

// argv[0] is "history". Exit 0 done; 2 bad input (flags, a directory, a database not ours, a
// night or point it does not have); 3 the database or an output could not be written or read.
int HistoryCommand(int argc, char** argv);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_COMMAND_H_
