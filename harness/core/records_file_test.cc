#include "harness/core/records_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "gtest/gtest.h"
#include "harness/core/file_util.h"

namespace gh {
namespace {

class RecordsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/gh_records_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    path_ = dir_ + "/records.jsonl";
  }
  void TearDown() override {
    std::remove(path_.c_str());
    rmdir(dir_.c_str());
  }
  static Record Make(const std::string& point, Outcome outcome) {
    Record r;
    r.scenario = "s";
    r.point = point;
    r.result.outcome = outcome;
    r.result.signature = outcome == Outcome::kPass ? "" : "boom";
    return r;
  }
  void AppendText(const std::string& text) {
    std::ofstream out(path_, std::ios::app | std::ios::binary);
    out << text;
  }
  std::string dir_, path_;
};

TEST_F(RecordsFileTest, AppendsOneLinePerRecordAndReadsThemBack) {
  {
    absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(path_);
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE(writer->Append(Make("s/np=1", Outcome::kPass)).ok());
    ASSERT_TRUE(writer->Append(Make("s/np=2", Outcome::kCrash)).ok());
  }
  {  // Reopening appends rather than truncating.
    absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(path_);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(writer->Append(Make("s/np=4", Outcome::kFail)).ok());
  }
  absl::StatusOr<std::string> text = ReadFileToString(path_);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(std::count(text->begin(), text->end(), '\n'), 3);
  EXPECT_EQ(text->back(), '\n');
  EXPECT_EQ(text->substr(0, text->find('\n')), RecordToJson(Make("s/np=1", Outcome::kPass)).dump());

  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path_);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(contents->torn_lines, 0);
  ASSERT_EQ(contents->records.size(), 3u);
  EXPECT_EQ(contents->records[0].point, "s/np=1");
  EXPECT_EQ(contents->records[1].result.outcome, Outcome::kCrash);
  EXPECT_EQ(contents->records[1].result.signature, "boom");
  EXPECT_EQ(contents->records[2].point, "s/np=4");
  struct stat st;
  ASSERT_EQ(stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u & ~[] { mode_t m = umask(0); umask(m); return m; }());
}

TEST_F(RecordsFileTest, TornLastLineIsSkippedAndCounted) {
  {
    absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(path_);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(writer->Append(Make("s/a", Outcome::kPass)).ok());
    ASSERT_TRUE(writer->Append(Make("s/b", Outcome::kPass)).ok());
  }
  std::string whole = RecordToJson(Make("s/c", Outcome::kPass)).dump();
  AppendText(whole.substr(0, whole.size() / 2));  // a writer killed mid-line
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path_);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(contents->torn_lines, 1);
  ASSERT_EQ(contents->records.size(), 2u);
  EXPECT_EQ(contents->records[1].point, "s/b");
}

TEST_F(RecordsFileTest, TornLineWithItsNewlineIsStillTheLastLine) {
  AppendText(RecordToJson(Make("s/a", Outcome::kPass)).dump() + "\n{\"schema_ver\n");
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path_);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(contents->torn_lines, 1);
  EXPECT_EQ(contents->records.size(), 1u);
}

TEST_F(RecordsFileTest, LastLineWithoutNewlineThatParsesIsKept) {
  AppendText(RecordToJson(Make("s/a", Outcome::kPass)).dump());
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path_);
  ASSERT_TRUE(contents.ok());
  EXPECT_EQ(contents->torn_lines, 0);
  EXPECT_EQ(contents->records.size(), 1u);
}

TEST_F(RecordsFileTest, BadLineElsewhereIsAnErrorWithFileAndLine) {
  AppendText(RecordToJson(Make("s/a", Outcome::kPass)).dump() + "\n");
  AppendText("{\"schema_version\": 1, \"scen\n");
  AppendText(RecordToJson(Make("s/b", Outcome::kPass)).dump() + "\n");
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path_);
  ASSERT_FALSE(contents.ok());
  EXPECT_EQ(contents.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(contents.status().message(),
            path_ + ":2: not a JSON object (a damaged records file?)");
}

TEST_F(RecordsFileTest, ValidJsonThatIsNotARecordIsAnErrorEvenLast) {
  AppendText(RecordToJson(Make("s/a", Outcome::kPass)).dump() + "\n{\"schema_version\": 1}\n");
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path_);
  ASSERT_FALSE(contents.ok());
  EXPECT_EQ(contents.status().message(), path_ + ":2: scenario: missing");
}

TEST_F(RecordsFileTest, BlankLinesAreSkipped) {
  AppendText("\n" + RecordToJson(Make("s/a", Outcome::kPass)).dump() + "\n\n");
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path_);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(contents->records.size(), 1u);
  EXPECT_EQ(contents->torn_lines, 0);
}

TEST_F(RecordsFileTest, InvalidUtf8InASignatureIsReplacedNotLost) {
  Record r = Make("s/a", Outcome::kError);
  r.result.signature = "bad \xff byte";
  {
    absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(path_);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(writer->Append(r).ok());
  }
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path_);
  ASSERT_TRUE(contents.ok()) << contents.status();
  ASSERT_EQ(contents->records.size(), 1u);
  EXPECT_EQ(contents->records[0].result.signature, "bad \xEF\xBF\xBD byte");
}

TEST_F(RecordsFileTest, AppendRawSignalSafeWritesThePreRenderedLine) {
  std::string line = RecordToJson(Make("s/crashed", Outcome::kCrash)).dump() + "\n";
  {
    absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(path_);
    ASSERT_TRUE(writer.ok());
    EXPECT_GE(writer->fd(), 0);
    EXPECT_TRUE(writer->AppendRawSignalSafe(line.data(), line.size()));
    RecordsWriter moved = std::move(*writer);
    EXPECT_EQ(writer->fd(), -1);
    EXPECT_FALSE(writer->AppendRawSignalSafe(line.data(), line.size()));
    EXPECT_TRUE(moved.AppendRawSignalSafe(line.data(), line.size()));
    EXPECT_FALSE(writer->Append(Make("x", Outcome::kPass)).ok());
  }
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path_);
  ASSERT_TRUE(contents.ok());
  ASSERT_EQ(contents->records.size(), 2u);
  EXPECT_EQ(contents->records[1].point, "s/crashed");
}

TEST_F(RecordsFileTest, ReopeningCutsOffATornLastLineSoAppendsStayReadable) {
  std::string first = RecordToJson(Make("s/a", Outcome::kPass)).dump();
  std::string torn = RecordToJson(Make("s/b", Outcome::kPass)).dump();
  AppendText(first + "\n" + torn.substr(0, 40));
  {
    absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(path_);  // e.g. --resume
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE(writer->Append(Make("s/c", Outcome::kFail)).ok());
  }
  EXPECT_EQ(*ReadFileToString(path_),
            first + "\n" + RecordToJson(Make("s/c", Outcome::kFail)).dump() + "\n");
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path_);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(contents->torn_lines, 0);
  ASSERT_EQ(contents->records.size(), 2u);
  EXPECT_EQ(contents->records[1].point, "s/c");
}

TEST_F(RecordsFileTest, ReopeningCompletesAWholeLastRecordMissingItsNewline) {
  std::string only = RecordToJson(Make("s/a", Outcome::kPass)).dump();
  AppendText(only);
  {
    absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(path_);
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE(writer->Append(Make("s/b", Outcome::kPass)).ok());
  }
  EXPECT_EQ(*ReadFileToString(path_),
            only + "\n" + RecordToJson(Make("s/b", Outcome::kPass)).dump() + "\n");
}

TEST_F(RecordsFileTest, ReopeningATornFirstLineEmptiesTheFile) {
  AppendText("{\"schema_version\": 1, \"sce");
  {
    absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(path_);
    ASSERT_TRUE(writer.ok()) << writer.status();
  }
  EXPECT_EQ(*ReadFileToString(path_), "");
}

TEST_F(RecordsFileTest, OpenErrorsNameThePath) {
  absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(dir_ + "/missing/records.jsonl");
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(writer.status().message(),
            dir_ + "/missing/records.jsonl: cannot open for appending: No such file or directory");
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(dir_ + "/none.jsonl");
  ASSERT_FALSE(contents.ok());
  EXPECT_EQ(contents.status().message(), dir_ + "/none.jsonl: cannot read: No such file or directory");
}

}  // namespace
}  // namespace gh
