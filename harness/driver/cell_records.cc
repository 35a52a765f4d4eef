#include "harness/driver/cell_records.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "harness/core/point_filter.h"
#include "harness/core/signal_name.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "harness/core/file_util.h"
#include "harness/core/fingerprint.h"
#include "harness/core/record_start.h"
#include "harness/core/records_file.h"
#include "harness/core/duration_text.h"
#include "harness/core/regex.h"

namespace gh::driver {
namespace {

// The records a job left in its --out DIR; none when it never created records.jsonl.
absl::StatusOr<std::vector<Record>> ReadJobRecords(const std::string& run_dir) {
  const std::string path = run_dir + "/records.jsonl";
  if (!std::ifstream(path).good()) return std::vector<Record>{};
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path);
  if (!contents.ok()) return contents.status();
  return std::move(contents->records);
}

// Rank 0's crash guard recorded the run in flight as "killed by SIGTERM" (no rank left a crash
// note) when a signal from outside reached it. At the cell timeout that was the driver's: the run
// did not crash, it ran out of time. Otherwise mpirun's, after another rank died without a note
// (SIGKILL, as the OOM killer sends): the job's end names that rank and its signal.
void ExplainInFlightKill(const JobFailure& failure, const JobEnd& end, Record& record) {
  if (failure.kind != JobFailureKind::kTimeout && !failure.names_rank) return;
  PointOutcome result = std::move(record.result);
  result.outcome = failure.outcome;
  result.signature = failure.signature;
  if (std::optional<RankSignal> dead = MpirunRankSignal(end.log_path); dead && !end.timed_out) {
    for (RankOutcome& rank : result.ranks) {
      if (rank.rank != dead->rank) continue;
      rank.outcome = Outcome::kCrash;
      rank.signature = absl::StrCat("killed by ", SignalName(dead->signal), " (as mpirun reported)");
    }
  }
  SetResult(record, std::move(result));
}

// Whether the job died inside a run it could not record, given the runs it did record (in
// order): it was killed at its timeout, ended by a signal or an exit status other than 0 and 1,
// and its last recorded run is no crash (a rank that recorded its own crash ended that run).
bool DiedInUnrecordedRun(const std::vector<const Record*>& ran, const JobEnd& end) {
  const bool died = end.timed_out || end.exit.signaled || (end.exit.code != 0 && end.exit.code != 1);
  return died && (ran.empty() || ran.back()->result.outcome != Outcome::kCrash);
}

// The wall time of the run in flight when the job died, as far as the driver knows it: from the
// end of the job's last record (the job's start when it recorded none, or when the record's
// times do not lie within the job's) to the job's end. It includes the harness's work between
// runs and the job's way down; never more than the job's own wall time.
double InFlightSeconds(const std::vector<Record>& records, const JobEnd& end) {
  if (end.ended <= end.started) return 0;
  absl::Time from = end.started;
  for (const Record& r : records) {
    std::optional<absl::Time> start = RecordStart(r);
    if (!start) continue;
    const absl::Time finished = *start + absl::Seconds(r.duration_s);
    if (finished > from && finished <= end.ended) from = finished;
  }
  return absl::ToDoubleSeconds(end.ended - from);
}

// Rank 0's crash guard renders its record of a run when the run begins (a signal handler formats
// nothing), so the record of the run the job died in says 0 s: that run lasted from its start to
// the job's end, as far as the driver knows (a start outside the job's time is another clock's).
void FillGuardRecordDuration(Record& record, const JobEnd& end) {
  if (record.result.outcome != Outcome::kCrash || record.duration_s != 0) return;
  const std::optional<absl::Time> start = RecordStart(record);
  if (!start || *start < end.started || *start > end.ended) return;
  record.duration_s = absl::ToDoubleSeconds(end.ended - *start);
}

}  // namespace

std::string FirstLineOf(const std::string& path, size_t max_chars) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::string trimmed(absl::StripAsciiWhitespace(line));
    if (!trimmed.empty()) return trimmed.substr(0, max_chars);
  }
  return "";
}

absl::StatusOr<std::vector<ExpectedPoint>> ExpectedPoints(
    const std::vector<JobScenarioFile>& files, int nranks,
    const std::vector<std::string>& cell_filters) {
  std::vector<ExpectedPoint> out;
  for (const JobScenarioFile& file : files) {
    if (file.specs == nullptr) continue;
    for (const ScenarioSpec& spec : *file.specs) {
      absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec, nranks);
      if (!points.ok()) return points.status();
      std::shared_ptr<const ScenarioSpec> shared(file.specs, &spec);
      for (Point& p : *points) {
        bool wanted = true;
        for (const std::string& f : file.filters) wanted = wanted && PointNameMatches(f, p.name);
        for (const std::string& f : cell_filters) wanted = wanted && PointNameMatches(f, p.name);
        if (wanted) out.push_back(ExpectedPoint{shared, file.path, std::move(p), {}});
      }
    }
  }
  return out;
}

std::vector<RunKey> RunsOf(const std::vector<ExpectedPoint>& points) {
  std::vector<RunKey> runs;
  for (const ExpectedPoint& p : points) {
    for (int trial : p.Trials()) runs.push_back(RunKey{p.point.name, trial});
  }
  return runs;
}

std::vector<int> ExpectedPoint::Trials() const {
  if (!trials.empty()) return trials;
  std::vector<int> all(static_cast<size_t>(spec->trials));
  for (int t = 0; t < spec->trials; ++t) all[static_cast<size_t>(t)] = t;
  return all;
}

absl::StatusOr<Continuation> PlanContinuation(const std::vector<ExpectedPoint>& expected,
                                              const JobEnd& end) {
  Continuation next;
  if (end.timed_out || (!end.exit.signaled && end.exit.code == 2)) return next;
  absl::StatusOr<std::vector<Record>> records = ReadJobRecords(end.run_dir);
  if (!records.ok()) return records.status();
  std::set<RunKey> wanted;
  for (const ExpectedPoint& p : expected) {
    for (int trial : p.Trials()) wanted.insert(RunKey{p.point.name, trial});
  }
  std::map<RunKey, bool> recorded;  // -> not_run
  std::vector<const Record*> ran;
  for (const Record& r : *records) {
    RunKey key{r.point, r.trial};
    if (wanted.count(key) == 0) continue;
    recorded[key] = r.not_run;
    if (!r.not_run) ran.push_back(&r);
  }
  // Nothing ran: continue only when a rank was seen to die (its crash file, or mpirun naming
  // it), which ends the first run; the job's other ways of ending with nothing recorded
  // (infrastructure, a start-up crash) would end every continuation the same way.
  if (ran.empty()) {
    const JobFailure failure = ClassifyJobFailure(end, records->size());
    if (failure.kind != JobFailureKind::kCrash || !failure.names_rank) return next;
  }
  bool in_flight_found = !DiedInUnrecordedRun(ran, end);
  for (const ExpectedPoint& p : expected) {
    ExpectedPoint again = p;
    again.trials.clear();
    for (int trial : p.Trials()) {
      RunKey key{p.point.name, trial};
      auto it = recorded.find(key);
      if (it != recorded.end() && !it->second) continue;  // it ran
      if (it == recorded.end() && !in_flight_found) {
        in_flight_found = true;  // died in it: its crash stands
        continue;
      }
      again.trials.push_back(trial);
      next.keys.insert(key);
    }
    if (!again.trials.empty()) next.points.push_back(std::move(again));
  }
  return next;
}

EnvironmentFacts DriverKnownFacts(const JobRecordsInfo& info) {
  EnvironmentFingerprint known;
  known.backend = info.backend;
  known.nranks = info.nranks;
  known.gpu_shared = info.share_gpu;
  for (const std::string& entry : info.env) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string name = entry.substr(0, eq);
    if (IsFingerprintedEnvVar(name)) known.env[name] = entry.substr(eq + 1);
  }
  return known.Facts();
}

absl::StatusOr<EnvironmentFacts> JobEnvironmentFacts(const std::string& run_dir,
                                                     const JobRecordsInfo& info) {
  const std::string path = run_dir + "/environment.json";
  if (run_dir.empty() || !std::ifstream(path).good()) return DriverKnownFacts(info);
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(path, ": not JSON"));
  absl::StatusOr<EnvironmentFacts> facts = FactsFromEnvironmentJson(json);
  if (!facts.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", facts.status().message()));
  }
  return facts;
}

Record SynthesizedRecord(const ExpectedPoint& point, int trial, const EnvironmentFacts& facts,
                         const std::map<std::string, std::string>& cell, Outcome outcome,
                         const std::string& signature) {
  Record r = MakeRecord(*point.spec, point.file, point.point, trial, facts);
  PointOutcome result;
  result.outcome = outcome;
  result.signature = signature;
  SetResult(r, std::move(result));
  r.cell = cell;
  return r;
}

std::vector<Record> SynthesizedRecords(const std::vector<ExpectedPoint>& points, const EnvironmentFacts& facts,
                                       const std::map<std::string, std::string>& cell, Outcome outcome,
                                       const std::string& signature) {
  std::vector<Record> out;
  for (const ExpectedPoint& p : points) {
    for (int trial : p.Trials()) out.push_back(SynthesizedRecord(p, trial, facts, cell, outcome, signature));
  }
  return out;
}

absl::StatusOr<std::vector<Record>> CollectJobRecords(const std::vector<ExpectedPoint>& expected,
                                                      const JobEnd& end,
                                                      const JobRecordsInfo& info,
                                                      bool only_expected) {
  std::vector<Record> out;
  std::set<std::pair<std::string, int>> seen;
  std::string backend = info.backend;
  std::set<std::string> wanted;
  for (const ExpectedPoint& p : expected) wanted.insert(p.point.name);
  absl::StatusOr<std::vector<Record>> records = ReadJobRecords(end.run_dir);
  if (!records.ok()) return records.status();
  const JobFailure failure = ClassifyJobFailure(end, records->size());
  if (!records->empty()) FillGuardRecordDuration(records->back(), end);
  // The first run the job did not record is the one it died in (runs go in plan order), when
  // it died in one: its record gets that run's wall time; the runs after it never started.
  std::vector<const Record*> ran;
  for (const Record& r : *records) {
    if (!r.not_run && wanted.count(r.point) != 0) ran.push_back(&r);
  }
  bool in_flight = (failure.kind == JobFailureKind::kCrash || failure.kind == JobFailureKind::kTimeout) &&
                   DiedInUnrecordedRun(ran, end);
  const double in_flight_s = in_flight ? InFlightSeconds(*records, end) : 0;
  for (Record& r : *records) {
    if (only_expected && wanted.count(r.point) == 0) continue;
    r.cell = info.cell;
    if (r.result.outcome == Outcome::kCrash && absl::StartsWith(r.result.signature, "killed by SIG")) {
      ExplainInFlightKill(failure, end, r);
    }
    seen.insert({r.point, r.trial});
    if (backend == "auto" && !r.backend.empty()) backend = r.backend;
    out.push_back(std::move(r));
  }
  JobRecordsInfo filled = info;
  filled.backend = backend;
  absl::StatusOr<EnvironmentFacts> facts = JobEnvironmentFacts(end.run_dir, filled);
  if (!facts.ok()) return facts.status();
  for (const ExpectedPoint& p : expected) {
    for (int trial : p.Trials()) {
      if (seen.count({p.point.name, trial}) != 0) continue;
      if (!p.spec->ranks.Admits(info.nranks)) {
        out.push_back(SynthesizedRecord(p, trial, *facts, info.cell, Outcome::kSkip,
                                        absl::StrCat("needs ", p.spec->ranks.ToString(),
                                                     " ranks, the cell runs ", info.nranks)));
      } else {
        out.push_back(
            SynthesizedRecord(p, trial, *facts, info.cell, failure.outcome, failure.signature));
        if (in_flight) out.back().duration_s = in_flight_s;
        in_flight = false;
      }
    }
  }
  return out;
}

}  // namespace gh::driver
