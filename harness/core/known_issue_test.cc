// `known:` expectations: loading (and its errors), the versions they hold for, the records they
// make and how a comparison counts them: known failures apart from unmet ones, fixes upstream.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/comparison.h"
#include "harness/core/exit_codes.h"
#include "harness/core/expectation.h"
#include "harness/core/point.h"
#include "harness/core/record.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/testdata/loaded_scenario.h"

namespace gh {
namespace {

using ::testing::HasSubstr;

ScenarioRegistry MakeRegistry() {
  return testing::RegistryOfOneHostKind(
      "fake_sliced", {{"allocator", ParamType::kEnum, std::string("arena"), "where",
                       {"arena", "cuda_malloc_async"}, {}, {}}});
}

constexpr char kKnown[] =
    "name: user_buffers\n"
    "kind: fake_sliced\n"
    "params:\n"
    "  allocator: [arena, cuda_malloc_async]\n"
    "expect:\n"
    "  - when: {allocator: cuda_malloc_async}\n"
    "    outcome: pass\n"
    "    known:\n"
    "      reference: https://example.org/nccl/issues/1\n"
    "      versions: {nccl: \">=2.30.3,<2.31\"}\n"
    "      signature: \"Cuda failure 1\"\n"
    "  - pass\n";

class KnownIssueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioText(kKnown, "scenarios/known.yaml", registry_);
    ASSERT_TRUE(specs.ok()) << specs.status();
    spec_ = (*specs)[0];
    absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec_, 1);
    ASSERT_TRUE(points.ok()) << points.status();
    points_ = *points;
  }

  // Trial `trial` of the point with `allocator`, run under NCCL `nccl` ("" for none), ending so.
  Record RecordOf(const std::string& allocator, const std::string& nccl, Outcome outcome,
                  const std::string& signature, int trial = 0) {
    std::map<std::string, std::string> facts = {{"backend", "cuda"}, {"nranks", "1"}};
    if (!nccl.empty()) facts["nccl_version"] = nccl;
    for (const Point& point : points_) {
      if (point.Format("allocator") != allocator) continue;
      Record record = MakeRecord(spec_, "scenarios/known.yaml", point, trial, EnvironmentFacts{facts});
      record.cell = {{"nccl", nccl}};
      PointOutcome ended;
      ended.outcome = outcome;
      ended.signature = signature;
      SetResult(record, std::move(ended));
      return record;
    }
    ADD_FAILURE() << "no point " << allocator;
    return {};
  }

  std::string ErrorOf(const std::string& known) {
    const std::string yaml = absl::StrCat("name: bad\nkind: fake_sliced\nexpect:\n  - outcome: pass\n    known: ", known, "\n");
    absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioText(yaml, "scenarios/bad.yaml", registry_);
    EXPECT_FALSE(specs.ok()) << "loaded: " << known;
    return specs.ok() ? "" : std::string(specs.status().message());
  }

  ScenarioRegistry registry_ = MakeRegistry();
  ScenarioSpec spec_;
  std::vector<Point> points_;
};

constexpr char kCudaFailure[] = "ncclUnhandledCudaError: Cuda failure 1 'invalid argument' (ncclCommRegister)";

TEST_F(KnownIssueTest, LoadsReferenceVersionsAndSignature) {
  ASSERT_EQ(spec_.expect.rules.size(), 2u);
  const ExpectationRule& rule = spec_.expect.rules[0];
  ASSERT_TRUE(rule.known.has_value());
  EXPECT_EQ(rule.known->reference, "https://example.org/nccl/issues/1");
  EXPECT_EQ(rule.known->versions, (std::map<std::string, std::string>{{"nccl", ">=2.30.3,<2.31"}}));
  EXPECT_EQ(rule.known->signature_regex, "Cuda failure 1");
  EXPECT_EQ(rule.known->ToString(), "known in nccl >=2.30.3,<2.31: https://example.org/nccl/issues/1");
  EXPECT_FALSE(rule.expect.known.has_value());  // only inside its versions
  EXPECT_FALSE(spec_.expect.rules[1].known.has_value());
}

TEST_F(KnownIssueTest, AppliesOnlyInsideItsVersions) {
  EXPECT_TRUE(RecordOf("cuda_malloc_async", "2.30.3", Outcome::kPass, "").expected.known.has_value());
  EXPECT_TRUE(RecordOf("cuda_malloc_async", "2.30.7", Outcome::kPass, "").expected.known.has_value());
  EXPECT_FALSE(RecordOf("cuda_malloc_async", "2.29.7", Outcome::kPass, "").expected.known.has_value());
  EXPECT_FALSE(RecordOf("cuda_malloc_async", "2.31.0", Outcome::kPass, "").expected.known.has_value());
  EXPECT_FALSE(RecordOf("cuda_malloc_async", "", Outcome::kPass, "").expected.known.has_value());  // no NCCL
  EXPECT_FALSE(RecordOf("arena", "2.30.3", Outcome::kPass, "").expected.known.has_value());  // another rule
}

TEST_F(KnownIssueTest, VersionAxisLabelOfTheSweepCounts) {
  KnownIssue known{"ref", {{"jax", ">=0.7.0"}}, std::nullopt};
  EnvironmentFacts facts{{{"env.GH_VERSION_NAME", "jax"}, {"env.GH_VERSION", "0.7.1"}}};
  EXPECT_TRUE(KnownVersionsHold(known, facts));
  facts.values["env.GH_VERSION"] = "0.6.2";
  EXPECT_FALSE(KnownVersionsHold(known, facts));
  facts.values["env.GH_VERSION"] = "v0.7.0-1";  // a tag's label reads as its version
  EXPECT_TRUE(KnownVersionsHold(known, facts));
  facts.values["env.GH_VERSION_NAME"] = "torch";  // another library's axis says nothing
  EXPECT_FALSE(KnownVersionsHold(known, facts));
  // The NCCL runtime the job loaded wins over a label.
  KnownIssue nccl{"ref", {{"nccl", ">=2.30.3"}}, std::nullopt};
  EXPECT_TRUE(KnownVersionsHold(nccl, EnvironmentFacts{{{"nccl_version", "2.30.3"},
                                                        {"env.GH_VERSION_NAME", "nccl"},
                                                        {"env.GH_VERSION", "v2.29.7-1"}}}));
}

TEST_F(KnownIssueTest, TheKnownFailureIsMetAndMarkedAnotherFailureIsUnmet) {
  Record known = RecordOf("cuda_malloc_async", "2.30.3", Outcome::kError, kCudaFailure);
  EXPECT_TRUE(known.matched);
  EXPECT_TRUE(known.known_failure);
  Record other = RecordOf("cuda_malloc_async", "2.30.3", Outcome::kCrash, "SIGSEGV in exchange");
  EXPECT_FALSE(other.matched);
  EXPECT_FALSE(other.known_failure);
  Record outside = RecordOf("cuda_malloc_async", "2.29.7", Outcome::kError, kCudaFailure);
  EXPECT_FALSE(outside.matched);
  EXPECT_FALSE(outside.known_failure);
  Record passed = RecordOf("cuda_malloc_async", "2.30.3", Outcome::kPass, "");
  EXPECT_TRUE(passed.matched);
  EXPECT_FALSE(passed.known_failure);
}

TEST_F(KnownIssueTest, RecordsKeepTheIssueAndTheKnownFailure) {
  Record known = RecordOf("cuda_malloc_async", "2.30.3", Outcome::kError, kCudaFailure);
  const nlohmann::json json = RecordToJson(known);
  EXPECT_EQ(json["known_failure"], true);
  EXPECT_EQ(json["expected"]["known"]["reference"], "https://example.org/nccl/issues/1");
  EXPECT_EQ(json["expected"]["known"]["versions"]["nccl"], ">=2.30.3,<2.31");
  EXPECT_EQ(json["expected"]["known"]["signature"], "Cuda failure 1");
  absl::StatusOr<Record> back = RecordFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->known_failure);
  ASSERT_TRUE(back->expected.known.has_value());
  EXPECT_EQ(back->expected.known->ToString(), known.expected.known->ToString());
  EXPECT_EQ(back->expected.known->signature_regex, "Cuda failure 1");
  EXPECT_FALSE(RecordToJson(RecordOf("arena", "2.30.3", Outcome::kPass, "")).contains("known_failure"));

  nlohmann::json bad = json;
  bad["expected"]["known"]["versions"] = "nccl >=2.30.3";
  EXPECT_THAT(std::string(RecordFromJson(bad).status().message()),
              HasSubstr("expected.known.versions: expected an object"));
}

TEST_F(KnownIssueTest, ComparisonCountsKnownFailuresApartAndAnnouncesFixesUpstream) {
  // 2.30.3 fails as known; 2.31.0 is past the range (unmet); a point at 2.30.7 passes again.
  std::vector<Record> records = {RecordOf("cuda_malloc_async", "2.30.3", Outcome::kError, kCudaFailure),
                                 RecordOf("cuda_malloc_async", "2.30.7", Outcome::kPass, ""),
                                 RecordOf("arena", "2.30.3", Outcome::kPass, "")};
  Comparison comparison = CompareResults(records, nullptr);
  EXPECT_EQ(comparison.counts.unmet, 0);
  EXPECT_EQ(comparison.counts.known_failures, 1);
  EXPECT_EQ(comparison.counts.fixed_upstream, 1);
  EXPECT_EQ(ComparisonExitStatus(comparison), kExitOk);
  EXPECT_THAT(ComparisonHeadline(comparison), HasSubstr("0 unmet expectations; 1 known failure; 1 fixed upstream"));
  ASSERT_EQ(comparison.points.size(), 3u);
  EXPECT_TRUE(comparison.points[0].now->known_failure);
  EXPECT_FALSE(comparison.points[0].now->fixed_upstream);
  EXPECT_TRUE(comparison.points[1].now->fixed_upstream);
  EXPECT_FALSE(comparison.points[2].now->fixed_upstream);  // no known issue there

  // Against a baseline where it passed (an older NCCL, the version axis ignored): no regression.
  std::vector<Record> before = {RecordOf("cuda_malloc_async", "2.29.7", Outcome::kPass, "")};
  std::vector<Record> now = {RecordOf("cuda_malloc_async", "2.30.3", Outcome::kError, kCudaFailure)};
  BaselineMatch match;
  match.ignore_axes = {"nccl"};
  Comparison vs = CompareResults(now, &before, match);
  EXPECT_EQ(vs.counts.regressions, 0);
  EXPECT_EQ(vs.counts.known_failures, 1);
  EXPECT_EQ(ComparisonExitStatus(vs), kExitOk);
  // A failure of another kind in the range stays a regression.
  now = {RecordOf("cuda_malloc_async", "2.30.3", Outcome::kCrash, "SIGSEGV in exchange")};
  vs = CompareResults(now, &before, match);
  EXPECT_EQ(vs.counts.regressions, 1);
  EXPECT_EQ(vs.counts.unmet, 1);
  EXPECT_EQ(ComparisonExitStatus(vs), kExitUnmet);
}

TEST_F(KnownIssueTest, TrialsJudgedTogetherAreKnownWhenEveryFailureIsTheKnownOne) {
  spec_.trials = 3;
  std::vector<Record> records;
  for (int t = 0; t < 3; ++t) {
    records.push_back(RecordOf("cuda_malloc_async", "2.30.3", t == 1 ? Outcome::kPass : Outcome::kError,
                               kCudaFailure, t));
  }
  Comparison comparison = CompareResults(records, nullptr);
  EXPECT_EQ(comparison.counts.unmet, 0);
  EXPECT_EQ(comparison.counts.known_failures, 1);
  records[2] = RecordOf("cuda_malloc_async", "2.30.3", Outcome::kTimeout, "timeout in exchange", 2);
  comparison = CompareResults(records, nullptr);
  EXPECT_EQ(comparison.counts.unmet, 1);
  EXPECT_EQ(comparison.counts.known_failures, 0);
}

TEST_F(KnownIssueTest, BadKnownBlocksNameFileLineAndKey) {
  EXPECT_THAT(ErrorOf("{versions: {nccl: \">=2.30.3\"}}"),
              HasSubstr("scenarios/bad.yaml:5:12: expect[0].known.reference: missing required key"));
  EXPECT_THAT(ErrorOf("{reference: r}"),
              HasSubstr("scenarios/bad.yaml:5:12: expect[0].known.versions: missing required key"));
  EXPECT_THAT(ErrorOf("{reference: r, versions: \">=2.30.3\"}"),
              HasSubstr("scenarios/bad.yaml:5:37: expect[0].known.versions: expected a map of libraries to version ranges"));
  EXPECT_THAT(ErrorOf("{reference: r, versions: {nccl: \"2.30.x\"}}"),
              HasSubstr("scenarios/bad.yaml:5:44: expect[0].known.versions.nccl: bad range clause '2.30.x'"));
  EXPECT_THAT(ErrorOf("{reference: r, versions: {nccl: \">=2.30.3\"}, signature: \"(\"}"),
              HasSubstr("expect[0].known.signature: invalid regular expression '('"));
  EXPECT_THAT(ErrorOf("{reference: \" \", versions: {nccl: \">=2.30.3\"}}"),
              HasSubstr("scenarios/bad.yaml:5:24: expect[0].known.reference: expected a public reference"));
  EXPECT_THAT(ErrorOf("{reference: r, version: {nccl: \">=2.30.3\"}}"),
              HasSubstr("expect[0].known.version: unknown key; did you mean versions?"));
  EXPECT_THAT(ErrorOf("https://example.org/1"),
              HasSubstr("scenarios/bad.yaml:5:12: expect[0].known: expected a map with reference, versions and signature"));
}

}  // namespace
}  // namespace gh
