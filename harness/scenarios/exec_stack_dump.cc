#include "harness/scenarios/exec_stack_dump.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "harness/core/file_util.h"
#include "harness/core/status_macros.h"
#include "harness/runtime/bounded_command.h"
#include "harness/runtime/stack_dump.h"

namespace gh {
namespace {

namespace fs = std::filesystem;

constexpr char kDumpDirVariable[] = "GH_STACK_DUMP_DIR";
// Names the py-spy to run ("off": never run one); unset: "py-spy" on PATH.
constexpr char kPySpyVariable[] = "GH_PY_SPY";

// Registers faulthandler for this process (a file per pid, so that every Python process of
// the command's group has its own), then hands over to the sitecustomize it shadows, if any.
constexpr char kBootstrap[] = R"py(# Written by gpuharness (docs/explanation/hangs.md): at a timeout the harness sends SIGUSR1 to
# each Python process that registered here and records the stacks it dumps.
import os as _os
_dir = _os.environ.get("GH_STACK_DUMP_DIR")
if _dir:
    try:
        import faulthandler as _faulthandler, signal as _signal
        _dump = open(_os.path.join(_dir, "py-%d.txt" % _os.getpid()), "w")
        _faulthandler.register(_signal.SIGUSR1, file=_dump, all_threads=True)
    except Exception:
        pass
    try:
        import sys as _sys, importlib.util as _util
        _here = _os.path.dirname(_os.path.abspath(__file__))
        for _entry in _sys.path:
            _candidate = _os.path.join(_entry or ".", "sitecustomize.py")
            if _os.path.abspath(_entry or ".") != _here and _os.path.isfile(_candidate):
                _spec = _util.spec_from_file_location("_gh_shadowed_sitecustomize", _candidate)
                _spec.loader.exec_module(_util.module_from_spec(_spec))
                break
    except Exception:
        pass
)py";

std::string ReadWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Dump {
  pid_t pid = 0;
  fs::path path;
};

// The dumps in `dir` named PREFIX<pid>.txt: "py-" faulthandler's (one per registered
// process, empty until asked), "spy-" py-spy's.
std::vector<Dump> DumpsIn(const std::string& dir, absl::string_view prefix) {
  std::vector<Dump> out;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    absl::string_view name = entry.path().filename().native();
    int pid = 0;
    if (absl::ConsumePrefix(&name, prefix) && absl::ConsumeSuffix(&name, ".txt") &&
        absl::SimpleAtoi(name, &pid) && pid > 0) {
      out.push_back(Dump{pid, entry.path()});
    }
  }
  std::sort(out.begin(), out.end(), [](const Dump& a, const Dump& b) { return a.pid < b.pid; });
  return out;
}

std::vector<Dump> Registered(const std::string& dir) { return DumpsIn(dir, "py-"); }

// The py-spy to run, or "" for none.
std::string PySpyProgram() {
  const char* named = std::getenv(kPySpyVariable);
  if (named != nullptr && std::string_view(named) == "off") return "";
  return named != nullptr && *named != '\0' ? named : "py-spy";
}

// The Python interpreters among the processes of the command's process group (their
// executable's name starts with "python"; a launcher script or shim exec's or forks one).
std::vector<pid_t> PythonProcessesOf(pid_t group) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc", ec)) {
    int pid = 0;
    if (!absl::SimpleAtoi(entry.path().filename().native(), &pid) || pid <= 0) continue;
    if (getpgid(pid) != group) continue;
    std::error_code link_ec;
    const fs::path exe = fs::read_symlink(entry.path() / "exe", link_ec);
    if (!link_ec && absl::StartsWith(exe.filename().native(), "python")) out.push_back(pid);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// py-spy's text: "Thread 123 (idle): \"MainThread\"" blocks of "    f (/x/y.py:9)" lines,
// innermost first; written as faulthandler writes frames ("File \"/x/y.py\", line 9 in f"),
// so that a record reads the same whichever tool took it.
void ParsePySpy(const std::string& text, std::vector<std::string>& frames, int& threads) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripTrailingAsciiWhitespace(line);
    if (absl::StartsWith(line, "Thread ")) {
      ++threads;
      continue;
    }
    if (!absl::StartsWith(line, "    ") || !absl::EndsWith(line, ")")) continue;
    const absl::string_view frame = absl::StripLeadingAsciiWhitespace(line);
    const size_t open = frame.rfind(" (");
    const size_t colon = frame.rfind(':');
    if (open == absl::string_view::npos || colon == absl::string_view::npos || colon < open) continue;
    const absl::string_view function = frame.substr(0, open);
    const absl::string_view file = frame.substr(open + 2, colon - open - 2);
    const absl::string_view number = frame.substr(colon + 1, frame.size() - colon - 2);
    frames.push_back(absl::StrCat("File \"", file, "\", line ", number, " in ", function)
                         .substr(0, kMaxFrameBytes));
  }
}

// faulthandler's text: "Current thread 0x.. (most recent call first):" blocks of
// "  File \"x.py\", line 3 in f" lines. The current thread's frames first, then the others'.
void ParseFaulthandler(const std::string& text, std::vector<std::string>& current,
                       std::vector<std::string>& others, int& threads) {
  bool in_current = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripTrailingAsciiWhitespace(line);
    if (absl::StrContains(line, "(most recent call first)")) {
      ++threads;
      in_current = absl::StartsWith(line, "Current thread");
      continue;
    }
    const absl::string_view frame = absl::StripLeadingAsciiWhitespace(line);
    if (!absl::StartsWith(frame, "File \"")) continue;
    (in_current ? current : others).emplace_back(frame.substr(0, kMaxFrameBytes));
  }
}

}  // namespace

absl::Status ExecStackDump::Prepare(ExecCommand& command) {
  std::error_code ec;
  fs::remove_all(dir_, ec);
  fs::create_directories(dir_, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create ", dir_, ": ", ec.message()));
  const std::string absolute = fs::absolute(dir_).lexically_normal().string();
  GH_RETURN_IF_ERROR(WriteFileAtomically(absolute + "/sitecustomize.py", kBootstrap));
  std::string python_path = absolute;
  bool named = false;
  for (auto& [name, value] : command.env) {
    if (name != "PYTHONPATH") continue;
    named = true;
    if (!value.empty()) python_path = absl::StrCat(absolute, ":", value);
    value = python_path;
  }
  if (!named) {
    const char* inherited = std::getenv("PYTHONPATH");
    if (inherited != nullptr && *inherited != '\0') python_path = absl::StrCat(absolute, ":", inherited);
    command.env.emplace_back("PYTHONPATH", python_path);
  }
  command.env.emplace_back(kDumpDirVariable, absolute);
  command.before_kill = [this](pid_t group) { Request(group); };
  return absl::OkStatus();
}

void ExecStackDump::Request(pid_t group) const {
  // py-spy first, where installed: it reads any interpreter's stacks from outside (also one
  // started with -I or -S, which skips the bootstrap).
  std::set<pid_t> spied;
  if (const std::string py_spy = PySpyProgram(); !py_spy.empty()) {
    std::set<pid_t> pythons;
    if (group > 0) for (pid_t pid : PythonProcessesOf(group)) pythons.insert(pid);
    for (const Dump& dump : Registered(dir_)) pythons.insert(dump.pid);
    const auto until = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(kPySpyWait);
    for (pid_t pid : pythons) {
      const absl::Duration left =
          absl::FromChrono(until - std::chrono::steady_clock::now());
      if (left <= absl::ZeroDuration()) break;
      absl::StatusOr<std::string> text = RunBoundedCommand(
          {py_spy, "dump", "--full-filenames", "--pid", absl::StrCat(pid)}, left);
      if (!text.ok() || !absl::StrContains(*text, "Thread ")) continue;
      if (WriteFileAtomically(absl::StrCat(dir_, "/spy-", pid, ".txt"), *text).ok()) spied.insert(pid);
    }
  }
  std::vector<Dump> dumps;
  for (Dump& dump : Registered(dir_)) {
    if (spied.count(dump.pid) == 0) dumps.push_back(std::move(dump));
  }
  if (dumps.empty()) return;
  for (const Dump& dump : dumps) kill(dump.pid, SIGUSR1);
  // faulthandler writes from its C handler at once; wait until every dump has text and has
  // stopped growing, or the bound passes.
  const auto until = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(kExecStackWait);
  std::vector<uintmax_t> sizes(dumps.size(), 0);
  while (std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    bool settled = true;
    for (size_t i = 0; i < dumps.size(); ++i) {
      std::error_code ec;
      const uintmax_t size = fs::file_size(dumps[i].path, ec);
      if (ec || size == 0 || size != sizes[i]) settled = false;
      if (!ec) sizes[i] = size;
    }
    if (settled) return;
  }
}

void ExecStackDump::Attach(const std::string& log_path, RankOutcome& outcome) const {
  std::vector<std::string> current, others;
  std::vector<std::string> spy_pids, faulthandler_pids;
  std::set<pid_t> spied;
  std::string dumped;
  int threads = 0;
  for (const Dump& dump : DumpsIn(dir_, "spy-")) {
    const std::string text = ReadWhole(dump.path);
    if (text.empty()) continue;
    spied.insert(dump.pid);
    spy_pids.push_back(absl::StrCat(dump.pid));
    absl::StrAppend(&dumped, "[pid ", dump.pid, ", py-spy]\n", text);
    ParsePySpy(text, current, threads);
  }
  for (const Dump& dump : Registered(dir_)) {
    if (spied.count(dump.pid) > 0) continue;
    const std::string text = ReadWhole(dump.path);
    if (text.empty()) continue;
    faulthandler_pids.push_back(absl::StrCat(dump.pid));
    absl::StrAppend(&dumped, "[pid ", dump.pid, ", faulthandler]\n", text);
    ParseFaulthandler(text, current, others, threads);
  }
  if (spy_pids.empty() && faulthandler_pids.empty()) {
    outcome.stack_note =
        "no stack: no process of the command answered (Python processes register through the "
        "harness's sitecustomize; native programs offer nothing without a debugger)";
    return;
  }
  size_t bytes = 0;
  for (std::vector<std::string>* frames : {&current, &others}) {
    for (std::string& frame : *frames) {
      if (bytes + frame.size() > kMaxStackBytes || outcome.stack.size() >= kMaxStackFrames) break;
      bytes += frame.size();
      outcome.stack.push_back(std::move(frame));
    }
  }
  // Which tool took the stacks, by pid: "py-spy dump at the command's timeout: pid 12, ...".
  std::vector<std::string> tools;
  if (!spy_pids.empty()) tools.push_back(absl::StrCat("py-spy dump: pid ", absl::StrJoin(spy_pids, ",")));
  if (!faulthandler_pids.empty()) {
    tools.push_back(absl::StrCat("Python faulthandler: pid ", absl::StrJoin(faulthandler_pids, ",")));
  }
  const std::string tool_names = spy_pids.empty() ? "Python faulthandler"
                                 : faulthandler_pids.empty() ? "py-spy dump"
                                                             : "py-spy dump and Python faulthandler";
  if (spy_pids.empty()) {
    outcome.stack_note = absl::StrCat("Python faulthandler at the command's timeout: pid ",
                                      absl::StrJoin(faulthandler_pids, ","), ", ", threads,
                                      " thread", threads == 1 ? "" : "s",
                                      "; the current thread's frames first");
  } else {
    outcome.stack_note = absl::StrCat(tool_names, " at the command's timeout (",
                                      absl::StrJoin(tools, "; "), "), ", threads, " thread",
                                      threads == 1 ? "" : "s");
  }
  std::ofstream log(log_path, std::ios::app);
  log << "\n--- gpuharness: stacks at the command's timeout (" << tool_names << ") ---\n" << dumped;
}

}  // namespace gh
