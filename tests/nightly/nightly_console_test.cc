// What the nightly's console says, end to end on the host backend under mpirun: the FAILED
// lines (exact text and order) of `run` and `sweep`, a resumed sweep's counts, --filter,
// --rerun-failed and --fresh (asserted on the records), and progress off and on a terminal.
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/core/testdata/temp_dir.h"
#include "tests/common/shell_run.h"
#include "nlohmann/json.hpp"

namespace gh {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using Console = testing::CommandRun;

std::string TempDir() { return testing::MakeKeptTempDir("gh_nightly"); }

// `command` through the shell, stdout and stderr to `log`, stdin from /dev/null.
Console Shell(const std::string& command, const std::string& log) {
  return testing::RunLogged(command, log);
}

Console Gpuharness(const std::string& args, const std::string& log) {
  return Shell(std::string(GH_GPUHARNESS_BIN) + " " + args, log);
}

std::vector<Record> Records(const std::string& path) {
  absl::StatusOr<RecordsFileContents> c = ReadRecordsFile(path);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? c->records : std::vector<Record>{};
}

// The console's lines that start with `word`, in order.
std::string LinesStartingWith(const std::string& text, const std::string& word) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, word)) absl::StrAppend(&out, line, "\n");
  }
  return out;
}

// The console without the evidence under each FAILED line (its lines start with four spaces):
// the FAILED lines and what follows them, as they run together.
std::string WithoutEvidence(const std::string& text) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, "    ")) absl::StrAppend(&out, line, "\n");
  }
  return out;
}

// The FAILED line of an unmet record that expected a pass, as docs/reference/reports.md words it.
std::string FailedLine(const Record& r, const std::string& cell) {
  const std::string outcome(OutcomeName(r.result.outcome));
  const std::string what = absl::StartsWith(r.result.signature, outcome + ":")
                               ? r.result.signature
                               : absl::StrCat(outcome, ": ", r.result.signature);
  return absl::StrCat("FAILED ", cell, cell.empty() ? "" : " :: ", r.point, " — ", what, " (expected pass)\n");
}

const Record* Find(const std::vector<Record>& records, const std::string& cell, const std::string& fault) {
  for (const Record& r : records) {
    if (r.cell.at("v") == cell && r.params.value("fault", "") == fault) return &r;
  }
  ADD_FAILURE() << "no record of " << cell << " " << fault;
  return nullptr;
}

// Two cells that differ only in an environment variable, three points each: one passes, one
// returns wrong data, one crashes (the last, so that no continuation job is needed); nothing is
// expected to fail.
std::string WritePlantedSweep(const std::string& tmp) {
  EXPECT_TRUE(WriteFileAtomically(tmp + "/planted.yaml",
                                  "name: planted\nkind: ring_shift\n"
                                  "params: {fault: [none, corrupt_element, crash], bytes: 4K, fault_rank: 1, "
                                  "transport: mpi_p2p}\ntimeout: 60s\nwarmup: 0\niterations: 1\n")
                  .ok());
  EXPECT_TRUE(WriteFileAtomically(tmp + "/m.yaml",
                                  "name: planted\nscenarios: [planted.yaml]\n"
                                  "defaults: {backend: host, ranks: 2, timeout: 2m}\n"
                                  "axes:\n  - name: v\n    values:\n"
                                  "      - {label: a, env: {GH_NIGHTLY_TEST: a}}\n"
                                  "      - {label: b, env: {GH_NIGHTLY_TEST: b}}\n")
                  .ok());
  return tmp + "/m.yaml";
}

// The crashes first (cell a, then b), then the wrong data; nothing for the passes.
std::string ExpectedFailedLines(const std::vector<Record>& records) {
  std::string out;
  for (const char* fault : {"crash", "corrupt_element"}) {
    for (const char* cell : {"a", "b"}) {
      if (const Record* r = Find(records, cell, fault)) out += FailedLine(*r, std::string("v=") + cell);
    }
  }
  return out;
}

TEST(NightlyConsole, SweepEndsWithFailedLinesAndAResumeCountsEveryRecord) {
  const std::string tmp = TempDir();
  const std::string matrix = WritePlantedSweep(tmp);
  const std::string out = tmp + "/out";
  Console first = Gpuharness("sweep " + matrix + " --out " + out, tmp + "/first.log");
  EXPECT_EQ(first.exit_code, 1);
  std::vector<Record> records = Records(out + "/records.jsonl");
  ASSERT_EQ(records.size(), 6u);
  ASSERT_EQ(Find(records, "a", "crash")->result.outcome, Outcome::kCrash);
  ASSERT_EQ(Find(records, "b", "corrupt_element")->result.outcome, Outcome::kFail);
  const std::string expected = ExpectedFailedLines(records);
  EXPECT_EQ(LinesStartingWith(first.console, "FAILED"), expected);
  EXPECT_EQ(LinesStartingWith(first.console, "PASSED"), "");
  EXPECT_THAT(first.console, HasSubstr("; 4 unmet expectations\n"));
  EXPECT_THAT(first.console, HasSubstr("cells: 2 run, 0 resumed, 0 set-up failed, 2 with failures"));
  // The FAILED lines come right before the headline.
  EXPECT_THAT(WithoutEvidence(first.console), HasSubstr(expected + "6 points (6 trials)"));
  // Under each, the failing rank and where it was.
  EXPECT_THAT(first.console, HasSubstr("(expected pass)\n    rank 1 on "));

  // repro names the cell it chose among those that recorded the point, and lists the others.
  const Record* corrupt_a = Find(records, "a", "corrupt_element");
  Console repro = Gpuharness("repro " + out + " " + corrupt_a->point + " --out " + tmp + "/repro.sh", tmp + "/repro.log");
  EXPECT_EQ(repro.exit_code, 0);
  EXPECT_THAT(repro.console, HasSubstr(absl::StrCat("gpuharness repro: ", corrupt_a->point,
                                                 " is recorded in 2 cells; this script reproduces v=a (fail: ",
                                                 corrupt_a->result.signature, "); the others: v=b (fail)\n")));

  // Resumed: nothing runs, and the counts are the records', not this invocation's.
  Console resumed = Gpuharness("sweep " + matrix + " --out " + out, tmp + "/resumed.log");
  EXPECT_EQ(resumed.exit_code, 1);
  EXPECT_EQ(LinesStartingWith(resumed.console, "FAILED"), expected);
  EXPECT_THAT(resumed.console, HasSubstr("; 4 unmet expectations\n"));
  EXPECT_THAT(resumed.console, HasSubstr("cells: 0 run, 2 resumed, 0 set-up failed, 2 with failures"));
  EXPECT_THAT(resumed.console, HasSubstr("6/6 points, 2/2 cells done, 0 running, 2 failed"));

  // -v: the passes too, after the failures.
  Console verbose = Gpuharness("sweep " + matrix + " --out " + out + " -v", tmp + "/verbose.log");
  EXPECT_EQ(LinesStartingWith(verbose.console, "PASSED"),
            absl::StrCat("PASSED v=a :: ", Find(records, "a", "none")->point, "\nPASSED v=b :: ",
                         Find(records, "b", "none")->point, "\n"));
  EXPECT_THAT(WithoutEvidence(verbose.console), HasSubstr(expected + "PASSED v=a"));
}

TEST(NightlyConsole, RerunFailedRerunsOnlyTheUnmetPointsAndFreshStartsOver) {
  const std::string tmp = TempDir();
  const std::string matrix = WritePlantedSweep(tmp);
  const std::string out = tmp + "/out";
  ASSERT_EQ(Gpuharness("sweep " + matrix + " --out " + out, tmp + "/first.log").exit_code, 1);
  const std::vector<Record> before = Records(out + "/records.jsonl");
  ASSERT_EQ(before.size(), 6u);

  Console rerun = Gpuharness("sweep " + matrix + " --out " + out + " --rerun-failed", tmp + "/rerun.log");
  EXPECT_EQ(rerun.exit_code, 1);
  EXPECT_THAT(rerun.console, HasSubstr("--rerun-failed: 4 point runs in 2 cells to rerun\n"));
  EXPECT_THAT(rerun.console, HasSubstr("cells: 2 run (2 for their failed points), 0 resumed"));
  const std::vector<Record> after = Records(out + "/records.jsonl");
  ASSERT_EQ(after.size(), 6u);
  for (size_t i = 0; i < after.size(); ++i) {
    // The same points in the same order; only the failed ones ran again.
    EXPECT_EQ(after[i].point, before[i].point);
    EXPECT_EQ(after[i].cell, before[i].cell);
    const bool failed = before[i].result.outcome != Outcome::kPass;
    if (failed) {
      EXPECT_NE(after[i].started_at, before[i].started_at) << after[i].point;
    } else {
      EXPECT_EQ(after[i].started_at, before[i].started_at) << after[i].point;
    }
  }
  // Each cell's job was told exactly its two runs.
  for (const char* cell : {"v=a", "v=b"}) {
    nlohmann::json cell_json = nlohmann::json::parse(
        ReadFileToString(out + "/cells/" + cell + "/cell.json").value_or("{}"), nullptr, false);
    ASSERT_TRUE(cell_json.is_object());
    const std::vector<std::string> argv = cell_json["jobs"][0]["argv"];
    EXPECT_NE(std::find(argv.begin(), argv.end(), "--runs"), argv.end()) << cell;
  }
  EXPECT_EQ(LinesStartingWith(rerun.console, "FAILED"), ExpectedFailedLines(after));

  Console clash = Gpuharness("sweep " + matrix + " --out " + out + " --rerun-failed --fresh", tmp + "/clash.log");
  EXPECT_EQ(clash.exit_code, 2);
  EXPECT_THAT(clash.console, HasSubstr("--fresh and --rerun-failed"));

  ASSERT_TRUE(MakeDirectories(out + "/cells/stale").ok());
  ASSERT_TRUE(WriteFileAtomically(out + "/cells/stale/records.jsonl", "left over\n").ok());
  Console fresh = Gpuharness("sweep " + matrix + " --out " + out + " --fresh", tmp + "/fresh.log");
  EXPECT_EQ(fresh.exit_code, 1);
  EXPECT_THAT(fresh.console, HasSubstr("cells: 2 run, 0 resumed"));
  const std::vector<Record> again = Records(out + "/records.jsonl");
  ASSERT_EQ(again.size(), 6u);
  for (size_t i = 0; i < again.size(); ++i) EXPECT_NE(again[i].started_at, after[i].started_at);
  EXPECT_FALSE(ReadFileToString(out + "/cells/stale/records.jsonl").ok());

  Console nowhere = Gpuharness("sweep " + matrix + " --out " + tmp + "/none --rerun-failed", tmp + "/nowhere.log");
  EXPECT_EQ(nowhere.exit_code, 2);
  EXPECT_THAT(nowhere.console, HasSubstr("--rerun-failed: " + tmp + "/none holds no sweep results to rerun from"));
}

TEST(NightlyConsole, FilterNarrowsTheWholeSweepAndResumesUnderTheSameFilter) {
  const std::string tmp = TempDir();
  const std::string matrix = WritePlantedSweep(tmp);
  const std::string out = tmp + "/out";
  Console filtered = Gpuharness("sweep " + matrix + " --out " + out + " --filter '*fault=none*'", tmp + "/f.log");
  EXPECT_EQ(filtered.exit_code, 0);
  std::vector<Record> records = Records(out + "/records.jsonl");
  ASSERT_EQ(records.size(), 2u);
  for (const Record& r : records) EXPECT_EQ(r.params.value("fault", ""), "none");
  EXPECT_THAT(filtered.console, HasSubstr("2 points (2 trials): 2 pass; 0 unmet expectations"));
  EXPECT_EQ(LinesStartingWith(filtered.console, "FAILED"), "");
  const std::string junit = ReadFileToString(out + "/junit.xml").value_or("");
  EXPECT_THAT(junit, Not(HasSubstr("corrupt_element")));

  Console again = Gpuharness("sweep " + matrix + " --out " + out + " --filter '*fault=none*'", tmp + "/g.log");
  EXPECT_THAT(again.console, HasSubstr("cells: 0 run, 2 resumed"));
  Console whole = Gpuharness("sweep " + matrix + " --out " + out, tmp + "/w.log");
  EXPECT_THAT(whole.console, HasSubstr("cells: 2 run, 0 resumed"));
  EXPECT_EQ(Records(out + "/records.jsonl").size(), 6u);
  // Against a whole baseline, the filtered sweep compares its own points only.
  Console against = Gpuharness("sweep " + matrix + " --out " + tmp + "/out2 --filter '*fault=none*' --baseline " + out,
                               tmp + "/b.log");
  EXPECT_EQ(against.exit_code, 0);
  EXPECT_THAT(against.console, HasSubstr("vs baseline: 0 regressions, 0 fixes, 0 changed signatures, 0 new, 0 vanished"));

  Console none = Gpuharness("sweep " + matrix + " --out " + tmp + "/nothing --filter 'zzz*'", tmp + "/n.log");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.console, HasSubstr("--filter 'zzz*': matches no point of the matrix"));
  EXPECT_FALSE(ReadFileToString(tmp + "/nothing/sweep.json").ok());
}

// One cell whose one point hangs until its 4 s timeout.
std::string WriteStallSweep(const std::string& tmp) {
  EXPECT_TRUE(WriteFileAtomically(tmp + "/stall.yaml",
                                  "name: hang\nkind: ring_shift\nparams: {fault: stall, bytes: 4K, "
                                  "fault_rank: 1, transport: mpi_p2p}\ntimeout: 4s\nwarmup: 0\niterations: 1\n")
                  .ok());
  EXPECT_TRUE(WriteFileAtomically(tmp + "/m.yaml",
                                  "name: stall\nscenarios: [stall.yaml]\n"
                                  "defaults: {backend: host, ranks: 2, timeout: 2m}\n"
                                  "axes: [{name: c, values: [x]}]\n")
                  .ok());
  return tmp + "/m.yaml";
}

TEST(NightlyConsole, OffATerminalHeartbeatsNameThePointAndNothingIsRedrawn) {
  const std::string tmp = TempDir();
  const std::string matrix = WriteStallSweep(tmp);
  Console plain = Gpuharness("sweep " + matrix + " --out " + tmp + "/out --heartbeat 1s", tmp + "/plain.log");
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_THAT(plain.console, HasSubstr("[heartbeat] 0/1 points, 0/1 cells done, 1 running, 0 failed, "));
  EXPECT_THAT(plain.console, HasSubstr("; running: c=x: hang/"));
  EXPECT_THAT(plain.console, HasSubstr("\n[1/1] c=x: 0/1 pass, 1 unmet"));
  EXPECT_EQ(plain.console.find('\r'), std::string::npos);
  EXPECT_EQ(plain.console.find('\033'), std::string::npos);
}

TEST(NightlyConsole, OnATerminalTheLineIsRedrawnInPlaceAndNoColorIsHonoured) {
  if (system("script --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1) for a pty";
  const std::string tmp = TempDir();
  const std::string matrix = WriteStallSweep(tmp);
  auto on_pty = [&](const std::string& env, const std::string& out, const std::string& log) {
    // script(1) gives the sweep a terminal; CI is unset there so the line is live.
    return Shell("env -u CI " + env + " TERM=xterm script -qec \"" + std::string(GH_GPUHARNESS_BIN) + " sweep " +
                     matrix + " --out " + out + "\" /dev/null",
                 log);
  };
  Console colored = on_pty("", tmp + "/c", tmp + "/color.log");
  EXPECT_THAT(colored.console, HasSubstr("\r\033[K0/1 points, 0/1 cells done, 1 running"));
  EXPECT_THAT(colored.console, HasSubstr("\033[1;31mFAILED\033[0m c=x :: hang/"));
  Console no_color = on_pty("NO_COLOR=1", tmp + "/n", tmp + "/nocolor.log");
  EXPECT_THAT(no_color.console, HasSubstr("\r\033[K0/1 points, 0/1 cells done, 1 running"));
  EXPECT_THAT(no_color.console, HasSubstr("\nFAILED c=x :: hang/"));
  EXPECT_EQ(no_color.console.find("\033[1;31m"), std::string::npos);
  Console in_ci = on_pty("CI=true", tmp + "/ci", tmp + "/ci.log");
  EXPECT_EQ(in_ci.console.find('\033'), std::string::npos);
  EXPECT_THAT(in_ci.console, HasSubstr("[1/1] c=x: 0/1 pass, 1 unmet"));
}

// `run` prints each point once as it ends, then only what failed and the tally; -v adds the
// table of every point.
TEST(NightlyConsole, RunPrintsEachPassOnceAndEndsWithTheFailedLines) {
  const std::string tmp = TempDir();
  ASSERT_TRUE(WriteFileAtomically(tmp + "/s.yaml",
                                  "name: planted\nkind: ring_shift\n"
                                  "params: {fault: [none, corrupt_element], bytes: 4K, fault_rank: 1, "
                                  "transport: mpi_p2p}\ntimeout: 60s\nwarmup: 0\niterations: 1\n")
                  .ok());
  const std::string mpirun = "mpirun --oversubscribe -np 2 ";
  Console run = Shell(mpirun + GH_GPUHARNESS_BIN + " run " + tmp + "/s.yaml --out " + tmp + "/out --backend host",
                      tmp + "/run.log");
  EXPECT_EQ(run.exit_code, 1);
  std::vector<Record> records = Records(tmp + "/out/records.jsonl");
  ASSERT_EQ(records.size(), 2u);
  const Record& pass = records[0].result.outcome == Outcome::kPass ? records[0] : records[1];
  const Record& fail = records[0].result.outcome == Outcome::kPass ? records[1] : records[0];
  ASSERT_EQ(fail.result.outcome, Outcome::kFail);
  // Plain, even where mpirun gives the ranks a pty.
  EXPECT_EQ(LinesStartingWith(run.console, "FAILED"), FailedLine(fail, ""));
  EXPECT_EQ(run.console.find('\033'), std::string::npos);
  EXPECT_THAT(run.console, HasSubstr(FailedLine(fail, "") + "    rank 1 on "));
  EXPECT_THAT(run.console, HasSubstr("fail in step 'verify'\n2 points: 1 pass, 1 fail; 1 unmet expectation\n"));
  // The pass: its live line only, no table row.
  size_t mentions = 0;
  for (size_t at = run.console.find(pass.point); at != std::string::npos; at = run.console.find(pass.point, at + 1)) {
    ++mentions;
  }
  EXPECT_EQ(mentions, 1u);
  EXPECT_THAT(run.console, Not(HasSubstr("signature")));

  Console verbose = Shell(mpirun + GH_GPUHARNESS_BIN + " run " + tmp + "/s.yaml --out " + tmp +
                              "/out2 --backend host -v",
                          tmp + "/verbose.log");
  EXPECT_THAT(verbose.console, HasSubstr("outcome"));
  EXPECT_THAT(verbose.console, HasSubstr("signature"));
  EXPECT_THAT(verbose.console, HasSubstr("2 points: 1 pass, 1 fail; 1 unmet expectation\n"));
}

}  // namespace
}  // namespace gh
