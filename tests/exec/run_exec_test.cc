// Whole-binary tests of kind exec on the host backend: alone (an MPI singleton) and under
// mpirun at 2 ranks, each running one of tests/exec_programs/ and asserting what the job wrote:
// records rank by rank (outcome, exact signature, output tail), the per-rank logs, what the
// program saw of its placeholders and environment, and that a timeout killed the whole group.
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/record.h"
#include "tests/common/harness_run.h"

namespace gh::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using Job = HarnessRun;

std::string Programs() { return std::string(GH_SOURCE_DIR) + "/tests/exec_programs"; }

Job RunJob(int np, const std::string& args) {
  return RunHarness(ArgsOptions(np, args + " --out {out}", GH_MPIRUN_BIN));
}

class ExecHost : public ::testing::TestWithParam<int> {
 protected:
  int np() const { return GetParam(); }
  std::string Np() const { return "np=" + std::to_string(np()); }
  int fault_rank() const { return 1 % np(); }
  std::string Run(const std::string& yaml) { return "run " + Programs() + "/" + yaml; }
  std::string LogOf(const Job& job, const std::string& scenario, int rank) {
    return ReadWholeFile(job.out_dir + "/logs/" + scenario + "/" + Np() + "/rank" +
                         std::to_string(rank) + ".log");
  }
  // Runs `yaml` at np() ranks into job_ and records_: it must exit 0 having recorded `count`
  // points (a fatal failure where not: call it under ASSERT_NO_FATAL_FAILURE).
  void RunCleanly(const std::string& yaml, size_t count) {
    job_ = RunJob(np(), Run(yaml));
    records_ = RecordsOfCleanRun(job_, count);
    ASSERT_EQ(records_.size(), count);
  }

  Job job_;
  std::vector<Record> records_;
};

INSTANTIATE_TEST_SUITE_P(Ranks, ExecHost, ::testing::Values(1, 2),
                         [](const auto& info) { return "np" + std::to_string(info.param); });

TEST_P(ExecHost, PassFillsEveryPlaceholderEnvAndWorkdirAndLogsEachRank) {
  ASSERT_NO_FATAL_FAILURE(RunCleanly("exec_pass.yaml", 1u));
  const Record& record = records_[0];
  EXPECT_EQ(record.kind, "exec");
  EXPECT_EQ(record.point, "exec_pass/" + Np());
  EXPECT_EQ(record.result.outcome, Outcome::kPass) << record.result.signature;
  EXPECT_TRUE(record.matched);
  ASSERT_EQ(record.result.ranks.size(), static_cast<size_t>(np()));
  std::string coordinator;
  for (int r = 0; r < np(); ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const RankOutcome& rank = record.result.ranks[r];
    EXPECT_EQ(rank.outcome, Outcome::kPass) << rank.signature;
    EXPECT_EQ(rank.signature, "");
    EXPECT_EQ(rank.output_tail, "") << "a passing rank keeps its output in the log only";
    ASSERT_EQ(rank.metrics.size(), 1u);
    EXPECT_EQ(rank.metrics[0].name, "command_s");
    EXPECT_GT(rank.metrics[0].value, 0);
    EXPECT_EQ(LogOf(job_, "exec_pass", r),
              "warming up\nprocess " + std::to_string(r) + ": ok\n");
    const std::string seen =
        ReadWholeFile(job_.out_dir + "/logs/exec_pass/" + Np() + "/seen.rank" + std::to_string(r));
    std::smatch m;
    const std::regex line(
        "^rank=(\\d+) nranks=(\\d+) local_rank=(\\d+) coordinator=(127\\.0\\.0\\.1:\\d+) "
        "cwd=(.*) probe=(.*)\n$");
    ASSERT_TRUE(std::regex_match(seen, m, line)) << seen;
    EXPECT_EQ(m[1].str(), std::to_string(r));
    EXPECT_EQ(m[2].str(), std::to_string(np()));
    EXPECT_EQ(m[3].str(), std::to_string(r)) << "one host: local rank = rank";
    if (r == 0) coordinator = m[4].str();
    EXPECT_EQ(m[4].str(), coordinator) << "every rank got rank 0's coordinator";
    EXPECT_NE(coordinator, "127.0.0.1:0");
    EXPECT_EQ(m[5].str(), Programs()) << "default workdir: the scenario file's directory";
    EXPECT_EQ(m[6].str(), "probe-" + std::to_string(r) + "-of-" + std::to_string(np()));
  }
}

TEST_P(ExecHost, SignatureRuleNamesTheFaultRanksErrorAndKeepsItsTail) {
  const Job job = RunJob(np(), Run("exec_fail.yaml"));
  EXPECT_EQ(job.exit_code, 0) << "expect {error, signature} was met\n" << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 1u) << job.console;
  const Record& record = records[0];
  EXPECT_EQ(record.result.outcome, Outcome::kError);
  EXPECT_THAT(record.result.signature, StartsWith("async_computation_precondition"));
  EXPECT_TRUE(record.matched);
  ASSERT_EQ(record.result.ranks.size(), static_cast<size_t>(np()));
  for (int r = 0; r < np(); ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const RankOutcome& rank = record.result.ranks[r];
    if (r == fault_rank()) {
      EXPECT_EQ(rank.outcome, Outcome::kError);
      EXPECT_EQ(rank.signature, "async_computation_precondition");
      EXPECT_EQ(rank.step, "exec");
      EXPECT_EQ(rank.output_tail,
                "process " + std::to_string(r) + ": starting\n"
                "jax.errors.JaxRuntimeError: FAILED_PRECONDITION: Buffer for all-gather-start.1 in "
                "async_computation is not ready\n");
    } else {
      EXPECT_EQ(rank.outcome, Outcome::kPass) << rank.signature;
      EXPECT_EQ(rank.output_tail, "");
    }
  }
}

TEST_P(ExecHost, SignalIsACrashNamingItAndTheRanksLastLines) {
  const Job job = RunJob(np(), Run("exec_crash.yaml"));
  EXPECT_EQ(job.exit_code, 0) << "expect {crash, SIGSEGV} was met\n" << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 1u) << job.console;
  EXPECT_EQ(records[0].result.outcome, Outcome::kCrash);
  ASSERT_EQ(records[0].result.ranks.size(), static_cast<size_t>(np()));
  const RankOutcome& crashed = records[0].result.ranks[fault_rank()];
  EXPECT_EQ(crashed.outcome, Outcome::kCrash);
  EXPECT_EQ(crashed.signature, "killed by SIGSEGV");
  EXPECT_EQ(crashed.output_tail,
            "process " + std::to_string(fault_rank()) + ": about to touch freed memory\n");
  if (np() > 1) {
    EXPECT_EQ(records[0].result.ranks[0].outcome, Outcome::kPass);
  }
}

// Alive means running or stopped: a zombie or a missing process is gone.
bool ProcessAlive(const std::string& pid) {
  const std::string stat = ReadWholeFile("/proc/" + pid + "/stat");
  if (stat.empty()) return false;
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z' &&
         stat[paren + 2] != 'X';
}

TEST_P(ExecHost, HangIsATimeoutThatKillsTheWholeProcessGroup) {
  const Job job = RunJob(np(), Run("exec_hang.yaml"));
  EXPECT_EQ(job.exit_code, 0) << "expect timeout was met\n" << job.console;
  EXPECT_LT(job.seconds, 6) << "the command's 2 s deadline, not the 6 s watchdog\n" << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 1u) << job.console;
  EXPECT_EQ(records[0].result.outcome, Outcome::kTimeout);
  ASSERT_EQ(records[0].result.ranks.size(), static_cast<size_t>(np()));
  for (int r = 0; r < np(); ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const RankOutcome& rank = records[0].result.ranks[r];
    EXPECT_EQ(rank.outcome, Outcome::kTimeout);
    EXPECT_THAT(rank.signature, StartsWith("timeout in exec: the command ran past 2"));
    EXPECT_THAT(rank.signature, HasSubstr("its process group was killed"));
    EXPECT_EQ(rank.output_tail, "process " + std::to_string(r) + ": waiting forever\n");
    std::string grandchild =
        ReadWholeFile(job.out_dir + "/logs/exec_hang/" + Np() + "/hang.rank" + std::to_string(r));
    while (!grandchild.empty() && grandchild.back() == '\n') grandchild.pop_back();
    ASSERT_FALSE(grandchild.empty());
    EXPECT_FALSE(ProcessAlive(grandchild)) << "the background sleep " << grandchild << " survived";
  }
}

TEST_P(ExecHost, GarbageWithoutThePassLineFailsWithAPrintableTail) {
  ASSERT_NO_FATAL_FAILURE(RunCleanly("exec_garbage.yaml", 1u));
  EXPECT_EQ(records_[0].result.outcome, Outcome::kFail);
  for (int r = 0; r < np(); ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const RankOutcome& rank = records_[0].result.ranks[r];
    EXPECT_EQ(rank.outcome, Outcome::kFail);
    EXPECT_EQ(rank.signature, "missing output: no line matches '^process " + std::to_string(r) +
                                  ": ok$'");
    EXPECT_EQ(rank.output_tail, "????garbage?[31m\n??\n" + std::string(300, '?') + "\n");
  }
}

TEST_P(ExecHost, SkipLineIsASkipWithItsReasonAndAMissingProgramAnError) {
  ASSERT_NO_FATAL_FAILURE(RunCleanly("exec_skip.yaml", 2u));
  EXPECT_EQ(records_[0].result.outcome, Outcome::kSkip);
  for (const RankOutcome& rank : records_[0].result.ranks) {
    EXPECT_EQ(rank.outcome, Outcome::kSkip);
    EXPECT_EQ(rank.signature, "need at least 8 devices, have " + std::to_string(np()));
    EXPECT_EQ(rank.output_tail, "");
  }
  EXPECT_EQ(records_[1].result.outcome, Outcome::kError);
  for (const RankOutcome& rank : records_[1].result.ranks) {
    EXPECT_EQ(rank.signature,
              "cannot run 'gh-no-such-program-anywhere': No such file or directory");
  }
}

TEST(ExecBadInput, UnknownPlaceholderAndBadRegexExitTwoNamingFileLineColumnAndKey) {
  const Job placeholder = RunJob(1, "run " + Programs() + "/exec_bad_placeholder.yaml");
  EXPECT_EQ(placeholder.exit_code, 2) << placeholder.console;
  EXPECT_THAT(placeholder.console,
              HasSubstr("exec_bad_placeholder.yaml:4:14: exec.argv[1]: unknown placeholder {rnak}"));
  EXPECT_EQ(ReadWholeFile(placeholder.out_dir + "/records.jsonl"), "") << "nothing written";
  const Job regex = RunJob(1, "run " + Programs() + "/exec_bad_regex.yaml");
  EXPECT_EQ(regex.exit_code, 2) << regex.console;
  EXPECT_THAT(regex.console,
              HasSubstr("exec_bad_regex.yaml:6:29: exec.signatures[0].regex: invalid regular "
                        "expression 'Cuda failure (1'"));
}

// std::regex recursed once per character: on a ~100 KB line gpuharness itself died of SIGSEGV,
// recorded as the scenario's crash in step classify. Through RE2 each point ends as the
// program did: the signature where the regex matches, the exit status where it does not.
TEST(ExecHugeOutput, OneMiBLineAndTenMiBOutputMatchOrNotWithoutCrashingTheHarness) {
  const Job job = RunJob(1, "run " + Programs() + "/exec_huge_output.yaml");
  EXPECT_EQ(job.exit_code, 0) << "expect error was met by every point\n" << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 4u) << job.console;
  const std::string precondition = "E: FAILED_PRECONDITION: Buffer for all-gather-start.1 ";
  struct Want {
    std::string variant, signature;
    size_t tail_size;
    std::string tail_end;
  };
  const std::vector<Want> wants = {
      {"line_match", "async_computation_precondition", 59 + (1u << 20) + 22, "h in async_computation\n"},
      {"line_nomatch", "exit status 1", 59 + (1u << 20) + 9, "hhh in main\n"},
      {"bulk_match", "async_computation_precondition", 0,
       precondition + "in async_computation is not ready\n"},
      {"bulk_nomatch", "exit status 1", 0, precondition + "is not ready\n"},
  };
  for (size_t i = 0; i < wants.size(); ++i) {
    const Want& want = wants[i];
    SCOPED_TRACE(want.variant);
    const Record& record = records[i];
    EXPECT_EQ(record.point, "exec_huge_output/variant=" + want.variant + "/np=1");
    EXPECT_EQ(record.result.outcome, Outcome::kError) << record.result.signature;
    EXPECT_EQ(record.result.signature, want.signature);
    EXPECT_TRUE(record.matched);
    ASSERT_EQ(record.result.ranks.size(), 1u);
    const RankOutcome& rank = record.result.ranks[0];
    EXPECT_EQ(rank.step, "exec") << "classify did not crash";
    EXPECT_EQ(rank.signature, want.signature);
    const std::string& tail = rank.output_tail;
    if (want.tail_size == 0) {
      EXPECT_EQ(tail, want.tail_end) << "tail_lines: 1";
    } else {
      EXPECT_EQ(tail.size(), want.tail_size) << "the whole 1 MiB line is the tail";
      EXPECT_THAT(tail, StartsWith("jax.errors.JaxRuntimeError: FAILED_PRECONDITION: verifier: hhh"));
      EXPECT_TRUE(tail.size() >= want.tail_end.size() &&
                  tail.compare(tail.size() - want.tail_end.size(), std::string::npos,
                               want.tail_end) == 0)
          << tail.substr(tail.size() - 40);
    }
  }
}

TEST(ExecJax, SingleDeviceProgramPassesOnCpuJax) {
  const std::string probe = std::string(GH_PYTHON3_BIN) + " -c 'import jax' > /dev/null 2>&1";
  if (std::string(GH_PYTHON3_BIN).empty() || std::system(probe.c_str()) != 0) {
    GTEST_SKIP() << "jax is not importable by python3 here (pip install jax to run this case)";
  }
  // The python3 that imports jax comes first in the PATH the ranks hand their commands.
  // (a pyenv shim picks its interpreter by directory: resolve the real one here).
  std::string python;
  if (FILE* pipe = popen((std::string(GH_PYTHON3_BIN) +
                          " -c 'import sys; print(sys.executable)'").c_str(), "r")) {
    char buffer[4096] = {};
    if (fgets(buffer, sizeof(buffer), pipe) != nullptr) python = buffer;
    pclose(pipe);
  }
  while (!python.empty() && python.back() == '\n') python.pop_back();
  ASSERT_FALSE(python.empty());
  const std::string path = python.substr(0, python.rfind('/')) + ":" + std::getenv("PATH");
  setenv("PATH", path.c_str(), 1);
  // A singleton: mpirun started by its absolute path puts its own prefix (/usr/bin) first in
  // PATH, which would pick another python3.
  const Job job = RunJob(1, "run " + Programs() + "/jax/jax_cpu.yaml");
  const std::vector<Record> records = RecordsOfCleanRun(job, 2u);
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    EXPECT_EQ(record.result.outcome, Outcome::kPass) << record.result.signature;
    for (const RankOutcome& rank : record.result.ranks) {
      EXPECT_EQ(rank.outcome, Outcome::kPass) << rank.signature << "\n" << rank.output_tail;
    }
  }
}

}  // namespace
}  // namespace gh::testing
