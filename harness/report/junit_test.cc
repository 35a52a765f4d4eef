#include "harness/report/junit.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

Record Make(const std::string& point, Outcome outcome, std::string signature, Expectation expected,
            bool matched, double duration_s) {
  Record r;
  r.scenario = point.substr(0, point.find('/'));
  r.point = point;
  r.result.outcome = outcome;
  r.result.signature = std::move(signature);
  r.expected = std::move(expected);
  r.matched = matched;
  r.duration_s = duration_s;
  return r;
}

RankOutcome Rank(int rank, Outcome outcome, std::string signature, std::string step = "") {
  RankOutcome r;
  r.rank = rank;
  r.host = "node-a";
  r.device = rank;
  r.outcome = outcome;
  r.signature = std::move(signature);
  r.step = std::move(step);
  return r;
}

TEST(JUnitTest, GoldenOutputForEveryKindOfTestcase) {
  Expectation pass;
  std::vector<Record> records;
  records.push_back(Make("ring/bytes=4K/np=2", Outcome::kPass, "", pass, true, 0.5));

  Record fail = Make("ring/bytes=1M/np=2", Outcome::kFail, "wrong data [ranks 1]", pass, false, 1.25);
  RankOutcome wrong = Rank(1, Outcome::kFail, "", "verify");
  wrong.mismatch = Mismatch{3, 262144, 17, "1.5", "0"};
  fail.result.ranks = {Rank(0, Outcome::kPass, ""), wrong};
  records.push_back(fail);

  records.push_back(Make("sliced/alloc=cuda/np=2", Outcome::kError,
                         "ncclUnhandledCudaError: Cuda failure 1 'invalid argument'",
                         Expectation{Outcome::kError, "Cuda failure 1", "issue <1> & co"}, true, 0.125));
  records.push_back(Make("ring/bytes=2M/np=8", Outcome::kSkip, "needs 8 \"GPUs\"", pass, false, 0));

  Record crash = Make("cap/threads=4/np=1", Outcome::kCrash, "SIGSEGV\x01 in <exchange>", pass, false, 2);
  crash.trial = 1;
  crash.trials = 3;
  crash.result.ranks = {Rank(0, Outcome::kCrash, "SIGSEGV\x01 in <exchange>", "exchange")};
  records.push_back(crash);

  records.push_back(Make("sliced/alloc=nccl/np=2", Outcome::kPass, "",
                         Expectation{Outcome::kError, "Cuda failure 1", ""}, false, 0.25));
  records.push_back(Make("ring/bytes=8M/np=2", Outcome::kTimeout, "timeout in exchange [ranks 1]",
                         pass, false, 30));

  EXPECT_EQ(RenderJUnit(records, "gpuharness & co"),
            R"(<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="gpuharness &amp; co" tests="7" failures="2" errors="2" skipped="1" time="34.125">
  <testsuite name="gpuharness &amp; co" tests="7" failures="2" errors="2" skipped="1" time="34.125">
    <testcase classname="ring" name="ring/bytes=4K/np=2" time="0.500"/>
    <testcase classname="ring" name="ring/bytes=1M/np=2" time="1.250">
      <failure message="wrong data [ranks 1]" type="fail">expected pass, got fail: wrong data [ranks 1]
rank 1 on node-a gpu 1: fail in verify (3 of 262144 elements wrong; first at 17: expected 1.5, got 0)</failure>
    </testcase>
    <testcase classname="sliced" name="sliced/alloc=cuda/np=2" time="0.125">
      <system-out>expected error ~ /Cuda failure 1/ and got error: ncclUnhandledCudaError: Cuda failure 1 &apos;invalid argument&apos;
reason: issue &lt;1&gt; &amp; co</system-out>
    </testcase>
    <testcase classname="ring" name="ring/bytes=2M/np=8" time="0.000">
      <skipped message="needs 8 &quot;GPUs&quot;"/>
    </testcase>
    <testcase classname="cap" name="cap/threads=4/np=1 #2" time="2.000">
      <error message="SIGSEGV\x01 in &lt;exchange&gt;" type="crash">expected pass, got crash: SIGSEGV\x01 in &lt;exchange&gt;
rank 0 on node-a gpu 0: crash in exchange: SIGSEGV\x01 in &lt;exchange&gt;</error>
    </testcase>
    <testcase classname="sliced" name="sliced/alloc=nccl/np=2" time="0.250">
      <failure message="expected error ~ /Cuda failure 1/, got pass" type="pass">expected error ~ /Cuda failure 1/, got pass</failure>
    </testcase>
    <testcase classname="ring" name="ring/bytes=8M/np=2" time="30.000">
      <error message="timeout in exchange [ranks 1]" type="timeout">expected pass, got timeout: timeout in exchange [ranks 1]</error>
    </testcase>
  </testsuite>
</testsuites>
)");
}

TEST(JUnitTest, EmptyRun) {
  EXPECT_EQ(RenderJUnit({}, "empty"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"empty\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\" "
            "time=\"0.000\">\n"
            "  <testsuite name=\"empty\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\" "
            "time=\"0.000\">\n"
            "  </testsuite>\n</testsuites>\n");
}

TEST(JUnitTest, AttributesEscapeNewlinesTabsAndInvalidUtf8) {
  Record r = Make("a/np=1", Outcome::kError, "line1\nline2\tx \xff\xfe é", Expectation{}, false, 1);
  std::string xml = RenderJUnit({r}, "s");
  EXPECT_NE(xml.find("<error message=\"line1&#10;line2&#9;x \\xFF\\xFE é\" type=\"error\">"
                     "expected pass, got error: line1\nline2\tx \\xFF\\xFE é</error>"),
            std::string::npos)
      << xml;
}

}  // namespace
}  // namespace gh
