#include "harness/core/records_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/testdata/full_record.h"
#include "harness/core/testdata/temp_dir.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

class RecordsFileTest : public gh::testing::TempDirTest {
 protected:
  const std::string dir_ = temp_dir();
  const std::string path_ = dir_ + "/records.jsonl";
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
  // The points of the records file read back, in order, after checking that it read and that
  // `torn_lines` torn lines were skipped.
  std::vector<std::string> PointsReadBack(int torn_lines) {
    absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path_);
    EXPECT_TRUE(contents.ok()) << contents.status();
    if (!contents.ok()) return {};
    EXPECT_EQ(contents->torn_lines, torn_lines);
    std::vector<std::string> points;
    for (const Record& record : contents->records) points.push_back(record.point);
    return points;
  }
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
  EXPECT_THAT(PointsReadBack(1), ElementsAre("s/a", "s/b"));
}

TEST_F(RecordsFileTest, TornLineWithItsNewlineIsStillTheLastLine) {
  AppendText(RecordToJson(Make("s/a", Outcome::kPass)).dump() + "\n{\"schema_ver\n");
  EXPECT_THAT(PointsReadBack(1), ElementsAre("s/a"));
}

TEST_F(RecordsFileTest, LastLineWithoutNewlineThatParsesIsKept) {
  AppendText(RecordToJson(Make("s/a", Outcome::kPass)).dump());
  EXPECT_THAT(PointsReadBack(0), ElementsAre("s/a"));
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
  EXPECT_THAT(PointsReadBack(0), ElementsAre("s/a"));
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
  EXPECT_THAT(PointsReadBack(0), ElementsAre("s/a", "s/c"));
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

// FullRecord with the fields written only when set set too, and a verdict rule other than the
// default, so a field the writer or the reader dropped shows.
Record EveryField() {
  Record r = testing::FullRecord();
  r.description = "a ring; \"quoted\"";
  r.verdict = TrialVerdictRule{TrialVerdictRule::Kind::kFailureRateAbove, 0.2};
  r.result.ranks[1].signature = "wrong data";
  r.result.ranks[1].output_tail = "last words\n";
  r.not_run = true;
  return r;
}

TEST_F(RecordsFileTest, WrittenFilesRoundTripEveryField) {
  Record any_failure = EveryField();
  any_failure.verdict = TrialVerdictRule{};
  any_failure.point = "ring/bytes=1K/np=2";
  const std::vector<Record> records = {EveryField(), any_failure};
  const nlohmann::json first = RecordToJson(records[0]);
  std::vector<std::string> keys;
  for (const auto& item : first.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "backend", "cell", "description", "duration_s", "expected", "file",
                      "gpu_shared", "kind", "matched", "metrics", "not_run", "nranks",
                      "outcome", "params", "point", "ranks", "scenario", "schema_version",
                      "signature", "started_at", "trial", "trials", "verdict"}));
  ASSERT_TRUE(WriteRecordsFile(path_, records).ok());
  absl::StatusOr<std::string> text = ReadFileToString(path_);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, RecordJsonLine(records[0]) + RecordJsonLine(records[1]));
  EXPECT_EQ(*text, RecordsToJsonl(records));
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path_);
  ASSERT_TRUE(contents.ok()) << contents.status();
  ASSERT_EQ(contents->records.size(), 2u);
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& back = contents->records[i];
    EXPECT_EQ(RecordToJson(back), RecordToJson(records[i])) << i;
    EXPECT_EQ(back.description, records[i].description);
    EXPECT_EQ(back.verdict.kind, records[i].verdict.kind);
    EXPECT_EQ(back.verdict.threshold, records[i].verdict.threshold);
    EXPECT_EQ(back.not_run, records[i].not_run);
    EXPECT_EQ(back.gpu_shared, records[i].gpu_shared);
    EXPECT_EQ(back.matched, records[i].matched);
    EXPECT_EQ(back.duration_s, records[i].duration_s);
    ASSERT_EQ(back.result.ranks.size(), 2u);
    EXPECT_EQ(back.result.ranks[1].output_tail, "last words\n");
    EXPECT_EQ(back.result.ranks[1].mismatch->first_index, 17);
  }
  EXPECT_EQ(contents->records[0].verdict.kind, TrialVerdictRule::Kind::kFailureRateAbove);
  EXPECT_EQ(contents->records[1].verdict.kind, TrialVerdictRule::Kind::kAnyFailure);
  // Rewriting replaces the file; no records leave it empty.
  ASSERT_TRUE(WriteRecordsFile(path_, {}).ok());
  EXPECT_EQ(*ReadFileToString(path_), "");
}

TEST_F(RecordsFileTest, InvalidUtf8IsReplacedNotThrownInEveryWriter) {
  Record r = Make("s/a", Outcome::kError);
  r.result.signature = "bad byte \xff here";
  const std::string line = RecordJsonLine(r);
  EXPECT_NE(line.find("bad byte \xef\xbf\xbd here"), std::string::npos) << line;
  ASSERT_TRUE(WriteRecordsFile(path_, {r}).ok());
  {
    absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(path_);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(writer->Append(r).ok());
  }
  EXPECT_EQ(*ReadFileToString(path_), line + line);
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path_);
  ASSERT_TRUE(contents.ok()) << contents.status();
  ASSERT_EQ(contents->records.size(), 2u);
  EXPECT_EQ(contents->records[1].result.signature, "bad byte \xef\xbf\xbd here");
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
