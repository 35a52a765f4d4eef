#include "harness/runtime/crash_record.h"

#include <csignal>
#include <cstring>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/record.h"

namespace gh {
namespace {

Record PointRecord(int nranks) {
  Record record;
  record.scenario = "s";
  record.kind = "ring_shift";
  record.file = "s.yaml";
  record.point = "s/bytes=4K/np=" + std::to_string(nranks);
  record.params = {{"bytes", 4096}};
  record.backend = "host";
  record.nranks = nranks;
  record.expected.outcome = Outcome::kCrash;
  record.started_at = "2026-11-29T09:00:00.000Z";
  for (int r = 0; r < nranks; ++r) {
    RankOutcome rank;
    rank.rank = r;
    rank.host = "h" + std::to_string(r);
    record.result.ranks.push_back(rank);
  }
  return record;
}

std::string Fill(const std::string& tmpl, const std::vector<const char*>& texts,
                 const char* root_signal) {
  std::vector<CrashRankText> ranks;
  for (const char* text : texts) {
    ranks.push_back(CrashRankText{text, text == nullptr ? 0 : std::strlen(text)});
  }
  std::vector<char> out(CrashRecordCapacity(tmpl.size(), static_cast<int>(texts.size())));
  const size_t n = FillCrashRecord(tmpl.data(), tmpl.size(), ranks.data(),
                                   static_cast<int>(ranks.size()), root_signal, out.data(), out.size());
  return std::string(out.data(), n);
}

Record Parse(const std::string& line) {
  EXPECT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line";
  absl::StatusOr<Record> record = RecordFromJson(nlohmann::json::parse(line));
  EXPECT_TRUE(record.ok()) << record.status();
  return record.ok() ? *record : Record{};
}

TEST(CrashRecord, NamesTheRankThatCrashedAndItsStep) {
  const std::string tmpl = RenderCrashRecordTemplate(PointRecord(3));
  const Record record = Parse(Fill(tmpl, {nullptr, "SIGSEGV in step 'exchange'", nullptr}, "SIGTERM"));
  EXPECT_EQ(record.point, "s/bytes=4K/np=3");
  EXPECT_EQ(record.result.outcome, Outcome::kCrash);
  EXPECT_EQ(record.result.signature, "SIGSEGV on rank 1 in step 'exchange'");
  EXPECT_TRUE(record.matched);
  ASSERT_EQ(record.result.ranks.size(), 3u);
  EXPECT_EQ(record.result.ranks[1].signature, "SIGSEGV in step 'exchange'");
  EXPECT_EQ(record.result.ranks[1].step, "exchange");
  EXPECT_EQ(record.result.ranks[1].host, "h1");
  EXPECT_EQ(record.result.ranks[0].signature, "no crash report (SIGTERM ended the job)");
  EXPECT_EQ(record.result.ranks[0].step, "");
  EXPECT_EQ(record.result.ranks[2].outcome, Outcome::kCrash);
}

TEST(CrashRecord, SeveralCrashedRanksAreJoined) {
  const std::string tmpl = RenderCrashRecordTemplate(PointRecord(2));
  const Record record =
      Parse(Fill(tmpl, {"SIGABRT in step 'verify'\n", "SIGBUS in step 'exchange'"}, "SIGABRT"));
  EXPECT_EQ(record.result.signature,
            "SIGABRT on rank 0 in step 'verify'; SIGBUS on rank 1 in step 'exchange'");
  EXPECT_EQ(record.result.ranks[0].signature, "SIGABRT in step 'verify'");
}

TEST(CrashRecord, NoCrashFileMeansKilledBySignal) {
  const std::string tmpl = RenderCrashRecordTemplate(PointRecord(2));
  const Record record = Parse(Fill(tmpl, {nullptr, nullptr}, "SIGINT"));
  EXPECT_EQ(record.result.signature, "killed by SIGINT");
}

TEST(CrashRecord, QuotesInAStepAreEscapedIntoValidJson) {
  const std::string tmpl = RenderCrashRecordTemplate(PointRecord(1));
  const Record record = Parse(Fill(tmpl, {"SIGSEGV in step 'a \"quoted\" \\ step'"}, "SIGSEGV"));
  EXPECT_EQ(record.result.signature, "SIGSEGV on rank 0 in step 'a \"quoted\" \\ step'");
}

TEST(CrashRecord, ASignatureRegexCannotBeJudgedSoItIsUnmatched) {
  Record point = PointRecord(1);
  point.expected.signature_regex = "SIGSEGV";
  const Record record = Parse(Fill(RenderCrashRecordTemplate(point), {"SIGSEGV in step 'x'"}, "SIGSEGV"));
  EXPECT_FALSE(record.matched);
}

TEST(CrashRecord, ExpectedPassIsUnmatched) {
  Record point = PointRecord(1);
  point.expected.outcome = Outcome::kPass;
  EXPECT_FALSE(Parse(Fill(RenderCrashRecordTemplate(point), {nullptr}, "SIGTERM")).matched);
}

TEST(CrashRecord, CapacityHoldsTheLongestRankTexts) {
  const std::string tmpl = RenderCrashRecordTemplate(PointRecord(4));
  const std::string quotes(400, '"');  // every byte escaped, and cut at the read limit
  const std::string text = "SIGSEGV in step '" + quotes + "'";
  const std::string line = Fill(tmpl, {text.c_str(), text.c_str(), text.c_str(), text.c_str()}, "SIGSEGV");
  EXPECT_EQ(line.back(), '\n');
  EXPECT_TRUE(nlohmann::json::accept(line));
}

TEST(CrashRecord, TheCrashFilesFramesBecomeTheRanksStack) {
  const std::string tmpl = RenderCrashRecordTemplate(PointRecord(2));
  const char* text =
      "SIGSEGV in step 'exchange'\npcs 0x10 0x20\nframe raise\n"
      "frame gh::(anonymous namespace)::RingShift::RunSteps(gh::RankOutcome&)\nframe main\n";
  const Record record = Parse(Fill(tmpl, {nullptr, text}, "SIGTERM"));
  EXPECT_EQ(record.result.signature, "SIGSEGV on rank 1 in step 'exchange'");
  EXPECT_EQ(record.result.ranks[1].signature, "SIGSEGV in step 'exchange'");
  EXPECT_EQ(record.result.ranks[1].step, "exchange");
  EXPECT_EQ(record.result.ranks[1].stack,
            (std::vector<std::string>{
                "raise", "gh::(anonymous namespace)::RingShift::RunSteps(gh::RankOutcome&)", "main"}));
  EXPECT_EQ(record.result.ranks[1].stack_note, "the crashing thread, from its crash handler");
  EXPECT_TRUE(record.result.ranks[0].stack.empty());
  EXPECT_EQ(record.result.ranks[0].stack_note, "no stack: the rank left no crash report");
  // Raw addresses only (the handler died symbolizing): no frames, and it says so.
  const Record raw = Parse(Fill(tmpl, {nullptr, "SIGSEGV in step 'x'\npcs 0x10\n"}, "SIGTERM"));
  EXPECT_TRUE(raw.result.ranks[1].stack.empty());
  EXPECT_EQ(raw.result.ranks[1].stack_note, "no stack: the crash handler found no frames");
}

TEST(CrashRecord, CapacityHoldsAFullCrashFileOfQuotedFrames) {
  const std::string tmpl = RenderCrashRecordTemplate(PointRecord(2));
  std::string text = "SIGSEGV in step 'x'\n";
  while (text.size() < kMaxCrashFileBytes + 100) text += "frame \"\"\"\"\"\"\"\"\"\"\n";
  const std::string line = Fill(tmpl, {text.c_str(), text.c_str()}, "SIGSEGV");
  EXPECT_EQ(line.back(), '\n');
  ASSERT_TRUE(nlohmann::json::accept(line));
  const Record record = Parse(line);
  EXPECT_GT(record.result.ranks[0].stack.size(), 100u);
}


}  // namespace
}  // namespace gh
