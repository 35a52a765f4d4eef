#include "harness/core/record.h"

#include <cmath>

#include "gtest/gtest.h"
#include "harness/core/point.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/testdata/error_cases.h"
#include "harness/core/testdata/fake_kinds.h"
#include "harness/core/testdata/full_record.h"
#include "harness/core/testdata/loaded_scenario.h"

namespace gh {
namespace {

using testing::FullRecord;

void ExpectSameRecord(const Record& a, const Record& b) {
  EXPECT_EQ(a.schema_version, b.schema_version);
  EXPECT_EQ(a.scenario, b.scenario);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.description, b.description);
  EXPECT_EQ(a.file, b.file);
  EXPECT_EQ(a.point, b.point);
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.nranks, b.nranks);
  EXPECT_EQ(a.trial, b.trial);
  EXPECT_EQ(a.trials, b.trials);
  EXPECT_EQ(a.verdict.kind, b.verdict.kind);
  EXPECT_EQ(a.verdict.threshold, b.verdict.threshold);
  EXPECT_EQ(a.result.outcome, b.result.outcome);
  EXPECT_EQ(a.result.signature, b.result.signature);
  ASSERT_EQ(a.result.ranks.size(), b.result.ranks.size());
  for (size_t i = 0; i < a.result.ranks.size(); ++i) {
    const RankOutcome& x = a.result.ranks[i];
    const RankOutcome& y = b.result.ranks[i];
    EXPECT_EQ(x.rank, y.rank);
    EXPECT_EQ(x.host, y.host);
    EXPECT_EQ(x.device, y.device);
    EXPECT_EQ(x.outcome, y.outcome);
    EXPECT_EQ(x.signature, y.signature);
    EXPECT_EQ(x.step, y.step);
    EXPECT_EQ(x.output_tail, y.output_tail);
    ASSERT_EQ(x.mismatch.has_value(), y.mismatch.has_value());
    if (x.mismatch) {
      EXPECT_EQ(x.mismatch->wrong_elements, y.mismatch->wrong_elements);
      EXPECT_EQ(x.mismatch->checked_elements, y.mismatch->checked_elements);
      EXPECT_EQ(x.mismatch->first_index, y.mismatch->first_index);
      EXPECT_EQ(x.mismatch->expected, y.mismatch->expected);
      EXPECT_EQ(x.mismatch->actual, y.mismatch->actual);
    }
    ASSERT_EQ(x.metrics.size(), y.metrics.size());
    for (size_t m = 0; m < x.metrics.size(); ++m) {
      EXPECT_EQ(x.metrics[m].name, y.metrics[m].name);
      EXPECT_EQ(x.metrics[m].value, y.metrics[m].value);  // exact: doubles round-trip
      EXPECT_EQ(x.metrics[m].unit, y.metrics[m].unit);
    }
  }
  ASSERT_EQ(a.result.metrics.size(), b.result.metrics.size());
  for (size_t m = 0; m < a.result.metrics.size(); ++m) {
    EXPECT_EQ(a.result.metrics[m].name, b.result.metrics[m].name);
    EXPECT_EQ(a.result.metrics[m].value, b.result.metrics[m].value);
    EXPECT_EQ(a.result.metrics[m].unit, b.result.metrics[m].unit);
  }
  EXPECT_EQ(a.expected.outcome, b.expected.outcome);
  EXPECT_EQ(a.expected.signature_regex, b.expected.signature_regex);
  EXPECT_EQ(a.expected.reason, b.expected.reason);
  EXPECT_EQ(a.matched, b.matched);
  EXPECT_EQ(a.gpu_shared, b.gpu_shared);
  EXPECT_EQ(a.not_run, b.not_run);
  EXPECT_EQ(a.started_at, b.started_at);
  EXPECT_EQ(a.duration_s, b.duration_s);
  EXPECT_EQ(a.cell, b.cell);
  EXPECT_EQ(a.process, b.process);
}

TEST(RecordJsonTest, ExactRoundTripThroughText) {
  Record original = FullRecord();
  std::string text = RecordToJson(original).dump();
  absl::StatusOr<Record> back = RecordFromJson(nlohmann::json::parse(text));
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameRecord(original, *back);
  EXPECT_EQ(RecordToJson(*back).dump(), text);
}

TEST(RecordJsonTest, RoundTripOfADefaultRecordAndAnAbsentRegex) {
  Record original;
  original.scenario = "s";
  original.point = "s/np=1";
  std::string text = RecordToJson(original).dump();
  absl::StatusOr<Record> back = RecordFromJson(nlohmann::json::parse(text));
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameRecord(original, *back);
  EXPECT_FALSE(back->expected.signature_regex.has_value());
  // An empty regex is not an absent one.
  original.expected.signature_regex = "";
  back = RecordFromJson(RecordToJson(original));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->expected.signature_regex, "");
}

TEST(RecordJsonTest, FieldNamesAreTheDocumentedOnes) {
  nlohmann::json j = RecordToJson(FullRecord());
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "backend", "cell", "duration_s", "expected", "file", "gpu_shared", "kind",
                      "matched", "metrics", "nranks", "outcome", "params", "point", "ranks",
                      "scenario", "schema_version", "signature", "started_at", "trial", "trials",
                      "verdict"}));
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["outcome"], "fail");
  EXPECT_EQ(j["expected"], (nlohmann::json{{"outcome", "error"},
                                           {"signature", "Cuda failure [0-9]+"},
                                           {"reason", "issue 1: \"quoted\""}}));
  EXPECT_EQ(j["metrics"][1], (nlohmann::json{{"name", "bandwidth_GBps"}, {"value", 65.95},
                                             {"unit", "GB/s"}}));
  EXPECT_EQ(j["ranks"][1]["mismatch"],
            (nlohmann::json{{"wrong_elements", 3}, {"checked_elements", 524288},
                            {"first_index", 17}, {"expected", "1.5"}, {"actual", "0"}}));
  EXPECT_FALSE(j["ranks"][0].contains("mismatch"));
  EXPECT_EQ(j["cell"], (nlohmann::json{{"nccl", "2.28.9"}, {"proto", "ll"}}));
}

TEST(RecordJsonTest, NotRunIsWrittenOnlyWhenTrueAndReadsBack) {
  Record record = FullRecord();
  EXPECT_FALSE(RecordToJson(record).contains("not_run"));
  record.not_run = true;
  nlohmann::json j = RecordToJson(record);
  EXPECT_EQ(j["not_run"], true);
  absl::StatusOr<Record> back = RecordFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->not_run);
  j["not_run"] = "yes";
  EXPECT_FALSE(RecordFromJson(j).ok());
}

// `sweep --processes N`: the process index is written only when set, so records of a cell run
// once read and write back as before.
TEST(RecordJsonTest, TheProcessIsWrittenOnlyWhenSetAndReadsBack) {
  Record record = FullRecord();
  EXPECT_FALSE(RecordToJson(record).contains("process"));
  EXPECT_FALSE(RecordFromJson(RecordToJson(record))->process.has_value());
  record.process = 0;
  nlohmann::json j = RecordToJson(record);
  EXPECT_EQ(j["process"], 0);
  record.process = 2;
  j = RecordToJson(record);
  EXPECT_EQ(j["process"], 2);
  absl::StatusOr<Record> back = RecordFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->process, 2);
  j["process"] = "two";
  EXPECT_EQ(RecordFromJson(j).status().message(), "process: expected an integer");
  j["process"] = -1;
  EXPECT_EQ(RecordFromJson(j).status().message(), "process: expected 0 or more, got -1");
}

TEST(RecordJsonTest, NonFiniteMetricsBecomeNullAndReadBackAsNaN) {
  Record r = FullRecord();
  r.result.metrics = {{"bandwidth_GBps", std::nan(""), "GB/s"}};
  nlohmann::json j = RecordToJson(r);
  EXPECT_TRUE(j["metrics"][0]["value"].is_null());
  absl::StatusOr<Record> back = RecordFromJson(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(std::isnan(back->result.metrics[0].value));
}

TEST(RecordJsonTest, NewerSchemaIsAnError) {
  nlohmann::json j = RecordToJson(FullRecord());
  j["schema_version"] = 2;
  EXPECT_EQ(testing::InvalidArgumentMessage(RecordFromJson(j)),
            "schema_version 2 is newer than this gpuharness reads (1): use a newer gpuharness");
}

TEST(RecordJsonTest, MalformedFieldsNameTheField) {
  auto error_of = [](const nlohmann::json& j) {
    return testing::InvalidArgumentMessage(RecordFromJson(j));
  };
  nlohmann::json j = RecordToJson(FullRecord());
  EXPECT_EQ(error_of(nlohmann::json::array()), "record: expected an object");
  {
    nlohmann::json k = j;
    k.erase("schema_version");
    EXPECT_EQ(error_of(k), "schema_version: missing");
  }
  {
    nlohmann::json k = j;
    k["schema_version"] = 0;
    EXPECT_EQ(error_of(k), "schema_version: invalid version 0");
  }
  {
    nlohmann::json k = j;
    k["outcome"] = "explode";
    EXPECT_EQ(error_of(k), "outcome: unknown outcome 'explode' (expected one of pass, skip, "
                           "fail, error, timeout, crash, infra)");
  }
  {
    nlohmann::json k = j;
    k["nranks"] = "2";
    EXPECT_EQ(error_of(k), "nranks: expected an integer");
  }
  {
    nlohmann::json k = j;
    k["ranks"][1]["mismatch"]["wrong_elements"] = "many";
    EXPECT_EQ(error_of(k), "ranks[1].mismatch.wrong_elements: expected an integer");
  }
  {
    nlohmann::json k = j;
    k["ranks"][0]["metrics"][1].erase("name");
    EXPECT_EQ(error_of(k), "ranks[0].metrics[1].name: missing");
  }
  {
    nlohmann::json k = j;
    k["cell"]["nccl"] = 2;
    EXPECT_EQ(error_of(k), "cell.nccl: expected a string");
  }
  {
    nlohmann::json k = j;
    k["expected"]["outcome"] = nullptr;
    EXPECT_EQ(error_of(k), "expected.outcome: missing");
  }
  {
    nlohmann::json k = j;
    k["matched"] = 1;
    EXPECT_EQ(error_of(k), "matched: expected true or false");
  }
}

TEST(RecordJsonTest, UnknownFieldsAreIgnoredForForwardCompatibility) {
  nlohmann::json j = RecordToJson(FullRecord());
  j["added_in_1_1"] = {{"x", 1}};
  absl::StatusOr<Record> r = RecordFromJson(j);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectSameRecord(FullRecord(), *r);
}

// A scenario whose expectation depends on every kind of fact, run 5 times by a rate rule.
constexpr char kRuled[] =
    "name: ring\n"
    "kind: fake_ring\n"
    "description: a ring that NCCL 2.28.4 broke\n"
    "params:\n"
    "  bytes: [1K, 1M]\n"
    "trials: 5\n"
    "verdict: {failure_rate_above: 0.2}\n"
    "expect:\n"
    "  - when: {env: {NCCL_CUMEM_ENABLE: \"0\"}}\n"
    "    outcome: pass\n"
    "  - when: {bytes: 1M, nccl: \">=2.28.4\"}\n"
    "    outcome: error\n"
    "    signature: \"Cuda failure 1\"\n"
    "  - when: {gpu_shared: true}\n"
    "    outcome: fail\n";

class MakeRecordTest : public testing::LoadedScenarioTest {
 protected:
  MakeRecordTest() : LoadedScenarioTest(kRuled, testing::MakeFakeRegistry()) {}
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(LoadedScenarioTest::SetUp());
    ASSERT_EQ(points_.size(), 2u);
    point_ = points_[1];
    ASSERT_EQ(point_.name, "ring/bytes=1M/np=2");
  }
  // A CUDA job on 2 ranks with NCCL 2.28.9, as EnvironmentFingerprint::Facts() names them.
  static EnvironmentFacts Facts() {
    EnvironmentFacts facts;
    facts.values = {{"backend", "cuda"},
                    {"nranks", "2"},
                    {"gpu_shared", "false"},
                    {"nccl_version", "2.28.9"}};
    return facts;
  }
  Point point_;
};

TEST_F(MakeRecordTest, CarriesTheSpecsRulesThePointAndTheJobsFacts) {
  Record r = MakeRecord(spec_, "scenarios/ring.yaml", point_, 4, Facts());
  EXPECT_EQ(r.schema_version, kRecordSchemaVersion);
  EXPECT_EQ(r.scenario, "ring");
  EXPECT_EQ(r.kind, "fake_ring");
  EXPECT_EQ(r.description, "a ring that NCCL 2.28.4 broke");
  EXPECT_EQ(r.file, "scenarios/ring.yaml");
  EXPECT_EQ(r.point, "ring/bytes=1M/np=2");
  EXPECT_EQ(r.params, (nlohmann::json{{"bytes", 1048576}, {"dtype", "f32"},
                                      {"transport", "mpi_p2p"}, {"iters", 3},
                                      {"scale", 1.5}, {"check", true}}));
  EXPECT_EQ(r.backend, "cuda");
  EXPECT_EQ(r.nranks, 2);
  EXPECT_FALSE(r.gpu_shared);
  EXPECT_EQ(r.trial, 4);
  EXPECT_EQ(r.trials, 5);
  EXPECT_EQ(r.verdict.kind, TrialVerdictRule::Kind::kFailureRateAbove);
  EXPECT_EQ(r.verdict.threshold, 0.2);
  EXPECT_EQ(r.expected.ToString(), "error ~ /Cuda failure 1/");
  // Not yet run: a pass, which does not meet an expected error.
  EXPECT_EQ(r.result.outcome, Outcome::kPass);
  EXPECT_FALSE(r.matched);
  EXPECT_TRUE(r.started_at.empty());
  EXPECT_TRUE(r.cell.empty());
  EXPECT_FALSE(r.not_run);

  PointOutcome result;
  result.outcome = Outcome::kError;
  result.signature = "Cuda failure 1 'invalid argument' [ranks 1]";
  SetResult(r, result);
  EXPECT_TRUE(r.matched);
  EXPECT_EQ(r.result.signature, "Cuda failure 1 'invalid argument' [ranks 1]");
  result.signature = "ncclSystemError";
  SetResult(r, result);
  EXPECT_FALSE(r.matched);
}

TEST_F(MakeRecordTest, TheExpectationIsPickedByEveryFact) {
  EnvironmentFacts facts = Facts();
  facts.values["env.NCCL_CUMEM_ENABLE"] = "0";  // the first rule wins
  EXPECT_EQ(MakeRecord(spec_, "f", point_, 0, facts).expected.ToString(), "pass");
  facts = Facts();
  facts.values["nccl_version"] = "2.28.3";  // before the break: nothing holds
  EXPECT_EQ(MakeRecord(spec_, "f", point_, 0, facts).expected.ToString(), "pass");
  facts.values["gpu_shared"] = "true";
  Record shared = MakeRecord(spec_, "f", point_, 0, facts);
  EXPECT_EQ(shared.expected.ToString(), "fail");
  EXPECT_TRUE(shared.gpu_shared);
  facts.values.erase("nccl_version");  // a host job reports no NCCL: the range fails
  facts.values["gpu_shared"] = "false";
  EXPECT_EQ(MakeRecord(spec_, "f", point_, 0, facts).expected.ToString(), "pass");
}

TEST_F(MakeRecordTest, RankCountFallsBackToThePoints) {
  EnvironmentFacts facts;
  Record r = MakeRecord(spec_, "f", point_, 0, facts);
  EXPECT_EQ(r.nranks, 2);
  EXPECT_EQ(r.backend, "");
  EXPECT_FALSE(r.gpu_shared);
}

}  // namespace
}  // namespace gh
