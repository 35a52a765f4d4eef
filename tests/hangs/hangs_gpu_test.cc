// GPU (issue 19, docs/explanation/hangs.md): a stalled NCCL receive with 2 ranks sharing one GPU. Rank 1
// sleeps in step "exchange" before its ncclSend/ncclRecv; rank 0 waits for it inside NCCL or
// the stream. The timeout record must carry both ranks' stacks, the divergence line naming
// rank 1, and NCCL's RAS report or the plain reason there is none. Skips (77) without a GPU.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/runtime/cuda_resources.h"
#include "tests/common/harness_run.h"

namespace gh::testing {
namespace {

using ::testing::MatchesRegex;
using ::testing::StartsWith;

bool AnyFrameHas(const RankOutcome& rank, const std::string& text) {
  return std::any_of(rank.stack.begin(), rank.stack.end(),
                     [&](const std::string& frame) { return absl::StrContains(frame, text); });
}

TEST(HangsGpu, StalledNcclReceiveIsExplained) {
  const HarnessRun job = RunHarness(2, "tests/hangs/ring_stall_nccl.yaml", "cuda");
  EXPECT_EQ(job.exit_code, 0) << "the expected timeout was met\n" << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 1u) << job.console;
  const Record& record = records[0];
  EXPECT_EQ(record.result.outcome, Outcome::kTimeout);
  ASSERT_EQ(record.result.ranks.size(), 2u);
  for (const RankOutcome& rank : record.result.ranks) {
    SCOPED_TRACE("rank " + std::to_string(rank.rank));
    EXPECT_FALSE(rank.stack.empty()) << rank.stack_note;
  }
  EXPECT_TRUE(AnyFrameHas(record.result.ranks[1], "RingShiftCuda") ||
              AnyFrameHas(record.result.ranks[1], "Stall"))
      << ::testing::PrintToString(record.result.ranks[1].stack);
  // Stall may be inlined into RunSteps, Run or RunRingShiftCuda: with debug information its own
  // name and line come back ("Stall (inlined) at ring_shift_nccl_cuda.cc:170"), without it (the
  // device bundle strips debug information) the caller's: "nanosleep <- RunRingShiftCuda" on the
  // H200 on 2026-12-02.
  const std::string stalled =
      "nanosleep <- (RingShiftCuda::)?(Stall|RunSteps|Run|RunRingShiftCuda)"
      "( \\(ring_shift_nccl_cuda.cc:[0-9]+\\))?";
  ASSERT_FALSE(record.result.hang.summary.empty());
  EXPECT_THAT(record.result.hang.summary,
              ::testing::Contains(MatchesRegex("rank 1: " + stalled + " \\(step exchange\\)")));
  EXPECT_THAT(record.result.hang.divergence,
              MatchesRegex("rank 1 is in exchange #1 \\(ncclSend/ncclRecv 4 KiB\\) outside any "
                           "communication call \\(" + stalled +
                           "\\); rank 0 is in exchange #1 \\(ncclSend/ncclRecv 4 KiB\\) waiting in .*"));
  // NCCL 2.24+ answers with its report; anything else says plainly why not.
  const std::string& ras = record.result.hang.nccl_ras;
  EXPECT_FALSE(ras.empty());
  // The H200's NCCL 2.28.9 answered with its job summary and one RUNNING communicator.
  EXPECT_TRUE(ras.find("Job summary") != std::string::npos || ras.rfind("not available", 0) == 0) << ras;
  std::printf("NCCL RAS view:\n%s\n", ras.c_str());
  EXPECT_LT(record.duration_s, 5 + 5) << job.console;
}

}  // namespace
}  // namespace gh::testing

int main(int argc, char** argv) {
  return gh::testing::GpuTestMain(argc, argv, gh::VisibleGpuCount);
}
