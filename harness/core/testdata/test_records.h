// Test-only helpers: synthetic records for the tests of core (comparison) and of report.
#ifndef GPUHARNESS_CORE_TESTDATA_TEST_RECORDS_H_
#define GPUHARNESS_CORE_TESTDATA_TEST_RECORDS_H_

// Tests name only the RecordSpec fields they set (designated initializers).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <map>
#include <string>
#include <vector>

#include "harness/core/record.h"

namespace gh::testing {

struct RecordSpec {
  std::string scenario = "ring";
  std::string point_suffix = "bytes=4K/np=2";  // the point name after "<scenario>/"
  Outcome outcome = Outcome::kPass;
  std::string signature;
  std::map<std::string, std::string> cell;
  int trial = 0;
  int trials = 1;
  bool matched = true;
  Expectation expected;
  std::vector<Metric> metrics;
};

inline Record MakeRecord(const RecordSpec& spec) {
  Record record;
  record.scenario = spec.scenario;
  record.kind = "ring_shift";
  record.file = "scenarios/ring.yaml";
  record.point = spec.scenario + "/" + spec.point_suffix;
  record.params = {{"bytes", 4096}};
  record.backend = "host";
  record.nranks = 2;
  record.trial = spec.trial;
  record.trials = spec.trials;
  record.result.outcome = spec.outcome;
  record.result.signature = spec.signature;
  record.result.metrics = spec.metrics;
  record.expected = spec.expected;
  record.matched = spec.matched;
  record.started_at = "2026-11-29T09:00:00Z";
  record.duration_s = 0.5;
  record.cell = spec.cell;
  return record;
}

// `n` trials of one point; `outcomes[i]` and `signatures[i]` for trial i.
inline std::vector<Record> MakeTrials(RecordSpec spec, const std::vector<Outcome>& outcomes,
                                      const std::vector<std::string>& signatures) {
  std::vector<Record> records;
  spec.trials = static_cast<int>(outcomes.size());
  for (size_t i = 0; i < outcomes.size(); ++i) {
    spec.trial = static_cast<int>(i);
    spec.outcome = outcomes[i];
    spec.signature = i < signatures.size() ? signatures[i] : "";
    records.push_back(MakeRecord(spec));
  }
  return records;
}

}  // namespace gh::testing

#endif  // GPUHARNESS_CORE_TESTDATA_TEST_RECORDS_H_
