#include "harness/driver/cell_records.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "harness/core/file_util.h"
#include "harness/core/fingerprint.h"
#include "harness/core/records_file.h"
#include "harness/core/duration_text.h"
#include "harness/core/regex.h"

namespace gh::driver {
namespace {

struct RankCrash {
  int rank = 0;
  std::string line;
};

// .ranks/rank<r>.crash files the runtime leaves when a rank dies by a signal.
std::vector<RankCrash> ReadRankCrashes(const std::string& run_dir) {
  std::vector<RankCrash> out;
  std::string dir = run_dir + "/.ranks";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.rfind("rank", 0) != 0 || name.size() < 11 ||
        name.compare(name.size() - 6, 6, ".crash") != 0) {
      continue;
    }
    int rank = 0;
    if (!absl::SimpleAtoi(name.substr(4, name.size() - 10), &rank)) continue;
    out.push_back({rank, FirstLineOf(dir + "/" + name)});
  }
  closedir(d);
  std::sort(out.begin(), out.end(), [](const RankCrash& a, const RankCrash& b) { return a.rank < b.rank; });
  return out;
}

// mpirun's own account of a dead rank: "process rank 1 with PID 123 on node x exited on
// signal 11 (Segmentation fault)."
std::string MpirunRankSignal(const std::string& log_path) {
  std::ifstream in(log_path);
  std::string line;
  static const Regex re =
      *Regex::Compile(R"(process rank (\d+) with PID \d+ on node \S+ exited on signal (\d+))");
  while (std::getline(in, line)) {
    int sig = 0;
    std::optional<std::vector<std::string>> m = re.SearchGroups(line);
    if (m && absl::SimpleAtoi((*m)[2], &sig)) {
      return absl::StrCat("rank ", (*m)[1], " killed by ", SignalName(sig));
    }
  }
  return "";
}

// The records a job left in its --out DIR; none when it never created records.jsonl.
absl::StatusOr<std::vector<Record>> ReadJobRecords(const std::string& run_dir) {
  const std::string path = run_dir + "/records.jsonl";
  if (!std::ifstream(path).good()) return std::vector<Record>{};
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path);
  if (!contents.ok()) return contents.status();
  return std::move(contents->records);
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
  int ran = 0;
  bool last_was_crash = false;
  for (const Record& r : *records) {
    RunKey key{r.point, r.trial};
    if (wanted.count(key) == 0) continue;
    recorded[key] = r.not_run;
    if (!r.not_run) {
      ++ran;
      last_was_crash = r.result.outcome == Outcome::kCrash;
    }
  }
  if (ran == 0) return next;
  const bool died = end.exit.signaled || (end.exit.code != 0 && end.exit.code != 1);
  bool in_flight_found = !died || last_was_crash;
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

MissingVerdict MissingPointsVerdict(const JobEnd& end) {
  MissingVerdict v;
  if (end.timed_out) {
    v.outcome = Outcome::kTimeout;
    v.signature = absl::StrCat("cell timeout after ", FormatDurationText(end.timeout));
    return v;
  }
  if (!end.exit.signaled && end.exit.code == 2) {
    v.outcome = Outcome::kError;
    v.signature = absl::StrCat("bad input: ", FirstLineOf(end.log_path));
    return v;
  }
  v.outcome = Outcome::kCrash;
  std::vector<RankCrash> crashes = ReadRankCrashes(end.run_dir);
  std::string how = end.exit.signaled
                        ? absl::StrCat("job killed by ", SignalName(end.exit.signal))
                        : absl::StrCat("job exited with status ", end.exit.code);
  if (!crashes.empty()) {
    std::vector<std::string> ranks;
    for (const RankCrash& c : crashes) ranks.push_back(absl::StrCat(c.rank));
    v.signature = absl::StrCat("crash on rank", ranks.size() > 1 ? "s " : " ",
                               absl::StrJoin(ranks, ","), ": ", crashes[0].line, " (", how, ")");
    return v;
  }
  std::string mpirun = MpirunRankSignal(end.log_path);
  if (!mpirun.empty()) {
    v.signature = absl::StrCat("crash: ", mpirun, " (", how, ")");
    return v;
  }
  if (end.exit.signaled) {
    v.signature = absl::StrCat("crash: ", how);
  } else if (end.exit.code == 0 || end.exit.code == 1) {
    v.signature = absl::StrCat("not recorded: ", how);
  } else {
    std::string first = FirstLineOf(end.log_path);
    v.signature = absl::StrCat("crash: ", how, first.empty() ? "" : ": ", first);
  }
  return v;
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
  for (Record& r : *records) {
    if (only_expected && wanted.count(r.point) == 0) continue;
    r.cell = info.cell;
    if (end.timed_out && r.result.outcome == Outcome::kCrash &&
        absl::StartsWith(r.result.signature, "killed by SIG")) {
      // Rank 0's crash guard recorded the in-flight point when the driver's SIGTERM for the
      // cell timeout reached it: that point did not crash, it ran out of time.
      MissingVerdict timeout = MissingPointsVerdict(end);
      PointOutcome result = std::move(r.result);
      result.outcome = timeout.outcome;
      result.signature = timeout.signature;
      SetResult(r, std::move(result));
    }
    seen.insert({r.point, r.trial});
    if (backend == "auto" && !r.backend.empty()) backend = r.backend;
    out.push_back(std::move(r));
  }
  JobRecordsInfo filled = info;
  filled.backend = backend;
  absl::StatusOr<EnvironmentFacts> facts = JobEnvironmentFacts(end.run_dir, filled);
  if (!facts.ok()) return facts.status();
  std::optional<MissingVerdict> verdict;
  for (const ExpectedPoint& p : expected) {
    for (int trial : p.Trials()) {
      if (seen.count({p.point.name, trial}) != 0) continue;
      if (!p.spec->ranks.Admits(info.nranks)) {
        out.push_back(SynthesizedRecord(p, trial, *facts, info.cell, Outcome::kSkip,
                                        absl::StrCat("needs ", p.spec->ranks.ToString(),
                                                     " ranks, the cell runs ", info.nranks)));
      } else {
        if (!verdict) verdict = MissingPointsVerdict(end);
        out.push_back(
            SynthesizedRecord(p, trial, *facts, info.cell, verdict->outcome, verdict->signature));
      }
    }
  }
  return out;
}

}  // namespace gh::driver
