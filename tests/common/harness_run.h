// Runs the gpuharness binary, alone or under mpirun, and reads what it wrote: shared by the
// whole-binary tests (tests/*/), whose targets define GH_GPUHARNESS_BIN and GH_SOURCE_DIR.
// Also the main() of the GPU tests, which skip (exit 77) where no GPU is visible.
#ifndef GPUHARNESS_TESTS_COMMON_HARNESS_RUN_H_
#define GPUHARNESS_TESTS_COMMON_HARNESS_RUN_H_

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness/core/records_file.h"
#include "tests/common/shell_run.h"

namespace gh::testing {

// The exit status CTest reports as skipped (SKIP_RETURN_CODE in tests/*.cmake).
inline constexpr int kSkipExitCode = 77;

struct HarnessRun {
  int exit_code = -1;   // 128 + N where a signal N ended it
  std::string out_dir;  // the results dir: {out}, inside a fresh temp dir, not created here
  std::string console;  // stdout and stderr
  double seconds = 0;
};

struct HarnessOptions {
  int np = 1;  // ranks: at 1 the binary runs alone (an MPI singleton), above 1 under mpirun
  // `run <yamls> --out {out}`, each path relative to GH_SOURCE_DIR (an absolute one as it is).
  // Without any, `args` alone follows the binary.
  std::vector<std::string> yamls;
  std::string backend;     // --backend, where set
  bool share_gpu = false;  // --share-gpu
  std::string args;        // last on the line; "{out}" anywhere in the command is the results dir
  std::string mpirun;      // where empty: $GH_MPIRUN, else mpirun from PATH
  std::vector<std::string> mpirun_env;  // each passed as `-x ENTRY` (NAME or NAME=VALUE)
  bool stdin_null = false;  // < /dev/null
};

// Runs the command `options` describe, its console going to a log beside the results dir, and
// echoes the command and console (for ctest -V).
inline HarnessRun RunHarness(const HarnessOptions& options) {
  // CI containers run as root, which Open MPI refuses unless told; an explicit setting wins.
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", /*overwrite=*/0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", /*overwrite=*/0);
  HarnessRun run;
  char dir_template[] = "/tmp/gh_harness_test_XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) {
    ADD_FAILURE() << "mkdtemp failed";
    return run;
  }
  run.out_dir = std::string(dir) + "/results";
  const std::string log = std::string(dir) + "/console.log";
  std::string command;
  if (options.np > 1) {
    const char* env_mpirun = getenv("GH_MPIRUN");
    command = !options.mpirun.empty() ? options.mpirun
              : env_mpirun != nullptr ? env_mpirun
                                      : "mpirun";
    command += " --oversubscribe -np " + std::to_string(options.np) + " ";
    for (const std::string& entry : options.mpirun_env) command += "-x " + entry + " ";
  }
  command += GH_GPUHARNESS_BIN;
  if (!options.yamls.empty()) {
    command += " run";
    for (const std::string& yaml : options.yamls) {
      command += " " + (yaml.starts_with('/') ? yaml : std::string(GH_SOURCE_DIR) + "/" + yaml);
    }
    command += " --out {out}";
    if (!options.backend.empty()) command += " --backend " + options.backend;
    if (options.share_gpu) command += " --share-gpu";
  }
  if (!options.args.empty()) command += " " + options.args;
  for (size_t at = command.find("{out}"); at != std::string::npos; at = command.find("{out}")) {
    command.replace(at, 5, run.out_dir);
  }
  command += " > " + log + " 2>&1";
  if (options.stdin_null) command += " < /dev/null";
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.console = ReadWholeFile(log);
  std::printf("$ %s\n%s[exit %d after %.1f s]\n", command.c_str(), run.console.c_str(),
              run.exit_code, run.seconds);
  return run;
}

// `gpuharness run <yaml> --out {out} --backend <backend>` with `np` ranks. Above 1: under mpirun,
// passing on the NVLink multicast and Open MPI run-as-root settings, and sharing the GPU on the
// cuda backend.
inline HarnessRun RunHarness(int np, const std::string& yaml, const std::string& backend) {
  HarnessOptions options;
  options.np = np;
  options.yamls = {yaml};
  options.backend = backend;
  options.share_gpu = np > 1 && backend == "cuda";
  options.mpirun_env = {"NCCL_NVLS_ENABLE", "OMPI_ALLOW_RUN_AS_ROOT",
                        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"};
  return RunHarness(options);
}

// `gpuharness <args>` with `np` ranks and stdin from /dev/null: alone (a singleton, no mpirun at
// all) at 1, under `mpirun` above 1. "{out}" in the command is the results dir.
inline HarnessOptions ArgsOptions(int np, const std::string& args, const std::string& mpirun) {
  HarnessOptions options;
  options.np = np;
  options.args = args;
  options.mpirun = mpirun;
  options.stdin_null = true;
  return options;
}

// Every record of the run's records.jsonl; a torn line fails the test.
inline std::vector<Record> ReadRecords(const HarnessRun& run) {
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(run.out_dir + "/records.jsonl");
  EXPECT_TRUE(contents.ok()) << contents.status() << "\n" << run.console;
  if (!contents.ok()) return {};
  EXPECT_EQ(contents->torn_lines, 0);
  return contents->records;
}

// The records of a run that must exit 0 having recorded `count` points; a failure (and what it
// did record) where it did not.
inline std::vector<Record> RecordsOfCleanRun(const HarnessRun& run, size_t count) {
  EXPECT_EQ(run.exit_code, 0) << run.console;
  std::vector<Record> records = ReadRecords(run);
  EXPECT_EQ(records.size(), count) << run.console;
  return records;
}

// The point names of `records`, each checked to be of kind `kind` on `backend` at `np` ranks
// (fewer names than records where a name repeats).
inline std::set<std::string> PointsOf(const std::vector<Record>& records, const std::string& kind,
                                      const std::string& backend, int np) {
  std::set<std::string> points;
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    points.insert(record.point);
    EXPECT_EQ(record.kind, kind);
    EXPECT_EQ(record.backend, backend);
    EXPECT_EQ(record.nranks, np);
  }
  return points;
}

// The records of scenario `scenario`, in the order the file holds them.
inline std::vector<Record> RecordsOf(const std::vector<Record>& records, const std::string& scenario) {
  std::vector<Record> kept;
  for (const Record& record : records) {
    if (record.scenario == scenario) kept.push_back(record);
  }
  return kept;
}

// The records of the planted-fault scenario `scenario` in the run: `count` of them, each a
// failure that met its expectation (all checked here).
inline std::vector<Record> ExpectedFailuresOf(const HarnessRun& run, const std::string& scenario,
                                              size_t count) {
  std::vector<Record> records = RecordsOf(ReadRecords(run), scenario);
  EXPECT_EQ(records.size(), count) << run.console;
  for (const Record& record : records) {
    EXPECT_EQ(record.result.outcome, Outcome::kFail) << record.point;
    EXPECT_TRUE(record.matched) << record.point;
  }
  return records;
}

// `record` passed and met its expectation on exactly `np` ranks, listed in rank order, each a
// pass without a mismatch. Callers wrap it in ASSERT_NO_FATAL_FAILURE and check the rest of
// each rank themselves.
inline void ExpectPassedOnEveryRank(const Record& record, int np) {
  EXPECT_EQ(record.result.outcome, Outcome::kPass) << record.result.signature;
  EXPECT_TRUE(record.matched);
  ASSERT_EQ(record.result.ranks.size(), static_cast<size_t>(np));
  for (int r = 0; r < np; ++r) {
    const RankOutcome& rank = record.result.ranks[r];
    EXPECT_EQ(rank.rank, r);
    EXPECT_EQ(rank.outcome, Outcome::kPass) << rank.signature;
    EXPECT_FALSE(rank.mismatch.has_value());
  }
}

// The outcome `record` holds for rank `rank`; nullptr where it holds none.
inline const RankOutcome* RankOf(const Record& record, int rank) {
  for (const RankOutcome& r : record.result.ranks) {
    if (r.rank == rank) return &r;
  }
  return nullptr;
}

inline const Metric* FindMetric(const std::vector<Metric>& metrics, const std::string& name) {
  for (const Metric& metric : metrics) {
    if (metric.name == name) return &metric;
  }
  return nullptr;
}

inline double MetricOr(const std::vector<Metric>& metrics, const std::string& name,
                       double missing) {
  const Metric* metric = FindMetric(metrics, name);
  return metric != nullptr ? metric->value : missing;
}

// main() of a GPU test binary, given gh::VisibleGpuCount (harness/runtime/cuda_resources.h, not
// included here: it exists only in cuda builds). Where no GPU is visible it prints why and
// returns kSkipExitCode; otherwise it runs every test with NVLink multicast off and Open MPI
// allowed to run as root (an explicit setting of the latter wins).
inline int GpuTestMain(int argc, char** argv, int (*visible_gpu_count)(std::string* why_none)) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!GTEST_FLAG_GET(list_tests)) {
    std::string why;
    if (visible_gpu_count(&why) == 0) {
      std::printf("SKIP: no GPU visible (%s)\n", why.c_str());
      return kSkipExitCode;
    }
  }
  setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", /*overwrite=*/0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", /*overwrite=*/0);
  return RUN_ALL_TESTS();
}

}  // namespace gh::testing

#endif  // GPUHARNESS_TESTS_COMMON_HARNESS_RUN_H_
