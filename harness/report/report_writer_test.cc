#include "harness/report/report_writer.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/core/testdata/temp_dir.h"
#include "harness/report/report_golden.h"
#include "harness/report/report_test_records.h"
#include "harness/report/results_dir.h"

namespace gh {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
namespace fs = std::filesystem;

class ReportWriterTest : public gh::testing::TempDirTest {
 protected:
  const std::string root_ = temp_dir();

  void WriteRecords(const std::string& dir, const std::vector<Record>& records) {
    ASSERT_TRUE(MakeDirectories(dir).ok());
    absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(dir + "/records.jsonl");
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (const Record& record : records) ASSERT_TRUE(writer->Append(record).ok());
  }
  void WriteText(const std::string& path, const std::string& text) {
    ASSERT_TRUE(MakeDirectories(fs::path(path).parent_path().string()).ok());
    ASSERT_TRUE(WriteFileAtomically(path, text).ok());
  }
  // The small sweep as the driver leaves it: records, sweep.json, two cells' environments.
  std::string WriteSmallSweep(const std::string& name) {
    testing::SmallSweep s = testing::MakeSmallSweep();
    const std::string dir = root_ + "/" + name;
    WriteRecords(dir, s.records);
    WriteText(dir + "/sweep.json", s.sweep.ToJson().dump(2));
    // Directory names deliberately out of sweep order: the sweep's order wins.
    WriteText(dir + "/cells/a_last/environment.json", s.environments[1].fingerprint.dump());
    WriteRecords(dir + "/cells/a_last", {testing::MakeRecord({.cell = {{"proto", "ll"}, {"nccl", "2.28.9"}}})});
    WriteText(dir + "/cells/b_first/environment.json", s.environments[0].fingerprint.dump());
    WriteRecords(dir + "/cells/b_first",
                 {testing::MakeRecord({.cell = {{"proto", "simple"}, {"nccl", "2.28.3"}}})});
    return dir;
  }
  std::string WriteBaseline(const std::string& name) {
    const std::string dir = root_ + "/" + name;
    WriteRecords(dir, testing::MakeSmallSweep().baseline);
    return dir;
  }
  static bool Exists(const std::string& path) { return fs::exists(path); }

};

TEST_F(ReportWriterTest, WritesTheThreeReportsIntoDir) {
  const std::string dir = WriteSmallSweep("sweep");
  const std::string baseline = WriteBaseline("baseline");
  absl::StatusOr<ReportResult> result = WriteReports({.dir = dir, .baseline_dir = baseline});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_status, 1);
  EXPECT_EQ(result->comparison.counts.regressions, 1);
  EXPECT_EQ(result->headline,
            "16 points (32 trials): 13 pass, 1 skip, 1 error, 1 crash (expected); 1 unmet expectation; "
            "vs baseline: 1 regression, 0 fixes, 0 changed signatures, 8 new, 1 vanished");
  EXPECT_EQ(result->written, (std::vector<std::string>{dir + "/summary.md", dir + "/report.html",
                                                       dir + "/junit.xml", dir + "/comparison.json"}));
  absl::StatusOr<std::string> summary = ReadFileToString(dir + "/summary.md");
  ASSERT_TRUE(summary.ok());
  // The same golden as the renderer's test, except for the baseline's path (relative to the
  // results directory, never the absolute machine path) and the line saying when and where the
  // records ran, which the writer reads from the records and environments.
  std::string golden = testing::Golden("small_sweep_summary.md", *summary);
  golden.replace(golden.find("Baseline: results/baseline"), 26, "Baseline: ../baseline");
  const std::string facts =
      "Ran 2026-11-29 09:00 UTC on gpu-node-1 (2\u00d7 NVIDIA H200 (sm 9.0)) with nccl 2.28.3, 2.28.9; "
      "NCCL 2.28.3 (built with 2.28.9), 2.28.9, driver 580.159.04, CUDA runtime 13.0, Open MPI v4.1.6\n\n";
  golden.insert(golden.find("Matrix matrices/"), facts);
  EXPECT_EQ(*summary, golden);
  EXPECT_THAT(*summary, Not(HasSubstr(root_)));
  absl::StatusOr<std::string> html = ReadFileToString(dir + "/report.html");
  ASSERT_TRUE(html.ok());
  EXPECT_THAT(*html, StartsWith("<!DOCTYPE html>"));
  EXPECT_THAT(*html, HasSubstr("<title>gpuharness sweep nccl_small</title>"));
  absl::StatusOr<std::string> junit = ReadFileToString(dir + "/junit.xml");
  ASSERT_TRUE(junit.ok());
  EXPECT_THAT(*junit, HasSubstr("<testsuite"));
  EXPECT_THAT(*junit, HasSubstr("nccl_small"));
}

// The sweep records what it compared with; `report DIR` alone writes the same files again.
TEST_F(ReportWriterTest, ReportAgainComparesAsRecorded) {
  const std::string dir = WriteSmallSweep("sweep");
  const std::string baseline = WriteBaseline("baseline");
  ASSERT_TRUE(WriteReports({.dir = dir, .baseline_dir = baseline, .record_comparison = true}).ok());
  absl::StatusOr<std::string> summary = ReadFileToString(dir + "/summary.md");
  absl::StatusOr<std::string> junit = ReadFileToString(dir + "/junit.xml");
  absl::StatusOr<std::string> html = ReadFileToString(dir + "/report.html");
  absl::StatusOr<std::string> record = ReadFileToString(dir + "/comparison.json");
  ASSERT_TRUE(summary.ok() && junit.ok() && html.ok() && record.ok());
  EXPECT_THAT(*record, HasSubstr(R"("dir": "../baseline")"));
  EXPECT_THAT(*record, HasSubstr(R"("records": )"));

  absl::StatusOr<ReportResult> again = WriteReports({.dir = dir});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->baseline_recorded);
  EXPECT_EQ(again->baseline_problem, "");
  EXPECT_EQ(again->comparison.counts.regressions, 1);
  EXPECT_EQ(ReadFileToString(dir + "/summary.md").value_or(""), *summary);
  EXPECT_EQ(ReadFileToString(dir + "/junit.xml").value_or(""), *junit);
  EXPECT_EQ(ReadFileToString(dir + "/report.html").value_or(""), *html);
  EXPECT_EQ(ReadFileToString(dir + "/comparison.json").value_or(""), *record);

  // Moved together, the two still meet by their relative path.
  fs::create_directories(root_ + "/moved");
  fs::rename(dir, root_ + "/moved/sweep");
  fs::rename(baseline, root_ + "/moved/baseline");
  absl::StatusOr<ReportResult> moved = WriteReports({.dir = root_ + "/moved/sweep"});
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(moved->baseline_problem, "");
  EXPECT_EQ(moved->comparison.counts.regressions, 1);
  EXPECT_EQ(ReadFileToString(root_ + "/moved/sweep/summary.md").value_or(""), *summary);
}

// Reports written elsewhere (--out DIR2) compare as DIR recorded and carry that comparison beside
// them, its baseline named from DIR2; DIR's own comparison.json and reports stay as they were,
// whatever DIR2's reports compared with, so `report DIR` still writes what the sweep wrote.
TEST_F(ReportWriterTest, ReportsElsewhereLeaveTheDirectorysOwnComparison) {
  const std::string dir = WriteSmallSweep("sweep");
  const std::string baseline = WriteBaseline("baseline");
  ASSERT_TRUE(WriteReports({.dir = dir, .baseline_dir = baseline, .record_comparison = true}).ok());
  const std::string record = ReadFileToString(dir + "/comparison.json").value_or("");
  const std::string summary = ReadFileToString(dir + "/summary.md").value_or("");
  ASSERT_THAT(record, HasSubstr(R"("dir": "../baseline")"));

  const std::string out = root_ + "/shared/reports";
  absl::StatusOr<ReportResult> elsewhere = WriteReports({.dir = dir, .out_dir = out});
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.status();
  EXPECT_TRUE(elsewhere->baseline_recorded);
  EXPECT_EQ(elsewhere->comparison.counts.regressions, 1);
  EXPECT_EQ(elsewhere->written, (std::vector<std::string>{out + "/summary.md", out + "/report.html",
                                                         out + "/junit.xml", out + "/comparison.json"}));
  const std::string out_record = ReadFileToString(out + "/comparison.json").value_or("");
  EXPECT_THAT(out_record, HasSubstr(R"("dir": "../../baseline")"));
  EXPECT_THAT(out_record, HasSubstr("\"absolute\": \"" + baseline + "\""));
  EXPECT_THAT(ReadFileToString(out + "/summary.md").value_or(""), HasSubstr("Baseline: ../../baseline"));
  EXPECT_EQ(ReadFileToString(dir + "/comparison.json").value_or(""), record);

  // Elsewhere without the baseline, or with another one: DIR still remembers its own.
  const std::string other = WriteBaseline("other");
  ASSERT_TRUE(WriteReports({.dir = dir, .no_baseline = true, .out_dir = root_ + "/none"}).ok());
  EXPECT_THAT(ReadFileToString(root_ + "/none/comparison.json").value_or(""), HasSubstr(R"("baseline": null)"));
  ASSERT_TRUE(WriteReports({.dir = dir, .baseline_dir = other, .out_dir = root_ + "/vs_other"}).ok());
  EXPECT_THAT(ReadFileToString(root_ + "/vs_other/comparison.json").value_or(""), HasSubstr(R"("dir": "../other")"));
  EXPECT_EQ(ReadFileToString(dir + "/comparison.json").value_or(""), record);
  EXPECT_EQ(ReadFileToString(dir + "/summary.md").value_or(""), summary);
  absl::StatusOr<ReportResult> again = WriteReports({.dir = dir});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->comparison.counts.regressions, 1);
  EXPECT_EQ(ReadFileToString(dir + "/summary.md").value_or(""), summary);

  // The recorded baseline gone: the reports elsewhere say so, and their record still names it,
  // from where they are.
  fs::rename(baseline, root_ + "/baseline.moved");
  absl::StatusOr<ReportResult> gone = WriteReports({.dir = dir, .out_dir = out});
  ASSERT_TRUE(gone.ok()) << gone.status();
  EXPECT_THAT(gone->baseline_problem, HasSubstr("is gone"));
  EXPECT_THAT(ReadFileToString(out + "/comparison.json").value_or(""), HasSubstr(R"("dir": "../../baseline")"));
  EXPECT_EQ(ReadFileToString(dir + "/comparison.json").value_or(""), record);
}

TEST_F(ReportWriterTest, ReportSaysWhenTheRecordedBaselineIsGoneOrChanged) {
  const std::string dir = WriteSmallSweep("sweep");
  const std::string baseline = WriteBaseline("baseline");
  ASSERT_TRUE(WriteReports({.dir = dir, .baseline_dir = baseline, .record_comparison = true}).ok());

  // Other records in the baseline: not the comparison the sweep made.
  WriteRecords(baseline, {testing::MakeRecord({.point_suffix = "bytes=2M/np=2"})});
  absl::StatusOr<ReportResult> changed = WriteReports({.dir = dir});
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_THAT(changed->baseline_problem, HasSubstr("holds other records than when the comparison was recorded"));
  EXPECT_EQ(changed->comparison.counts.regressions, 0);
  absl::StatusOr<std::string> summary = ReadFileToString(dir + "/summary.md");
  ASSERT_TRUE(summary.ok());
  EXPECT_THAT(*summary, HasSubstr("holds other records than when the comparison was recorded"));

  fs::remove_all(baseline);
  absl::StatusOr<ReportResult> gone = WriteReports({.dir = dir});
  ASSERT_TRUE(gone.ok()) << gone.status();
  EXPECT_THAT(gone->baseline_problem, HasSubstr("../baseline ("));
  EXPECT_THAT(gone->baseline_problem, HasSubstr(") is gone: moved or removed since the comparison was recorded"));
  summary = ReadFileToString(dir + "/summary.md");
  ASSERT_TRUE(summary.ok());
  EXPECT_THAT(*summary, HasSubstr("is gone: moved or removed"));

  // A comparison.json that is not one: bad input naming the file and key, nothing written.
  WriteText(dir + "/comparison.json", R"({"schema_version": 1, "perf": {"threshold": 7}})");
  fs::remove(dir + "/summary.md");
  absl::StatusOr<ReportResult> bad = WriteReports({.dir = dir});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("comparison.json"));
  EXPECT_THAT(bad.status().message(), HasSubstr("threshold"));
  EXPECT_FALSE(Exists(dir + "/summary.md"));

  // --no-baseline: expectations only, whatever was recorded.
  absl::StatusOr<ReportResult> none = WriteReports({.dir = dir, .no_baseline = true});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->baseline, "");
}

TEST_F(ReportWriterTest, OutDirAndPassingResultsExitZero) {
  const std::string dir = root_ + "/run";
  WriteRecords(dir, {testing::MakeRecord({}), testing::MakeRecord({.point_suffix = "bytes=1M/np=2"})});
  WriteText(dir + "/environment.json", R"({"backend": "host", "nranks": 2, "env": {"OMPI_MCA_btl": "self"}})");
  const std::string out = root_ + "/elsewhere/reports";
  absl::StatusOr<ReportResult> result = WriteReports({.dir = dir, .out_dir = out});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_status, 0);
  EXPECT_TRUE(Exists(out + "/summary.md"));
  EXPECT_TRUE(Exists(out + "/report.html"));
  EXPECT_TRUE(Exists(out + "/junit.xml"));
  EXPECT_FALSE(Exists(dir + "/summary.md"));
  absl::StatusOr<std::string> summary = ReadFileToString(out + "/summary.md");
  ASSERT_TRUE(summary.ok());
  EXPECT_THAT(*summary, StartsWith("# gpuharness results run\n\n**2 points (2 trials): 2 pass; 0 unmet "
                                   "expectations**\n"));
  EXPECT_THAT(*summary, HasSubstr("| cell | backend | ranks |\n|---|---|---|\n| run | host | 2 |\n"));
  EXPECT_THAT(*summary, HasSubstr("| OMPI_MCA_btl | self |\n"));
}

TEST_F(ReportWriterTest, TornLastLineIsSkippedAndCounted) {
  const std::string dir = root_ + "/torn";
  WriteRecords(dir, {testing::MakeRecord({})});
  {
    std::string text = *ReadFileToString(dir + "/records.jsonl");
    WriteText(dir + "/records.jsonl", text + "{\"schema_version\": 1, \"scen");
  }
  absl::StatusOr<ReportResult> result = WriteReports({.dir = dir});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->torn_lines, 1);
  EXPECT_EQ(result->comparison.counts.points, 1);
}

TEST_F(ReportWriterTest, MissingDirIsBadInputAndWritesNothing) {
  const std::string out = root_ + "/out";
  absl::StatusOr<ReportResult> result = WriteReports({.dir = root_ + "/nope", .out_dir = out});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(), root_ + "/nope: no such results directory");
  EXPECT_FALSE(Exists(out));
}

TEST_F(ReportWriterTest, FileInsteadOfDirIsBadInput) {
  WriteText(root_ + "/file", "x");
  absl::StatusOr<ReportResult> result = WriteReports({.dir = root_ + "/file"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(), root_ + "/file: not a directory");
}

TEST_F(ReportWriterTest, DirWithoutRecordsIsBadInputAndWritesNothing) {
  const std::string dir = root_ + "/empty";
  ASSERT_TRUE(MakeDirectories(dir).ok());
  absl::StatusOr<ReportResult> result = WriteReports({.dir = dir});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(),
            dir + "/records.jsonl: missing: not a results directory (gpuharness run/sweep --out writes it)");
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST_F(ReportWriterTest, DamagedRecordNamesFileAndLine) {
  const std::string dir = root_ + "/damaged";
  WriteRecords(dir, {testing::MakeRecord({})});
  std::string good = *ReadFileToString(dir + "/records.jsonl");
  WriteText(dir + "/records.jsonl", good + "not json\n" + good);
  absl::StatusOr<ReportResult> result = WriteReports({.dir = dir});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(), dir + "/records.jsonl:2: not a JSON object (a damaged records file?)");
  EXPECT_FALSE(Exists(dir + "/summary.md"));
}

TEST_F(ReportWriterTest, MalformedSweepJsonNamesLineAndColumnAndWritesNothing) {
  const std::string dir = WriteSmallSweep("bad_sweep");
  WriteText(dir + "/sweep.json", "{\n  \"matrix_name\": \"x\",\n  \"axes\": [,]\n}\n");
  absl::StatusOr<ReportResult> result = WriteReports({.dir = dir});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()), StartsWith(dir + "/sweep.json:3:12: invalid JSON: "));
  EXPECT_FALSE(Exists(dir + "/summary.md"));
  EXPECT_FALSE(Exists(dir + "/report.html"));
  EXPECT_FALSE(Exists(dir + "/junit.xml"));
}

TEST_F(ReportWriterTest, SweepJsonOfTheWrongShapeNamesTheKey) {
  const std::string dir = WriteSmallSweep("wrong_sweep");
  WriteText(dir + "/sweep.json", R"({"cells": [{"id": 7}]})");
  absl::StatusOr<ReportResult> result = WriteReports({.dir = dir});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), dir + "/sweep.json: cells[0].id: expected a string");
  EXPECT_FALSE(Exists(dir + "/summary.md"));
}

TEST_F(ReportWriterTest, BadBaselineIsBadInputAndWritesNothing) {
  const std::string dir = WriteSmallSweep("sweep");
  absl::StatusOr<ReportResult> result = WriteReports({.dir = dir, .baseline_dir = root_ + "/missing"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(), "baseline: " + root_ + "/missing: no such results directory");
  EXPECT_FALSE(Exists(dir + "/summary.md"));
}

TEST_F(ReportWriterTest, BaselineIgnoreMatchesCellsAcrossVersionLabels) {
  const std::string base = root_ + "/last";
  const std::string now = root_ + "/tonight";
  WriteRecords(base, {testing::MakeRecord({.cell = {{"nightly", "2026-11-28"}, {"proto", "ll"}}})});
  WriteRecords(now, {testing::MakeRecord({.outcome = Outcome::kError, .signature = "boom",
                                          .cell = {{"nightly", "2026-11-29"}, {"proto", "ll"}}})});
  absl::StatusOr<ReportResult> plain = WriteReports({.dir = now, .baseline_dir = base});
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->comparison.counts.regressions, 0);
  EXPECT_EQ(plain->comparison.counts.new_points, 1);
  absl::StatusOr<ReportResult> across =
      WriteReports({.dir = now, .baseline_dir = base, .baseline_ignore_axes = {"nightly"}});
  ASSERT_TRUE(across.ok()) << across.status();
  EXPECT_EQ(across->comparison.counts.regressions, 1);
  EXPECT_EQ(across->exit_status, 1);
  absl::StatusOr<std::string> summary = ReadFileToString(now + "/summary.md");
  ASSERT_TRUE(summary.ok());
  EXPECT_THAT(*summary, HasSubstr("Baseline: ../last (cells matched without nightly)"));
  absl::StatusOr<ReportResult> alone = WriteReports({.dir = now, .baseline_ignore_axes = {"nightly"}});
  EXPECT_EQ(alone.status().message(), "--baseline-ignore needs --baseline");
}

// Issue 15 item 13: an --out that cannot be written is an infrastructure failure (exit 3, as
// the docs say), not bad input (exit 2 before): the status is not InvalidArgument.
TEST_F(ReportWriterTest, UncreatableOutDirIsNotWritable) {
  const std::string dir = root_ + "/run";
  WriteRecords(dir, {testing::MakeRecord({})});
  WriteText(root_ + "/blocker", "a file where a directory should be");
  absl::StatusOr<ReportResult> result = WriteReports({.dir = dir, .out_dir = root_ + "/blocker/out"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(result.status().message(), "--out " + root_ + "/blocker/out: not writable: " + root_ +
                                          "/blocker: cannot create directory: Not a directory");
}

}  // namespace
}  // namespace gh

namespace gh {
namespace {

std::string Jsonl(const std::vector<Record>& records) {
  std::string text;
  for (const Record& record : records) text += RecordToJson(record).dump() + "\n";
  return text;
}

// tests/report.cmake runs `gpuharness report` on harness/report/testdata/cli/: these keep those
// directories in step with the small sweep and the record schema (GH_UPDATE_GOLDEN=1 rewrites).
TEST(ReportCliTestdataTest, MatchesTheSmallSweep) {
  testing::SmallSweep s = testing::MakeSmallSweep();
  const std::string sweep_records = Jsonl(s.records);
  EXPECT_EQ(sweep_records, testing::Golden("cli/sweep/records.jsonl", sweep_records));
  const std::string sweep_json = s.sweep.ToJson().dump(2) + "\n";
  EXPECT_EQ(sweep_json, testing::Golden("cli/sweep/sweep.json", sweep_json));
  const std::string environment = s.environments[0].fingerprint.dump(2) + "\n";
  EXPECT_EQ(environment, testing::Golden("cli/sweep/cells/simple_2.28.3/environment.json", environment));
  const std::string cell_records = Jsonl({s.records[0]});
  EXPECT_EQ(cell_records, testing::Golden("cli/sweep/cells/simple_2.28.3/records.jsonl", cell_records));
  const std::string baseline = Jsonl(s.baseline);
  EXPECT_EQ(baseline, testing::Golden("cli/baseline/records.jsonl", baseline));
  std::vector<Record> passing;
  for (const Record& record : s.baseline) {
    if (record.cell.at("proto") == "simple" && record.cell.at("nccl") == "2.28.3") passing.push_back(record);
  }
  for (Record& record : passing) record.cell.clear();
  const std::string pass = Jsonl(passing);
  EXPECT_EQ(pass, testing::Golden("cli/pass/records.jsonl", pass));
}

TEST(BaselineDisplayPathTest, RelativeWhenCloseElseTheName) {
  EXPECT_EQ(BaselineDisplayPath("/r/nightly/2026-11-28", "/r/nightly/2026-11-29"), "../2026-11-28");
  EXPECT_EQ(BaselineDisplayPath("/r/nightly/2026-11-28/", "/r/nightly/2026-11-29"), "../2026-11-28");
  EXPECT_EQ(BaselineDisplayPath("/r/a/b/c/base", "/r/x/y/z/now"), "base");
  EXPECT_EQ(BaselineDisplayPath("/r/now/base", "/r/now"), "base");
  EXPECT_EQ(BaselineDisplayPath("/work/wt/x/testdata/cli/baseline", "/tmp/out"), "baseline");
  EXPECT_EQ(BaselineDisplayPath("", "/r/now"), "");
}

}  // namespace
}  // namespace gh
