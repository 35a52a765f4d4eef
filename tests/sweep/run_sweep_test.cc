// `gpuharness sweep` end to end on the host backend under mpirun: real jobs, real records.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

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

using Sweep = testing::CommandRun;

std::string TempDir() { return testing::MakeKeptTempDir("gh_sweep_test"); }

std::string Source(const std::string& path) { return std::string(GH_SOURCE_DIR) + "/" + path; }

bool Exists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

// `gpuharness sweep ARGS`, its console to `log`.
Sweep RunSweep(const std::string& args, const std::string& log) {
  return testing::RunLogged(std::string(GH_GPUHARNESS_BIN) + " sweep " + args, log);
}

std::vector<Record> Records(const std::string& dir) {
  absl::StatusOr<RecordsFileContents> c = ReadRecordsFile(dir + "/records.jsonl");
  EXPECT_TRUE(c.ok()) << c.status();
  if (!c.ok()) return {};
  EXPECT_EQ(c->torn_lines, 0);
  return c->records;
}

// The demo matrix: 2 transports x 2 rank counts, 8 points each (4 dtypes x 4K, 4M), all pass;
// then the same command again runs nothing and changes nothing.
TEST(SweepE2E, DemoMatrixRecordsCarryCellLabelsAndResumeRunsNothing) {
  std::string tmp = TempDir();
  std::string out = tmp + "/demo";
  Sweep first = RunSweep(Source("matrices/demo.yaml") + " --out " + out, tmp + "/first.log");
  ASSERT_EQ(first.exit_code, 0);
  EXPECT_THAT(first.console, HasSubstr("[4/4] "));  // CI=true: one line per finished cell
  EXPECT_THAT(first.console, HasSubstr("cells: 4 run, 0 resumed"));
  std::vector<Record> records = Records(out);
  ASSERT_EQ(records.size(), 32u);
  std::map<std::string, int> per_cell;
  for (const Record& r : records) {
    ASSERT_EQ(r.cell.size(), 2u) << r.point;
    const std::string& transport = r.cell.at("transport");
    const std::string& np = r.cell.at("np");
    ++per_cell[transport + "," + np];
    EXPECT_THAT(r.point, HasSubstr("/transport=" + transport + "/")) << r.point;
    EXPECT_THAT(r.point, HasSubstr("/np=" + np)) << r.point;
    EXPECT_EQ(r.nranks, std::stoi(np));
    EXPECT_EQ(r.backend, "host");
    EXPECT_EQ(r.result.outcome, Outcome::kPass) << r.point << ": " << r.result.signature;
    EXPECT_TRUE(r.matched);
  }
  EXPECT_EQ(per_cell, (std::map<std::string, int>{
                          {"mpi_p2p,2", 8}, {"mpi_p2p,4", 8}, {"mpi_put,2", 8}, {"mpi_put,4", 8}}));
  nlohmann::json sweep = nlohmann::json::parse(ReadFileToString(out + "/sweep.json").value_or("{}"));
  ASSERT_EQ(sweep["cells"].size(), 4u);
  for (const auto& cell : sweep["cells"]) EXPECT_EQ(cell["status"], "done");
  for (const char* f : {"junit.xml", "summary.md", "report.html",
                        "cells/transport=mpi_put,np=4/environment.json",
                        "cells/transport=mpi_put,np=4/job.log"}) {
    EXPECT_TRUE(Exists(out + "/" + f)) << f;
  }
  std::string before = ReadFileToString(out + "/records.jsonl").value_or("");

  Sweep second = RunSweep(Source("matrices/demo.yaml") + " --out " + out, tmp + "/second.log");
  EXPECT_EQ(second.exit_code, 0);
  EXPECT_THAT(second.console, HasSubstr("cells: 0 run, 4 resumed"));
  EXPECT_EQ(ReadFileToString(out + "/records.jsonl").value_or(""), before);
}

// One cell whose job cannot start MPI (a bogus PML) against a baseline where it passed. Issue
// 15 item 3 named the old verdict (a crash, a regression, exit 1) a defect: nothing of the code
// ran, so the point is infra, quoting Open MPI, no regression, an <error> in junit.xml, exit 3.
TEST(SweepE2E, AnMpiStartUpFailureAgainstABaselineIsInfraNotARegression) {
  std::string tmp = TempDir();
  auto matrix = [&](const std::string& path, const std::string& extra_env) {
    ASSERT_TRUE(WriteFileAtomically(
                    path, "name: reg\nscenarios:\n  - file: " + Source("scenarios/ring_shift.yaml") +
                              "\n    points: [\"*/bytes=4K/dtype=f32/transport=mpi_p2p/*\"]\n"
                              "defaults: {backend: host, timeout: 2m" + extra_env + "}\n"
                              "axes: [{name: np, values: [{label: \"2\", ranks: 2}]}]\n")
                    .ok());
  };
  matrix(tmp + "/good.yaml", "");
  matrix(tmp + "/bad.yaml", ", env: {OMPI_MCA_pml: no_such_pml}");
  Sweep base = RunSweep(tmp + "/good.yaml --out " + tmp + "/base", tmp + "/base.log");
  ASSERT_EQ(base.exit_code, 0);
  Sweep now = RunSweep(tmp + "/bad.yaml --out " + tmp + "/now --baseline " + tmp + "/base",
                       tmp + "/now.log");
  EXPECT_EQ(now.exit_code, 3);
  EXPECT_THAT(now.console, HasSubstr("1 infra; 1 unmet expectation; vs baseline: 0 regressions"));
  std::vector<Record> records = Records(tmp + "/now");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].point, "ring_shift/bytes=4K/dtype=f32/transport=mpi_p2p/np=2");
  EXPECT_EQ(records[0].result.outcome, Outcome::kInfra);
  EXPECT_THAT(records[0].result.signature, ::testing::StartsWith("infrastructure: "));
  EXPECT_THAT(records[0].result.signature, HasSubstr("(job exited with status"));
  EXPECT_EQ(records[0].cell.at("np"), "2");
  // An <error> of its cell's testcase; summary.md names the baseline as seen from DIR, never by
  // the machine's absolute path.
  const std::string junit = ReadFileToString(tmp + "/now/junit.xml").value_or("");
  EXPECT_THAT(junit, HasSubstr("classname=\"gpuharness.reg.ring_shift\" name=\"ring_shift/bytes=4K/dtype=f32/"
                               "transport=mpi_p2p/np=2 [np=2]\""));
  EXPECT_THAT(junit, HasSubstr("<error message=\"not run (infrastructure): "));
  EXPECT_THAT(junit, Not(HasSubstr("not run (infrastructure): infrastructure: ")));
  EXPECT_THAT(junit, Not(HasSubstr("<failure")));
  const std::string summary = ReadFileToString(tmp + "/now/summary.md").value_or("");
  EXPECT_THAT(summary, HasSubstr("../base"));
  EXPECT_THAT(summary, Not(HasSubstr(tmp + "/base")));
}

// A rank that dies by SIGSEGV: the runtime records the crashed point, the driver the rest.
// A job that hangs past the cell's timeout: its process group is killed, the points it never
// recorded become timeout records, and the sweep goes on.
TEST(SweepE2E, CrashAndHungJobsAreRecordedAndTheSweepGoesOn) {
  std::string tmp = TempDir();
  ASSERT_TRUE(WriteFileAtomically(
                  tmp + "/stall.yaml",
                  "name: hang\nkind: ring_shift\nparams: {fault: [stall, none], bytes: 4K, "
                  "fault_rank: 1, transport: mpi_p2p}\ntimeout: 600s\nwarmup: 0\niterations: 1\n")
                  .ok());
  ASSERT_TRUE(WriteFileAtomically(
                  tmp + "/m.yaml",
                  "name: faults\nscenarios: [" + Source("scenarios/selftest/ring_shift_crash.yaml") +
                      ", stall.yaml]\n"
                      "defaults: {backend: host, ranks: 2, timeout: 20s}\n"
                      "axes:\n  - name: which\n    values:\n"
                      "      - {label: crash, points: [\"selftest_ring_crash/*\"]}\n"
                      "      - {label: hang, points: [\"hang/*\"], timeout: 8s}\n")
                  .ok());
  Sweep s = RunSweep(tmp + "/m.yaml --out " + tmp + "/out --kill-grace 2s", tmp + "/sweep.log");
  EXPECT_EQ(s.exit_code, 1);  // the hang's points were expected to pass
  EXPECT_LT(s.seconds, 120);
  std::vector<Record> records = Records(tmp + "/out");
  ASSERT_EQ(records.size(), 4u);
  // By scenario and planted fault.
  std::map<std::string, Record> by;
  for (const Record& r : records) by[r.scenario + "/" + r.params.value("fault", "?")] = r;
  const Record& crashed = by.at("selftest_ring_crash/crash");
  EXPECT_EQ(crashed.result.outcome, Outcome::kCrash);
  EXPECT_THAT(crashed.result.signature, HasSubstr("SIGSEGV"));
  EXPECT_TRUE(crashed.matched);
  EXPECT_EQ(crashed.cell.at("which"), "crash");
  EXPECT_EQ(by.at("selftest_ring_crash/none").result.outcome, Outcome::kPass);
  for (const char* key : {"hang/stall", "hang/none"}) {
    const Record& r = by.at(key);
    EXPECT_EQ(r.result.outcome, Outcome::kTimeout) << key;
    EXPECT_EQ(r.result.signature, "cell timeout after 8s") << key;
    EXPECT_EQ(r.cell.at("which"), "hang");
  }
  // The runs the jobs died in took time, at most their job's: the killed one about its 8 s;
  // the run after it never started.
  auto job_wall = [&](const std::string& cell) {
    nlohmann::json done = nlohmann::json::parse(
        ReadFileToString(tmp + "/out/cells/which=" + cell + "/done.json").value_or("{}"), nullptr, false);
    return done.is_object() && done.contains("jobs") ? done["jobs"][0].value("wall_s", 0.0) : 0.0;
  };
  EXPECT_GT(by.at("hang/stall").duration_s, 6.0);
  EXPECT_LE(by.at("hang/stall").duration_s, job_wall("hang"));
  EXPECT_EQ(by.at("hang/none").duration_s, 0);
  EXPECT_GT(crashed.duration_s, 0);
  EXPECT_LE(crashed.duration_s, job_wall("crash"));
  // Nothing of the killed job survives: no gpuharness process still holds the cell's dir.
  std::string leftovers = tmp + "/ps.txt";
  std::system(("ps -eo args | grep -F '" + tmp + "/out/cells/which=hang' | grep -v grep > " +
               leftovers).c_str());
  EXPECT_EQ(ReadFileToString(leftovers).value_or("?"), "");
}

// A point that crashes, or hangs past its own timeout, costs that point only: the sweep
// continues the job (<job>.cont1, ...) with the runs it did not get to (docs/reference/sweep.md).
TEST(SweepE2E, ACrashOrAnInJobTimeoutCostsOnlyItsPoint) {
  std::string tmp = TempDir();
  ASSERT_TRUE(WriteFileAtomically(
                  tmp + "/faults.yaml",
                  "name: crash_first\nkind: ring_shift\nparams: {bytes: [4K, 8K], fault: [crash, "
                  "none], fault_rank: 1, transport: mpi_p2p}\ntimeout: 60s\nwarmup: 0\n"
                  "iterations: 1\nexpect:\n  - when: {fault: crash}\n    outcome: crash\n"
                  "  - pass\n---\n"
                  "name: stall_first\nkind: ring_shift\nparams: {fault: [stall, none], bytes: 4K, "
                  "fault_rank: 1, transport: mpi_p2p}\ntimeout: 3s\nwarmup: 0\niterations: 1\n"
                  "expect:\n  - when: {fault: stall}\n    outcome: timeout\n  - pass\n")
                  .ok());
  ASSERT_TRUE(WriteFileAtomically(tmp + "/m.yaml",
                                  "name: continue\nscenarios: [faults.yaml]\n"
                                  "defaults: {backend: host, ranks: 2, timeout: 120s}\n")
                  .ok());
  Sweep s = RunSweep(tmp + "/m.yaml --out " + tmp + "/out", tmp + "/sweep.log");
  EXPECT_EQ(s.exit_code, 0) << "every crash and timeout was expected, every other point passes";
  EXPECT_LT(s.seconds, 100);
  std::vector<std::string> got;
  for (const Record& r : Records(tmp + "/out")) {
    got.push_back(r.point + " " + std::string(OutcomeName(r.result.outcome)) +
                  (r.not_run ? " not_run" : ""));
  }
  EXPECT_THAT(got, ::testing::UnorderedElementsAre(
                       "crash_first/bytes=4K/transport=mpi_p2p/fault=crash/fault_rank=1/np=2 crash",
                       "crash_first/bytes=4K/transport=mpi_p2p/fault=none/fault_rank=1/np=2 pass",
                       "crash_first/bytes=8K/transport=mpi_p2p/fault=crash/fault_rank=1/np=2 crash",
                       "crash_first/bytes=8K/transport=mpi_p2p/fault=none/fault_rank=1/np=2 pass",
                       "stall_first/bytes=4K/transport=mpi_p2p/fault=stall/fault_rank=1/np=2 timeout",
                       "stall_first/bytes=4K/transport=mpi_p2p/fault=none/fault_rank=1/np=2 pass"));
  // The first job crashed in its first point; each crash and the timeout ended a job.
  const std::string cell = tmp + "/out/cells/all";
  nlohmann::json done = nlohmann::json::parse(ReadFileToString(cell + "/done.json").value_or("{}"));
  ASSERT_EQ(done["jobs"].size(), 4u) << done.dump(2);
  EXPECT_EQ(done["jobs"][0]["continued_runs"], 5);
  EXPECT_EQ(ReadFileToString(cell + "/job.cont1.runs").value_or(""),
            "crash_first/bytes=4K/transport=mpi_p2p/fault=none/fault_rank=1/np=2\t0\n"
            "crash_first/bytes=8K/transport=mpi_p2p/fault=crash/fault_rank=1/np=2\t0\n"
            "crash_first/bytes=8K/transport=mpi_p2p/fault=none/fault_rank=1/np=2\t0\n"
            "stall_first/bytes=4K/transport=mpi_p2p/fault=stall/fault_rank=1/np=2\t0\n"
            "stall_first/bytes=4K/transport=mpi_p2p/fault=none/fault_rank=1/np=2\t0\n");
  // The in-job timeout's job recorded the last point as not run; its continuation ran it.
  absl::StatusOr<RecordsFileContents> third =
      ReadRecordsFile(cell + "/job.cont2/records.jsonl");
  ASSERT_TRUE(third.ok()) << third.status();
  ASSERT_EQ(third->records.size(), 3u);
  EXPECT_EQ(third->records[1].result.outcome, Outcome::kTimeout);
  EXPECT_TRUE(third->records[2].not_run);
  EXPECT_EQ(third->records[2].result.signature,
            "not run: job aborted after a timeout in "
            "stall_first/bytes=4K/transport=mpi_p2p/fault=stall/fault_rank=1/np=2");
}

// Issue 15 item 1 under the real binary: one `points` filter per axis. Each cell's job is told
// exactly its runs (--runs), so the crash cells' crashes stay theirs: every cell records its
// one point, once, and no fault=none point gets a crash record.
TEST(SweepE2E, TwoPointFiltersPerCellRunOnlyThatCellsPoints) {
  std::string tmp = TempDir();
  ASSERT_TRUE(WriteFileAtomically(
                  tmp + "/faults.yaml",
                  "name: two_filters\nkind: ring_shift\nparams: {bytes: [4K, 8K], fault: [crash, "
                  "none], fault_rank: 1, transport: mpi_p2p}\ntimeout: 60s\nwarmup: 0\n"
                  "iterations: 1\nexpect:\n  - when: {fault: crash}\n    outcome: crash\n"
                  "  - pass\n")
                  .ok());
  ASSERT_TRUE(WriteFileAtomically(
                  tmp + "/m.yaml",
                  "name: two_filters\nscenarios: [faults.yaml]\n"
                  "defaults: {backend: host, ranks: 2, timeout: 120s}\naxes:\n"
                  "  - name: size\n    values: [{label: small, points: [\"*/bytes=4K/*\"]}, "
                  "{label: big, points: [\"*/bytes=8K/*\"]}]\n"
                  "  - name: fault\n    values: [{label: crash, points: [\"*/fault=crash/*\"]}, "
                  "{label: none, points: [\"*/fault=none/*\"]}]\n")
                  .ok());
  Sweep s = RunSweep(tmp + "/m.yaml --out " + tmp + "/out", tmp + "/sweep.log");
  EXPECT_EQ(s.exit_code, 0) << "the crashes were expected, the fault=none points pass";
  std::map<std::string, std::vector<std::string>> by_cell;  // cell -> "point outcome"
  for (const Record& r : Records(tmp + "/out")) {
    by_cell[r.cell.at("size") + "," + r.cell.at("fault")].push_back(
        r.point + " " + std::string(OutcomeName(r.result.outcome)));
  }
  const std::string tail = "/transport=mpi_p2p/fault=";
  EXPECT_THAT(by_cell["small,crash"],
              ::testing::ElementsAre("two_filters/bytes=4K" + tail + "crash/fault_rank=1/np=2 crash"));
  EXPECT_THAT(by_cell["small,none"],
              ::testing::ElementsAre("two_filters/bytes=4K" + tail + "none/fault_rank=1/np=2 pass"));
  EXPECT_THAT(by_cell["big,crash"],
              ::testing::ElementsAre("two_filters/bytes=8K" + tail + "crash/fault_rank=1/np=2 crash"));
  EXPECT_THAT(by_cell["big,none"],
              ::testing::ElementsAre("two_filters/bytes=8K" + tail + "none/fault_rank=1/np=2 pass"));
  EXPECT_EQ(by_cell.size(), 4u);
  // Each job ran its one point only: one record in its own records.jsonl.
  absl::StatusOr<RecordsFileContents> job =
      ReadRecordsFile(tmp + "/out/cells/size=small,fault=none/job/records.jsonl");
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_EQ(job->records.size(), 1u);
  EXPECT_EQ(job->records[0].result.outcome, Outcome::kPass);
}

TEST(SweepE2E, BadMatrixExitsTwoNamingTheLineAndWritesNothing) {
  std::string tmp = TempDir();
  ASSERT_TRUE(WriteFileAtomically(tmp + "/m.yaml",
                                  "name: bad\nscenarios: [" + Source("scenarios/ring_shift.yaml") +
                                      "]\naxes:\n  - name: np\n    values: [{label: \"2\", rank: 2}]\n")
                  .ok());
  Sweep s = RunSweep(tmp + "/m.yaml --out " + tmp + "/out", tmp + "/sweep.log");
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_THAT(s.console, HasSubstr(tmp + "/m.yaml:5:27: axes[0].values[0].rank: unknown key"));
  EXPECT_FALSE(Exists(tmp + "/out"));
}

}  // namespace
}  // namespace gh
