// Test-only: a failed CUDA record with its fields set to values other than their defaults, so
// that a round trip (JSON, records.jsonl) that drops or mangles a field shows. The optional
// fields written only when set (description, not_run, a rank's signature and output tail) stay
// unset here: tests of those set them.
#ifndef GPUHARNESS_CORE_TESTDATA_FULL_RECORD_H_
#define GPUHARNESS_CORE_TESTDATA_FULL_RECORD_H_

#include <string>
#include <utility>

#include "harness/core/record.h"

namespace gh::testing {

// A rank whose verify step found wrong data: `mismatch` and what a wrong-data rank always
// carries, nothing else.
inline RankOutcome WrongDataRank(int rank, std::string host, int device, Mismatch mismatch) {
  RankOutcome r;
  r.rank = rank;
  r.host = std::move(host);
  r.device = device;
  r.outcome = Outcome::kFail;
  r.step = "verify";
  r.mismatch = std::move(mismatch);
  return r;
}

inline Record FullRecord() {
  Record r;
  r.scenario = "ring";
  r.kind = "ring_shift";
  r.file = "scenarios/ring.yaml";
  r.point = "ring/bytes=1M/dtype=bf16/np=2";
  r.params = {{"bytes", 1048576}, {"dtype", "bf16"}, {"scale", 0.1}, {"check", true}};
  r.backend = "cuda";
  r.nranks = 2;
  r.trial = 2;
  r.trials = 10;
  r.result.outcome = Outcome::kFail;
  r.result.signature = "wrong data [ranks 1]";
  RankOutcome r0;
  r0.rank = 0;
  r0.host = "node-a";
  r0.device = 0;
  r0.metrics = {{"time_median_us", 15.9, "us"}, {"bandwidth_GBps", 65.95, "GB/s"}};
  r.result.ranks = {r0, WrongDataRank(1, "node-a", 1, Mismatch{3, 524288, 17, "1.5", "0"})};
  r.result.metrics = r0.metrics;
  r.expected.outcome = Outcome::kError;
  r.expected.signature_regex = "Cuda failure [0-9]+";
  r.expected.reason = "issue 1: \"quoted\"";
  r.matched = false;
  r.gpu_shared = true;
  r.started_at = "2026-11-29T09:30:00.123Z";
  r.duration_s = 0.1 + 0.2;
  r.cell = {{"nccl", "2.28.9"}, {"proto", "ll"}};
  return r;
}

}  // namespace gh::testing

#endif  // GPUHARNESS_CORE_TESTDATA_FULL_RECORD_H_
