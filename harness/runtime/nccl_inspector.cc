#include "harness/runtime/nccl_inspector.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"
#include "harness/core/nccl_inspector_dump.h"

namespace gh {
namespace {

namespace fs = std::filesystem;

// NCCL 2.28's plugin sleeps this value as nanoseconds below one second (its tv_nsec is the
// microseconds modulo 10^6), so it polls every few tens of microseconds; a plugin that reads
// it as microseconds polls every millisecond. Either way collectives closer together than one
// tick leave only the last one's line.
constexpr char kDumpIntervalMicroseconds[] = "1000";
// After a point the dump files must stay this long without growing...
constexpr absl::Duration kQuiet = absl::Milliseconds(20);
// ...checked this often, waiting at most this long in all.
constexpr absl::Duration kPoll = absl::Milliseconds(5);
constexpr absl::Duration kSettleBound = absl::Milliseconds(300);
// A file older than the job by more than this is a previous job's.
constexpr absl::Duration kStaleSlack = absl::Seconds(2);


// The job's dump files (`<host>-pid<pid>.log`) with their sizes, written since `since`.
std::map<std::string, uintmax_t> DumpFiles(const std::string& dir, absl::Time since) {
  std::map<std::string, uintmax_t> out;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string path = entry.path().string();
    struct stat info {};
    if (!absl::EndsWith(path, ".log") || stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
      continue;
    }
    if (absl::TimeFromTimespec(info.st_mtim) + kStaleSlack < since) continue;
    out[path] = static_cast<uintmax_t>(info.st_size);
  }
  return out;
}

std::string ReadFrom(const std::string& path, size_t offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(static_cast<std::streamoff>(offset));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string EmptyDumpNote(int nranks, bool any_file, const std::string& dir) {
  if (!any_file) {
    return absl::StrCat("no dump file in ", dir,
                        ": NCCL did not load the plugin (NCCL_DEBUG=INFO shows PROFILER/Plugin)");
  }
  if (nranks == 1) {
    return "no collective recorded: NCCL runs a 1-rank collective without profiler events, so "
           "the Inspector sees none (run 2 ranks or more)";
  }
  return "no collective recorded in this point: the Inspector reports collectives only "
         "(not send/recv)";
}

}  // namespace

NcclInspector NcclInspector::Start(const NcclInspectorRequest& request) {
  NcclInspector inspector;
  inspector.started_ = absl::Now();
  if (!request.asked) return inspector;
  if (!request.nccl_backend) {
    inspector.note_ = "not available: host backend (no NCCL)";
    return inspector;
  }
  std::string plugin = request.plugin_flag;
  if (plugin.empty()) {
    const char* env = std::getenv(kNcclInspectorPluginEnv);
    plugin = env == nullptr ? "" : env;
  }
  if (plugin.empty()) {
    inspector.note_ = absl::StrCat(
        "not available: no plugin named (set ", kNcclInspectorPluginEnv,
        " or run --nccl-inspector to libnccl-profiler-inspector.so; "
        "scripts/build-nccl-inspector.sh builds it)");
    return inspector;
  }
  if (access(plugin.c_str(), R_OK) != 0) {
    inspector.note_ = absl::StrCat("not available: ", plugin, ": ", std::strerror(errno));
    return inspector;
  }
  std::error_code ec;
  const fs::path absolute = fs::absolute(plugin, ec);
  if (!ec) plugin = absolute.string();
  inspector.dump_dir_ = absl::StrCat(request.out_dir, "/", kNcclInspectorDumpDir);
  if (absl::Status made = MakeDirectories(inspector.dump_dir_); !made.ok()) {
    inspector.note_ = absl::StrCat("not available: ", made.message());
    return inspector;
  }
  setenv("NCCL_PROFILER_PLUGIN", plugin.c_str(), /*overwrite=*/1);
  setenv("NCCL_INSPECTOR_ENABLE", "1", 1);
  setenv("NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", kDumpIntervalMicroseconds, 1);
  setenv("NCCL_INSPECTOR_DUMP_DIR", inspector.dump_dir_.c_str(), 1);
  inspector.running_ = true;
  return inspector;
}

void NcclInspector::WaitForQuiet() const {
  const absl::Time deadline = absl::Now() + kSettleBound;
  std::map<std::string, uintmax_t> sizes = DumpFiles(dump_dir_, started_);
  absl::Time changed = absl::Now();
  while (absl::Now() < deadline && absl::Now() - changed < kQuiet) {
    std::this_thread::sleep_for(absl::ToChronoMicroseconds(kPoll));
    std::map<std::string, uintmax_t> now = DumpFiles(dump_dir_, started_);
    if (now != sizes) {
      sizes = std::move(now);
      changed = absl::Now();
    }
  }
}

NcclInspectorView NcclInspector::TakePoint(int nranks, bool settle) {
  if (!running_) return NcclInspectorView{note_, {}, {}};
  if (settle) WaitForQuiet();
  std::vector<InspectorEntry> entries;
  std::vector<std::string> problems;
  const std::map<std::string, uintmax_t> files = DumpFiles(dump_dir_, started_);
  for (const auto& [path, size] : files) {
    DumpFile& file = files_[path];
    if (file.unreadable || size <= file.offset) continue;
    const std::string text = ReadFrom(path, file.offset);
    size_t consumed = 0;
    absl::StatusOr<std::vector<InspectorEntry>> parsed =
        ParseInspectorDump(text, path, file.lines + 1, &consumed);
    if (!parsed.ok()) {
      // The plugin wrote something else than its format: say so, and stop reading that file.
      file.unreadable = true;
      problems.push_back(absl::StrCat("unreadable dump: ", parsed.status().message()));
      continue;
    }
    file.offset += consumed;
    for (size_t i = 0; i < consumed; ++i) file.lines += text[i] == '\n' ? 1 : 0;
    entries.insert(entries.end(), parsed->begin(), parsed->end());
  }
  NcclInspectorView view = SummarizeInspectorEntries(entries);
  for (const InspectorLastCompleted& last : view.last) last_[last.rank] = last;
  if (entries.empty() && problems.empty()) problems.push_back(EmptyDumpNote(nranks, !files.empty(), dump_dir_));
  if (!view.note.empty()) problems.push_back(view.note);
  std::string note;
  for (const std::string& p : problems) absl::StrAppend(&note, note.empty() ? "" : "; ", p);
  view.note = std::move(note);
  return view;
}

std::string NcclInspector::LastCompletedLine(int nranks) const {
  if (!running_) return note_;
  if (last_.empty()) return "no collective completed yet (as far as the Inspector saw)";
  std::vector<InspectorLastCompleted> last;
  for (const auto& [rank, l] : last_) last.push_back(l);
  return gh::LastCompletedLine(last, nranks);
}

}  // namespace gh
