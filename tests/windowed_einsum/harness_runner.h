// Runs the gpuharness binary on a scenario file, alone or under mpirun, and reads its records:
// shared by the windowed_einsum whole-binary tests (host MPI and GPU).
#ifndef GPUHARNESS_TESTS_WINDOWED_EINSUM_HARNESS_RUNNER_H_
#define GPUHARNESS_TESTS_WINDOWED_EINSUM_HARNESS_RUNNER_H_

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "harness/core/records_file.h"

namespace gh::testing_einsum {

struct HarnessRun {
  int exit_code = -1;
  std::string out_dir;
  std::string console;
};

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `gpuharness run <yaml> --out <tmp> --backend <backend>` with `np` ranks (mpirun above 1; with
// --share-gpu on the cuda backend). Console output is echoed for ctest -V.
inline HarnessRun RunHarness(int np, const std::string& yaml, const std::string& backend) {
  HarnessRun run;
  char dir_template[] = "/tmp/gh_einsum_test_XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) {
    ADD_FAILURE() << "mkdtemp failed";
    return run;
  }
  run.out_dir = std::string(dir) + "/results";
  const std::string log = std::string(dir) + "/console.log";
  std::string command;
  if (np > 1) {
    const char* mpirun = getenv("GH_MPIRUN");
    command = std::string(mpirun != nullptr ? mpirun : "mpirun") + " --oversubscribe -np " +
              std::to_string(np) +
              " -x NCCL_NVLS_ENABLE -x OMPI_ALLOW_RUN_AS_ROOT -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM ";
  }
  command += std::string(GH_GPUHARNESS_BIN) + " run " + GH_SOURCE_DIR + "/" + yaml + " --out " +
             run.out_dir + " --backend " + backend +
             (np > 1 && backend == "cuda" ? " --share-gpu" : "") + " > " + log + " 2>&1";
  int status = std::system(command.c_str());
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.console = ReadWholeFile(log);
  std::printf("$ %s\n%s[exit %d]\n", command.c_str(), run.console.c_str(), run.exit_code);
  return run;
}

inline std::vector<Record> ReadRecords(const HarnessRun& run) {
  auto contents = ReadRecordsFile(run.out_dir + "/records.jsonl");
  EXPECT_TRUE(contents.ok()) << contents.status() << "\n" << run.console;
  if (!contents.ok()) return {};
  EXPECT_EQ(contents->torn_lines, 0);
  return contents->records;
}

inline const Metric* FindMetric(const std::vector<Metric>& metrics, const std::string& name) {
  for (const Metric& metric : metrics) {
    if (metric.name == name) return &metric;
  }
  return nullptr;
}

// Elements of the verified output on one rank: layer 1's [tp * m_shard x n_shard], or the
// chained layer's [m_shard x k].
inline int64_t OutputElements(const Record& record) {
  const int64_t m = record.params.value("m_shard", int64_t{0});
  const int64_t n = record.params.value("n_shard", int64_t{0});
  const int64_t k = record.params.value("k", int64_t{0});
  return record.params.value("layers", int64_t{1}) == 2 ? m * k : record.nranks * m * n;
}

}  // namespace gh::testing_einsum

#endif  // GPUHARNESS_TESTS_WINDOWED_EINSUM_HARNESS_RUNNER_H_
