#include "harness/report/summary_markdown.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/report/report_golden.h"
#include "harness/report/report_test_records.h"

namespace gh {
namespace {

using ::testing::HasSubstr;

TEST(SummaryMarkdownTest, GoldenSmallSweepWithBaseline) {
  testing::SmallSweep s = testing::MakeSmallSweep();
  Comparison comparison = CompareResults(s.records, &s.baseline);
  ReportInput input{"gpuharness sweep nccl_small", &comparison, &s.sweep, s.environments, "results/baseline"};
  std::string actual = RenderSummaryMarkdown(input);
  EXPECT_EQ(actual, testing::Golden("small_sweep_summary.md", actual));
}

// The seeds' shape: rows are versions, columns the swept size, entries the error's short form.
TEST(SummaryMarkdownTest, VersionBisectTableLikeTheSeed) {
  std::vector<Record> records;
  for (const char* version : {"0.10.0", "0.10.1", "0.10.2", "0.8.0"}) {
    for (const char* shard : {"1024", "2048"}) {
      testing::RecordSpec spec{.scenario = "einsum", .point_suffix = std::string("per_dev=") + shard + "/np=8",
                               .cell = {{"jax", version}}};
      if (std::string(shard) == "2048" && std::string(version) == "0.10.2") {
        spec.outcome = Outcome::kError;
        spec.signature = "FAILED_PRECONDITION: during context [hlo verifier]: Asynchronous computation";
      }
      if (std::string(shard) == "2048" && std::string(version) == "0.8.0") {
        spec.outcome = Outcome::kCrash;
        spec.signature = "rank 3 killed by SIGSEGV in compile";
      }
      records.push_back(testing::MakeRecord(spec));
    }
  }
  Comparison comparison = CompareResults(records, nullptr);
  ReportInput input{"bisect", &comparison, nullptr, {}, ""};
  EXPECT_THAT(RenderSummaryMarkdown(input),
              HasSubstr("## einsum (ring_shift)\n\n"
                        "| jax | per_dev=1024 | per_dev=2048 |\n"
                        "|---|---|---|\n"
                        "| 0.10.0 | pass | pass |\n"
                        "| 0.10.1 | pass | pass |\n"
                        "| 0.10.2 | pass | FAILED_PRECONDITION |\n"
                        "| 0.8.0 | pass | crash (SIGSEGV) |\n\n"));
}

// A plain run (no cells) with many swept combinations keeps the widest parameter in the columns.
TEST(SummaryMarkdownTest, PlainRunWideSweepMovesParametersIntoRows) {
  std::vector<Record> records;
  for (const char* dtype : {"f32", "bf16"}) {
    for (const char* bytes : {"4K", "64K", "1M", "16M", "256M"}) {
      records.push_back(testing::MakeRecord(
          {.point_suffix = std::string("bytes=") + bytes + "/dtype=" + dtype + "/np=2",
           .metrics = {{"time_median_us", 12.5, "us"}}}));
    }
  }
  Comparison comparison = CompareResults(records, nullptr);
  ReportInput input{"run", &comparison, nullptr, {}, ""};
  std::string md = RenderSummaryMarkdown(input);
  EXPECT_THAT(md, HasSubstr("| dtype | bytes=4K | bytes=64K | bytes=1M | bytes=16M | bytes=256M |\n"
                            "|---|---|---|---|---|---|\n"
                            "| f32 | pass | pass | pass | pass | pass |\n"
                            "| bf16 | pass | pass | pass | pass | pass |\n"));
  EXPECT_THAT(md, HasSubstr("Median time (median over passing trials):\n\n"
                            "| dtype | bytes=4K | bytes=64K | bytes=1M | bytes=16M | bytes=256M |\n"
                            "|---|---|---|---|---|---|\n"
                            "| f32 | 12.5 us | 12.5 us | 12.5 us | 12.5 us | 12.5 us |\n"));
  EXPECT_THAT(md, HasSubstr("**10 points (10 trials): 10 pass; 0 unmet expectations**"));
}

TEST(SummaryMarkdownTest, SinglePointPlainRun) {
  Comparison comparison = CompareResults({testing::MakeRecord({.outcome = Outcome::kSkip, .signature = "no GPU"})},
                                         nullptr);
  ReportInput input{"run", &comparison, nullptr, {}, ""};
  EXPECT_THAT(RenderSummaryMarkdown(input),
              HasSubstr("| scenario | result |\n|---|---|\n| ring | skip: no GPU |\n"));
}

TEST(SummaryMarkdownTest, CellsNotRunAreListed) {
  testing::SmallSweep s = testing::MakeSmallSweep();
  s.sweep.cells[1].status = "setup_failed";
  s.sweep.cells[1].detail = "pip install failed | exit 1";
  Comparison comparison = CompareResults(s.records, nullptr);
  ReportInput input{"t", &comparison, &s.sweep, {}, ""};
  EXPECT_THAT(RenderSummaryMarkdown(input),
              HasSubstr("## Cells not run (1)\n\n| cell | status | detail |\n|---|---|---|\n"
                        "| ll / 2.28.3 | setup_failed | pip install failed \\| exit 1 |\n"));
}

TEST(SummaryMarkdownTest, EnvironmentLeavesOutLauncherPlumbing) {
  Comparison comparison = CompareResults({testing::MakeRecord({})}, nullptr);
  nlohmann::json env = {{"backend", "host"},
                        {"env",
                         {{"NCCL_PROTO", "LL"},
                          {"OMPI_MCA_orte_hnp_uri", "1922498560.0;tcp://192.0.2.2:43553"},
                          {"OMPI_MCA_ess_base_jobid", "1922498561"},
                          {"OMPI_MCA_btl", "self,vader"},
                          {"TF_CLI_CONFIG_FILE", "/root/.terraformrc"}}}};
  ReportInput input{"run", &comparison, nullptr, {{"", env}}, ""};
  std::string md = RenderSummaryMarkdown(input);
  EXPECT_THAT(md, HasSubstr("| variable | value |\n|---|---|\n| NCCL_PROTO | LL |\n| OMPI_MCA_btl | self,vader |\n\n"));
  EXPECT_THAT(md, ::testing::Not(HasSubstr("OMPI_MCA_orte")));
  EXPECT_THAT(md, ::testing::Not(HasSubstr("jobid")));
  EXPECT_THAT(md, ::testing::Not(HasSubstr("terraform")));
}

// A wide sweep's tables show only the rows with something to read (issue 16: a 1000-cell
// all-pass sweep printed 1000 rows of "pass").
std::vector<Record> ManyCells(int cells, int failing_cell) {
  std::vector<Record> records;
  for (int c = 0; c < cells; ++c) {
    for (const char* bytes : {"4K", "1M"}) {
      testing::RecordSpec spec{.point_suffix = std::string("bytes=") + bytes + "/np=2",
                               .cell = {{"seed", std::to_string(c)}},
                               .metrics = {{"bandwidth_GBps", 1.0 + c, "GB/s"}}};
      if (c == failing_cell && std::string(bytes) == "1M") {
        spec.outcome = Outcome::kError;
        spec.signature = "ncclSystemError: boom";
        spec.matched = false;
        spec.metrics.clear();
      }
      records.push_back(testing::MakeRecord(spec));
    }
  }
  return records;
}

TEST(SummaryMarkdownTest, AllPassWideSweepCollapsesToOneLine) {
  Comparison comparison = CompareResults(ManyCells(1000, -1), nullptr);
  ReportInput input{"wide", &comparison, nullptr, {}, ""};
  std::string md = RenderSummaryMarkdown(input);
  EXPECT_THAT(md, HasSubstr("## ring (ring_shift)\n\nAll 1000 cells pass every point.\n\n"
                            "Bandwidth (median over passing trials):\n\n"
                            "| seed | bytes=4K | bytes=1M |\n|---|---|---|\n"
                            "| min of 1000 | 1.00 GB/s | 1.00 GB/s |\n"
                            "| median of 1000 | 500 GB/s | 500 GB/s |\n"
                            "| max of 1000 | 1000 GB/s | 1000 GB/s |\n\n"));
  EXPECT_THAT(md, ::testing::Not(HasSubstr("| pass |")));
}

TEST(SummaryMarkdownTest, WideSweepShowsOnlyRowsWithSomethingToRead) {
  Comparison comparison = CompareResults(ManyCells(24, 7), nullptr);
  ReportInput input{"wide", &comparison, nullptr, {}, ""};
  std::string md = RenderSummaryMarkdown(input);
  EXPECT_THAT(md, HasSubstr("| seed | bytes=4K | bytes=1M |\n|---|---|---|\n"
                            "| 7 | pass | ncclSystemError (unexpected) |\n\n"
                            "The other 23 cells pass every point.\n\n"));
  EXPECT_THAT(md, HasSubstr("| 7 | 8.00 GB/s | - |\n| min of 24 | 1.00 GB/s | 1.00 GB/s |\n"));
}

// Small tables stay whole: their passing rows are the context (the seeds' bisect shape).
TEST(SummaryMarkdownTest, SmallTablesKeepPassingRows) {
  Comparison comparison = CompareResults(ManyCells(8, -1), nullptr);
  ReportInput input{"small", &comparison, nullptr, {}, ""};
  std::string md = RenderSummaryMarkdown(input);
  EXPECT_THAT(md, HasSubstr("| 0 | pass | pass |\n"));
  EXPECT_THAT(md, ::testing::Not(HasSubstr("pass every point")));
}

TEST(EscapeMarkdownCellTest, PipesBackslashesAngleBracketsAndNewlines) {
  EXPECT_EQ(EscapeMarkdownCell("a|b\\c<d>e\nf\rg"), "a\\|b\\\\c&lt;d&gt;e f g");
}

}  // namespace
}  // namespace gh
