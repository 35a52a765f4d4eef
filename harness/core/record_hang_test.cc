// The timeout record's hang fields (docs/explanation/hangs.md): ranks[i].stack, stack_note and the
// record's hang object survive the trip through records.jsonl, and stay out of records that
// have none.
#include "gtest/gtest.h"
#include "harness/core/record.h"
#include "harness/core/records_file.h"
#include "harness/core/testdata/test_records.h"

namespace gh {
namespace {

Record HungRecord() {
  Record r = testing::MakeRecord({.point_suffix = "np=2", .outcome = Outcome::kTimeout});
  RankOutcome stuck;
  stuck.rank = 1;
  stuck.outcome = Outcome::kTimeout;
  stuck.stack = {"clock_nanosleep [libc.so.6]", "gh::RingShift::Stall() [gpuharness]"};
  stuck.stack_note = "main thread";
  RankOutcome silent;
  silent.rank = 0;
  silent.outcome = Outcome::kTimeout;
  silent.stack_note = "no stack: the rank sent no report";
  r.result.ranks = {silent, stuck};
  r.result.hang.summary = {"rank 0: no stack", "rank 1: nanosleep <- RingShift::Stall (step exchange)"};
  r.result.hang.divergence = "rank 1 is in exchange #1";
  r.result.hang.nccl_ras = "not available: host backend (no NCCL)";
  return r;
}

TEST(RecordHangFields, RoundTripThroughText) {
  const Record r = HungRecord();
  const nlohmann::json json = nlohmann::json::parse(RecordJsonLine(r));
  EXPECT_EQ(json["ranks"][1]["stack"][1], "gh::RingShift::Stall() [gpuharness]");
  EXPECT_FALSE(json["ranks"][0].contains("stack"));
  EXPECT_EQ(json["ranks"][0]["stack_note"], "no stack: the rank sent no report");
  EXPECT_EQ(json["hang"]["divergence"], "rank 1 is in exchange #1");
  absl::StatusOr<Record> back = RecordFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->result.ranks[1].stack, r.result.ranks[1].stack);
  EXPECT_EQ(back->result.ranks[1].stack_note, "main thread");
  EXPECT_EQ(back->result.ranks[0].stack_note, r.result.ranks[0].stack_note);
  EXPECT_EQ(back->result.hang.summary, r.result.hang.summary);
  EXPECT_EQ(back->result.hang.divergence, r.result.hang.divergence);
  EXPECT_EQ(back->result.hang.nccl_ras, r.result.hang.nccl_ras);
}

TEST(RecordHangFields, AbsentWhenEmpty) {
  Record r;
  r.scenario = "ring";
  r.point = "ring/np=1";
  r.result.ranks.push_back(RankOutcome{});
  const nlohmann::json json = nlohmann::json::parse(RecordJsonLine(r));
  EXPECT_FALSE(json.contains("hang"));
  EXPECT_FALSE(json["ranks"][0].contains("stack"));
  EXPECT_FALSE(json["ranks"][0].contains("stack_note"));
}

TEST(RecordHangFields, BadTypesAreErrorsNamingTheField) {
  nlohmann::json json = nlohmann::json::parse(RecordJsonLine(HungRecord()));
  json["ranks"][1]["stack"][0] = 7;
  absl::StatusOr<Record> back = RecordFromJson(json);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().message(), "ranks[1].stack[0]: expected a string");
  json = nlohmann::json::parse(RecordJsonLine(HungRecord()));
  json["hang"]["summary"] = "one line";
  back = RecordFromJson(json);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().message(), "hang.summary: expected an array of strings");
}

}  // namespace
}  // namespace gh
