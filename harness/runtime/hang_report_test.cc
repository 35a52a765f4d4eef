#include "harness/runtime/hang_report.h"

#include "gtest/gtest.h"
#include "harness/runtime/timeout_outcome.h"

namespace gh {
namespace {

const std::vector<std::string> kBarrierStack = {
    "opal_progress [libopen-pal.so.40]", "PMPI_Barrier [libmpi.so.40]",
    "gh::(anonymous namespace)::RingShift::RunSteps() [gpuharness]", "main [gpuharness]"};
const std::vector<std::string> kStallStack = {
    "clock_nanosleep [libc.so.6]", "__nanosleep [libc.so.6]",
    "gh::(anonymous namespace)::RingShift::Stall() [gpuharness]", "main [gpuharness]"};

// Steps as a scenario enters them; "exchange" issues a 4 KiB send/recv, as ring_shift's does.
std::vector<OpEntry> Ops(std::initializer_list<const char*> steps) {
  std::vector<OpEntry> ops;
  std::map<std::string, int64_t> counts;
  for (const char* step : steps) {
    OpEntry op{static_cast<int64_t>(ops.size() + 1), step, ++counts[step]};
    if (op.step == "exchange") {
      op.operation = "send/recv";
      op.bytes = 4096;
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

WatchdogReport Report(int rank, const char* step, std::vector<std::string> stack,
                      std::vector<OpEntry> ops) {
  WatchdogReport r;
  r.rank = rank;
  r.step = step;
  r.stack = std::move(stack);
  r.stack_note = "main thread";
  r.ops = std::move(ops);
  return r;
}

TEST(HangReport, SameOperationToldApartByStacks) {
  const auto ops = Ops({"start", "setup", "exchange"});
  const std::vector<WatchdogReport> reports = {
      Report(0, "exchange", kBarrierStack, ops), Report(1, "exchange", kStallStack, ops),
      Report(2, "exchange", kBarrierStack, ops), Report(3, "exchange", kBarrierStack, ops)};
  EXPECT_EQ(HangSummaryLines(reports),
            (std::vector<std::string>{
                "ranks 0,2,3: MPI_Barrier <- RingShift::RunSteps (step exchange)",
                "rank 1: nanosleep <- RingShift::Stall (step exchange)"}));
  EXPECT_EQ(DivergenceLine(reports),
            "rank 1 is in exchange #1 (send/recv 4 KiB) outside any communication call (nanosleep "
            "<- RingShift::Stall); ranks 0,2,3 are in exchange #1 (send/recv 4 KiB) waiting in "
            "MPI_Barrier");
}

TEST(HangReport, ARankBehindTheOthers) {
  const auto behind = Ops({"start", "setup", "exchange", "setup", "exchange"});
  const auto ahead = Ops({"start", "setup", "exchange", "setup", "exchange", "verify"});
  const std::vector<WatchdogReport> reports = {
      Report(0, "verify", kBarrierStack, ahead), Report(1, "verify", kBarrierStack, ahead),
      Report(2, "exchange", kStallStack, behind), Report(3, "verify", kBarrierStack, ahead)};
  EXPECT_EQ(DivergenceLine(reports),
            "rank 2 is in exchange #2 (send/recv 4 KiB), ranks 0,1,3 finished #2 and wait in verify #1");
  // A rank ahead whose history lacks the lagging rank's operation did not finish it.
  const std::vector<WatchdogReport> apart = {
      Report(0, "retry", kStallStack, Ops({"start", "setup", "retry"})),
      Report(1, "verify", kBarrierStack, Ops({"start", "setup", "exchange", "verify"})),
      Report(2, "verify", kBarrierStack, ahead)};
  EXPECT_EQ(DivergenceLine(apart),
            "rank 0 is in retry #1, ranks 1,2 are in verify #1");
}

TEST(HangReport, NothingTellsThemApartAndSilentRanksAreNamed) {
  const auto ops = Ops({"start", "exchange"});
  WatchdogReport silent;
  silent.rank = 2;
  silent.step = kUnresponsiveStep;
  silent.stack_note = "no stack: no report";
  const std::vector<WatchdogReport> all = {Report(0, "exchange", kBarrierStack, ops),
                                           Report(1, "exchange", kBarrierStack, ops)};
  EXPECT_EQ(DivergenceLine(all),
            "every rank is in exchange #1 (send/recv 4 KiB) waiting in MPI_Barrier: no rank is "
            "behind the others");
  const std::vector<WatchdogReport> some = {all[0], all[1], silent};
  EXPECT_EQ(DivergenceLine(some),
            "ranks 0,1 are in exchange #1 (send/recv 4 KiB) waiting in MPI_Barrier: no rank is "
            "behind the others; "
            "rank 2 left no record of its operations");
  EXPECT_EQ(HangSummaryLines(some).back(), "rank 2: no stack (no stack: no report) (step unresponsive)");
}

TEST(HangReport, TimeoutOutcomeCarriesStacksAndTheReport) {
  const auto ops = Ops({"start", "exchange"});
  const std::vector<WatchdogReport> reports = {Report(0, "exchange", kBarrierStack, ops),
                                               Report(1, "exchange", kStallStack, ops)};
  const PointOutcome result = TimeoutOutcome(absl::Seconds(3), reports, {"h", "h"}, {-1, -1});
  EXPECT_EQ(result.signature, "timeout after 3s in step 'exchange' [ranks 0,1]");
  EXPECT_EQ(result.ranks[1].stack, kStallStack);
  EXPECT_EQ(result.ranks[1].stack_note, "main thread");
  EXPECT_EQ(result.hang.summary.size(), 2u);
  EXPECT_EQ(result.hang.divergence,
            "rank 1 is in exchange #1 (send/recv 4 KiB) outside any communication call (nanosleep "
            "<- RingShift::Stall); rank 0 is in exchange #1 (send/recv 4 KiB) waiting in "
            "MPI_Barrier");
}

TEST(HangReport, CommunicationWaits) {
  for (const char* wait : {"MPI_Barrier <- RingShift::RunSteps",
                           "ncclGroupEnd <- RingShiftNccl::Exchange",
                           "cudaStreamSynchronize <- X",
                           "nanosleep <- CudaResources::Synchronize",
                           "sched_yield <- CudaResources::Synchronize (cuda_resources_cuda.cc:264)"}) {
    EXPECT_TRUE(IsCommunicationWait(wait)) << wait;
  }
  EXPECT_FALSE(IsCommunicationWait("nanosleep <- RingShift::Stall"));
}

}  // namespace
}  // namespace gh
