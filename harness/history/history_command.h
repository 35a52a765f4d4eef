// `gpuharness history`: the results history database (docs/history.md).
//   history ingest DIR [--night LABEL] | show POINT | flips [--night N] [--format text|tsv]
//           | flaky | report --out FILE.html        [--db FILE] (default results/history.sqlite)
#ifndef GPUHARNESS_HISTORY_HISTORY_COMMAND_H_
#define GPUHARNESS_HISTORY_HISTORY_COMMAND_H_

namespace gh {

inline constexpr char kDefaultHistoryDb[] = "results/history.sqlite";

// argv[0] is "history". Exit 0 done; 2 bad input (flags, a directory, a database not ours);
// 3 the database could not be written.
int HistoryCommand(int argc, char** argv);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_COMMAND_H_
