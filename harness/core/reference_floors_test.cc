// Reference floors (core/reference_floors.h): the table's format and its errors, which row a
// point gets, and `min: reference` in a scenario's expect_metrics: the bound it becomes, the
// missed bound's wording, and where the table is found.
#include "harness/core/reference_floors.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/comparison.h"
#include "harness/core/metric_expectation.h"
#include "harness/core/point.h"
#include "harness/core/record.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/testdata/loaded_scenario.h"
#include "harness/core/testdata/temp_dir.h"

namespace gh {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kTable[] =
    "references:\n"
    "  - gpu: \"NVIDIA H100*\"\n"
    "    interconnect: \"NVLink4, NV18\"\n"
    "    ranks: 8\n"
    "    op: all_reduce\n"
    "    bytes: 1G\n"
    "    value: 360\n"
    "    tolerance: 0.1\n"
    "    source: {kind: published, link: \"https://example.org/h100\", note: \"nccl-tests, NCCL 2.28\"}\n"
    "  - gpu: \"NVIDIA H100*\"\n"
    "    interconnect: \"NVLink4, NV18\"\n"
    "    ranks: 8\n"
    "    op: all_reduce\n"
    "    dtype: bfloat16\n"
    "    bytes: 1G\n"
    "    value: 350\n"
    "    tolerance: 0.05\n"
    "    source: {kind: inferred, note: \"the float row, 3 % less\"}\n"
    "  - gpu: \"NVIDIA H100 80GB HBM3\"\n"
    "    interconnect: \"sockets (one GPU)\"\n"
    "    ranks: 2\n"
    "    gpu_shared: true\n"
    "    op: all_reduce\n"
    "    bytes: 1G\n"
    "    metric: algbw_GBps\n"
    "    value: 1.5\n"
    "    tolerance: 0.5\n"
    "    source: {kind: measured, date: 2026-12-08, machine: \"one H100\", command: \"gpuharness run x.yaml\"}\n"
    "  - {gpu: \"NVIDIA H100*\", interconnect: \"NVLink4, NV18\", ranks: 8, op: all_reduce, bytes: 1G,\n"
    "     env: {NCCL_NVLS_ENABLE: \"0\"}, value: 300, tolerance: 0.1, source: {kind: inferred, note: ring}}\n";

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

ScenarioRegistry Registry() {
  return testing::RegistryOfOneHostKind(
      "fake_collective", {{"op", ParamType::kEnum, std::string("all_reduce"), "op", {"all_reduce", "all_gather"}, {}, {}},
                          {"dtype", ParamType::kEnum, std::string("float"), "t", {"float", "bfloat16"}, {}, {}},
                          {"bytes", ParamType::kBytes, int64_t{1024}, "size", {}, 0.0, {}}});
}

EnvironmentFacts Facts(const std::string& gpu, int nranks, bool shared = false, int nodes = 1) {
  return EnvironmentFacts{{{"backend", "cuda"}, {"gpu", gpu}, {"nranks", std::to_string(nranks)},
                           {"gpu_shared", shared ? "true" : "false"}, {"nodes", std::to_string(nodes)}}};
}

class ReferenceFloorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    Write(root_ + "/results/reference/collective_busbw.yaml", kTable);
  }
  // `expect_metrics` text loaded as scenarios/sub/x.yaml under the temp root, expanded on 8 ranks.
  absl::StatusOr<std::vector<Point>> Load(const std::string& expect_metrics) {
    const std::string text = std::string(
        "name: c\nkind: fake_collective\nparams: {op: [all_reduce, all_gather], dtype: [float, bfloat16], bytes: [1M, 1G]}\n"
        "expect_metrics:\n") + expect_metrics;
    return testing::LoadAndExpand(text, root_ + "/scenarios/sub/x.yaml", registry_, 8, spec_);
  }
  static const Point& Named(const std::vector<Point>& points, const std::string& name) {
    for (const Point& p : points) {
      if (p.name == name) return p;
    }
    ADD_FAILURE() << "no point " << name;
    return points[0];
  }
  testing::ScopedTempDir dir_;
  std::string root_;
  ScenarioRegistry registry_ = Registry();
  ScenarioSpec spec_;
};

TEST_F(ReferenceFloorsTest, TableRowsCarryTheirSourceAndFloor) {
  absl::StatusOr<ReferenceTable> table = LoadReferenceTable(root_ + "/results/reference/collective_busbw.yaml");
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_EQ(table->rows.size(), 4u);
  const ReferenceRow& row = table->rows[0];
  EXPECT_EQ(row.ranks, 8);
  EXPECT_EQ(row.nodes, 1);
  EXPECT_EQ(row.bytes, int64_t{1} << 30);
  EXPECT_EQ(row.metric, "busbw_GBps");
  EXPECT_DOUBLE_EQ(row.floor(), 324);
  EXPECT_EQ(row.Describe(),
            "NVIDIA H100* x8 (NVLink4, NV18) all_reduce at 1G: 360 GB/s less 10 %, published: "
            "https://example.org/h100 (nccl-tests, NCCL 2.28)");
  EXPECT_THAT(table->rows[2].Describe(),
              HasSubstr("(2 ranks sharing one GPU) (sockets (one GPU)) all_reduce at 1G: 1.5 GB/s less 50 %, "
                        "measured 2026-12-08 on one H100: gpuharness run x.yaml"));
}

TEST_F(ReferenceFloorsTest, APointGetsTheRowOfItsGpuRanksOpSizeAndDtype) {
  absl::StatusOr<std::vector<Point>> points = Load("  busbw_GBps: {min: reference}\n");
  ASSERT_TRUE(points.ok()) << points.status();
  absl::StatusOr<ReferenceTable> table = LoadReferenceTable(root_ + "/results/reference/collective_busbw.yaml");
  ASSERT_TRUE(table.ok());
  const Point& f32 = Named(*points, "c/op=all_reduce/dtype=float/bytes=1G/np=8");
  const Point& bf16 = Named(*points, "c/op=all_reduce/dtype=bfloat16/bytes=1G/np=8");
  const EnvironmentFacts h100 = Facts("NVIDIA H100 80GB HBM3", 8);
  EXPECT_EQ(FindReference(*table, "busbw_GBps", f32, h100), &table->rows[0]);
  EXPECT_EQ(FindReference(*table, "busbw_GBps", bf16, h100), &table->rows[1]);  // the dtype's own row wins
  // A row naming the environment applies only where the job's environment says so.
  EnvironmentFacts no_nvls = h100;
  no_nvls.values["env.NCCL_NVLS_ENABLE"] = "0";
  EXPECT_EQ(FindReference(*table, "busbw_GBps", f32, no_nvls), &table->rows[3]);
  EXPECT_THAT(table->rows[3].Describe(), HasSubstr("(NVLink4, NV18, NCCL_NVLS_ENABLE=0) all_reduce at 1G: 300 GB/s"));
  no_nvls.values["env.NCCL_NVLS_ENABLE"] = "1";
  EXPECT_EQ(FindReference(*table, "busbw_GBps", f32, no_nvls), &table->rows[0]);
  // Anything else that differs: no row.
  EXPECT_EQ(FindReference(*table, "busbw_GBps", f32, Facts("NVIDIA H200", 8)), nullptr);
  EXPECT_EQ(FindReference(*table, "busbw_GBps", f32, Facts("NVIDIA H100 80GB HBM3", 4)), nullptr);
  EXPECT_EQ(FindReference(*table, "busbw_GBps", f32, Facts("NVIDIA H100 80GB HBM3", 8, false, 2)), nullptr);
  EXPECT_EQ(FindReference(*table, "algbw_GBps", f32, h100), nullptr);
  EXPECT_EQ(FindReference(*table, "busbw_GBps", Named(*points, "c/op=all_reduce/dtype=float/bytes=1M/np=8"), h100), nullptr);
  EXPECT_EQ(FindReference(*table, "busbw_GBps", Named(*points, "c/op=all_gather/dtype=float/bytes=1G/np=8"), h100), nullptr);
  EXPECT_EQ(FindReference(*table, "busbw_GBps", f32, EnvironmentFacts{}), nullptr);  // host: no GPU
}

TEST_F(ReferenceFloorsTest, MinReferenceBecomesTheRowsFloorAndAMissSaysWhichReference) {
  absl::StatusOr<std::vector<Point>> points = Load("  busbw_GBps: {min: reference}\n");
  ASSERT_TRUE(points.ok()) << points.status();
  const Point& point = Named(*points, "c/op=all_reduce/dtype=float/bytes=1G/np=8");
  const EnvironmentFacts h100 = Facts("NVIDIA H100 80GB HBM3", 8);
  std::vector<MetricBound> bounds = MetricBoundsFor(spec_.expect_metrics, point, h100);
  ASSERT_EQ(bounds.size(), 1u);
  EXPECT_EQ(bounds[0].ToString(), "busbw_GBps >= 324");
  // Where the table has no row (another GPU, another size) there is no bound.
  EXPECT_TRUE(MetricBoundsFor(spec_.expect_metrics, point, Facts("NVIDIA H200", 8)).empty());
  EXPECT_TRUE(MetricBoundsFor(spec_.expect_metrics, Named(*points, "c/op=all_reduce/dtype=float/bytes=1M/np=8"), h100).empty());

  Record record = MakeRecord(spec_, "scenarios/sub/x.yaml", point, 0, h100);
  PointOutcome result;
  result.metrics = {{"busbw_GBps", 301.25, "GB/s"}};
  SetResult(record, result);
  absl::StatusOr<Record> again = RecordFromJson(RecordToJson(record));  // the bound travels
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->metric_bounds.size(), 1u);
  EXPECT_EQ(again->metric_bounds[0].reference, bounds[0].reference);
  Comparison comparison = CompareResults({*again}, nullptr);
  EXPECT_THAT(comparison.points[0].now->metric_misses,
              ElementsAre("metric busbw_GBps = 301.2 GB/s, below the reference for NVIDIA H100* x8 "
                          "(NVLink4, NV18) all_reduce at 1G: 360 GB/s less 10 %, published: "
                          "https://example.org/h100 (nccl-tests, NCCL 2.28) (floor 324)"));
  result.metrics = {{"busbw_GBps", 330, "GB/s"}};
  SetResult(record, result);
  EXPECT_TRUE(CompareResults({record}, nullptr).points[0].now->metric_misses.empty());
}

TEST_F(ReferenceFloorsTest, ATableNamedByTheBoundIsReadRelativeToTheScenario) {
  Write(root_ + "/scenarios/sub/mine.yaml", std::string(kTable) + "  - gpu: \"NVIDIA H200\"\n"
        "    interconnect: x\n    ranks: 8\n    op: all_gather\n    bytes: 1M\n    value: 10\n    tolerance: 0\n"
        "    source: {kind: inferred, note: test}\n");
  absl::StatusOr<std::vector<Point>> points = Load("  busbw_GBps: {min: reference, table: mine.yaml}\n");
  ASSERT_TRUE(points.ok()) << points.status();
  std::vector<MetricBound> bounds = MetricBoundsFor(
      spec_.expect_metrics, Named(*points, "c/op=all_gather/dtype=float/bytes=1M/np=8"), Facts("NVIDIA H200", 8));
  ASSERT_EQ(bounds.size(), 1u);
  EXPECT_EQ(*bounds[0].min, 10);
}

TEST_F(ReferenceFloorsTest, BadTablesAndBoundsNameFileLineAndKey) {
  const std::string path = root_ + "/bad.yaml";
  auto error_of = [&](const std::string& text) {
    Write(path, text);
    absl::StatusOr<ReferenceTable> table = LoadReferenceTable(path);
    EXPECT_FALSE(table.ok());
    return std::string(table.status().message());
  };
  const std::string row = "references:\n  - {gpu: g, interconnect: i, ranks: 2, op: all_reduce, bytes: 1M, ";
  EXPECT_EQ(error_of(row + "value: fast, tolerance: 0, source: {kind: inferred, note: n}}\n"),
            path + ":2:75: references[0].value: expected a number, got 'fast'");
  EXPECT_EQ(error_of(row + "value: 1, tolerance: 1.5, source: {kind: inferred, note: n}}\n"),
            path + ":2:89: references[0].tolerance: must be between 0 and 0.99, got 1.5");
  EXPECT_THAT(error_of(row + "value: 1, tolerance: 0, source: {kind: measured, date: d}}\n"),
              HasSubstr("references[0].source: a measured source needs `machine`"));
  EXPECT_THAT(error_of(row + "value: 1, tolerance: 0, source: {kind: rumour}}\n"),
              HasSubstr("references[0].source.kind: expected measured, published or inferred, got 'rumour'"));
  EXPECT_THAT(error_of(row + "value: 1, tolerance: 0, bytse: 1M, source: {kind: inferred, note: n}}\n"),
              HasSubstr("references[0].bytse: unknown key; did you mean bytes?"));
  EXPECT_THAT(error_of(row + "value: 1, tolerance: 0}\n"), HasSubstr("missing required key `source`"));
  EXPECT_THAT(error_of("references: 3\n"), HasSubstr("references: expected a list of rows"));
  EXPECT_THAT(std::string(LoadReferenceTable(root_ + "/none.yaml").status().message()),
              HasSubstr("none.yaml: cannot read the reference table"));
  // In a scenario.
  EXPECT_THAT(std::string(Load("  busbw_GBps: {min: reference, vs: {op: all_gather}}\n").status().message()),
              HasSubstr("expect_metrics.busbw_GBps.vs: a reference floor is absolute"));
  EXPECT_THAT(std::string(Load("  busbw_GBps: {min: 3, table: mine.yaml}\n").status().message()),
              HasSubstr("expect_metrics.busbw_GBps.table: `table` names the reference table of `min: reference`"));
  EXPECT_THAT(std::string(Load("  busbw_GBps: {min: reference, table: missing.yaml}\n").status().message()),
              HasSubstr("expect_metrics.busbw_GBps.table: reference table: "));
  std::filesystem::remove(root_ + "/results/reference/collective_busbw.yaml");
  // The scenario tree's root (the directory holding scenarios/) ends the search, so a table
  // further up (the checkout's own, when the test runs under the build tree) never answers.
  std::filesystem::create_directories(root_ + "/scenarios/sub");
  EXPECT_THAT(std::string(Load("  busbw_GBps: {min: reference}\n").status().message()),
              HasSubstr("`min: reference` found no results/reference/collective_busbw.yaml"));
}

}  // namespace
}  // namespace gh
