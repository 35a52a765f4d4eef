// The CPU acceptance tests of issue 17 over the fake version range in tests/perf/versions
// (s00..s02 the reference speed, s03..s04 a planted 1 % change, s05..s07 a planted 10 %
// slowdown, the time really spent in MPI_Sendrecv), every run a real mpirun job of one rank:
// the baseline comparison flags the 10 % slowdown with its interval and not the 1 % change nor
// an A/A rerun (one process per side, and with `sweep --processes 3` on the process level), and
// the perf bisect names s05.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "harness/core/testdata/temp_dir.h"
#include "tests/common/shell_run.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using gh::testing::CommandRun;
using gh::testing::ReadWholeFile;
using gh::testing::ShellWord;

CommandRun Shell(const std::string& command) {
  return gh::testing::RunShellWith(
      {{"GH_PERF_TESTDATA", GH_PERF_TESTDATA_DIR}, {"GH_PERF_FAKE_LIB", GH_PERF_FAKE_LIB_PATH}}, command);
}

std::string Matrix() { return std::string(GH_PERF_TESTDATA_DIR) + "/versions.yaml"; }

std::string FreshDir(const std::string& name) { return gh::testing::FreshNamedTempDir("gh_perf_e2e_" + name); }

// A sweep of one version into DIR, compared with `baseline` when given, each cell run in
// `processes` processes. The threshold sits between the planted 1 % and 10 %.
CommandRun Sweep(const std::string& version, const std::string& dir, const std::string& baseline = "",
                 int processes = 1) {
  std::string command = "GH_PERF_VERSIONS=" + version + " " + ShellWord(GH_GPUHARNESS_BIN) + " sweep " +
                        ShellWord(Matrix()) + " --out " + ShellWord(dir) + " --perf-threshold 5%";
  if (processes > 1) command += " --processes " + std::to_string(processes);
  if (!baseline.empty()) command += " --baseline " + ShellWord(baseline) + " --baseline-ignore version";
  return Shell(command);
}

// One sweep per version, shared by the tests (each is a few seconds of mpirun).
class PerfComparisonE2eTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Per process: ctest runs each test in its own process, possibly at the same time.
    reference_ = FreshDir("s00_" + std::to_string(getpid()));
    CommandRun run = Sweep("s00", reference_);
    ASSERT_EQ(run.exit_code, 0) << run.console;
  }
  static std::string reference_;
};
std::string PerfComparisonE2eTest::reference_;

TEST_F(PerfComparisonE2eTest, TheRecordsKeepEverySampleWithWarmupAndIterations) {
  std::ifstream in(reference_ + "/records.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  nlohmann::json record = nlohmann::json::parse(line);
  EXPECT_EQ(record["timing"], (nlohmann::json{{"warmup", 20}, {"iterations", 200}}));
  ASSERT_EQ(record["metrics"][0]["name"], "time_median_us");
  EXPECT_EQ(record["metrics"][0]["samples"].size(), 200u);
  EXPECT_GE(record["metrics"][0]["samples"][0].get<double>(), 200.0);  // the fake's work
  EXPECT_THAT(record.value("hardware", ""), HasSubstr("cpu: "));
}

TEST_F(PerfComparisonE2eTest, ATenPercentSlowdownIsFlaggedWithItsInterval) {
  const std::string dir = FreshDir("s05_" + std::to_string(getpid()));
  CommandRun run = Sweep("s05", dir, reference_);
  EXPECT_EQ(run.exit_code, 1) << run.console;
  const std::regex flagged("time_median_us slower by ([0-9.]+) % \\(95 % CI ([0-9.]+)\u2013([0-9.]+) %\\)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.console, m, flagged)) << run.console;
  const double slower = std::stod(m[1]), low = std::stod(m[2]), high = std::stod(m[3]);
  EXPECT_GT(slower, 6.0);
  EXPECT_LT(slower, 14.0);
  EXPECT_LE(low, slower);  // printed to 0.1 %: a tight interval prints as 10.0–10.0
  EXPECT_GE(high, slower);
  EXPECT_GT(low, 5.0) << "the interval clears the threshold";
  EXPECT_THAT(run.console, HasSubstr("perf: 1 point slower"));
  EXPECT_THAT(ReadWholeFile(dir + "/summary.md"), HasSubstr("## Performance vs baseline (2)"));
  EXPECT_THAT(ReadWholeFile(dir + "/summary.md"), HasSubstr("bandwidth_GBps"));
  const std::string html = ReadWholeFile(dir + "/report.html");
  EXPECT_THAT(html, HasSubstr("<h3>time_median_us: now / baseline"));
  EXPECT_THAT(html, HasSubstr("<svg class=\"perf\""));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(ReadWholeFile(dir + "/junit.xml"), HasSubstr("type=\"perf regression\""));
  // Only warned: the same comparison exits 0 and still says so.
  CommandRun warned = Shell(ShellWord(GH_GPUHARNESS_BIN) + " report " + ShellWord(dir) + " --baseline " +
                            ShellWord(reference_) + " --baseline-ignore version --perf-warn-only");
  EXPECT_EQ(warned.exit_code, 0) << warned.console;
  EXPECT_THAT(warned.console, HasSubstr("(warn only)"));
}

TEST_F(PerfComparisonE2eTest, APlantedOnePercentChangeAndAnAARerunAreNotFlagged) {
  for (const std::string version : {"s03", "s01"}) {
    const std::string dir = FreshDir(version + "_" + std::to_string(getpid()));
    CommandRun run = Sweep(version, dir, reference_);
    EXPECT_EQ(run.exit_code, 0) << version << ":\n" << run.console;
    EXPECT_THAT(run.console, Not(HasSubstr("points slower"))) << version;
    EXPECT_THAT(run.console, Not(HasSubstr("slower by"))) << version;
  }
}

// The same range swept with --processes 3 on both sides: the comparison is on the process
// level (3 vs 3 process medians, a 99 % interval).
class PerfProcessesE2eTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    reference_ = FreshDir("p3_s00_" + std::to_string(getpid()));
    CommandRun run = Sweep("s00", reference_, "", 3);
    ASSERT_EQ(run.exit_code, 0) << run.console;
  }
  static std::string reference_;
};
std::string PerfProcessesE2eTest::reference_;

TEST_F(PerfProcessesE2eTest, EachProcessIsRecordedAsOneAndThePointStaysOne) {
  std::ifstream in(reference_ + "/records.jsonl");
  std::vector<int> processes;
  std::set<std::string> points;
  for (std::string line; std::getline(in, line);) {
    nlohmann::json record = nlohmann::json::parse(line);
    points.insert(record["point"].get<std::string>());
    EXPECT_EQ(record["metrics"][0]["samples"].size(), 200u);
    processes.push_back(record["process"].get<int>());
  }
  EXPECT_EQ(processes, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(points.size(), 1u);
  // One testcase for the point, its three processes' trials listed in it.
  const std::string junit = ReadWholeFile(reference_ + "/junit.xml");
  EXPECT_EQ(junit.find("<testcase "), junit.rfind("<testcase "));
  EXPECT_THAT(junit, HasSubstr("process 3, trial 1/1: pass"));
  EXPECT_THAT(ReadWholeFile(reference_ + "/cells/version=s00/done.json"), HasSubstr("\"processes\": 3"));
}

TEST_F(PerfProcessesE2eTest, ATenPercentSlowdownIsFlaggedOnTheProcessLevel) {
  const std::string dir = FreshDir("p3_s05_" + std::to_string(getpid()));
  CommandRun run = Sweep("s05", dir, reference_, 3);
  EXPECT_EQ(run.exit_code, 1) << run.console;
  // 99 %: the process-level test; no "1 process per side" floor, no "fewer than recommended".
  const std::regex flagged("time_median_us slower by ([0-9.]+) % \\(99 % CI ([0-9.]+)\u2013([0-9.]+) %\\)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.console, m, flagged)) << run.console;
  EXPECT_GT(std::stod(m[1]), 6.0);
  EXPECT_LT(std::stod(m[1]), 14.0);
  EXPECT_GT(std::stod(m[2]), 0.0);
  EXPECT_THAT(run.console, Not(HasSubstr("process per side")));
  EXPECT_THAT(run.console, Not(HasSubstr("recommended")));
  EXPECT_THAT(run.console, HasSubstr("perf: 1 point slower"));
}

TEST_F(PerfProcessesE2eTest, APlantedOnePercentChangeAndAnAARerunAreNotFlagged) {
  for (const std::string version : {"s03", "s01"}) {
    const std::string dir = FreshDir("p3_" + version + "_" + std::to_string(getpid()));
    CommandRun run = Sweep(version, dir, reference_, 3);
    EXPECT_EQ(run.exit_code, 0) << version << ":\n" << run.console;
    EXPECT_THAT(run.console, Not(HasSubstr("slower by"))) << version;
  }
}

TEST(PerfBisectE2eTest, NamesTheVersionWithThePlantedSlowdown) {
  const std::string out = FreshDir("bisect");
  CommandRun run = Shell(ShellWord(GH_GPUHARNESS_BIN) + " bisect " + ShellWord(Matrix()) +
                         " --good s00 --bad s07 --hunt-metric time_median_us --threshold 5% "
                         "--direction higher-is-worse --out " + ShellWord(out));
  ASSERT_EQ(run.exit_code, 0) << run.console;
  EXPECT_THAT(run.console, HasSubstr("first bad: s05, last good: s04"));
  nlohmann::json summary = nlohmann::json::parse(ReadWholeFile(out + "/summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded());
  EXPECT_EQ(summary["answer"]["first_bad"], "s05");
  EXPECT_EQ(summary["answer"]["last_good"], "s04");
  // Rerunning resumes: every probe comes from the state file.
  CommandRun again = Shell(ShellWord(GH_GPUHARNESS_BIN) + " bisect " + ShellWord(Matrix()) +
                           " --good s00 --bad s07 --hunt-metric time_median_us --threshold 5% "
                           "--direction higher-is-worse --out " + ShellWord(out));
  EXPECT_EQ(again.exit_code, 0) << again.console;
  EXPECT_THAT(again.console, HasSubstr("first bad: s05, last good: s04"));
}

TEST(PerfBisectE2eTest, PerfFlagsAreCheckedBeforeAnythingRuns) {
  const std::string out = FreshDir("bad_flags");
  CommandRun run = Shell(ShellWord(GH_GPUHARNESS_BIN) + " bisect " + ShellWord(Matrix()) +
                         " --good s00 --bad s07 --hunt-metric time_median_us --threshold lots --out " + ShellWord(out));
  EXPECT_EQ(run.exit_code, 2) << run.console;
  EXPECT_THAT(run.console, HasSubstr("--threshold: expected a percentage"));
  run = Shell(ShellWord(GH_GPUHARNESS_BIN) + " bisect " + ShellWord(Matrix()) +
              " --good s00 --bad s07 --hunt-metric time_median_us --direction sideways --out " + ShellWord(out));
  EXPECT_EQ(run.exit_code, 2) << run.console;
  EXPECT_THAT(run.console, HasSubstr("--direction: expected lower-is-worse or higher-is-worse, got 'sideways'"));
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
