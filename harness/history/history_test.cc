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
#include "harness/history/history_db.h"
#include "harness/history/history_ingest.h"
#include "harness/history/history_queries.h"
#include "harness/history/testdata/history_fixture.h"

namespace gh {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using testing::HistoryTest;
using testing::kP2p;
using testing::kPut;

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
  auto histories = LoadHistories(db, {kP2p});
  ASSERT_TRUE(histories.ok());
  ASSERT_EQ(histories->size(), 1u);
  ASSERT_EQ((*histories)[0].nights.size(), 4u);
  EXPECT_EQ((*histories)[0].nights[0].night, "night0");
  EXPECT_TRUE((*histories)[0].nights[0].metrics.empty());
  EXPECT_DOUBLE_EQ((*histories)[0].nights[1].metrics.at("time_median_us"), 13.0);
  EXPECT_EQ((*histories)[0].nights[0].expected, "");  // rows from before version 3 do not know it
  EXPECT_EQ((*histories)[0].nights[0].Described(), "pass");
  EXPECT_EQ((*histories)[0].nights[1].expected, "pass");
}

TEST_F(HistoryTest, QueriesOpenReadOnlyAndUpgradeAnOlderSchemaFirst) {
  { HistoryDb db = OpenDb(); ThreeNights(db); }
  const auto before = fs::last_write_time(db_path_);
  {
    absl::StatusOr<HistoryDb> db = HistoryDb::Open(db_path_, HistoryDb::Mode::kQuery);
    ASSERT_TRUE(db.ok()) << db.status();
    EXPECT_EQ(*db->CountRows("results"), 6);
    EXPECT_FALSE(db->Exec("DELETE FROM results").ok());  // a query's connection cannot write
  }
  EXPECT_EQ(fs::last_write_time(db_path_), before);
  fs::remove(db_path_);
  { absl::StatusOr<HistoryDb> v2 = HistoryDb::Open(db_path_, HistoryDb::Mode::kCreate, 2); ASSERT_TRUE(v2.ok()); }
  absl::StatusOr<HistoryDb> db = HistoryDb::Open(db_path_, HistoryDb::Mode::kQuery);
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ(*db->SchemaVersion(), HistorySchemaVersion());
}

TEST_F(HistoryTest, NotAResultsDirectoryIsAnError) {
  HistoryDb db = OpenDb();
  absl::StatusOr<IngestResult> r = IngestDirectory(db, root_.string(), "x");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr(absl::StrCat(root_.string(), ": not a sweep, bisect or night directory")));
}

}  // namespace
}  // namespace gh
