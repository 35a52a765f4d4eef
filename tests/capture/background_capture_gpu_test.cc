// GPU tests of background_capture (label gpu; exit 77 = skipped, with the reason, where no GPU
// is visible): the shipped scenario file holds on the device, and the seed's two rows read as
// the seed measured them: work on the shared stream is swallowed with no error, a private
// capture stream loses nothing, and every trial ran in its own process.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"

#include "harness/runtime/cuda_resources.h"
#include "tests/common/harness_run.h"

namespace gh::testing {
namespace {

double MetricValue(const Record& r, const std::string& name) {
  const Metric* m = FindMetric(r.result.metrics, name);
  if (m == nullptr && !r.result.ranks.empty()) m = FindMetric(r.result.ranks[0].metrics, name);
  return m != nullptr ? m->value : -1;
}

TEST(BackgroundCaptureGpu, ShippedExpectationsHold) {
  HarnessRun run = RunHarness(1, "scenarios/background_capture.yaml", "cuda");
  EXPECT_EQ(run.exit_code, 0) << run.console;
  const std::vector<Record> records = ReadRecords(run);
  std::map<std::string, std::vector<const Record*>> by;
  for (const Record& r : records) by[r.scenario].push_back(&r);

  // The seed's first row: the trials crash (the child process, not the job), or the capture
  // fails; none passes.
  ASSERT_EQ(by["shared_stream_background"].size(), 10u);
  int crashes = 0;
  for (const Record* r : by["shared_stream_background"]) {
    EXPECT_EQ(r->backend, "cuda");
    EXPECT_NE(r->result.outcome, Outcome::kPass);
    if (r->result.outcome == Outcome::kCrash) {
      ++crashes;
      EXPECT_EQ(r->result.signature, "SIGSEGV in isolated trial " + std::to_string(r->trial));
    }
  }
  EXPECT_GT(crashes, 0);

  // The fix: a private capture stream, and no background thread at all, lose nothing.
  for (const char* clean : {"private_stream_background", "no_background_thread"}) {
    ASSERT_EQ(by[clean].size(), 10u) << clean;
    for (const Record* r : by[clean]) {
      EXPECT_EQ(r->result.outcome, Outcome::kPass) << clean << ": " << r->result.signature;
      EXPECT_EQ(MetricValue(*r, "swallowed_ops"), 0) << clean;
    }
  }

  // Held open 20 ms: a shared-stream trial that loses work silently loses nearly all of its 200
  // operations (194-200 were seen on the H200: the first few can run before the capture
  // begins). It is a race, so a trial can also lose none (1 of 6 on 2026-12-02): the point's
  // rule is any_failure, and a trial either passes with nothing swallowed or fails so.
  int shared_swallowed = 0;
  for (const Record* r : by["held_open_20ms"]) {
    if (r->params.value("stream", "") == "shared") {
      if (r->result.outcome == Outcome::kPass) {
        EXPECT_EQ(MetricValue(*r, "swallowed_ops"), 0) << r->point;
        continue;
      }
      ++shared_swallowed;
      EXPECT_EQ(r->result.outcome, Outcome::kFail) << r->point;
      EXPECT_THAT(r->result.signature, ::testing::MatchesRegex("swallowed (1[5-9][0-9]|200)/200"))
          << r->point;
    } else {
      EXPECT_EQ(r->result.outcome, Outcome::kPass) << r->point;
    }
  }
  EXPECT_GT(shared_swallowed, 0);
  EXPECT_NE(run.console.find("shared stream, background thread placing data "
                             "(shared_stream_background/"),
            std::string::npos)
      << run.console;
}

}  // namespace
}  // namespace gh::testing

int main(int argc, char** argv) {
  return gh::testing::GpuTestMain(argc, argv, gh::VisibleGpuCount);
}
