// What one point × trial ended as, per rank and reduced over ranks.
#ifndef GPUHARNESS_CORE_OUTCOME_H_
#define GPUHARNESS_CORE_OUTCOME_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/metric.h"

namespace gh {

// Ordered by severity: the reduction over ranks (and over a point's trials) keeps the most
// severe. kInfra is not a verdict on the code under test: the launcher, MPI start-up or the
// harness itself failed (driver/job_failure_kind.h decides it), so nothing ran that could be
// judged. It outranks every verdict so that no reduction hides it, it never meets an
// expectation (core/expectation.h), and a run or sweep holding one exits 3.
enum class Outcome { kPass = 0, kSkip = 1, kFail = 2, kError = 3, kTimeout = 4, kCrash = 5, kInfra = 6 };
// "pass", "skip", "fail", "error", "timeout", "crash", "infra"
std::string_view OutcomeName(Outcome outcome);
absl::StatusOr<Outcome> ParseOutcome(std::string_view name);
// Every outcome, least severe first.
std::span<const Outcome> AllOutcomes();

// Wrong data found by element-by-element verification on one rank.
struct Mismatch {
  int64_t wrong_elements = 0;
  int64_t checked_elements = 0;
  int64_t first_index = -1;   // element index of the first wrong element
  std::string expected;       // that element's expected value, formatted
  std::string actual;         // and what the rank held
};

// One rank's result for a point × trial.
struct RankOutcome {
  int rank = 0;
  std::string host;
  int device = -1;          // GPU ordinal, -1 on the host backend
  Outcome outcome = Outcome::kPass;
  std::string signature;    // error name + text, "swallowed 3/200", skip reason, "timeout in <step>"
  std::string step;         // the step the rank was in when it ended (timeouts, errors)
  std::optional<Mismatch> mismatch;  // kFail only
  std::vector<Metric> metrics;       // rank-local measurements
  // The last lines of a command's output when it did not pass (kind exec); "" otherwise.
  std::string output_tail;
  // Where the rank was when its point timed out or crashed (docs/explanation/hangs.md): its main thread's
  // frames, innermost first ("PMPI_Barrier [libmpi.so.40]"; a Python child's
  // "File \"x.py\", line 3, in f"), bounded in count and bytes. Empty when none was taken;
  // `stack_note` then says why (and otherwise where the frames came from, or how they were cut).
  std::vector<std::string> stack;
  std::string stack_note;

  // The named ways a scenario ends other than a plain pass (the runtime fills in rank, host
  // and device). Skip: the point cannot run here, `reason` is the signature. Error: a call
  // failed, `signature` names it ("ncclSystemError: ..."), `step` where ("" leaves it unset).
  // Fail: the data were wrong, `signature` says how.
  static RankOutcome Skip(std::string reason);
  static RankOutcome Error(std::string signature, std::string step = "");
  static RankOutcome Fail(std::string signature, std::string step = "");
};

// Why a point × trial hung (docs/explanation/hangs.md), written with its timeout record.
struct HangReport {
  // One line per group of ranks stopped at the same place:
  // "ranks 0,2,3: MPI_Barrier <- RingShift::RunSteps (step exchange)".
  std::vector<std::string> summary;
  // Where the ranks' operation histories part ("rank 1 is in exchange #1 ...").
  std::string divergence;
  // NCCL's RAS report, or why there is none ("not available: host backend ...").
  std::string nccl_ras;
  // The last collective NCCL's Inspector saw each rank complete, when the scenario ran with it
  // ("rank 0: AllReduce #17 (4K); rank 1: AllReduce #16 (4K)"); empty otherwise.
  std::string nccl_inspector;
  bool empty() const {
    return summary.empty() && divergence.empty() && nccl_ras.empty() && nccl_inspector.empty();
  }
};

// A point × trial reduced over ranks (on rank 0).
struct PointOutcome {
  Outcome outcome = Outcome::kPass;
  std::string signature;          // the most severe ranks' signature, e.g. "wrong data on ranks 1,3"
  std::vector<RankOutcome> ranks; // every rank, ordered by rank
  std::vector<Metric> metrics;    // point-level metrics (rank 0's or reduced)
  HangReport hang;                // timeouts only; empty otherwise

  // A point that ended before any rank ran it: skipped for `reason`, or an error `signature`.
  static PointOutcome Skip(std::string reason);
  static PointOutcome Error(std::string signature);
};

// Reduces per-rank outcomes: the most severe outcome wins; the signature names the ranks that
// ended so when they are not all of them ("ncclSystemError: ... [ranks 1,2]").
PointOutcome ReduceRankOutcomes(std::vector<RankOutcome> ranks);

}  // namespace gh

#endif  // GPUHARNESS_CORE_OUTCOME_H_
