#include "harness/driver/job_ledger.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"
#include "harness/core/process_table.h"
#include "nlohmann/json.hpp"

namespace gh::driver {
namespace {

namespace fs = std::filesystem;

// One ledger entry, read strictly: anything else is refused with the file and key.
struct Entry {
  std::string path;
  int session = 0;
  uint64_t start_ticks = 0;
  std::string boot_id;
  std::string log;
};

absl::StatusOr<Entry> ReadEntry(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  auto bad = [&](const char* key, const char* expected) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", key, ": expected ", expected,
                     " (a job ledger entry; remove the file if no job of an earlier run is left)"));
  };
  if (!j.is_object()) return bad("(document)", "a JSON object");
  Entry e;
  e.path = path;
  const auto session = j.find("session");
  if (session == j.end() || !session->is_number_integer() || session->get<int64_t>() <= 1 ||
      session->get<int64_t>() > (1 << 30)) {
    return bad("session", "a process id above 1");
  }
  e.session = session->get<int>();
  const auto ticks = j.find("start_ticks");
  if (ticks == j.end() || !ticks->is_number_unsigned()) return bad("start_ticks", "a non-negative integer");
  e.start_ticks = ticks->get<uint64_t>();
  const auto boot = j.find("boot_id");
  if (boot == j.end() || !boot->is_string()) return bad("boot_id", "a string");
  e.boot_id = boot->get<std::string>();
  const auto log = j.find("log");
  if (log != j.end() && !log->is_string()) return bad("log", "a string");
  if (log != j.end()) e.log = log->get<std::string>();
  return e;
}

// The live processes of `e`'s job: its session's members that started no earlier than its
// leader, unless the leader's pid now belongs to another process (then the session is gone).
std::vector<ProcessStat> LiveMembers(const Entry& e) {
  if (e.boot_id != BootId()) return {};
  std::optional<ProcessStat> leader = ReadProcessStat(e.session);
  if (leader && leader->start_ticks != e.start_ticks) return {};
  std::vector<ProcessStat> members;
  const int self = getpid(), own_session = getsid(0);
  for (const ProcessStat& p : SessionMembers(e.session)) {
    if (p.pid == self || p.sid == own_session || p.start_ticks < e.start_ticks) continue;
    members.push_back(p);
  }
  return members;
}

size_t CountAlive(const std::vector<Entry>& entries) {
  size_t alive = 0;
  for (const Entry& e : entries) alive += LiveMembers(e).size();
  return alive;
}

void SignalAll(const std::vector<Entry>& entries, int signal) {
  for (const Entry& e : entries) {
    for (const ProcessStat& p : LiveMembers(e)) {
      kill(p.pid, signal);
      if (p.pgid > 1) kill(-p.pgid, signal);
    }
  }
}

// Waits up to `limit` for every process of `entries` to end.
bool WaitGone(const std::vector<Entry>& entries, absl::Duration limit, Clock& clock) {
  const absl::Time until = clock.Now() + limit;
  while (CountAlive(entries) > 0) {
    if (clock.Now() >= until) return false;
    clock.SleepFor(absl::Milliseconds(50));
  }
  return true;
}

}  // namespace

std::string JobLedger::EntryPath(ProcessId id) const {
  return absl::StrCat(entries_dir(), "/", id, ".json");
}

absl::StatusOr<int> JobLedger::StopLeftovers(absl::Duration grace, Clock& clock, std::FILE* console) {
  std::error_code ec;
  if (!fs::is_directory(entries_dir(), ec)) return 0;
  std::vector<Entry> entries;
  for (const fs::directory_entry& f : fs::directory_iterator(entries_dir(), ec)) {
    if (f.path().extension() != ".json") continue;  // a temporary file of an atomic write
    absl::StatusOr<Entry> e = ReadEntry(f.path().string());
    if (!e.ok()) return e.status();
    entries.push_back(*std::move(e));
  }
  int stopped = 0;
  for (const Entry& e : entries) {
    const size_t alive = LiveMembers(e).size();
    if (alive == 0) continue;
    stopped += static_cast<int>(alive);
    if (console != nullptr) {
      std::fprintf(console, "stopping %zu process(es) an earlier run left running (session %d, log %s)\n",
                   alive, e.session, e.log.empty() ? "?" : e.log.c_str());
    }
  }
  if (stopped > 0) {
    SignalAll(entries, SIGTERM);
    if (!WaitGone(entries, grace, clock)) {
      SignalAll(entries, SIGKILL);
      if (!WaitGone(entries, absl::Seconds(10), clock)) {
        return absl::InternalError(absl::StrCat("processes of an earlier run in ", dir_,
                                                " survive SIGKILL (see ", entries_dir(), ")"));
      }
    }
    if (console != nullptr) std::fflush(console);
  }
  for (const Entry& e : entries) fs::remove(e.path, ec);
  return stopped;
}

absl::StatusOr<bool> JobLedger::Add(ProcessId id, const ProcessSpec& spec) {
  std::optional<ProcessStat> stat = ReadProcessStat(id);
  if (!stat || stat->ppid != getpid()) return false;
  if (absl::Status st = MakeDirectories(entries_dir()); !st.ok()) return st;
  nlohmann::json j = {{"session", id},
                      {"start_ticks", stat->start_ticks},
                      {"boot_id", BootId()},
                      {"argv0", spec.argv.empty() ? "" : spec.argv[0]},
                      {"log", spec.log_path}};
  if (absl::Status st = WriteFileAtomically(EntryPath(id), j.dump(2) + "\n"); !st.ok()) return st;
  return true;
}

void JobLedger::Remove(ProcessId id) {
  std::error_code ec;
  fs::remove(EntryPath(id), ec);
}

absl::StatusOr<ProcessId> LedgeredProcessRunner::Start(const ProcessSpec& spec) {
  // Recorded before the child execs (no window in which a killed driver leaves a job nobody
  // knows of); a runner that never calls before_exec (a test's fake) is recorded after.
  ProcessSpec recorded_spec = spec;
  bool called = false;
  bool written = false;
  recorded_spec.before_exec = [&](ProcessId child) -> absl::Status {
    called = true;
    absl::StatusOr<bool> added = ledger_.Add(child, spec);
    if (!added.ok()) return absl::InternalError(absl::StrCat("job ledger: ", added.status().message()));
    written = *added;
    if (spec.before_exec) return spec.before_exec(child);
    return absl::OkStatus();
  };
  absl::StatusOr<ProcessId> id = inner_.Start(recorded_spec);
  if (!id.ok()) return id;
  if (called) {
    if (written) recorded_.insert(*id);
    return id;
  }
  absl::StatusOr<bool> recorded = ledger_.Add(*id, spec);
  if (!recorded.ok()) {
    inner_.SignalGroup(*id, SIGKILL);  // a job that cannot be recorded is not left running
    return absl::InternalError(absl::StrCat("job ledger: ", recorded.status().message()));
  }
  if (*recorded) recorded_.insert(*id);
  return id;
}

std::optional<ProcessExit> LedgeredProcessRunner::Poll(ProcessId id) {
  std::optional<ProcessExit> exit = inner_.Poll(id);
  if (exit && recorded_.erase(id) > 0) ledger_.Remove(id);  // the keeper cleared its session
  return exit;
}

}  // namespace gh::driver
