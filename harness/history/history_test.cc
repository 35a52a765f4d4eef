#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/history/history_command.h"
#include "harness/history/history_db.h"
#include "harness/history/history_ingest.h"
#include "harness/history/history_queries.h"
#include "harness/history/history_report.h"
#include "harness/report/report_html.h"
#include "harness/report/sweep_info.h"

namespace gh {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kP2p[] = "ring_shift/bytes=4K/dtype=i32/transport=mpi_p2p/np=2";
constexpr char kPut[] = "ring_shift/bytes=4K/dtype=i32/transport=mpi_put/np=2";

class HistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / absl::StrCat("gh-history-", getpid(), "-",
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    db_path_ = (root_ / "history.sqlite").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  // A sweep directory shaped like the nightly's: flag axis transport, version axis nightly.
  // `outcomes[point]` is one outcome per trial.
  std::string WriteSweep(const std::string& name, const std::string& version,
                         const std::vector<std::pair<std::string, std::vector<Outcome>>>& outcomes) {
    const fs::path dir = root_ / name;
    fs::create_directories(dir);
    auto writer = RecordsWriter::Open((dir / "records.jsonl").string());
    EXPECT_TRUE(writer.ok()) << writer.status();
    for (const auto& [point, trials] : outcomes) {
      for (size_t t = 0; t < trials.size(); ++t) {
        Record r;
        r.scenario = "ring_shift";
        r.kind = "ring_shift";
        r.point = point;
        r.backend = "host";
        r.trial = static_cast<int>(t);
        r.trials = static_cast<int>(trials.size());
        r.result.outcome = trials[t];
        if (trials[t] != Outcome::kPass) r.result.signature = "wrong data on ranks 1";
        r.result.metrics = {{"time_median_us", 10.0 + t + version.size(), "us"}};
        r.matched = trials[t] == Outcome::kPass;
        r.started_at = absl::StrCat("2026-12-01T00:00:0", t, "Z");
        r.cell = {{"transport", point == kP2p ? "p2p" : "put"}, {"nightly", version}};
        EXPECT_TRUE(writer->Append(r).ok());
      }
    }
    SweepInfo info;
    info.matrix_name = "nightly";
    info.axes = {{"transport", false, {"p2p", "put"}}, {"nightly", true, {version}}};
    EXPECT_TRUE(WriteFileAtomically((dir / "sweep.json").string(), info.ToJson().dump()).ok());
    return dir.string();
  }

  HistoryDb OpenDb() {
    absl::StatusOr<HistoryDb> db = HistoryDb::Open(db_path_, HistoryDb::Mode::kCreate);
    EXPECT_TRUE(db.ok()) << db.status();
    return std::move(*db);
  }

  void Ingest(HistoryDb& db, const std::string& dir, const std::string& night) {
    absl::StatusOr<IngestResult> r = IngestDirectory(db, dir, night);
    ASSERT_TRUE(r.ok()) << r.status();
  }

  // Three nights with the regression planted at night2 (p2p fails from then on).
  void ThreeNights(HistoryDb& db) {
    const auto pass = Outcome::kPass, fail = Outcome::kFail;
    Ingest(db, WriteSweep("n1", "n03", {{kP2p, {pass}}, {kPut, {pass}}}), "night1");
    Ingest(db, WriteSweep("n2", "n08", {{kP2p, {fail}}, {kPut, {pass}}}), "night2");
    Ingest(db, WriteSweep("n3", "n08", {{kP2p, {fail}}, {kPut, {pass}}}), "night3");
  }

  fs::path root_;
  std::string db_path_;
};

TEST_F(HistoryTest, FlipsNameThePlantedPointAndNight) {
  HistoryDb db = OpenDb();
  ThreeNights(db);
  auto histories = LoadHistories(db);
  ASSERT_TRUE(histories.ok()) << histories.status();
  std::vector<Flip> flips = FindFlips(*histories);
  ASSERT_EQ(flips.size(), 1u);
  EXPECT_EQ(flips[0].key.point, kP2p);
  EXPECT_EQ(flips[0].key.matrix, "nightly");
  EXPECT_EQ(flips[0].key.cell, "transport=p2p");
  EXPECT_EQ(flips[0].from, "pass");
  EXPECT_EQ(flips[0].to, "fail");
  EXPECT_EQ(flips[0].night, "night2");
  EXPECT_EQ(flips[0].version, "n08");
  EXPECT_EQ(flips[0].previous_night, "night1");
  EXPECT_EQ(flips[0].previous_version, "n03");
  EXPECT_EQ(flips[0].signature, "wrong data on ranks 1");
  EXPECT_EQ(FindFlips(*histories, "night2").size(), 1u);
  EXPECT_TRUE(FindFlips(*histories, "night3").empty());  // known by night 3: not new
  EXPECT_TRUE(FindFlaky(*histories).empty());             // one change is a flip, not flakiness
}

TEST_F(HistoryTest, FlakyFindsAlternatingPointsAndDisagreeingTrials) {
  HistoryDb db = OpenDb();
  const auto pass = Outcome::kPass, fail = Outcome::kFail;
  Ingest(db, WriteSweep("n1", "n01", {{kP2p, {pass}}, {kPut, {pass, pass}}}), "night1");
  Ingest(db, WriteSweep("n2", "n02", {{kP2p, {fail}}, {kPut, {pass, fail}}}), "night2");
  Ingest(db, WriteSweep("n3", "n03", {{kP2p, {pass}}, {kPut, {fail, fail}}}), "night3");
  auto histories = LoadHistories(db);
  ASSERT_TRUE(histories.ok());
  std::vector<Flaky> flaky = FindFlaky(*histories);
  ASSERT_EQ(flaky.size(), 2u);
  EXPECT_EQ(flaky[0].key.point, kP2p);
  EXPECT_EQ(flaky[0].changes, 2);
  EXPECT_EQ(flaky[0].strip, "pass fail pass");
  EXPECT_TRUE(flaky[0].mixed_nights.empty());
  EXPECT_EQ(flaky[1].key.point, kPut);
  EXPECT_EQ(flaky[1].changes, 1);
  EXPECT_EQ(flaky[1].mixed_nights, std::vector<std::string>{"night2"});
}

TEST_F(HistoryTest, IngestTwiceAddsNothing) {
  HistoryDb db = OpenDb();
  ThreeNights(db);
  auto results = db.CountRows("results"), metrics = db.CountRows("metrics"), sources = db.CountRows("sources");
  EXPECT_EQ(*results, 6);
  EXPECT_EQ(*metrics, 6);
  absl::StatusOr<IngestResult> again = IngestDirectory(db, (root_ / "n2").string(), "night2");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->records, 2);
  EXPECT_EQ(again->added, 0);
  EXPECT_EQ(*db.CountRows("results"), *results);
  EXPECT_EQ(*db.CountRows("metrics"), *metrics);
  EXPECT_EQ(*db.CountRows("sources"), *sources);
}

TEST_F(HistoryTest, TwoProcessesIngestingAtOnceBothLand) {
  const auto pass = Outcome::kPass;
  std::vector<std::string> dirs;
  for (int n = 0; n < 2; ++n) {
    std::vector<std::pair<std::string, std::vector<Outcome>>> points;
    for (int i = 0; i < 300; ++i) points.push_back({absl::StrCat(kPut, "/i=", i), {pass, pass}});
    dirs.push_back(WriteSweep(absl::StrCat("night", n), "n01", points));
  }
  std::vector<pid_t> children;
  for (int n = 0; n < 2; ++n) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {  // each child opens the (not yet existing) database itself
      absl::StatusOr<HistoryDb> db = HistoryDb::Open(db_path_, HistoryDb::Mode::kCreate);
      if (!db.ok()) {
        std::fprintf(stderr, "child %d: open: %s\n", n, std::string(db.status().message()).c_str());
        _exit(10);
      }
      absl::StatusOr<IngestResult> ingested = IngestDirectory(*db, dirs[n], absl::StrCat("night", n));
      if (!ingested.ok()) {
        std::fprintf(stderr, "child %d: ingest: %s\n", n, std::string(ingested.status().message()).c_str());
      }
      _exit(ingested.ok() ? 0 : 11);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child exit " << WEXITSTATUS(status);
  }
  HistoryDb db = OpenDb();
  EXPECT_EQ(*db.CountRows("results"), 1200);
  EXPECT_EQ(*db.CountRows("sources"), 2);
  EXPECT_EQ(*db.SchemaVersion(), HistorySchemaVersion());
}

TEST_F(HistoryTest, TruncatedDatabaseIsACleanErrorAndStaysUntouched) {
  {
    HistoryDb db = OpenDb();
    std::vector<std::pair<std::string, std::vector<Outcome>>> points;
    for (int i = 0; i < 200; ++i) points.push_back({absl::StrCat(kPut, "/i=", i), {Outcome::kPass}});
    Ingest(db, WriteSweep("n1", "n01", points), "night1");
    ASSERT_TRUE(db.Exec("PRAGMA wal_checkpoint(TRUNCATE)").ok());
  }
  fs::remove(db_path_ + "-wal");
  fs::remove(db_path_ + "-shm");
  const auto size = fs::file_size(db_path_);
  ASSERT_GT(size, 8192u);
  fs::resize_file(db_path_, size / 2);
  absl::StatusOr<HistoryDb> db = HistoryDb::Open(db_path_, HistoryDb::Mode::kCreate);
  ASSERT_FALSE(db.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(db.status())) << db.status();
  EXPECT_THAT(db.status().message(), HasSubstr(absl::StrCat(db_path_, ": not a gpuharness history database")));
  EXPECT_EQ(fs::file_size(db_path_), size / 2);
}

TEST_F(HistoryTest, ForeignFilesAreRefused) {
  {
    std::ofstream(db_path_) << "night,point,outcome\nnight1,x,pass\n";
  }
  absl::StatusOr<HistoryDb> text = HistoryDb::Open(db_path_, HistoryDb::Mode::kCreate);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(), absl::StrCat(db_path_, ": not a gpuharness history database (not an SQLite file)"));

  const std::string other = (root_ / "other.sqlite").string();
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(other.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE results(x); INSERT INTO results VALUES(1)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  const auto before = fs::file_size(other);
  absl::StatusOr<HistoryDb> foreign = HistoryDb::Open(other, HistoryDb::Mode::kCreate);
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.status().message(),
            absl::StrCat(other, ": not a gpuharness history database (an SQLite database of another application)"));
  EXPECT_EQ(fs::file_size(other), before);
}

TEST_F(HistoryTest, NewerSchemaIsRefused) {
  { HistoryDb db = OpenDb(); ASSERT_TRUE(db.Exec("PRAGMA user_version=99").ok()); }
  absl::StatusOr<HistoryDb> db = HistoryDb::Open(db_path_, HistoryDb::Mode::kCreate);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().message(), absl::StrCat(db_path_, ": history schema version 99 is newer than this gpuharness knows (",
                                                HistorySchemaVersion(), "); use a newer gpuharness"));
}

TEST_F(HistoryTest, MigratesFromVersionOneKeepingRows) {
  {
    absl::StatusOr<HistoryDb> v1 = HistoryDb::Open(db_path_, HistoryDb::Mode::kCreate, 1);
    ASSERT_TRUE(v1.ok()) << v1.status();
    EXPECT_EQ(*v1->SchemaVersion(), 1);
    ASSERT_TRUE(v1->Exec("INSERT INTO sources VALUES(1,'night0','sweep','nightly','/x','t');"
                         "INSERT INTO results VALUES(1,1,'night0','sweep','nightly','transport=p2p','" +
                         std::string(kP2p) + "','n01',0,'pass','',1,'2026-11-30T00:00:00Z',1.0)").ok());
    EXPECT_FALSE(v1->CountRows("metrics").ok());  // version 1 has no metrics table
  }
  HistoryDb db = OpenDb();
  EXPECT_EQ(*db.SchemaVersion(), HistorySchemaVersion());
  EXPECT_EQ(*db.CountRows("results"), 1);
  EXPECT_EQ(*db.CountRows("metrics"), 0);
  ThreeNights(db);
  auto histories = LoadHistories(db, kP2p);
  ASSERT_TRUE(histories.ok());
  ASSERT_EQ(histories->size(), 1u);
  ASSERT_EQ((*histories)[0].nights.size(), 4u);
  EXPECT_EQ((*histories)[0].nights[0].night, "night0");
  EXPECT_TRUE((*histories)[0].nights[0].metrics.empty());
  EXPECT_DOUBLE_EQ((*histories)[0].nights[1].metrics.at("time_median_us"), 13.0);
}

TEST_F(HistoryTest, NightDirectoryIngestsSweepsAndBisects) {
  const fs::path night = root_ / "nights" / "night2";
  fs::create_directories(night / "bisect" / "nightly-1" / "probes" / "n06-p0" / "trial0");
  WriteSweep("nights/night2/nightly", "n08", {{kP2p, {Outcome::kFail}}});
  fs::copy_file(root_ / "nights/night2/nightly/records.jsonl", night / "bisect/nightly-1/probes/n06-p0/trial0/records.jsonl");
  ASSERT_TRUE(WriteFileAtomically((night / "bisect/nightly-1/summary.json").string(),
                                  R"({"kind":"bisect","matrix":"tests/nightly.yaml","version_axis":"nightly"})").ok());
  ASSERT_TRUE(WriteFileAtomically((night / "nightly.json").string(), R"({"night":"night2","version":"n08"})").ok());
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

TEST_F(HistoryTest, NotAResultsDirectoryIsAnError) {
  HistoryDb db = OpenDb();
  absl::StatusOr<IngestResult> r = IngestDirectory(db, root_.string(), "x");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr(absl::StrCat(root_.string(), ": not a sweep, bisect or night directory")));
}

TEST_F(HistoryTest, ReportDrawsStripsAndTrends) {
  HistoryDb db = OpenDb();
  ThreeNights(db);
  std::string html = RenderHistoryHtml(*Nights(db), *LoadHistories(db));
  EXPECT_THAT(html, HasSubstr("nightly [transport=p2p] :: " + std::string(kP2p)));
  EXPECT_THAT(html, HasSubstr("<title>night2 (n08): fail — wrong data on ranks 1</title>"));
  EXPECT_THAT(html, HasSubstr("<polyline"));
  EXPECT_THAT(html, HasSubstr("time_median_us (us): 13 .. 13"));
  EXPECT_THAT(html, ::testing::Not(HasSubstr("<script")));
  EXPECT_THAT(html, ::testing::Not(HasSubstr("http")));
}

// A point name and a signature reach the page escaped as report.html escapes them (quotes
// included), so neither can close an element or an attribute.
TEST(HistoryReportTest, NamesAndSignaturesAreEscapedLikeTheSweepReport) {
  PointHistory h{.key = {"m<x>", "a=1", "p'\"&"}, .nights = {{.night = "n1", .verdict = "fail", .signature = "<b>'x'</b>"}}};
  const std::string html = RenderHistoryHtml({"n1"}, {h});
  EXPECT_THAT(html, HasSubstr(EscapeHtml(h.key.ToString())));
  EXPECT_THAT(html, HasSubstr("m&lt;x&gt; [a=1] :: p&#39;&quot;&amp;"));
  EXPECT_THAT(html, HasSubstr("fail — &lt;b&gt;&#39;x&#39;&lt;/b&gt;"));
  EXPECT_THAT(html, ::testing::Not(HasSubstr("<b>")));
}

int RunHistory(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return HistoryCommand(static_cast<int>(argv.size()), argv.data());
}

TEST_F(HistoryTest, CommandFlipsAndErrors) {
  { HistoryDb db = OpenDb(); ThreeNights(db); }
  testing::internal::CaptureStdout();
  EXPECT_EQ(RunHistory({"history", "flips", "--db", db_path_, "--format", "tsv"}), 0);
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            absl::StrCat("nightly\ttransport=p2p\t", kP2p, "\tpass\tfail\tnight2\tn08\tnight1\tn03\twrong data on ranks 1\n"));
  testing::internal::CaptureStderr();
  EXPECT_EQ(RunHistory({"history", "flips", "--db", db_path_, "--nigth", "x"}), 2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "gpuharness history: unknown flag --nigth; did you mean --night?\n");
  testing::internal::CaptureStderr();
  EXPECT_EQ(RunHistory({"history", "show", "nope", "--db", db_path_}), 2);
  EXPECT_THAT(testing::internal::GetCapturedStderr(), HasSubstr(absl::StrCat(db_path_, ": no point 'nope'")));
  testing::internal::CaptureStderr();
  EXPECT_EQ(RunHistory({"history", "flaky", "--db", (root_ / "missing.sqlite").string()}), 2);
  EXPECT_THAT(testing::internal::GetCapturedStderr(), HasSubstr("missing.sqlite: no history database"));
  EXPECT_FALSE(fs::exists(root_ / "missing.sqlite"));
}

}  // namespace
}  // namespace gh
