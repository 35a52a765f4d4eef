// The Inspector plugin's dump lines, parsed element by element from a file in the plugin's
// exact framing, and the per-point summary a record carries.
#include <cmath>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "harness/core/nccl_inspector_dump.h"
#include "harness/core/nccl_inspector_view.h"
#include "harness/core/record.h"
#include "harness/core/records_file.h"
#include "harness/core/testdata/nccl_inspector_sample.h"

namespace gh {
namespace {

using testdata::kInspectorRank1Dump;

std::vector<InspectorEntry> ParseSample(size_t* consumed) {
  absl::StatusOr<std::vector<InspectorEntry>> entries =
      ParseInspectorDump(kInspectorRank1Dump, "h200-node-pid48211.log", 1, consumed);
  EXPECT_TRUE(entries.ok()) << entries.status();
  return entries.ok() ? *entries : std::vector<InspectorEntry>{};
}

TEST(ParseInspectorDump, ReadsEveryCompleteLineElementByElement) {
  size_t consumed = 0;
  const std::vector<InspectorEntry> entries = ParseSample(&consumed);
  ASSERT_EQ(entries.size(), 5u);
  const InspectorEntry& first = entries[0];
  EXPECT_EQ(first.comm_id, "0x5a3c9e1f2b7d40");
  EXPECT_EQ(first.rank, 1);
  EXPECT_EQ(first.n_ranks, 2);
  EXPECT_EQ(first.dump_timestamp_us, 1764658021004517u);
  EXPECT_EQ(first.coll, "AllReduce");
  EXPECT_EQ(first.sn, 0u);
  EXPECT_EQ(first.bytes, 1048576u);
  EXPECT_EQ(first.exec_us, 41u);
  EXPECT_EQ(first.timing_source, "kernel_gpu");
  EXPECT_DOUBLE_EQ(first.algobw_gbs, 25.575024);
  EXPECT_DOUBLE_EQ(first.busbw_gbs, 25.575024);
  EXPECT_EQ(entries[1].sn, 1u);
  EXPECT_EQ(entries[1].exec_us, 37u);
  EXPECT_EQ(entries[2].sn, 2u);
  EXPECT_EQ(entries[2].exec_us, 45u);
  EXPECT_EQ(entries[3].coll, "AllGather");
  EXPECT_EQ(entries[3].sn, 0u);
  EXPECT_EQ(entries[3].bytes, 4096u);
  EXPECT_EQ(entries[3].exec_us, 0u);
  EXPECT_EQ(entries[3].timing_source, "collective_cpu");
  EXPECT_TRUE(std::isnan(entries[3].algobw_gbs));
  EXPECT_TRUE(std::isnan(entries[3].busbw_gbs));
  EXPECT_EQ(entries[4].sn, 1u);
  EXPECT_DOUBLE_EQ(entries[4].algobw_gbs, 0.682667);
  EXPECT_DOUBLE_EQ(entries[4].busbw_gbs, 0.341333);
}

TEST(ParseInspectorDump, StopsBeforeTheLineStillBeingWritten) {
  size_t consumed = 0;
  ParseSample(&consumed);
  const std::string text = kInspectorRank1Dump;
  const size_t last_newline = text.rfind('\n');
  EXPECT_EQ(consumed, last_newline + 1);
  // The rest, once the plugin finishes it, parses from where the first read stopped.
  const std::string rest = text.substr(consumed) +
                           R"(271,"hostname":"h","pid":1},"coll_perf":{"coll":"AllGather","coll_sn":2,)"
                           R"("coll_msg_size_bytes":4096,"coll_exec_time_us":11,"coll_algobw_gbs":0.7,)"
                           R"("coll_busbw_gbs":0.35}})" "\n";
  size_t more = 0;
  absl::StatusOr<std::vector<InspectorEntry>> tail = ParseInspectorDump(rest, "f.log", 6, &more);
  ASSERT_TRUE(tail.ok()) << tail.status();
  ASSERT_EQ(tail->size(), 1u);
  EXPECT_EQ((*tail)[0].sn, 2u);
  EXPECT_EQ((*tail)[0].dump_timestamp_us, 1764658021005271u);
  EXPECT_EQ((*tail)[0].timing_source, "");  // absent in older plugins
  EXPECT_EQ(more, rest.size());
}

TEST(ParseInspectorDump, EmptyAndBlankTextHaveNoEntries) {
  size_t consumed = 7;
  absl::StatusOr<std::vector<InspectorEntry>> none = ParseInspectorDump("", "f.log", 1, &consumed);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(consumed, 0u);
  none = ParseInspectorDump("\n  \n", "f.log", 1, &consumed);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(consumed, 4u);
}

TEST(ParseInspectorDump, ABadLineNamesFileLineAndKey) {
  const std::string good = std::string(kInspectorRank1Dump).substr(0, std::strchr(kInspectorRank1Dump, '\n') - kInspectorRank1Dump + 1);
  std::string bad = good;
  bad.replace(bad.find("\"coll_sn\":0"), 11, "\"coll_sn\":\"zero\"");
  size_t consumed = 0;
  absl::StatusOr<std::vector<InspectorEntry>> parsed =
      ParseInspectorDump(good + bad, "dump/h-pid1.log", 10, &consumed);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(parsed.status().message().find("dump/h-pid1.log:11"), std::string::npos)
      << parsed.status();
  EXPECT_NE(parsed.status().message().find("coll_perf.coll_sn"), std::string::npos)
      << parsed.status();

  parsed = ParseInspectorDump("{not json\n", "x.log", 3, &consumed);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("x.log:3: not valid JSON"), std::string::npos)
      << parsed.status();

  std::string rank_out_of_range = good;
  rank_out_of_range.replace(rank_out_of_range.find("\"rank\":1"), 8, "\"rank\":2");
  parsed = ParseInspectorDump(rank_out_of_range, "x.log", 1, &consumed);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("header.rank"), std::string::npos) << parsed.status();
}

TEST(SummarizeInspectorEntries, GroupsByNameAndSizeWithStatistics) {
  size_t consumed = 0;
  std::vector<InspectorEntry> entries = ParseSample(&consumed);
  InspectorEntry rank0 = entries[0];
  rank0.rank = 0;
  rank0.exec_us = 50;
  rank0.busbw_gbs = 20.0;
  rank0.sn = 3;
  rank0.dump_timestamp_us = 1764658021009000;
  entries.push_back(rank0);

  const NcclInspectorView view = SummarizeInspectorEntries(entries);
  EXPECT_EQ(view.note, "");
  ASSERT_EQ(view.collectives.size(), 2u);
  const InspectorCollSummary& all_reduce = view.collectives[0];  // the most frequent first
  EXPECT_EQ(all_reduce.coll, "AllReduce");
  EXPECT_EQ(all_reduce.bytes, 1048576u);
  EXPECT_EQ(all_reduce.count, 4);
  EXPECT_EQ(all_reduce.ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(all_reduce.first_sn, 0u);
  EXPECT_EQ(all_reduce.last_sn, 3u);
  EXPECT_DOUBLE_EQ(all_reduce.exec_us_median, 43.0);  // 37 41 45 50
  EXPECT_DOUBLE_EQ(all_reduce.exec_us_min, 37.0);
  EXPECT_DOUBLE_EQ(all_reduce.exec_us_max, 50.0);
  EXPECT_DOUBLE_EQ(all_reduce.busbw_gbs_median, (23.301689 + 25.575024) / 2);
  EXPECT_DOUBLE_EQ(all_reduce.busbw_gbs_min, 20.0);
  EXPECT_DOUBLE_EQ(all_reduce.busbw_gbs_max, 28.339892);
  const InspectorCollSummary& all_gather = view.collectives[1];
  EXPECT_EQ(all_gather.coll, "AllGather");
  EXPECT_EQ(all_gather.bytes, 4096u);
  EXPECT_EQ(all_gather.count, 2);
  EXPECT_EQ(all_gather.ranks, (std::vector<int>{1}));
  EXPECT_DOUBLE_EQ(all_gather.exec_us_median, 6.0);
  EXPECT_DOUBLE_EQ(all_gather.exec_us_min, 0.0);
  // The "nan" line has no bandwidth: only the other one counts.
  EXPECT_DOUBLE_EQ(all_gather.busbw_gbs_median, 0.341333);
  EXPECT_DOUBLE_EQ(all_gather.busbw_gbs_max, 0.341333);

  ASSERT_EQ(view.last.size(), 2u);
  EXPECT_EQ(view.last[0].rank, 0);
  EXPECT_EQ(view.last[0].coll, "AllReduce");
  EXPECT_EQ(view.last[0].sn, 3u);
  EXPECT_EQ(view.last[1].rank, 1);
  EXPECT_EQ(view.last[1].coll, "AllGather");  // its latest dump timestamp
  EXPECT_EQ(view.last[1].sn, 1u);
  EXPECT_EQ(LastCompletedLine(view.last, 2), "rank 0: AllReduce #3 (1M); rank 1: AllGather #1 (4K)");
  EXPECT_EQ(LastCompletedLine({view.last[1]}, 3),
            "rank 0: none seen; rank 1: AllGather #1 (4K); rank 2: none seen");
  EXPECT_EQ(LastCompletedLine({}, 2), "");
}

TEST(SummarizeInspectorEntries, KeepsAtMostTheBoundAndSaysHowManyWereLeftOut) {
  std::vector<InspectorEntry> entries;
  for (size_t i = 0; i < kMaxInspectorCollectives + 3; ++i) {
    InspectorEntry e;
    e.coll = "AllReduce";
    e.bytes = 1024 * (i + 1);
    entries.push_back(e);
  }
  const NcclInspectorView view = SummarizeInspectorEntries(entries);
  EXPECT_EQ(view.collectives.size(), kMaxInspectorCollectives);
  EXPECT_EQ(view.note, "3 more collective name x size groups left out");
}

TEST(InspectorView, RoundTripsThroughJson) {
  size_t consumed = 0;
  NcclInspectorView view = SummarizeInspectorEntries(ParseSample(&consumed));
  view.note = "sampled";
  const nlohmann::json json = InspectorViewToJson(view);
  EXPECT_EQ(json["collectives"][0]["coll"], "AllReduce");
  EXPECT_EQ(json["collectives"][0]["count"], 3);
  EXPECT_EQ(json["collectives"][0]["exec_us"]["median"], 41.0);
  EXPECT_EQ(json["last_completed"][0]["rank"], 1);
  absl::StatusOr<NcclInspectorView> back = InspectorViewFromJson(json, "nccl_inspector");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->note, "sampled");
  ASSERT_EQ(back->collectives.size(), 2u);
  EXPECT_EQ(back->collectives[1].coll, "AllGather");
  EXPECT_EQ(back->collectives[1].ranks, (std::vector<int>{1}));
  EXPECT_DOUBLE_EQ(back->collectives[0].busbw_gbs_max, 28.339892);
  EXPECT_EQ(back->last[0].sn, 1u);

  const nlohmann::json only_note = InspectorViewToJson(NcclInspectorView{"not available: x", {}, {}});
  EXPECT_EQ(only_note, (nlohmann::json{{"note", "not available: x"}}));
  nlohmann::json broken = json;
  broken["collectives"][0]["count"] = "three";
  absl::StatusOr<NcclInspectorView> refused = InspectorViewFromJson(broken, "nccl_inspector");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("count"), std::string::npos) << refused.status();
}

TEST(InspectorView, ARecordCarriesItOnlyWhenAskedAndReadsItBack) {
  Record plain;
  plain.scenario = "s";
  plain.point = "s/np=2";
  EXPECT_FALSE(nlohmann::json::parse(RecordJsonLine(plain)).contains("nccl_inspector"));

  Record asked = plain;
  size_t consumed = 0;
  asked.nccl_inspector = SummarizeInspectorEntries(ParseSample(&consumed));
  asked.result.outcome = Outcome::kTimeout;
  asked.result.hang.nccl_inspector = LastCompletedLine(asked.nccl_inspector.last, 2);
  const nlohmann::json json = nlohmann::json::parse(RecordJsonLine(asked));
  EXPECT_EQ(json["nccl_inspector"]["collectives"][1]["coll"], "AllGather");
  EXPECT_EQ(json["hang"]["nccl_inspector"], "rank 0: none seen; rank 1: AllGather #1 (4K)");
  absl::StatusOr<Record> back = RecordFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->result.hang.nccl_inspector, "rank 0: none seen; rank 1: AllGather #1 (4K)");
  ASSERT_EQ(back->nccl_inspector.collectives.size(), 2u);
  EXPECT_EQ(back->nccl_inspector.collectives[0].count, 3);
  EXPECT_EQ(back->nccl_inspector.last[0].coll, "AllGather");

  nlohmann::json broken = json;
  broken["nccl_inspector"]["last_completed"][0]["sn"] = -1;
  absl::StatusOr<Record> refused = RecordFromJson(broken);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("nccl_inspector"), std::string::npos) << refused.status();
}

}  // namespace
}  // namespace gh
