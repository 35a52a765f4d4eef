// Collecting a cell's records after its job ends: the job's own records.jsonl, labelled with
// the cell's axis values, plus a record for every expected point the job never recorded, with
// the outcome ClassifyJobFailure (job_failure_kind.h) gives: a timeout when the driver killed
// it, a crash (the signal, and the rank from .ranks/rank*.crash or mpirun's log) when it died,
// an error "bad input: ..." when it exited 2, infra when the launcher or MPI start-up failed.
#ifndef GPUHARNESS_DRIVER_CELL_RECORDS_H_
#define GPUHARNESS_DRIVER_CELL_RECORDS_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/core/point.h"
#include "harness/core/record.h"
#include "harness/core/run_list.h"
#include "harness/core/scenario_spec.h"
#include "harness/driver/job_failure_kind.h"

namespace gh::driver {

// A scenario file as a job runs it: the path passed to `gpuharness run`, its specs (shared by
// every copy of a plan, so the points expanded from them stay valid), and the point filters a
// point must all match (empty: every point).
struct JobScenarioFile {
  std::string path;
  std::shared_ptr<const std::vector<ScenarioSpec>> specs;
  std::vector<std::string> filters;
};

struct ExpectedPoint {
  std::shared_ptr<const ScenarioSpec> spec;  // shares its file's specs
  std::string file;
  Point point;
  std::vector<int> trials;  // the trials expected; empty: every trial of the spec
  std::vector<int> Trials() const;
};

// Every point the job must record at `nranks`, in run order: those matching every filter of
// their file and every one of `cell_filters`.
absl::StatusOr<std::vector<ExpectedPoint>> ExpectedPoints(
    const std::vector<JobScenarioFile>& files, int nranks,
    const std::vector<std::string>& cell_filters = {});

// The point x trial runs of `points`, in run order.
std::vector<RunKey> RunsOf(const std::vector<ExpectedPoint>& points);

struct JobRecordsInfo {
  std::string backend = "auto";  // the cell's backend, for records the job did not write
  int nranks = 1;
  bool share_gpu = false;
  std::map<std::string, std::string> cell;  // axis -> label
  // The environment the job was started with (NAME=VALUE, as ProcessSpec::env): its
  // fingerprinted variables are the env facts of a job that wrote no environment.json.
  std::vector<std::string> env = {};
};

// What the driver knows of a job's environment facts (EnvironmentFingerprint::Facts()'s names):
// info's backend, ranks and GPU sharing, and the fingerprinted variables of info.env.
EnvironmentFacts DriverKnownFacts(const JobRecordsInfo& info);

// The facts the job judged its expectations on: those of the environment.json it wrote in
// `run_dir`, else DriverKnownFacts(info). A malformed environment.json is InvalidArgument
// naming it.
absl::StatusOr<EnvironmentFacts> JobEnvironmentFacts(const std::string& run_dir,
                                                     const JobRecordsInfo& info);

// The job's records plus synthesized ones for missing points, all carrying `info.cell`.
// With `only_expected`, records of points not in `expected` are dropped (a stray record never
// counts for a point the job was not given). The job's own crash record of the run in flight
// that says only "killed by SIGTERM" (rank 0 was killed from outside) becomes a timeout when the
// driver killed the job at its timeout, and names the dead rank and its signal when the rank
// crash files or mpirun's log do ("crash: rank 2 killed by SIGKILL (...)"). The synthesized
// record of the run the job died in (the first it did not record, when it died in one) carries
// that run's wall time as the driver knows it: from the end of the job's last record, or the
// job's start, to the job's end (end.started, end.ended); runs that never started have 0. So
// does the job's own crash record of that run (rank 0's crash guard writes it with 0 s): from
// its start to the job's end.
absl::StatusOr<std::vector<Record>> CollectJobRecords(const std::vector<ExpectedPoint>& expected,
                                                      const JobEnd& end,
                                                      const JobRecordsInfo& info,
                                                      bool only_expected = false);

// The record of trial `trial` of `point`, which never ran to completion, in a job whose
// environment `facts` describe (MakeRecord: the expectation the job itself would have picked),
// labelled with `cell`.
Record SynthesizedRecord(const ExpectedPoint& point, int trial, const EnvironmentFacts& facts,
                         const std::map<std::string, std::string>& cell, Outcome outcome,
                         const std::string& signature);

// SynthesizedRecord for every run of `points` (each of its trials), in run order.
std::vector<Record> SynthesizedRecords(const std::vector<ExpectedPoint>& points, const EnvironmentFacts& facts,
                                       const std::map<std::string, std::string>& cell, Outcome outcome,
                                       const std::string& signature);

// What to run again after a job ended early: a crash, another point's timeout or a lost CUDA
// context (the runs it recorded `not_run`). Only a job that recorded at least one run in
// `expected` is continued (a job that dies at start-up would die again), and never one the
// driver killed at the cell's timeout or one that exited 2 (bad input). The run in flight when
// the job died, if the job could not record it, keeps the synthesized crash record and is not
// run again: runs go in plan order, so it is the first unrecorded one after a last record that
// is not a crash.
struct Continuation {
  std::vector<ExpectedPoint> points;  // the runs in plan order, by point, with `trials` set
  std::set<RunKey> keys;              // the same runs, for lookup
  bool empty() const { return keys.empty(); }
};
absl::StatusOr<Continuation> PlanContinuation(const std::vector<ExpectedPoint>& expected,
                                              const JobEnd& end);

// The first non-empty line of a file ("" when unreadable), trimmed to `max_chars`.
std::string FirstLineOf(const std::string& path, size_t max_chars = 200);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_CELL_RECORDS_H_
