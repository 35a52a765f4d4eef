#include "harness/scenarios/exec_stack_dump.h"

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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
#include "harness/runtime/stack_dump.h"

namespace gh {
namespace {

namespace fs = std::filesystem;

constexpr char kDumpDirVariable[] = "GH_STACK_DUMP_DIR";

// Registers faulthandler for this process (a file per pid, so that every Python process of
// the command's group has its own), then hands over to the sitecustomize it shadows, if any.
constexpr char kBootstrap[] = R"py(# Written by gpuharness (docs/hangs.md): at a timeout the harness sends SIGUSR1 to
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

std::vector<Dump> Registered(const std::string& dir) {
  std::vector<Dump> out;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    absl::string_view name = entry.path().filename().native();
    int pid = 0;
    if (absl::ConsumePrefix(&name, "py-") && absl::ConsumeSuffix(&name, ".txt") &&
        absl::SimpleAtoi(name, &pid) && pid > 0) {
      out.push_back(Dump{pid, entry.path()});
    }
  }
  return out;
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
  command.before_kill = [this](pid_t) { Request(); };
  return absl::OkStatus();
}

void ExecStackDump::Request() const {
  std::vector<Dump> dumps = Registered(dir_);
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
  std::vector<std::string> pids;
  std::string dumped;
  int threads = 0;
  for (const Dump& dump : Registered(dir_)) {
    const std::string text = ReadWhole(dump.path);
    if (text.empty()) continue;
    pids.push_back(absl::StrCat(dump.pid));
    absl::StrAppend(&dumped, "[pid ", dump.pid, "]\n", text);
    ParseFaulthandler(text, current, others, threads);
  }
  if (pids.empty()) {
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
  outcome.stack_note = absl::StrCat("Python faulthandler at the command's timeout: pid ",
                                    absl::StrJoin(pids, ","), ", ", threads, " thread",
                                    threads == 1 ? "" : "s", "; the current thread's frames first");
  std::ofstream log(log_path, std::ios::app);
  log << "\n--- gpuharness: stacks at the command's timeout (Python faulthandler) ---\n" << dumped;
}

}  // namespace gh
