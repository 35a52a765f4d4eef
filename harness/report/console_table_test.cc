#include "harness/report/console_table.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

Record Make(const std::string& point, Outcome outcome, std::string signature, Expectation expected,
            bool matched, std::vector<Metric> metrics = {}) {
  Record r;
  r.scenario = point.substr(0, point.find('/'));
  r.point = point;
  r.result.outcome = outcome;
  r.result.signature = std::move(signature);
  r.result.metrics = std::move(metrics);
  r.expected = std::move(expected);
  r.matched = matched;
  return r;
}

TEST(ConsoleTableTest, UnmetFirstMarkedThenRecordOrderWithTally) {
  Expectation pass;
  Expectation cuda_error{Outcome::kError, "Cuda failure 1", "issue 1"};
  std::vector<Record> records = {
      Make("ring/bytes=4K/np=2", Outcome::kPass, "", pass, true,
           {{"time_median_us", 12.34, "us"}, {"bandwidth_GBps", 0.3321, "GB/s"}}),
      Make("ring/bytes=1M/np=2", Outcome::kFail, "wrong data [ranks 1]", pass, false,
           {{"time_median_us", 15.96, "us"}}),
      Make("sliced/alloc=cuda/np=2", Outcome::kError, "ncclUnhandledCudaError: Cuda failure 1 'invalid argument'",
           cuda_error, true),
      Make("ring/bytes=2M/np=2", Outcome::kSkip, "needs 4 GPUs", pass, false),
      Make("ring/bytes=4M/np=2", Outcome::kPass, "", pass, true, {{"iterations", 20, "count"}}),
  };
  EXPECT_EQ(RenderConsoleTable(records),
            "   point                   outcome  expected                  signature                                                  metric\n"
            "✗  ring/bytes=1M/np=2      fail     pass                      wrong data [ranks 1]                                       16.0 us\n"
            "✗  ring/bytes=2M/np=2      skip     pass                      needs 4 GPUs\n"
            "   ring/bytes=4K/np=2      pass     pass                                                                                 0.3 GB/s\n"
            "   sliced/alloc=cuda/np=2  error    error ~ /Cuda failure 1/  ncclUnhandledCudaError: Cuda failure 1 'invalid argument'\n"
            "   ring/bytes=4M/np=2      pass     pass\n"
            "5 points: 2 pass, 1 fail, 1 error, 1 skip; 2 unmet expectations\n");
}

TEST(ConsoleTableTest, AllMetHasNoMarkColumnAndTrialsGetAColumn) {
  Expectation pass;
  std::vector<Record> records;
  for (int trial = 0; trial < 3; ++trial) {
    Record r = Make("cap/threads=4/np=1", trial == 1 ? Outcome::kCrash : Outcome::kPass,
                    trial == 1 ? "SIGSEGV" : "", trial == 1 ? Expectation{Outcome::kCrash, {}, ""} : pass,
                    true, {{"bandwidth_GBps", 123.45, "GB/s"}});
    r.trial = trial;
    r.trials = 3;
    // Judged on all three trials: 1 failed of 3 is not above the rate, so the point meets pass.
    r.verdict = TrialVerdictRule{TrialVerdictRule::Kind::kFailureRateAbove, 0.5};
    records.push_back(r);
  }
  EXPECT_EQ(RenderConsoleTable(records),
            "point               trial  outcome  expected  signature  metric\n"
            "cap/threads=4/np=1  1/3    pass     pass                 123.5 GB/s\n"
            "cap/threads=4/np=1  2/3    crash    crash     SIGSEGV    123.5 GB/s\n"
            "cap/threads=4/np=1  3/3    pass     pass                 123.5 GB/s\n"
            "trials, judged per point:\n"
            "  cap/threads=4/np=1 — 3 trials, 1 failed (1 crash); expected pass by "
            "failure_rate_above 0.5\n"
            "3 point trials: 2 pass, 1 crash; all expectations met\n");
  // By the default rule (any_failure) the same trials fail the point: one unmet expectation.
  for (Record& r : records) r.verdict = TrialVerdictRule{};
  EXPECT_THAT(RenderConsoleTable(records),
              ::testing::HasSubstr("✗ cap/threads=4/np=1 — 3 trials, 1 failed (1 crash); "
                                   "expected pass by any_failure\n"
                                   "3 point trials: 2 pass, 1 crash; 1 unmet expectation\n"));
}

TEST(ConsoleTableTest, LongSignaturesAreTruncatedOnOneLine) {
  std::string long_signature = "ncclInternalError:\nline two " + std::string(80, 'x');
  std::vector<Record> records = {
      Make("a/np=1", Outcome::kTimeout, long_signature, Expectation{}, false)};
  std::string table = RenderConsoleTable(records);
  EXPECT_EQ(table,
            "   point   outcome  expected  signature                                                     metric\n"
            "✗  a/np=1  timeout  pass      ncclInternalError: line two xxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\n"
            "1 point: 1 timeout; 1 unmet expectation\n");
}

TEST(ConsoleTableTest, TruncationNeverSplitsAUtf8Character) {
  std::string signature;
  for (int i = 0; i < 70; ++i) signature += "é";
  std::vector<Record> records = {Make("a/np=1", Outcome::kError, signature, Expectation{}, false)};
  std::string table = RenderConsoleTable(records);
  std::string expected_signature;
  for (int i = 0; i < 57; ++i) expected_signature += "é";
  expected_signature += "...";
  EXPECT_EQ(table, "   point   outcome  expected  signature                                                     metric\n"
                   "✗  a/np=1  error    pass      " + expected_signature + "\n"
                   "1 point: 1 error; 1 unmet expectation\n");
}

TEST(ConsoleTableTest, NoRecords) {
  EXPECT_EQ(RenderConsoleTable({}),
            "point  outcome  expected  signature  metric\n0 points; all expectations met\n");
}

}  // namespace
}  // namespace gh
