// The FAILED lines a bisect or minimize ends with: per probe, its failing trials grouped by
// point, outcome and signature with their count; a set-up failure first; passes and skips never.
#include "harness/bisect/bisect_summary.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

TrialResult Trial(Outcome outcome, const std::string& signature, const std::string& point = "ring/bytes=4K/np=2") {
  TrialResult t;
  t.outcome = outcome;
  t.signature = signature;
  t.point = point;
  return t;
}

TEST(ProbeFailureLines, OneLinePerProbePointAndFailureMostImportantFirst) {
  ProbeRecord good{.version = 0, .label = "v1"};
  good.trials = {Trial(Outcome::kPass, ""), Trial(Outcome::kSkip, "no GPU")};
  ProbeRecord bad{.version = 2, .label = "v3"};
  bad.trials = {Trial(Outcome::kFail, "wrong data [ranks 1]"), Trial(Outcome::kFail, "wrong data [ranks 1]"),
                Trial(Outcome::kCrash, "crash: SIGSEGV on rank 1")};
  ProbeRecord unset{.version = 1, .label = "v2"};
  TrialResult setup;
  setup.setup_failed = true;
  setup.detail = "pip install exited 1";
  unset.trials = {setup, setup};
  absl::StatusOr<Hunt> hunt = Hunt::Create(Outcome::kFail, "wrong data", false);
  ASSERT_TRUE(hunt.ok());
  EXPECT_EQ(RenderFailureLines(ProbeFailureLines({good, bad, unset}, "nccl", &*hunt), ConsoleStyle{}),
            "FAILED nccl=v2 :: (set-up) — set-up failed: pip install exited 1\n"
            "FAILED nccl=v3 :: ring/bytes=4K/np=2 — crash: SIGSEGV on rank 1 (1/3 trials)\n"
            "FAILED nccl=v3 :: ring/bytes=4K/np=2 — fail: wrong data [ranks 1] (2/3 trials; the hunted failure)\n");
  // minimize: configurations, no axis.
  EXPECT_EQ(RenderFailureLines(ProbeFailureLines({bad}, "", nullptr), ConsoleStyle{}),
            "FAILED v3 :: ring/bytes=4K/np=2 — crash: SIGSEGV on rank 1 (1/3 trials)\n"
            "FAILED v3 :: ring/bytes=4K/np=2 — fail: wrong data [ranks 1] (2/3 trials)\n");
}

// A JAX-like range: v4 removes an attribute and words the error otherwise than v5 and later; v2
// could not be set up, v3 crashed instead.
constexpr char kLine[] = "prog.py: s = jax.sharding.PositionalSharding(devices)";
constexpr char kNoAttribute[] = "AttributeError: module 'jax.sharding' has no attribute 'PositionalSharding'";
constexpr char kRemoved[] = "AttributeError: jax.sharding.PositionalSharding was removed in JAX v0.7.0";

struct Reworded {
  BisectConfig config;
  BisectResult result;
  BisectContext context;
};

Reworded RewordedRange(bool regex) {
  Reworded r;
  r.config.versions = {"v0", "v1", "v2", "v3", "v4", "v5", "v6"};
  r.config.good = 0;
  r.config.bad = 6;
  r.context.version_axis = "jax";
  auto trial = [](Outcome outcome, const std::string& signature, const std::string& where = "") {
    TrialResult t = Trial(outcome, signature, "prog");
    t.where = where;
    return t;
  };
  TrialResult setup;
  setup.setup_failed = true;
  setup.detail = "pip: no matching distribution for jax==2";
  auto probe = [](int v, int round, std::vector<TrialResult> trials) {
    ProbeRecord p{.version = v, .label = absl::StrCat("v", v), .round = round};
    p.trials = std::move(trials);
    return p;
  };
  const TrialResult bad = trial(Outcome::kError, absl::StrCat(kNoAttribute, " [ranks 0,1]"), kLine);
  r.result.probes = {probe(6, 0, {bad, bad}), probe(0, 0, {trial(Outcome::kPass, "")}),
                     probe(3, 1, {trial(Outcome::kCrash, "SIGSEGV in step 'init'")}),
                     probe(4, 2, {trial(Outcome::kError, kRemoved, kLine), trial(Outcome::kError, kRemoved, kLine)}),
                     probe(2, 3, {setup}), probe(1, 4, {trial(Outcome::kPass, ""), trial(Outcome::kPass, "")})};
  absl::StatusOr<Hunt> hunt = regex ? Hunt::Create(Outcome::kError, "PositionalSharding", false)
                                    : Hunt::Resolve(HuntSpec(), r.result.probes[0].trials);
  EXPECT_TRUE(hunt.ok()) << hunt.status();
  r.result.hunt = hunt->ToString();
  r.result.hunt_outcome = hunt->outcome();
  r.result.hunt_signature = hunt->signature_regex();
  r.result.hunt_family = hunt->family();
  r.result.hunt_example = regex ? kNoAttribute : hunt->example();
  for (ProbeRecord& p : r.result.probes) {
    p.tally = TallyTrials(*hunt, ProbeRule{SprtConfig(), true}, p.trials);
    if (p.version == 4 || p.version == 1 || p.version == 6) p.tally = CountEveryTrial(*hunt, p.trials);
  }
  r.result.probes[0].tally.verdict = r.result.probes[3].tally.verdict = ProbeVerdict::kBad;
  r.result.probes[5].tally.verdict = r.result.probes[1].tally.verdict = ProbeVerdict::kGood;
  r.result.answer = {.last_good = 1, .first_bad = 4, .unclassified = {2, 3}, .contradictions = {}};
  r.result.rounds = 4;
  r.result.total_trials = 8;
  return r;
}

TEST(BisectReportTest, TheTitleAndTheFailureQuoteTheLineAsPrintedNeverARegex) {
  for (bool regex : {false, true}) {
    SCOPED_TRACE(regex ? "--hunt-signature" : "the bad end's family");
    Reworded r = RewordedRange(regex);
    const std::string md = RenderBisectMarkdown(r.config, r.result, r.context);
    EXPECT_THAT(md, ::testing::StartsWith(absl::StrCat("# `", kNoAttribute, "` since jax v4\n")));
    EXPECT_THAT(md, ::testing::HasSubstr(absl::StrCat("- The failure: an error, `", kNoAttribute, "`\n")));
    EXPECT_THAT(md, ::testing::HasSubstr(absl::StrCat("- `v4` failed with a reworded message: `", kRemoved, "`\n")));
    EXPECT_THAT(md, ::testing::Not(::testing::HasSubstr("jax\\.sharding")));
    // Only what did not run could not be tested; what failed otherwise says how.
    EXPECT_THAT(md, ::testing::HasSubstr(
                        "- Failed differently between them: `v3` (`crash: SIGSEGV in step 'init'`)\n"
                        "- Could not be tested between them: `v2` (`set-up failed: pip: no matching distribution for "
                        "jax==2`)\n"));
    EXPECT_THAT(md, ::testing::HasSubstr("· between them failed differently: `v3` (`crash: SIGSEGV in step 'init'`); "
                                         "could not be tested: `v2` (`set-up failed: pip: no matching distribution "
                                         "for jax==2`) (the change is in `v1`..`v4`)"));
    EXPECT_THAT(md, ::testing::HasSubstr("| v3 | 1/1 failed (crash: SIGSEGV in step 'init') | failed differently |"));
    EXPECT_THAT(md, ::testing::HasSubstr("| v2 | set-up failed: pip: no matching distribution for jax==2 | could not "
                                         "be tested |"));
  }
}

TEST(BisectReportTest, RoundsAreRoundsOfProbesAndAPooledSearchHasNone) {
  Reworded r = RewordedRange(false);
  EXPECT_THAT(RenderBisectMarkdown(r.config, r.result, r.context),
              ::testing::HasSubstr("- Probes: 6 (4 after the ends) in 4 rounds of up to 1 probe at once; 8 trials\n"));
  r.result.economy.pooled = true;
  r.result.rounds = 24;  // batches of the posterior's trials
  EXPECT_THAT(RenderBisectMarkdown(r.config, r.result, r.context),
              ::testing::HasSubstr("- Probes: 6 (4 after the ends); 8 trials, each where the posterior learned most, "
                                   "up to 1 at once\n"));
}

TEST(BisectReportTest, SummaryJsonCarriesTheFamilyAndTheRewordedCounts) {
  Reworded r = RewordedRange(false);
  const nlohmann::json j = BisectSummaryJson(r.config, r.result, r.context);
  EXPECT_EQ(j["hunt"]["example"], kNoAttribute);
  EXPECT_EQ(j["hunt"]["family"]["type"], "AttributeError");
  EXPECT_EQ(j["hunt"]["family"]["where"], kLine);
  EXPECT_EQ(j["probes"][3]["version"], "v4");
  EXPECT_EQ(j["probes"][3]["reworded"], 2);
  EXPECT_EQ(j["probes"][2]["verdict"], "other");
  const absl::StatusOr<Hunt> hunt = HuntOf(r.result, false);
  ASSERT_TRUE(hunt.ok());
  EXPECT_EQ(RenderFailureLines(ProbeFailureLines({r.result.probes[3]}, "jax", &*hunt),
                               ConsoleStyle{}),
            absl::StrCat("FAILED jax=v4 :: prog — error: ", kRemoved, " (2/2 trials; the hunted failure, reworded)\n"));
}

}  // namespace
}  // namespace gh
