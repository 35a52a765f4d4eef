// Records the driver writes for runs a job never recorded (cell_records.h): they are made by the
// same constructor as the job's own (core MakeRecord) and judged on the job's facts, so a crash
// in the last trial cannot change a point's verdict rule or its expectation.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/fingerprint.h"
#include "harness/core/records_file.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/testdata/fake_kinds.h"
#include "harness/core/testdata/temp_dir.h"
#include "harness/driver/cell_records.h"
#include "harness/core/comparison.h"

namespace gh::driver {
namespace {

namespace fs = std::filesystem;

class SynthesizedRecordTest : public gh::testing::TempDirTest {
 protected:
  const std::string run_dir_ = temp_dir();

  // The scenario and every point it expands to at 2 ranks.
  void Load(const std::string& yaml) {
    absl::StatusOr<std::vector<ScenarioSpec>> specs =
        LoadScenarioText(yaml, "scenarios/s.yaml", registry_);
    ASSERT_TRUE(specs.ok()) << specs.status();
    files_ = {JobScenarioFile{
        "scenarios/s.yaml",
        std::make_shared<const std::vector<ScenarioSpec>>(*std::move(specs)), {}}};
    absl::StatusOr<std::vector<ExpectedPoint>> expected = ExpectedPoints(files_, 2);
    ASSERT_TRUE(expected.ok()) << expected.status();
    expected_ = *std::move(expected);
  }

  // What `gpuharness run` leaves: environment.json, and a passing record of each of `runs`
  // (point index, trial) judged on the job's own facts.
  void WriteJob(const EnvironmentFingerprint& fp, const std::vector<std::pair<int, int>>& runs) {
    ASSERT_TRUE(WriteFileAtomically(run_dir_ + "/environment.json", fp.ToJson().dump(2)).ok());
    std::vector<Record> records;
    for (const auto& [index, trial] : runs) {
      const ExpectedPoint& p = expected_[static_cast<size_t>(index)];
      records.push_back(MakeRecord(*p.spec, p.file, p.point, trial, fp.Facts()));
    }
    ASSERT_TRUE(WriteRecordsFile(run_dir_ + "/records.jsonl", records).ok());
  }

  // The job died by SIGSEGV without recording the rest.
  JobEnd Crashed() const {
    JobEnd end;
    end.exit.signaled = true;
    end.exit.signal = SIGSEGV;
    end.log_path = run_dir_ + "/job.log";
    end.run_dir = run_dir_;
    return end;
  }

  // mpirun's account of rank 1 SIGKILLed from outside; the job exited 137.
  JobEnd Rank1KilledByMpirun() const {
    JobEnd end;
    end.exit.code = 137;
    end.log_path = run_dir_ + "/job.log";
    end.run_dir = run_dir_;
    EXPECT_TRUE(WriteFileAtomically(end.log_path,
                                    "mpirun noticed that process rank 1 with PID 77 on node n1 exited "
                                    "on signal 9 (Killed).\n")
                    .ok());
    return end;
  }

  static EnvironmentFingerprint CudaJob() {
    EnvironmentFingerprint fp;
    fp.backend = "cuda";
    fp.nranks = 2;
    fp.nccl_runtime = "2.28.9";
    fp.env = {{"NCCL_PROTO", "LL"}};
    return fp;
  }

  ScenarioRegistry registry_ = testing::MakeFakeRegistry();
  std::vector<JobScenarioFile> files_;  // the expected points point at its specs
  std::vector<ExpectedPoint> expected_;
  JobRecordsInfo info_{"auto", 2, false, {{"proto", "ll"}}, {}};
};

TEST_F(SynthesizedRecordTest, ACrashedLastTrialKeepsTheVerdictRuleAndDescription) {
  Load("name: s\nkind: fake_ring\ndescription: flaky by design\ntrials: 5\n"
       "verdict: {failure_rate_above: 0.2}\n");
  ASSERT_EQ(expected_.size(), 1u);
  WriteJob(CudaJob(), {{0, 0}, {0, 1}, {0, 2}, {0, 3}});
  absl::StatusOr<std::vector<Record>> records = CollectJobRecords(expected_, Crashed(), info_);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 5u);
  const Record& last = records->back();
  EXPECT_EQ(last.trial, 4);
  EXPECT_EQ(last.trials, 5);
  EXPECT_EQ(last.result.outcome, Outcome::kCrash);
  EXPECT_EQ(last.result.signature, "crash: job killed by SIGSEGV");
  EXPECT_EQ(last.verdict.kind, TrialVerdictRule::Kind::kFailureRateAbove);
  EXPECT_EQ(last.verdict.threshold, 0.2);
  EXPECT_EQ(last.description, "flaky by design");
  EXPECT_EQ(last.backend, "cuda");  // the job's, from its environment.json
  EXPECT_EQ(last.cell, (std::map<std::string, std::string>{{"proto", "ll"}}));
  // It says so in the file too, and the point is judged by its own rule: 1 of 5 is not above 0.2.
  const nlohmann::json line = nlohmann::json::parse(RecordJsonLine(last));
  EXPECT_EQ(line["verdict"], (nlohmann::json{{"failure_rate_above", 0.2}}));
  EXPECT_EQ(line["description"], "flaky by design");
  std::vector<PointTrials> points = AggregateTrials(*records);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].verdict.kind, TrialVerdictRule::Kind::kFailureRateAbove);
  EXPECT_EQ(points[0].failed, 1);
  EXPECT_TRUE(points[0].expectation_met());
}

// The scenario's expectation depends on an environment variable and on NCCL's version, facts
// the driver does not have but the job's environment.json does.
constexpr char kFactRules[] =
    "name: s\nkind: fake_ring\nparams:\n  bytes: [1K, 1M]\n"
    "expect:\n"
    "  - when: {env: {NCCL_PROTO: LL}, bytes: 1K}\n"
    "    outcome: crash\n"
    "    reason: LL crashes small messages\n"
    "  - when: {nccl: \">=2.28.4\", bytes: 1M}\n"
    "    outcome: crash\n"
    "    reason: 2.28.4 broke large ones\n";

TEST_F(SynthesizedRecordTest, ExpectationIsTheOneTheJobWouldHavePicked) {
  Load(kFactRules);
  ASSERT_EQ(expected_.size(), 2u);
  const EnvironmentFingerprint job = CudaJob();
  WriteJob(job, {});
  absl::StatusOr<std::vector<Record>> records = CollectJobRecords(expected_, Crashed(), info_);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const ExpectedPoint& p = expected_[i];
    const Record own = MakeRecord(*p.spec, p.file, p.point, 0, job.Facts());
    const Record& synthesized = (*records)[i];
    EXPECT_EQ(synthesized.point, own.point);
    EXPECT_EQ(synthesized.expected.outcome, Outcome::kCrash) << i;
    EXPECT_EQ(synthesized.expected.reason, own.expected.reason) << i;
    EXPECT_TRUE(synthesized.matched) << i;  // the crash was expected
  }
  EXPECT_EQ((*records)[0].expected.reason, "LL crashes small messages");
  EXPECT_EQ((*records)[1].expected.reason, "2.28.4 broke large ones");
}

TEST_F(SynthesizedRecordTest, WithoutEnvironmentJsonTheDriversFactsDecide) {
  Load(kFactRules);
  // The job died before writing anything: the cell's variables stand in for the job's.
  info_.env = {"PATH=/usr/bin", "NCCL_PROTO=LL"};
  absl::StatusOr<std::vector<Record>> records = CollectJobRecords(expected_, Crashed(), info_);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[0].expected.reason, "LL crashes small messages");
  EXPECT_TRUE((*records)[0].matched);
  EXPECT_EQ((*records)[1].expected.outcome, Outcome::kPass);  // no NCCL version known
  EXPECT_FALSE((*records)[1].matched);
  EXPECT_EQ((*records)[1].backend, "auto");

  const EnvironmentFacts facts = DriverKnownFacts(info_);
  EXPECT_EQ(facts.values, (std::map<std::string, std::string>{{"backend", "auto"},
                                                              {"nranks", "2"},
                                                              {"gpu_shared", "false"},
                                                              {"env.NCCL_PROTO", "LL"}}));
}

TEST_F(SynthesizedRecordTest, AMalformedEnvironmentJsonIsAnErrorNamingIt) {
  Load(kFactRules);
  ASSERT_TRUE(WriteFileAtomically(run_dir_ + "/environment.json", "{\"backend\": 1}").ok());
  absl::StatusOr<std::vector<Record>> records = CollectJobRecords(expected_, Crashed(), info_);
  ASSERT_FALSE(records.ok());
  EXPECT_EQ(records.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(records.status().message(),
            run_dir_ + "/environment.json: backend: expected a string");
}

// Issue 15 item 2: a launcher that exits 1 at once (`false`, or mpirun refusing root) records
// nothing. Its points become infra, which meets no expectation: not even `expect: crash`.
TEST_F(SynthesizedRecordTest, ALauncherThatExitsAtOnceIsInfraAndMeetsNoExpectation) {
  Load("name: s\nkind: fake_ring\nparams:\n  bytes: [1K, 1M]\nexpect: crash\n");
  ASSERT_EQ(expected_.size(), 2u);
  JobEnd end;
  end.exit.code = 1;
  end.log_path = run_dir_ + "/job.log";
  end.run_dir = run_dir_;
  ASSERT_TRUE(WriteFileAtomically(end.log_path,
                                  "-----\nmpirun has detected an attempt to run as root.\n-----\n")
                  .ok());
  absl::StatusOr<std::vector<Record>> records = CollectJobRecords(expected_, end, info_);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 2u);
  for (const Record& r : *records) {
    EXPECT_EQ(r.result.outcome, Outcome::kInfra);
    EXPECT_EQ(r.result.signature,
              "infrastructure: mpirun has detected an attempt to run as root. (job exited with status 1)");
    EXPECT_EQ(r.expected.outcome, Outcome::kCrash);
    EXPECT_FALSE(r.matched);
  }
  EXPECT_EQ(ComparisonExitStatus(CompareResults(*records, nullptr)), 3);
  // Nothing ran: nothing to continue (it would fail the same way).
  absl::StatusOr<Continuation> next = PlanContinuation(expected_, end);
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_TRUE(next->empty());
}

// Issue 15 item 4: a rank SIGKILLed from outside leaves no crash note; mpirun SIGTERMs rank 0,
// whose crash guard records the run in flight as "killed by SIGTERM". mpirun's log names the
// rank and the signal, and the record says so.
TEST_F(SynthesizedRecordTest, TheRunInFlightNamesTheRankMpirunSawKilled) {
  Load("name: s\nkind: fake_ring\nparams:\n  bytes: [1K, 1M, 2M]\n");
  ASSERT_EQ(expected_.size(), 3u);
  const EnvironmentFingerprint fp = CudaJob();
  std::vector<Record> written;
  for (int i = 0; i < 2; ++i) {
    const ExpectedPoint& p = expected_[static_cast<size_t>(i)];
    written.push_back(MakeRecord(*p.spec, p.file, p.point, 0, fp.Facts()));
  }
  PointOutcome in_flight;  // as FillCrashRecord leaves it when no rank left a note
  in_flight.outcome = Outcome::kCrash;
  in_flight.signature = "killed by SIGTERM";
  for (int rank = 0; rank < 2; ++rank) {
    RankOutcome r;
    r.rank = rank;
    r.outcome = Outcome::kCrash;
    r.signature = "no crash report (SIGTERM ended the job)";
    in_flight.ranks.push_back(r);
  }
  SetResult(written[1], in_flight);
  ASSERT_TRUE(WriteFileAtomically(run_dir_ + "/environment.json", fp.ToJson().dump(2)).ok());
  ASSERT_TRUE(WriteRecordsFile(run_dir_ + "/records.jsonl", written).ok());
  const JobEnd end = Rank1KilledByMpirun();
  absl::StatusOr<std::vector<Record>> records = CollectJobRecords(expected_, end, info_);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 3u);
  EXPECT_EQ((*records)[0].result.outcome, Outcome::kPass);
  const Record& killed = (*records)[1];
  EXPECT_EQ(killed.result.outcome, Outcome::kCrash);
  EXPECT_EQ(killed.result.signature, "crash: rank 1 killed by SIGKILL (job exited with status 137)");
  ASSERT_EQ(killed.result.ranks.size(), 2u);
  EXPECT_EQ(killed.result.ranks[0].signature, "no crash report (SIGTERM ended the job)");
  EXPECT_EQ(killed.result.ranks[1].signature, "killed by SIGKILL (as mpirun reported)");
  EXPECT_FALSE(killed.matched);
  // The point after it is continued, not charged with the crash.
  absl::StatusOr<Continuation> next = PlanContinuation(expected_, end);
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->keys, (std::set<RunKey>{RunKey{expected_[2].point.name, 0}}));
}

// A rank killed before the job recorded anything (the fault test's seed 199965198): the first
// run is the one in flight and takes the crash; every other run is continued, not charged.
TEST_F(SynthesizedRecordTest, ARankKilledBeforeAnyRecordChargesOnlyTheFirstRun) {
  Load("name: s\nkind: fake_ring\nparams:\n  bytes: [1K, 1M, 2M]\n");
  ASSERT_EQ(expected_.size(), 3u);
  const JobEnd end = Rank1KilledByMpirun();
  absl::StatusOr<Continuation> next = PlanContinuation(expected_, end);
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->keys, (std::set<RunKey>{RunKey{expected_[1].point.name, 0},
                                          RunKey{expected_[2].point.name, 0}}));
  absl::StatusOr<std::vector<Record>> records = CollectJobRecords(expected_, end, info_);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_FALSE(records->empty());
  EXPECT_EQ((*records)[0].point, expected_[0].point.name);
  EXPECT_EQ((*records)[0].result.outcome, Outcome::kCrash);
  EXPECT_EQ((*records)[0].result.signature, "crash: rank 1 killed by SIGKILL (job exited with status 137)");
}

// The run a job died in carries its wall time as the driver knows it: from the end of the job's
// last record (or the job's start) to the job's end, or from its own start when rank 0's crash
// guard recorded it; the runs after it never started.
TEST_F(SynthesizedRecordTest, TheRunInFlightTakesItsWallTimeTheRunsAfterItNone) {
  Load("name: s\nkind: fake_ring\nparams:\n  bytes: [1K, 1M, 2M]\n");
  ASSERT_EQ(expected_.size(), 3u);
  const absl::Time t0 = absl::FromUnixSeconds(1796000000);
  JobEnd end = Crashed();
  end.started = t0;
  end.ended = t0 + absl::Seconds(10);
  // Run 0 started 1 s into the job and took 2.5 s: run 1 began at 3.5 s and ran until the end.
  Record first = MakeRecord(*expected_[0].spec, expected_[0].file, expected_[0].point, 0, CudaJob().Facts());
  first.started_at = absl::FormatTime(absl::RFC3339_full, t0 + absl::Seconds(1), absl::UTCTimeZone());
  first.duration_s = 2.5;
  ASSERT_TRUE(WriteRecordsFile(run_dir_ + "/records.jsonl", {first}).ok());
  absl::StatusOr<std::vector<Record>> records = CollectJobRecords(expected_, end, info_);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 3u);
  EXPECT_EQ((*records)[1].point, expected_[1].point.name);
  EXPECT_EQ((*records)[1].result.outcome, Outcome::kCrash);
  EXPECT_DOUBLE_EQ((*records)[1].duration_s, 6.5);
  EXPECT_EQ((*records)[2].point, expected_[2].point.name);
  EXPECT_EQ((*records)[2].duration_s, 0);

  // Nothing recorded: the first run began with the job. A record whose time lies outside the
  // job's (another clock) is not believed either.
  ASSERT_TRUE(WriteRecordsFile(run_dir_ + "/records.jsonl", {}).ok());
  records = CollectJobRecords(expected_, end, info_);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_DOUBLE_EQ((*records)[0].duration_s, 10);
  EXPECT_EQ((*records)[1].duration_s, 0);
  first.started_at = absl::FormatTime(absl::RFC3339_full, t0 + absl::Seconds(20), absl::UTCTimeZone());
  ASSERT_TRUE(WriteRecordsFile(run_dir_ + "/records.jsonl", {first}).ok());
  records = CollectJobRecords(expected_, end, info_);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_DOUBLE_EQ((*records)[1].duration_s, 10);

  // A job that recorded its own crash of the run it died in: the runs after it never started.
  first.started_at = absl::FormatTime(absl::RFC3339_full, t0 + absl::Seconds(1), absl::UTCTimeZone());
  PointOutcome crash;
  crash.outcome = Outcome::kCrash;
  crash.signature = "crash on rank 0: SIGSEGV";
  SetResult(first, crash);
  ASSERT_TRUE(WriteRecordsFile(run_dir_ + "/records.jsonl", {first}).ok());
  records = CollectJobRecords(expected_, end, info_);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_DOUBLE_EQ((*records)[0].duration_s, 2.5);  // it said how long it ran
  EXPECT_EQ((*records)[1].duration_s, 0);
  EXPECT_EQ((*records)[2].duration_s, 0);

  // Rank 0's crash guard wrote it when the run began (0 s): it ran from its start to the end.
  first.duration_s = 0;
  ASSERT_TRUE(WriteRecordsFile(run_dir_ + "/records.jsonl", {first}).ok());
  records = CollectJobRecords(expected_, end, info_);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_DOUBLE_EQ((*records)[0].duration_s, 9);
  EXPECT_EQ((*records)[1].duration_s, 0);
}

}  // namespace
}  // namespace gh::driver
