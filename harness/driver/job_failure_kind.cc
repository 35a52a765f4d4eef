#include "harness/driver/job_failure_kind.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "harness/core/signal_name.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "harness/core/duration_text.h"
#include "harness/core/exit_codes.h"
#include "harness/core/regex.h"
#include "harness/driver/cell_records.h"
#include "harness/driver/slurm_node_failure.h"

namespace gh::driver {
namespace {

constexpr size_t kMaxQuotedChars = 200;
constexpr int kExitCannotExecute = 126;  // found but not executable (the shell's convention)
constexpr int kExitNotFound = 127;       // no such program (ProcessRunner's exec failure too)

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

// The first trimmed line of the log that `re` finds something in; "" when none.
std::string FirstMatchingLine(const std::string& log_path, const Regex& re) {
  std::ifstream in(log_path);
  std::string line;
  while (std::getline(in, line)) {
    std::string trimmed(absl::StripAsciiWhitespace(line));
    if (re.Search(trimmed)) return trimmed.substr(0, kMaxQuotedChars);
  }
  return "";
}

// The line a job exiting 3 explained itself with ("gpuharness run: cannot write results to
// ..."), else the log's first line.
std::string OwnInfrastructureLine(const std::string& log_path) {
  static const Regex re = *Regex::Compile(R"(^gpuharness( run)?: )");
  static const Regex banner = *Regex::Compile(R"(^gpuharness: \d+ point runs)");
  std::ifstream in(log_path);
  std::string line;
  while (std::getline(in, line)) {
    std::string trimmed(absl::StripAsciiWhitespace(line));
    if (re.Search(trimmed) && !banner.Search(trimmed)) return trimmed.substr(0, kMaxQuotedChars);
  }
  return FirstLineOf(log_path, kMaxQuotedChars);
}

std::string HowItEnded(const ProcessExit& exit) {
  return exit.signaled ? absl::StrCat("job killed by ", SignalName(exit.signal))
                       : absl::StrCat("job exited with status ", exit.code);
}

JobFailure Infrastructure(std::string what, const std::string& how) {
  return JobFailure{JobFailureKind::kInfrastructure, Outcome::kInfra,
                    absl::StrCat("infrastructure: ", what, " (", how, ")")};
}

JobFailure Crash(std::string signature) {
  return JobFailure{JobFailureKind::kCrash, Outcome::kCrash, std::move(signature)};
}

JobFailure RankCrashed(std::string signature) {
  return JobFailure{JobFailureKind::kCrash, Outcome::kCrash, std::move(signature), /*names_rank=*/true};
}

}  // namespace

std::string LauncherFailureLine(const std::string& log_path) {
  // Each alternative is a launcher's or MPI's own words for "the job could not start": Open MPI
  // 4 and 5 (mpirun / prterun, ORTE, PMIx), MPICH's Hydra, Slurm's srun, and the driver's own
  // exec failure (process_runner.cc). The ones that say why come first; ORTE's and PMIx's
  // generic error logs only when nothing more telling was printed.
  static const Regex telling = *Regex::Compile(
      "has detected an attempt to run as root"
      "|was unable to launch the specified application"
      "|could not access or execute an executable"
      "|(?i:MPI_INIT(_THREAD)? (has )?failed|error occurred in MPI_Init|fatal error in MPI_Init)"
      "|ORTE (was unable|has lost communication|does not know how)"
      "|There are not enough slots available"
      "|^srun: error:"
      "|HYD_\\w+ \\(.*\\): "
      "|: cannot execute '"
      "|gpuharness run: MPI start-up failed");
  static const Regex generic = *Regex::Compile("ORTE_ERROR_LOG|(?i:\\bpmix?(_\\w+)?\\b.*(error|fail))");
  std::string line = FirstMatchingLine(log_path, telling);
  return line.empty() ? FirstMatchingLine(log_path, generic) : line;
}

std::string RankSignal::ToString() const {
  return absl::StrCat("rank ", rank, " killed by ", SignalName(signal));
}

std::optional<RankSignal> MpirunRankSignal(const std::string& log_path) {
  std::ifstream in(log_path);
  std::string line;
  static const Regex re =
      *Regex::Compile(R"(process rank (\d+) with PID \d+ on node \S+ exited on signal (\d+))");
  while (std::getline(in, line)) {
    RankSignal found;
    std::optional<std::vector<std::string>> m = re.SearchGroups(line);
    if (m && absl::SimpleAtoi((*m)[1], &found.rank) && absl::SimpleAtoi((*m)[2], &found.signal)) {
      return found;
    }
  }
  return std::nullopt;
}

JobFailure ClassifyJobFailure(const JobEnd& end, size_t records_written) {
  if (end.timed_out) {
    return JobFailure{JobFailureKind::kTimeout, Outcome::kTimeout,
                      absl::StrCat("cell timeout after ", FormatDurationText(end.timeout))};
  }
  const ProcessExit& exit = end.exit;
  if (!exit.signaled && exit.code == kExitBadInput) {
    return JobFailure{JobFailureKind::kBadInput, Outcome::kError,
                      absl::StrCat("bad input: ", FirstLineOf(end.log_path))};
  }
  const std::string how = HowItEnded(exit);
  // A node of the Slurm step died under it: no verdict, whatever the job recorded before.
  if (std::optional<SlurmNodeFailure> node = FindSlurmNodeFailure(end.log_path)) {
    return Infrastructure(node->line, how);
  }
  // A rank that died by a signal, as the runtime or mpirun saw it: the code under test crashed.
  std::vector<RankCrash> crashes = ReadRankCrashes(end.run_dir);
  if (!crashes.empty()) {
    std::vector<std::string> ranks;
    for (const RankCrash& c : crashes) ranks.push_back(absl::StrCat(c.rank));
    return RankCrashed(absl::StrCat("crash on rank", ranks.size() > 1 ? "s " : " ",
                                    absl::StrJoin(ranks, ","), ": ", crashes[0].line, " (", how, ")"));
  }
  if (std::optional<RankSignal> mpirun = MpirunRankSignal(end.log_path)) {
    return RankCrashed(absl::StrCat("crash: ", mpirun->ToString(), " (", how, ")"));
  }
  // The launcher or MPI could not start the job: nothing of the code ran.
  if (records_written == 0) {
    if (std::string line = LauncherFailureLine(end.log_path); !line.empty()) {
      return Infrastructure(line, how);
    }
  }
  if (!exit.signaled && (exit.code == kExitNotFound || exit.code == kExitCannotExecute)) {
    std::string first = FirstLineOf(end.log_path, kMaxQuotedChars);
    return Infrastructure(first.empty() ? "cannot execute the launcher or the program" : first, how);
  }
  if (!exit.signaled && exit.code == kExitInfrastructure) {
    std::string line = OwnInfrastructureLine(end.log_path);
    return Infrastructure(line.empty() ? "the job reported an infrastructure failure" : line, how);
  }
  if (exit.signaled) return Crash(absl::StrCat("crash: ", how));
  if (exit.code == kExitOk || exit.code == kExitUnmet) {
    // A job that ends normally records every run it was given; one that did not never ran it.
    if (records_written > 0) return Infrastructure("job ended without recording this run", how);
    std::string first = FirstLineOf(end.log_path, kMaxQuotedChars);
    return Infrastructure(first.empty() ? "job ended before recording anything (empty log)"
                                        : absl::StrCat("job ended before recording anything: ", first),
                          how);
  }
  std::string first = FirstLineOf(end.log_path);
  return Crash(absl::StrCat("crash: ", how, first.empty() ? "" : ": ", first));
}

}  // namespace gh::driver
