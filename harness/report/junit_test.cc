#include "harness/report/junit.h"

#include <set>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/report/report_test_records.h"

namespace gh {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Record Make(const std::string& point, Outcome outcome, std::string signature, Expectation expected,
            bool matched, double duration_s, std::map<std::string, std::string> cell = {}) {
  Record r;
  r.scenario = point.substr(0, point.find('/'));
  r.point = point;
  r.result.outcome = outcome;
  r.result.signature = std::move(signature);
  r.expected = std::move(expected);
  r.matched = matched;
  r.duration_s = duration_s;
  r.cell = std::move(cell);
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

int Count(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

TEST(JUnitTest, GoldenOutputForEveryKindOfTestcase) {
  const Expectation pass;
  const std::map<std::string, std::string> cell = {{"proto", "LL"}, {"algo", "Ring"}};
  std::vector<Record> records;
  records.push_back(Make("ring/bytes=4K/np=2", Outcome::kPass, "", pass, true, 0.5, cell));

  Record fail = Make("ring/bytes=1M/np=2", Outcome::kFail, "wrong data [ranks 1]", pass, false, 1.25, cell);
  RankOutcome wrong = Rank(1, Outcome::kFail, "", "verify");
  wrong.mismatch = Mismatch{3, 262144, 17, "1.5", "0"};
  fail.result.ranks = {Rank(0, Outcome::kPass, ""), wrong};
  records.push_back(fail);

  records.push_back(Make("sliced/alloc=cuda/np=2", Outcome::kError,
                         "ncclUnhandledCudaError: Cuda failure 1 'invalid argument'",
                         Expectation{Outcome::kError, "Cuda failure 1", "issue <1> & co"}, true, 0.125, cell));
  // A skip nobody expected is a failure (gpuharness exits 1 on it); an expected one is skipped.
  records.push_back(Make("ring/bytes=2M/np=8", Outcome::kSkip, "needs 8 \"GPUs\"", pass, false, 0, cell));
  records.push_back(Make("ring/bytes=4M/np=8", Outcome::kSkip, "needs 8 GPUs",
                         Expectation{Outcome::kSkip, "", "one node"}, true, 0, cell));

  for (int trial = 0; trial < 3; ++trial) {
    Outcome outcome = trial == 1 ? Outcome::kCrash : Outcome::kPass;
    Record r = Make("cap/threads=4/np=1", outcome, trial == 1 ? "SIGSEGV\x01 in <exchange>" : "", pass,
                    trial != 1, 2, cell);
    r.trial = trial;
    r.trials = 3;
    if (trial == 1) r.result.ranks = {Rank(0, Outcome::kCrash, "SIGSEGV\x01 in <exchange>", "exchange")};
    records.push_back(r);
  }
  records.push_back(Make("sliced/alloc=nccl/np=2", Outcome::kPass, "",
                         Expectation{Outcome::kError, "Cuda failure 1", ""}, false, 0.25, cell));

  EXPECT_EQ(RenderJUnit(records, "flags & co"),
            R"(<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="flags &amp; co" tests="7" failures="4" errors="0" time="8.125">
  <testsuite name="flags &amp; co" tests="7" failures="4" errors="0" skipped="1" time="8.125">
    <testcase classname="gpuharness.flags &amp; co.ring" name="ring/bytes=1M/np=2 [algo=Ring,proto=LL]" time="1.250">
      <failure message="expected pass, got fail: wrong data [ranks 1]" type="fail">expected pass, got fail: wrong data [ranks 1]</failure>
      <system-out>trial 1/1: fail: wrong data [ranks 1] (unmet)
  rank 1 on node-a gpu 1: fail in verify (3 of 262144 elements wrong; first at 17: expected 1.5, got 0)</system-out>
    </testcase>
    <testcase classname="gpuharness.flags &amp; co.ring" name="ring/bytes=2M/np=8 [algo=Ring,proto=LL]" time="0.000">
      <failure message="expected pass, got skip: needs 8 &quot;GPUs&quot;" type="skip">expected pass, got skip: needs 8 &quot;GPUs&quot;</failure>
      <system-out>trial 1/1: skip: needs 8 &quot;GPUs&quot; (unmet)</system-out>
    </testcase>
    <testcase classname="gpuharness.flags &amp; co.cap" name="cap/threads=4/np=1 [algo=Ring,proto=LL]" time="6.000">
      <failure message="expected pass, got 3 trials, 1 failed (1 crash (SIGSEGV)): SIGSEGV\x01 in &lt;exchange&gt;" type="crash">expected pass, got 3 trials, 1 failed (1 crash (SIGSEGV)): SIGSEGV\x01 in &lt;exchange&gt;</failure>
      <system-out>trial 1/3: pass
trial 2/3: crash: SIGSEGV\x01 in &lt;exchange&gt; (unmet)
  rank 0 on node-a gpu 0: crash in exchange: SIGSEGV\x01 in &lt;exchange&gt;
trial 3/3: pass</system-out>
    </testcase>
    <testcase classname="gpuharness.flags &amp; co.sliced" name="sliced/alloc=nccl/np=2 [algo=Ring,proto=LL]" time="0.250">
      <failure message="expected error ~ /Cuda failure 1/, got pass" type="pass">expected error ~ /Cuda failure 1/, got pass</failure>
      <system-out>trial 1/1: pass (unmet)</system-out>
    </testcase>
    <testcase classname="gpuharness.flags &amp; co.sliced" name="sliced/alloc=cuda/np=2 [algo=Ring,proto=LL]" time="0.125">
      <system-out>expected error ~ /Cuda failure 1/ and got error: ncclUnhandledCudaError: Cuda failure 1 &apos;invalid argument&apos;
reason: issue &lt;1&gt; &amp; co
trial 1/1: error: ncclUnhandledCudaError: Cuda failure 1 &apos;invalid argument&apos;</system-out>
    </testcase>
    <testcase classname="gpuharness.flags &amp; co.ring" name="ring/bytes=4K/np=2 [algo=Ring,proto=LL]" time="0.500"/>
    <testcase classname="gpuharness.flags &amp; co.ring" name="ring/bytes=4M/np=8 [algo=Ring,proto=LL]" time="0.000">
      <skipped message="needs 8 GPUs"/>
    </testcase>
  </testsuite>
</testsuites>
)");
}

TEST(JUnitTest, EmptyRun) {
  EXPECT_EQ(RenderJUnit({}, "empty"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"empty\" tests=\"0\" failures=\"0\" errors=\"0\" time=\"0.000\">\n"
            "  <testsuite name=\"empty\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\" "
            "time=\"0.000\">\n"
            "  </testsuite>\n</testsuites>\n");
}

// Axes that only set environment variables give every cell the same points: the cell in the
// name keeps them apart, within the suite too (Jenkins finds a case's earlier results by its
// name alone: SuiteResult.getCase).
TEST(JUnitTest, EveryCellTimesPointHasItsOwnId) {
  std::vector<Record> records;
  for (const char* proto : {"Simple", "LL"}) {
    for (const char* p2p : {"on", "off"}) {
      for (const char* bytes : {"4K", "1M"}) {
        records.push_back(Make(std::string("ring/bytes=") + bytes + "/np=2", Outcome::kPass, "", {}, true, 1,
                               {{"proto", proto}, {"p2p", p2p}}));
      }
    }
  }
  const std::string xml = RenderJUnit(records, "nccl_flags");
  std::set<std::pair<std::string, std::string>> ids;
  std::set<std::string> names;
  for (size_t at = xml.find("<testcase classname=\""); at != std::string::npos;
       at = xml.find("<testcase classname=\"", at + 1)) {
    size_t c = at + 21, c_end = xml.find('"', c);
    size_t n = xml.find("name=\"", c_end) + 6, n_end = xml.find('"', n);
    ids.insert({xml.substr(c, c_end - c), xml.substr(n, n_end - n)});
    names.insert(xml.substr(n, n_end - n));
  }
  EXPECT_EQ(ids.size(), 8u);
  EXPECT_EQ(names.size(), 8u);
  EXPECT_THAT(xml, HasSubstr("classname=\"gpuharness.nccl_flags.ring\" name=\"ring/bytes=1M/np=2 [p2p=off,proto=LL]\""));
}

// Trials are not testcases: 3 trials of one point are one testcase, listed in <system-out>.
TEST(JUnitTest, CountsPointsNotTrials) {
  std::vector<Record> records = testing::MakeTrials({}, {Outcome::kPass, Outcome::kPass, Outcome::kPass}, {});
  const std::string xml = RenderJUnit(records, kPlainRunSuite);
  EXPECT_THAT(xml, HasSubstr("<testsuites name=\"gpuharness\" tests=\"1\" failures=\"0\" errors=\"0\""));
  EXPECT_EQ(Count(xml, "<testcase "), 1);
  EXPECT_THAT(xml, HasSubstr("<testcase classname=\"gpuharness.ring\" name=\"ring/bytes=4K/np=2\" time=\"1.500\">\n"
                             "      <system-out>trial 1/3: pass\ntrial 2/3: pass\ntrial 3/3: pass</system-out>"));
}

// `skipped` is not an attribute junit-10.xsd allows on <testsuites>.
TEST(JUnitTest, TestsuitesCarriesOnlySchemaAttributes) {
  const std::string xml = RenderJUnit({Make("a/np=1", Outcome::kSkip, "x", {}, false, 0)}, "m");
  const std::string head = xml.substr(xml.find("<testsuites"), xml.find('>', xml.find("<testsuites")) -
                                                                    xml.find("<testsuites"));
  EXPECT_THAT(head, Not(HasSubstr("skipped")));
  EXPECT_THAT(xml, Not(HasSubstr("<error")));
}

// With a baseline, a regression fails even where the outcome met its expectation.
TEST(JUnitTest, RegressionAgainstTheBaselineIsAFailure) {
  const Expectation known{Outcome::kError, "", "known bug"};
  std::vector<Record> now = {Make("ring/np=2", Outcome::kError, "boom", known, true, 1)};
  std::vector<Record> before = {Make("ring/np=2", Outcome::kPass, "", known, false, 1)};
  Comparison comparison = CompareResults(now, &before);
  const std::string xml = RenderJUnit(now, "m", &comparison);
  EXPECT_THAT(xml, HasSubstr("<failure message=\"regression: baseline pass, now error: boom\" type=\"regression\">"));
  EXPECT_THAT(xml, HasSubstr("tests=\"1\" failures=\"1\""));
  EXPECT_THAT(RenderJUnit(now, "m"), HasSubstr("tests=\"1\" failures=\"0\""));
}

// Issue 15 item 3: a point the launcher never ran is an <error> (the harness could not judge
// it), not a <failure> of the code, and the suite counts it among errors.
TEST(JUnitTest, AnInfraPointIsAnErrorQuotingTheLauncher) {
  const std::string why =
      "infrastructure: mpirun has detected an attempt to run as root. (job exited with status 1)";
  const std::vector<Record> records = {
      Make("ring/bytes=4K/np=2", Outcome::kInfra, why, Expectation{Outcome::kCrash, std::nullopt, ""}, false, 0),
      Make("ring/bytes=1M/np=2", Outcome::kPass, "", Expectation{}, true, 0.5)};
  const std::string xml = RenderJUnit(records, "m");
  EXPECT_EQ(Count(xml, "<error "), 1) << xml;
  EXPECT_EQ(Count(xml, "<failure "), 0) << xml;
  // The launcher's own line, once: not "not run (infrastructure): infrastructure: ...".
  const std::string line = why.substr(std::string("infrastructure: ").size());
  EXPECT_THAT(xml, HasSubstr("<error message=\"not run (infrastructure): " + line +
                             "\" type=\"infra\">not run (infrastructure): " + line + "</error>"));
  EXPECT_THAT(xml, HasSubstr("tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"0\""));
}

TEST(JUnitTest, AttributesEscapeNewlinesTabsAndInvalidUtf8) {
  Record r = Make("a/np=1", Outcome::kError, "line1\nline2\tx \xff\xfe é", Expectation{}, false, 1);
  std::string xml = RenderJUnit({r}, "s");
  EXPECT_THAT(xml, HasSubstr("message=\"expected pass, got error: line1&#10;line2&#9;x \\xFF\\xFE é\" type=\"error\">"))
      << xml;
  EXPECT_THAT(xml, HasSubstr("trial 1/1: error: line1\nline2\tx \\xFF\\xFE é (unmet)"));
}

// Issue 19 item 5: the failure text of a hung point carries its hang report.
TEST(JUnitTest, AHungPointsFailureCarriesTheHangReport) {
  Record hung = testing::MakeRecord({.outcome = Outcome::kTimeout, .signature = "timeout after 5s in step 'exchange'",
                                     .matched = false});
  hung.result.hang.summary = {"rank 1: nanosleep <- Stall (step exchange)", "rank 0: MPI_Recv (step exchange)"};
  hung.result.hang.divergence = "rank 1 is in exchange #1 outside any communication call";
  hung.result.hang.nccl_ras = "not available: host backend (no NCCL)";
  const std::string xml = RenderJUnit({hung}, kPlainRunSuite);
  EXPECT_THAT(xml, ::testing::HasSubstr("\n  hang: rank 1: nanosleep &lt;- Stall (step exchange)"
                                        "\n  hang: rank 0: MPI_Recv (step exchange)"
                                        "\n  divergence: rank 1 is in exchange #1 outside any communication call"
                                        "\n  NCCL RAS: not available: host backend (no NCCL)"))
      << xml;
}

// Jenkins' junit plugin splits a classname at its last dot: the package is what comes before
// it, the class what follows (CaseResult.getPackageName, getSimpleName). A version label such as
// nccl=2.27.7 must not be in the classname, or the class reads "7".
TEST(JUnitTest, JenkinsSplitsTheClassnameIntoMatrixAndScenario) {
  const std::vector<Record> records = {
      Make("ring.v2/bytes=4K/np=2", Outcome::kPass, "", {}, true, 1, {{"nccl", "2.27.7"}, {"proto", "LL"}})};
  const std::string xml = RenderJUnit(records, "nccl.releases");
  const size_t c = xml.find("classname=\"") + 11;
  const std::string classname = xml.substr(c, xml.find('"', c) - c);
  const size_t dot = classname.rfind('.');
  ASSERT_NE(dot, std::string::npos) << classname;
  EXPECT_EQ(classname.substr(0, dot), "gpuharness.nccl_releases");  // the package
  EXPECT_EQ(classname.substr(dot + 1), "ring_v2");                   // the class: the scenario
  EXPECT_THAT(xml, HasSubstr("name=\"ring.v2/bytes=4K/np=2 [nccl=2.27.7,proto=LL]\""));
  EXPECT_EQ(JUnitClassName("", "ring"), "gpuharness.ring");
}

// A kernel point of half a millisecond takes 0.000461 s, not "0.000".
TEST(JUnitTest, TimesKeepMicroseconds) {
  const std::string xml = RenderJUnit({Make("a/np=1", Outcome::kPass, "", {}, true, 0.000461305)}, "m");
  EXPECT_THAT(xml, HasSubstr("name=\"a/np=1\" time=\"0.000461\""));
  EXPECT_THAT(RenderJUnit({Make("a/np=1", Outcome::kPass, "", {}, true, 2)}, "m"), HasSubstr("time=\"2.000\""));
}

// The outcome and the signature are said once: "got error: RuntimeError: ...", never
// "got RuntimeError: RuntimeError: ...".
TEST(JUnitTest, AFailureMessageSaysItsSignatureOnce) {
  const std::string xml = RenderJUnit(
      {Make("a/np=2", Outcome::kError, "RuntimeError: NCCL error in: x.cc:12 [ranks 1]", {}, false, 1)}, "m");
  EXPECT_THAT(xml, HasSubstr("message=\"expected pass, got error: RuntimeError: NCCL error in: x.cc:12 [ranks 1]\""));
  EXPECT_EQ(Count(xml.substr(0, xml.find("</failure>")), "RuntimeError"), 2) << xml;  // message and body
}

// With a baseline, what changed leads: regressions and new failures are the first testcases and
// their messages say so; failures the baseline had too follow, then the rest.
TEST(JUnitTest, WhatChangedComesFirstAndSaysSo) {
  const Expectation pass;
  std::vector<Record> before = {Make("a/np=2", Outcome::kPass, "", pass, true, 1),
                                Make("b/np=2", Outcome::kError, "E: old", pass, false, 1),
                                Make("c/np=2", Outcome::kPass, "", pass, true, 1)};
  std::vector<Record> now = {Make("a/np=2", Outcome::kPass, "", pass, true, 1),
                             Make("b/np=2", Outcome::kError, "E: old", pass, false, 1),
                             Make("c/np=2", Outcome::kError, "E: new", pass, false, 1)};
  Comparison comparison = CompareResults(now, &before);
  const std::string xml = RenderJUnit(now, "m", &comparison);
  const size_t c = xml.find("name=\"c/np=2\""), b = xml.find("name=\"b/np=2\""), a = xml.find("name=\"a/np=2\"");
  EXPECT_LT(c, b);
  EXPECT_LT(b, a);
  EXPECT_THAT(xml, HasSubstr("message=\"regression: expected pass, got error: E: new\""));
  EXPECT_THAT(xml, HasSubstr("message=\"failing in the baseline too: expected pass, got error: E: old\""));
}

}  // namespace
}  // namespace gh
