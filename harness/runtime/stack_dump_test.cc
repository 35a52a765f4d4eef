#include "harness/runtime/stack_dump.h"
#include "harness/runtime/stack_inlines.h"

#include <atomic>
#include <thread>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::HasSubstr;

std::atomic<bool> stop_parking{false};

// A function with a name the symbolizer must find (external linkage, never inlined).
__attribute__((noinline)) void ParkedInAKnownFunction(std::atomic<bool>* parked) {
  parked->store(true);
  while (!stop_parking.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(StackDump, AnotherThreadsStackNamesTheFunctionItIsIn) {
  ASSERT_TRUE(InstallStackSampler().ok());
  std::atomic<bool> parked{false};
  stop_parking = false;
  std::thread target([&] { ParkedInAKnownFunction(&parked); });
  while (!parked.load()) std::this_thread::yield();
  const CapturedStack stack = CaptureThreadStack(target.native_handle(), absl::Seconds(2));
  stop_parking = true;
  target.join();
  ASSERT_FALSE(stack.frames.empty()) << stack.note;
  bool found = false;
  for (const std::string& frame : stack.frames) {
    found = found || absl::StrContains(frame, "ParkedInAKnownFunction");
  }
  EXPECT_TRUE(found) << testing::PrintToString(stack.frames);
  size_t bytes = 0;
  for (const std::string& frame : stack.frames) bytes += frame.size();
  EXPECT_LE(bytes, kMaxStackBytes);
  EXPECT_LE(stack.frames.size(), static_cast<size_t>(kMaxStackFrames));
}

TEST(StackDump, ShortNames) {
  EXPECT_EQ(ShortFunctionName("gh::(anonymous namespace)::RingShift::Stall() const"), "RingShift::Stall");
  EXPECT_EQ(ShortFunctionName("PMPI_Barrier"), "MPI_Barrier");
  EXPECT_EQ(ShortFunctionName("__nanosleep"), "nanosleep");
  EXPECT_EQ(ShortFunctionName("ncclGroupEnd"), "ncclGroupEnd");
}

TEST(StackDump, SummaryNamesTheCallOutOfTheHarnessAndItsCaller) {
  EXPECT_EQ(StackSummary({"clock_nanosleep [libc.so.6]", "__nanosleep [libc.so.6]",
                          "void std::this_thread::sleep_for<long, std::ratio<1l, 1000l> >() [gpuharness]",
                          "gh::(anonymous namespace)::RingShift::Stall() [gpuharness]",
                          "gh::(anonymous namespace)::RingShift::RunSteps() [gpuharness]",
                          "main [gpuharness]", "0x7f00 [libc.so.6]"}),
            "nanosleep <- RingShift::Stall");
  EXPECT_EQ(StackSummary({"0x7f01 [libmpi.so.40]", "opal_progress [libopen-pal.so.40]",
                          "PMPI_Barrier [libmpi.so.40]",
                          "gh::(anonymous namespace)::RingShift::RunSteps() [gpuharness]",
                          "main [gpuharness]"}),
            "MPI_Barrier <- RingShift::RunSteps");
  // The harness frame innermost: itself.
  EXPECT_EQ(StackSummary({"gh::Spin() [gpuharness]", "main [gpuharness]"}), "Spin");
  // A crash handler's frames have no modules: the first past the signal's plumbing.
  EXPECT_EQ(StackSummary({"__pthread_kill_implementation", "__pthread_kill_internal", "raise",
                          "gh::(anonymous namespace)::RingShift::RunSteps()", "main"}),
            "RingShift::RunSteps");
  // A Python child's innermost frame.
  EXPECT_EQ(StackSummary({"File \"/work/x/hang.py\", line 7 in hang_here",
                          "File \"/work/x/hang.py\", line 12 in <module>"}),
            "hang_here (hang.py:7)");
  EXPECT_EQ(StackSummary({}), "");
  // Inlined frames from the debug information, with their lines.
  EXPECT_EQ(StackSummary({"clock_nanosleep [libc.so.6]", "__nanosleep [libc.so.6]",
                          "void std::this_thread::sleep_for<long>() (inlined) at this_thread_sleep.h:80 [gpuharness]",
                          "Stall (inlined) at ring_shift.cc:191 [gpuharness]",
                          "RunSteps (inlined) at ring_shift.cc:224 [gpuharness]",
                          "gh::(anonymous namespace)::RingShift::Run(gh::PointContext&) at ring_shift.cc:327 [gpuharness]",
                          "_start [gpuharness]"}),
            "nanosleep <- Stall (ring_shift.cc:191)");
}

TEST(StackDump, Addr2lineOutputBecomesOneChainPerAddress) {
  const std::vector<std::vector<SourceFrame>> chains = ParseAddr2lineOutput(
      "0x00000000000b3ad4\n"
      "Stall\n/w/harness/../../harness/scenarios/ring_shift.cc:191\n"
      "gh::RingShift::Run(gh::PointContext&)\n/w/harness/scenarios/ring_shift.cc:327 (discriminator 2)\n"
      "0x0000000000000010\n??\n??:0\n",
      2);
  ASSERT_EQ(chains.size(), 2u);
  ASSERT_EQ(chains[0].size(), 2u);
  EXPECT_EQ(chains[0][0].function, "Stall");
  EXPECT_EQ(chains[0][0].location, "ring_shift.cc:191");
  EXPECT_EQ(chains[0][1].location, "ring_shift.cc:327");
  EXPECT_TRUE(chains[1].empty());
}

}  // namespace
}  // namespace gh
