// Test-only helpers: synthetic records, sweeps and results directories for the report tests.
#ifndef GPUHARNESS_REPORT_REPORT_TEST_RECORDS_H_
#define GPUHARNESS_REPORT_REPORT_TEST_RECORDS_H_

#include <map>
#include <string>
#include <vector>

#include "harness/core/record.h"
#include "harness/core/testdata/test_records.h"
#include "harness/report/environment_table.h"
#include "harness/report/sweep_info.h"

namespace gh::testing {

// A small sweep in the seeds' shape: flag axis proto {simple, ll} x version axis nccl {2.28.3,
// 2.28.9}; scenario "ring" over bytes {4K, 1M} with bandwidths, scenario "capture" over
// background {on, off} with 3 trials each. In cell (ll, 2.28.9) ring 1M fails with an unexpected
// error (a pipe in its signature) and capture background=on fails every trial (2 swallowed, 1
// crash; the crash does not meet the expectation); (simple, 2.28.9) skips ring 1M.
struct SmallSweep {
  SweepInfo sweep;
  std::vector<Record> records;
  std::vector<Record> baseline;  // all ring points pass, plus ring 16M that vanished since
  std::vector<LabeledEnvironment> environments;
};

inline SmallSweep MakeSmallSweep() {
  SmallSweep s;
  s.sweep.matrix_name = "nccl_small";
  s.sweep.matrix_file = "matrices/nccl_small.yaml";
  s.sweep.axes = {{"proto", false, {"simple", "ll"}}, {"nccl", true, {"2.28.3", "2.28.9"}}};
  for (const char* nccl : {"2.28.3", "2.28.9"}) {
    for (const char* proto : {"simple", "ll"}) {
      SweepCellInfo cell;
      cell.id = std::string("proto=") + proto + ",nccl=" + nccl;
      cell.axes = {{"proto", proto}, {"nccl", nccl}};
      cell.status = "done";
      cell.wall_s = 2.5;
      s.sweep.cells.push_back(cell);
    }
  }
  const Expectation swallow_expected{Outcome::kError, "swallowed", "capture swallows other threads' work"};
  for (const SweepCellInfo& cell : s.sweep.cells) {
    const bool bad = cell.axes.at("proto") == "ll" && cell.axes.at("nccl") == "2.28.9";
    const bool skips = cell.axes.at("proto") == "simple" && cell.axes.at("nccl") == "2.28.9";
    const double scale = cell.axes.at("proto") == "ll" ? 0.5 : 1.0;
    RecordSpec small{.point_suffix = "bytes=4K/np=2", .cell = cell.axes,
                     .metrics = {{"bandwidth_GBps", 1.25 * scale, "GB/s"}, {"time_median_us", 3.2, "us"}}};
    s.records.push_back(MakeRecord(small));
    s.baseline.push_back(MakeRecord(small));
    RecordSpec large{.point_suffix = "bytes=1M/np=2", .cell = cell.axes,
                     .metrics = {{"bandwidth_GBps", 66.0 * scale, "GB/s"}, {"time_median_us", 15.9, "us"}}};
    s.baseline.push_back(MakeRecord(large));
    if (bad) {
      large.outcome = Outcome::kError;
      large.signature = "ncclUnhandledCudaError: Cuda failure 1 'invalid argument' | see log [ranks 1]";
      large.matched = false;
      large.metrics.clear();
    } else if (skips) {
      large.outcome = Outcome::kSkip;
      large.signature = "no symmetric memory";
      large.metrics.clear();
    }
    s.records.push_back(MakeRecord(large));
    if (cell.axes.at("proto") == "simple" && cell.axes.at("nccl") == "2.28.3") {
      RecordSpec gone{.point_suffix = "bytes=16M/np=2", .cell = cell.axes};
      s.baseline.push_back(MakeRecord(gone));
    }
    for (const char* background : {"on", "off"}) {
      RecordSpec capture{.scenario = "capture", .point_suffix = std::string("background=") + background + "/np=2",
                         .cell = cell.axes};
      std::vector<Outcome> outcomes(3, Outcome::kPass);
      std::vector<std::string> signatures;
      if (bad && std::string(background) == "on") {
        capture.expected = swallow_expected;
        outcomes = {Outcome::kError, Outcome::kCrash, Outcome::kError};
        signatures = {"swallowed 3/200", "rank 1 killed by SIGSEGV", "swallowed 7/200"};
      }
      std::vector<Record> trials = MakeTrials(capture, outcomes, signatures);
      for (Record& r : trials) {
        r.matched = !(bad && r.result.outcome == Outcome::kCrash);
        s.records.push_back(r);
      }
    }
  }
  nlohmann::json env_a = {{"backend", "cuda"},
                          {"nranks", 2},
                          {"hosts", {"gpu-node-1", "gpu-node-1"}},
                          {"gpus", {{{"name", "NVIDIA H200"}, {"sm", "9.0"}}, {{"name", "NVIDIA H200"}, {"sm", "9.0"}}}},
                          {"driver_version", "580.159.04"},
                          {"cuda_runtime", "13.0"},
                          {"nccl_runtime", "2.28.3"},
                          {"nccl_compiled", "2.28.9"},
                          {"mpi_library", "Open MPI v4.1.6, package: Debian OpenMPI"},
                          {"env", {{"NCCL_DEBUG", "WARN"}, {"NCCL_PROTO", "Simple"}}}};
  nlohmann::json env_b = env_a;
  env_b["nccl_runtime"] = "2.28.9";
  env_b["env"]["NCCL_PROTO"] = "LL";
  s.environments = {{"simple / 2.28.3", env_a}, {"ll / 2.28.9", env_b}};
  return s;
}

}  // namespace gh::testing

#endif  // GPUHARNESS_REPORT_REPORT_TEST_RECORDS_H_
