#include "harness/bisect/probe.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

TrialResult Pass() { return {Outcome::kPass, "", false, "", 0, ""}; }
TrialResult Fail(const std::string& signature) { return {Outcome::kFail, signature, false, "", 0, ""}; }
TrialResult Crash(const std::string& signature) { return {Outcome::kCrash, signature, false, "", 0, ""}; }
TrialResult SetupFailed() { return {Outcome::kError, "", true, "setup exited 1", 0, ""}; }

Hunt WrongDataHunt(bool other_as_bad = false) {
  absl::StatusOr<Hunt> hunt = Hunt::Create(Outcome::kFail, "wrong data", other_as_bad);
  EXPECT_TRUE(hunt.ok()) << hunt.status();
  return *hunt;
}

TEST(SignatureToRegexTest, EscapesAndDropsTheRankList) {
  EXPECT_EQ(SignatureToRegex("FAILED_PRECONDITION: a.b (x) [ranks 1,3]"),
            "FAILED_PRECONDITION: a\\.b \\(x\\)");
  EXPECT_EQ(SignatureToRegex("Cuda failure 1 'invalid argument'"), "Cuda failure 1 'invalid argument'");
}

TEST(HuntTest, ClassifiesByOutcomeAndSignature) {
  Hunt hunt = WrongDataHunt();
  EXPECT_EQ(hunt.Classify(Pass()), Hunt::TrialClass::kPass);
  EXPECT_EQ(hunt.Classify(Fail("wrong data [ranks 1]")), Hunt::TrialClass::kHunted);
  EXPECT_EQ(hunt.Classify(Fail("timeout in exchange")), Hunt::TrialClass::kOther);
  EXPECT_EQ(hunt.Classify(Crash("wrong data")), Hunt::TrialClass::kOther);  // outcome differs
  EXPECT_EQ(hunt.Classify(SetupFailed()), Hunt::TrialClass::kSkip);
  EXPECT_EQ(hunt.Classify({Outcome::kSkip, "needs 4 ranks", false, "", 0, ""}), Hunt::TrialClass::kSkip);
  Hunt lenient = WrongDataHunt(/*other_as_bad=*/true);
  EXPECT_EQ(lenient.Classify(Crash("SIGSEGV on rank 1")), Hunt::TrialClass::kHunted);
}

TEST(HuntTest, BadRegexAndPassingOutcomeAreRejected) {
  absl::StatusOr<Hunt> bad_regex = Hunt::Create(Outcome::kFail, "([a", false);
  ASSERT_FALSE(bad_regex.ok());
  EXPECT_EQ(bad_regex.status().message(), "--hunt-signature: bad regex '([a': missing ]: [a")
      << "RE2's reason";
  EXPECT_EQ(CompileHuntSignature("(a)\\1").status().message(),
            "--hunt-signature: bad regex '(a)\\1': invalid escape sequence: \\1")
      << "back-references are not RE2";
  absl::StatusOr<Hunt> pass = Hunt::Create(Outcome::kPass, "", false);
  ASSERT_FALSE(pass.ok());
  EXPECT_EQ(pass.status().message(),
            "--hunt-outcome: must be a failure (fail, error, timeout, crash), got 'pass'");
}

TEST(HuntTest, ResolveTakesTheBadEndsMostCommonFailure) {
  HuntSpec spec;
  absl::StatusOr<Hunt> hunt = Hunt::Resolve(
      spec, {Pass(), Crash("SIGSEGV"), Fail("wrong data [ranks 1]"), Fail("wrong data [ranks 2]")});
  ASSERT_TRUE(hunt.ok()) << hunt.status();
  EXPECT_EQ(hunt->outcome(), Outcome::kFail);
  EXPECT_EQ(hunt->signature_regex(), "wrong data");
  ASSERT_TRUE(hunt->family().has_value());
  EXPECT_EQ(hunt->example(), "wrong data");
  EXPECT_EQ(hunt->ToString(), "fail \"wrong data\" (family: fail: 'wrong data')");
}

// A release words the removed API's error one way, later releases another; both are raised by
// the same line of the user's program.
constexpr char kUsersLine[] = "prog.py: s = jax.sharding.PositionalSharding(devices)";
TrialResult Removed(const std::string& message) {
  return {Outcome::kError, absl::StrCat("AttributeError: ", message), false, "", 0, "", kUsersLine};
}
constexpr char kNoAttribute[] = "module 'jax.sharding' has no attribute 'PositionalSharding'";
constexpr char kDeprecated[] =
    "jax.sharding.PositionalSharding was deprecated in JAX v0.6.0 and removed in JAX v0.7.0";

TEST(HuntTest, TheBadEndsFamilyFindsTheSameFailureInOtherWords) {
  absl::StatusOr<Hunt> hunt = Hunt::Resolve(HuntSpec(), {Removed(kNoAttribute), Removed(kNoAttribute)});
  ASSERT_TRUE(hunt.ok()) << hunt.status();
  EXPECT_EQ(hunt->example(), absl::StrCat("AttributeError: ", kNoAttribute));
  EXPECT_EQ(hunt->ToString(),
            absl::StrCat("error \"AttributeError: ", kNoAttribute, "\" (family: error AttributeError at ", kUsersLine,
                         ")"));
  EXPECT_EQ(hunt->Classify(Removed(kDeprecated)), Hunt::TrialClass::kHunted);
  EXPECT_TRUE(hunt->Reworded(Removed(kDeprecated)));
  EXPECT_FALSE(hunt->Reworded(Removed(kNoAttribute)));
  // Another exception at that line, or the same one elsewhere in other words, is another failure.
  EXPECT_EQ(hunt->Classify({Outcome::kError, "ImportError: no jax", false, "", 0, "", kUsersLine}),
            Hunt::TrialClass::kOther);
  EXPECT_EQ(hunt->Classify({Outcome::kError, "AttributeError: 'NoneType' object has no attribute 'x'", false, "", 0,
                            "", "prog.py: y = x.x"}),
            Hunt::TrialClass::kOther);
  EXPECT_FALSE(hunt->Reworded(Pass()));
}

TEST(HuntTest, ARegexHuntQuotesTheBadEndsLineAsPrinted) {
  HuntSpec spec;
  spec.signature = "PositionalSharding";  // --hunt-signature alone: the outcome from the bad end
  absl::StatusOr<Hunt> hunt = Hunt::Resolve(spec, {Crash("SIGSEGV"), Removed(kNoAttribute), Removed(kNoAttribute)});
  ASSERT_TRUE(hunt.ok()) << hunt.status();
  EXPECT_EQ(hunt->outcome(), Outcome::kError);
  EXPECT_FALSE(hunt->family().has_value());
  EXPECT_EQ(hunt->signature_regex(), "PositionalSharding");
  EXPECT_EQ(hunt->example(), absl::StrCat("AttributeError: ", kNoAttribute));
  EXPECT_EQ(hunt->ToString(), "error ~ /PositionalSharding/");
  // A bad end that never shows what the regex finds still names an outcome: it failed differently.
  absl::StatusOr<Hunt> none = Hunt::Resolve(spec, {Crash("SIGSEGV")});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->outcome(), Outcome::kCrash);
  EXPECT_EQ(none->Classify(Crash("SIGSEGV")), Hunt::TrialClass::kOther);
  EXPECT_TRUE(absl::IsNotFound(Hunt::Resolve(spec, {Pass()}).status()));
}

TEST(HuntTest, ResolveKeepsWhatTheUserGave) {
  HuntSpec spec;
  spec.outcome = Outcome::kCrash;
  absl::StatusOr<Hunt> hunt = Hunt::Resolve(spec, {Fail("wrong data"), Crash("SIGSEGV on rank 1")});
  ASSERT_TRUE(hunt.ok()) << hunt.status();
  EXPECT_EQ(hunt->outcome(), Outcome::kCrash);
  EXPECT_EQ(hunt->signature_regex(), "SIGSEGV on rank 1");
  spec.signature = "SIG(SEGV|BUS)";
  hunt = Hunt::Resolve(spec, {});
  ASSERT_TRUE(hunt.ok());
  EXPECT_EQ(hunt->signature_regex(), "SIG(SEGV|BUS)");
}

TEST(HuntTest, ResolveFailsWhenTheBadEndNeverFailed) {
  absl::StatusOr<Hunt> hunt = Hunt::Resolve(HuntSpec(), {Pass(), Pass()});
  ASSERT_FALSE(hunt.ok());
  EXPECT_TRUE(absl::IsNotFound(hunt.status()));
  EXPECT_EQ(hunt.status().message(),
            "the bad end showed no failure to hunt: pass --hunt-outcome and --hunt-signature");
}

TEST(TallyTrialsTest, DeterministicBadStopsAfterTwoFailures) {
  ProbeTally tally = TallyTrials(WrongDataHunt(), SprtConfig(),
                                 {Fail("wrong data"), Fail("wrong data"), Fail("wrong data")});
  EXPECT_EQ(tally.verdict, ProbeVerdict::kBad);
  EXPECT_EQ(tally.trials, 2);
  EXPECT_EQ(tally.hunted, 2);
  EXPECT_EQ(tally.signatures.at("fail: wrong data"), 2);
  EXPECT_EQ(tally.Counts(), "2 trials: 2 hunted");
}

TEST(TallyTrialsTest, GoodNeedsFourteenPasses) {
  std::vector<TrialResult> trials(20, Pass());
  ProbeTally tally = TallyTrials(WrongDataHunt(), SprtConfig(), trials);
  EXPECT_EQ(tally.verdict, ProbeVerdict::kGood);
  EXPECT_EQ(tally.trials, 14);
  EXPECT_FALSE(tally.truncated);
  trials.resize(13);
  EXPECT_EQ(TallyTrials(WrongDataHunt(), SprtConfig(), trials).verdict, ProbeVerdict::kUndecided);
}

TEST(TallyTrialsTest, DeterministicOtherFailureIsOther) {
  ProbeTally tally = TallyTrials(WrongDataHunt(), SprtConfig(),
                                 {Crash("SIGSEGV on rank 1"), Crash("SIGSEGV on rank 1"), Pass()});
  EXPECT_EQ(tally.verdict, ProbeVerdict::kOther);
  EXPECT_EQ(tally.trials, 2);
  EXPECT_EQ(tally.others, 2);
  EXPECT_EQ(tally.signatures.at("crash: SIGSEGV on rank 1"), 2);
}

TEST(TallyTrialsTest, OtherAsBadCountsTheCrashAsBad) {
  ProbeTally tally = TallyTrials(WrongDataHunt(/*other_as_bad=*/true), SprtConfig(),
                                 {Crash("SIGSEGV"), Crash("SIGSEGV")});
  EXPECT_EQ(tally.verdict, ProbeVerdict::kBad);
}

TEST(TallyTrialsTest, SetupFailureAndSkipAreSkips) {
  ProbeTally setup = TallyTrials(WrongDataHunt(), SprtConfig(), {SetupFailed()});
  EXPECT_EQ(setup.verdict, ProbeVerdict::kSkip);
  EXPECT_EQ(setup.setup_failure, "setup exited 1");
  EXPECT_EQ(setup.trials, 0);
  ProbeTally skipped = TallyTrials(WrongDataHunt(), SprtConfig(),
                                   {{Outcome::kSkip, "needs 4 ranks, job has 2", false, "", 0, ""}});
  EXPECT_EQ(skipped.verdict, ProbeVerdict::kSkip);
  EXPECT_EQ(skipped.skips, 1);
}

// Issue 15 item 3: a trial whose job the launcher or MPI start-up failed says nothing about
// the version: unclassifiable like a set-up failure (skip), never good, bad or "other", even
// with --other-as-bad; the bad end's hunt never comes from it, and it cannot be hunted.
constexpr char kRootRefused[] =
    "infrastructure: mpirun has detected an attempt to run as root. (job exited with status 1)";
TrialResult Infra() { return {Outcome::kInfra, kRootRefused, false, "probes/v1/trial0", 0, "p"}; }

TEST(TallyTrialsTest, AnInfraTrialIsASkipLikeASetupFailure) {
  EXPECT_TRUE(Infra().unrunnable());
  EXPECT_EQ(Infra().unrunnable_reason(), kRootRefused);
  EXPECT_EQ(WrongDataHunt().Classify(Infra()), Hunt::TrialClass::kSkip);
  EXPECT_EQ(WrongDataHunt(/*other_as_bad=*/true).Classify(Infra()), Hunt::TrialClass::kSkip);
  for (bool other_as_bad : {false, true}) {
    ProbeTally tally = TallyTrials(WrongDataHunt(other_as_bad), SprtConfig(), {Infra(), Fail("wrong data")});
    EXPECT_EQ(tally.verdict, ProbeVerdict::kSkip);
    EXPECT_EQ(tally.infra_failure, kRootRefused);
    EXPECT_EQ(tally.setup_failure, "");
    EXPECT_EQ(tally.Unrunnable(), kRootRefused);
    EXPECT_EQ(tally.trials, 0);
    EXPECT_EQ(tally.others, 0);
    EXPECT_EQ(tally.hunted, 0);
  }
  ProbeTally after_passes = TallyTrials(WrongDataHunt(), SprtConfig(), {Pass(), Infra()});
  EXPECT_EQ(after_passes.verdict, ProbeVerdict::kSkip);
  EXPECT_EQ(after_passes.passes, 1);
}

// Issue 20: an infra attempt that was run again is no trial of the version. The trial that
// came after it counts; the retried attempts are counted apart and shown.
TEST(TallyTrialsTest, RetriedInfraAttemptsAreNotTrials) {
  TrialResult retried = Fail("wrong data");
  retried.infra_attempts = {{kRootRefused, "probes/v1/trial0"}};
  ProbeTally tally = TallyTrials(WrongDataHunt(), SprtConfig(), {retried, Fail("wrong data")});
  EXPECT_EQ(tally.verdict, ProbeVerdict::kBad);
  EXPECT_EQ(tally.trials, 2);
  EXPECT_EQ(tally.hunted, 2);
  EXPECT_EQ(tally.skips, 0);
  EXPECT_EQ(tally.infra_retried, 1);
  EXPECT_EQ(tally.Unrunnable(), "");
  EXPECT_EQ(tally.Counts(), "2 trials: 2 hunted; 1 infra attempt retried");
}

TEST(TallyTrialsTest, InfraOnEveryAttemptSkipsAndSaysHowOften) {
  TrialResult persisting = Infra();
  persisting.infra_attempts = {{kRootRefused, "probes/v1/trial0"}, {kRootRefused, "probes/v1/trial0.retry1"}};
  EXPECT_EQ(persisting.unrunnable_reason(), absl::StrCat(kRootRefused, " after 3 attempts"));
  ProbeTally tally = TallyTrials(WrongDataHunt(), SprtConfig(), {Pass(), persisting});
  EXPECT_EQ(tally.verdict, ProbeVerdict::kSkip);
  EXPECT_EQ(tally.infra_failure, absl::StrCat(kRootRefused, " after 3 attempts"));
  EXPECT_EQ(tally.trials, 1);
  EXPECT_EQ(tally.infra_retried, 2);
  EXPECT_EQ(tally.Counts(), "1 trial: 1 pass; 2 infra attempts retried");
}

TEST(HuntTest, InfraIsNeverHuntedNorTakenFromTheBadEnd) {
  absl::StatusOr<Hunt> from_infra = Hunt::Resolve(HuntSpec(), {Infra(), Infra()});
  ASSERT_FALSE(from_infra.ok());
  EXPECT_TRUE(absl::IsNotFound(from_infra.status()));
  absl::StatusOr<Hunt> beside = Hunt::Resolve(HuntSpec(), {Infra(), Crash("SIGSEGV on rank 1")});
  ASSERT_TRUE(beside.ok()) << beside.status();
  EXPECT_EQ(beside->outcome(), Outcome::kCrash);
  absl::StatusOr<Hunt> infra = Hunt::Create(Outcome::kInfra, "", false);
  ASSERT_FALSE(infra.ok());
  EXPECT_EQ(infra.status().message(),
            "--hunt-outcome: must be a failure (fail, error, timeout, crash), got 'infra'");
}

TEST(TallyTrialsTest, FlakyBadFoundBetweenPasses) {
  // Fails half the time: pass, fail, pass, fail -> llr 2 * 3.40 - 2 * 0.35 = 6.11 > 4.60.
  ProbeTally tally = TallyTrials(WrongDataHunt(), SprtConfig(),
                                 {Pass(), Fail("wrong data"), Pass(), Fail("wrong data"), Pass()});
  EXPECT_EQ(tally.verdict, ProbeVerdict::kBad);
  EXPECT_EQ(tally.trials, 4);
  EXPECT_EQ(tally.Counts(), "4 trials: 2 pass, 2 hunted");
}

TEST(TallyTrialsTest, AVersionThatFailedIsNeverGood) {
  // One hunted failure among passes: the test leans to good, the version is bad at the cap.
  std::vector<TrialResult> trials(20, Pass());
  trials[0] = Fail("wrong data");
  ProbeTally hunted = TallyTrials(WrongDataHunt(), SprtConfig(), trials);
  EXPECT_EQ(hunted.verdict, ProbeVerdict::kBad);
  EXPECT_TRUE(hunted.truncated);
  EXPECT_EQ(hunted.trials, 20);
  trials.resize(19);
  EXPECT_EQ(TallyTrials(WrongDataHunt(), SprtConfig(), trials).verdict, ProbeVerdict::kUndecided);
  // Another failure once among passes: failed differently, once the hunted test says good.
  std::vector<TrialResult> other(20, Pass());
  other[3] = Crash("SIGSEGV in step 'init'");
  ProbeTally differently = TallyTrials(WrongDataHunt(), SprtConfig(), other);
  EXPECT_EQ(differently.verdict, ProbeVerdict::kOther);
  EXPECT_EQ(differently.trials, 14);
  EXPECT_EQ(ProbeVerdictText(differently.verdict), "failed differently");
}

TEST(TallyTrialsTest, TheFirstTrialDecidesUnderTheDeterministicRule) {
  const ProbeRule rule{SprtConfig(), /*first_trial_decides=*/true};
  EXPECT_EQ(TallyTrials(WrongDataHunt(), rule, {Pass(), Fail("wrong data")}).verdict, ProbeVerdict::kGood);
  ProbeTally bad = TallyTrials(WrongDataHunt(), rule, {Fail("wrong data"), Pass()});
  EXPECT_EQ(bad.verdict, ProbeVerdict::kBad);
  EXPECT_EQ(bad.trials, 1);
  EXPECT_FALSE(bad.truncated);
  EXPECT_EQ(TallyTrials(WrongDataHunt(), rule, {Crash("SIGSEGV")}).verdict, ProbeVerdict::kOther);
  EXPECT_EQ(TallyTrials(WrongDataHunt(), rule, {SetupFailed()}).verdict, ProbeVerdict::kSkip);
}

TEST(TallyTrialsTest, CapTruncatesAndSaysSo) {
  SprtConfig config;
  config.max_trials = 3;
  ProbeTally tally = TallyTrials(WrongDataHunt(), config, {Pass(), Fail("wrong data"), Pass()});
  EXPECT_EQ(tally.verdict, ProbeVerdict::kBad);  // 3.40 - 0.69 > 0
  EXPECT_TRUE(tally.truncated);
}

TEST(ProbeVerdictTest, NamesRoundTrip) {
  for (ProbeVerdict v : {ProbeVerdict::kUndecided, ProbeVerdict::kGood, ProbeVerdict::kBad,
                         ProbeVerdict::kOther, ProbeVerdict::kSkip}) {
    absl::StatusOr<ProbeVerdict> parsed = ParseProbeVerdict(ProbeVerdictName(v));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, v);
  }
  EXPECT_FALSE(ParseProbeVerdict("maybe").ok());
  EXPECT_EQ(ProbeVerdictText(ProbeVerdict::kOther), "failed differently");
  EXPECT_EQ(ProbeVerdictText(ProbeVerdict::kSkip), "could not be tested");
  EXPECT_EQ(ProbeVerdictText(ProbeVerdict::kGood), "good");
}

}  // namespace
}  // namespace gh
