// What ingest stores: a directory's records as they stand now (a rerun supersedes), a bisect's
// trials once each with their version, night labels checked, a torn last line reported.
#include "harness/history/history_ingest.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/history/history_findings.h"
#include "harness/history/history_queries.h"
#include "harness/history/testdata/history_fixture.h"

namespace gh {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::HistoryTest;
using testing::kP2p;
using testing::kPut;
using testing::NightRecord;

// `sweep --rerun-failed` replaces a rerun point's records in records.jsonl (MergeRerunRecords):
// ingesting the night again must leave only the new ones, metrics included.
TEST_F(HistoryTest, RerunFailedSupersedesTheEarlierRecords) {
  HistoryDb db = OpenDb();
  Record failed = NightRecord(kP2p, "n08", 0, Outcome::kFail);
  failed.started_at = "2026-12-01T02:00:00Z";
  const std::string dir = WriteRecords("night2", {failed, NightRecord(kPut, "n08", 0, Outcome::kPass)}, {"n08"});
  Ingest(db, dir, "night2");
  Record rerun = NightRecord(kP2p, "n08", 0, Outcome::kPass);
  rerun.started_at = "2026-12-01T03:00:00Z";
  WriteRecords("night2", {rerun, NightRecord(kPut, "n08", 0, Outcome::kPass)}, {"n08"});
  absl::StatusOr<IngestResult> again = IngestDirectory(db, dir, "night2");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->added, 1);
  EXPECT_EQ(again->superseded, 1);
  EXPECT_EQ(*db.CountRows("results"), 2);
  EXPECT_EQ(*db.CountRows("metrics"), 2);
  auto histories = LoadHistories(db, {kP2p});
  ASSERT_TRUE(histories.ok());
  ASSERT_EQ(histories->size(), 1u);
  ASSERT_EQ((*histories)[0].nights.size(), 1u);
  EXPECT_EQ((*histories)[0].nights[0].verdict, "pass");
  EXPECT_THAT((*histories)[0].nights[0].outcomes, ElementsAre("pass"));
  EXPECT_FALSE((*histories)[0].nights[0].unmet);
  EXPECT_TRUE(FindFlaky(*histories).empty());
  EXPECT_TRUE(FindBroken(*histories).empty());
}

// A bisect leaves probes/<config>/trial<k>/records.jsonl (labelled, beside job.json) and the
// job's own job/records.jsonl (the same runs, unlabelled): each run is stored once, with the
// version of its trial, also when its record's cell does not name it.
TEST_F(HistoryTest, BisectTrialsAreStoredOnceWithTheirVersion) {
  const fs::path bisect = root_ / "bisect1";
  auto trial = [&](const std::string& config, const std::string& trial_dir, const std::string& version,
                   Outcome outcome, bool labelled) {
    const fs::path dir = bisect / "probes" / config / trial_dir;
    fs::create_directories(dir / "job");
    Record r = NightRecord(kP2p, version, 0, outcome);
    r.started_at = absl::StrCat("2026-12-01T00:00:00Z-", config, trial_dir);
    Record unlabelled = r;
    unlabelled.cell.clear();
    ASSERT_TRUE(WriteRecordsFile((dir / "records.jsonl").string(), {labelled ? r : unlabelled}).ok());
    ASSERT_TRUE(WriteRecordsFile((dir / "job" / "records.jsonl").string(), {unlabelled}).ok());
    ASSERT_TRUE(WriteFileAtomically((dir / "job.json").string(),
                                    absl::StrCat(R"({"config":")", version, R"(","version":")", version, R"("})")).ok());
  };
  trial("n05-p0", "trial0", "n05", Outcome::kPass, true);
  trial("n05-p0", "trial1", "n05", Outcome::kPass, false);
  trial("n06-p1", "trial0", "n06", Outcome::kFail, true);
  trial("n06-p1", "trial0.retry1", "n06", Outcome::kFail, true);
  ASSERT_TRUE(WriteFileAtomically((bisect / "summary.json").string(),
                                  R"({"kind":"bisect","matrix":"ci/nightly.yaml","version_axis":"nightly"})").ok());
  HistoryDb db = OpenDb();
  absl::StatusOr<IngestResult> r = IngestDirectory(db, bisect.string(), "night2");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->directories, 4);
  EXPECT_EQ(r->added, 4);
  Statement s = *Statement::Prepare(db, "SELECT kind, matrix, cell, version, outcome FROM results ORDER BY id");
  std::vector<std::string> rows;
  while (*s.Step()) rows.push_back(absl::StrCat(s.Text(0), " ", s.Text(1), " [", s.Text(2), "] ", s.Text(3), " ", s.Text(4)));
  EXPECT_THAT(rows, ElementsAre("bisect nightly [transport=p2p] n05 pass", "bisect nightly [] n05 pass",
                                "bisect nightly [transport=p2p] n06 fail", "bisect nightly [transport=p2p] n06 fail"));
}

TEST_F(HistoryTest, NightDirectoryIngestsSweepsAndBisects) {
  const fs::path night = root_ / "nights" / "night2";
  fs::create_directories(night / "bisect" / "nightly-1" / "probes" / "n06-p0" / "trial0");
  WriteSweep("nights/night2/nightly", "n08", {{kP2p, {Outcome::kFail}}});
  fs::copy_file(root_ / "nights/night2/nightly/records.jsonl", night / "bisect/nightly-1/probes/n06-p0/trial0/records.jsonl");
  ASSERT_TRUE(WriteFileAtomically((night / "bisect/nightly-1/summary.json").string(),
                                  R"({"kind":"bisect","matrix":"tests/nightly.yaml","version_axis":"nightly"})").ok());
  ASSERT_TRUE(WriteFileAtomically((night / "nightly.json").string(),
                                  R"({"schema_version":1,"night":"night2","version":"n08"})").ok());
  HistoryDb db = OpenDb();
  absl::StatusOr<IngestResult> r = IngestDirectory(db, night.string(), "");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->night, "night2");
  EXPECT_EQ(r->directories, 2);
  EXPECT_EQ(r->added, 2);
  Statement s = *Statement::Prepare(db, "SELECT kind, matrix, cell, version FROM results ORDER BY kind");
  ASSERT_TRUE(*s.Step());
  EXPECT_EQ(absl::StrCat(s.Text(0), " ", s.Text(1), " ", s.Text(2), " ", s.Text(3)), "bisect nightly transport=p2p n08");
  ASSERT_TRUE(*s.Step());
  EXPECT_EQ(absl::StrCat(s.Text(0), " ", s.Text(1), " ", s.Text(2), " ", s.Text(3)), "sweep nightly transport=p2p n08");
}

TEST_F(HistoryTest, NightLabelsAreCheckedWhereverTheyComeFrom) {
  const std::string dir = WriteSweep("n1", "n03", {{kP2p, {Outcome::kPass}}});
  for (const std::string& bad : {std::string("a\tb"), std::string("a\nb"), std::string("\x1b[31mred"),
                                 std::string("bad\xff"), std::string("a,b")}) {
    absl::StatusOr<IngestBatch> batch = ReadIngestDirectory(dir, bad);
    ASSERT_FALSE(batch.ok()) << "accepted --night " << bad;
    EXPECT_TRUE(absl::IsInvalidArgument(batch.status()));
    EXPECT_THAT(batch.status().message(), HasSubstr("--night: label '"));
  }
  const fs::path night = root_ / "badnight";
  fs::create_directories(night / "nightly");
  fs::copy_file(fs::path(dir) / "records.jsonl", night / "nightly" / "records.jsonl");
  ASSERT_TRUE(WriteFileAtomically((night / "nightly.json").string(), "{\"night\": \"x\\ty\"}").ok());
  absl::StatusOr<IngestBatch> from_file = ReadIngestDirectory(night.string(), "");
  ASSERT_FALSE(from_file.ok());
  EXPECT_THAT(from_file.status().message(), HasSubstr((night / "nightly.json").string() + ": night: label 'x\\x09y'"));
  ASSERT_TRUE(WriteFileAtomically((night / "nightly.json").string(), R"({"night": 7})").ok());
  EXPECT_THAT(ReadIngestDirectory(night.string(), "").status().message(),
              HasSubstr((night / "nightly.json").string() + ": night: expected a string"));
  ASSERT_TRUE(WriteFileAtomically((night / "nightly.json").string(), R"({"schema_version": 2, "night": "n"})").ok());
  EXPECT_THAT(ReadIngestDirectory(night.string(), "").status().message(),
              HasSubstr((night / "nightly.json").string() + ": schema_version: 2 is newer than this gpuharness reads (1)"));
}

TEST_F(HistoryTest, ATornLastLineIsReportedAndTheRestIngested) {
  const std::string dir = WriteSweep("n1", "n03", {{kP2p, {Outcome::kPass}}, {kPut, {Outcome::kPass}}});
  { std::ofstream(dir + "/records.jsonl", std::ios::app) << R"({"schema_version":1,"point":"ring_sh)"; }
  absl::StatusOr<IngestBatch> batch = ReadIngestDirectory(dir, "night1");
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_THAT(batch->warnings, ElementsAre(dir + "/records.jsonl: skipped 1 partial last line (a killed writer's); "
                                                 "the records before it were read"));
  HistoryDb db = OpenDb();
  absl::StatusOr<IngestResult> r = IngestBatchInto(db, *batch);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->added, 2);
  const CommandRun run = History({"ingest", dir, "--night", "night1", "--db", db_path_});
  EXPECT_EQ(run.exit, 0);
  EXPECT_THAT(run.err, HasSubstr("gpuharness history: warning: " + dir + "/records.jsonl: skipped 1 partial last line"));
}

}  // namespace
}  // namespace gh
