#include "harness/runtime/stack_dump.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

#include "absl/debugging/symbolize.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "harness/runtime/stack_inlines.h"

namespace gh {
namespace {

// A real-time signal: MPI libraries, CUDA and Python leave these alone.
int StackSignal() { return SIGRTMIN + 5; }

// Frames of the handler and the trampoline above the interrupted code, at most.
constexpr int kHandlerFrames = 8;
// addr2line's share of a stack's time bound.
constexpr absl::Duration kInlineBound = absl::Seconds(2);

struct SamplerState {
  std::mutex capture;  // one capture at a time
  std::atomic<int> depth{-1};
  void* pcs[kMaxStackFrames];
  bool installed = false;
};

SamplerState& Sampler() {
  static SamplerState* state = new SamplerState();  // never destroyed: a late signal may land
  return *state;
}

void OnStackSignal(int, siginfo_t*, void* ucontext) {
  const int saved_errno = errno;
  SamplerState& s = Sampler();
  s.depth.store(CaptureRawStack(s.pcs, kMaxStackFrames, ucontext), std::memory_order_release);
  errno = saved_errno;
}

const void* InterruptedPc(const void* ucontext) {
  if (ucontext == nullptr) return nullptr;
  const auto* uc = static_cast<const ucontext_t*>(ucontext);
#if defined(__x86_64__)
  return reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<const void*>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return nullptr;
#endif
}

std::string ModuleOf(const void* pc) {
  Dl_info info{};
  if (dladdr(pc, &info) == 0 || info.dli_fname == nullptr || info.dli_fname[0] == '\0') return "";
  const char* slash = std::strrchr(info.dli_fname, '/');
  return slash != nullptr ? slash + 1 : info.dli_fname;
}

struct ParsedFrame {
  absl::string_view function;  // with " (inlined)" and " at file:line" removed
  absl::string_view location;  // "ring_shift.cc:191", or ""
  absl::string_view module;    // "" when the frame names none
};

ParsedFrame ParseFrame(absl::string_view frame) {
  ParsedFrame out;
  out.function = frame;
  if (absl::EndsWith(frame, "]")) {
    const size_t open = frame.rfind(" [");
    if (open != absl::string_view::npos) {
      out.function = frame.substr(0, open);
      out.module = frame.substr(open + 2, frame.size() - open - 3);
    }
  }
  if (const size_t at = out.function.rfind(" at "); at != absl::string_view::npos) {
    out.location = out.function.substr(at + 4);
    out.function = out.function.substr(0, at);
  }
  absl::ConsumeSuffix(&out.function, " (inlined)");
  return out;
}

bool IsLibraryPlumbing(absl::string_view function) {
  return absl::StartsWith(function, "std::") || absl::StartsWith(function, "void std::") ||
         absl::StartsWith(function, "__gnu_cxx::") || absl::StartsWith(function, "0x");
}

// Frames a crash passes through between the faulting code and the handler's trampoline.
bool IsSignalPlumbing(absl::string_view function) {
  const std::string name = ShortFunctionName(function);
  return name == "raise" || name == "gsignal" || name == "abort" || name == "pthread_kill" ||
         absl::StartsWith(name, "pthread_kill_") || absl::StartsWith(function, "0x");
}

// "File \"/x/hang.py\", line 5 in hang_here" -> "hang_here (hang.py:5)".
std::string PythonFrameSummary(absl::string_view frame) {
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(frame);
  if (!absl::ConsumePrefix(&rest, "File \"")) return "";
  const size_t quote = rest.find('"');
  if (quote == absl::string_view::npos) return "";
  absl::string_view file = rest.substr(0, quote);
  if (const size_t slash = file.rfind('/'); slash != absl::string_view::npos) {
    file.remove_prefix(slash + 1);
  }
  rest.remove_prefix(quote + 1);
  absl::string_view line, function;
  if (absl::ConsumePrefix(&rest, ", line ")) {
    const size_t space = rest.find(' ');
    line = rest.substr(0, space);
    if (space != absl::string_view::npos) {
      function = absl::StripPrefix(rest.substr(space + 1), "in ");
    }
  }
  return absl::StrCat(function.empty() ? "?" : function, " (", file, ":", line, ")");
}

std::string OwnBinary() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

}  // namespace

absl::Status InstallStackSampler() {
  SamplerState& s = Sampler();
  std::lock_guard<std::mutex> lock(s.capture);
  if (s.installed) return absl::OkStatus();
  // The first backtrace() loads libgcc_s (dlopen, malloc): never inside a handler.
  void* warm[2];
  (void)backtrace(warm, 2);
  struct sigaction action {};
  action.sa_sigaction = OnStackSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  if (sigaction(StackSignal(), &action, nullptr) != 0) {
    return absl::InternalError(absl::StrCat("sigaction(stack signal): ", std::strerror(errno)));
  }
  s.installed = true;
  return absl::OkStatus();
}

int CaptureRawStack(void** pcs, int max, const void* ucontext) {
  void* raw[kMaxStackFrames + kHandlerFrames];
  const int n = backtrace(raw, kMaxStackFrames + kHandlerFrames);
  // The unwinder steps through the trampoline to the interrupted instruction exactly.
  int first = n < 2 ? n : 2;
  if (const void* pc = InterruptedPc(ucontext); pc != nullptr) {
    for (int i = 0; i < n && i < kHandlerFrames; ++i) {
      if (raw[i] == pc) {
        first = i;
        break;
      }
    }
  }
  int depth = 0;
  for (int i = first; i < n && depth < max; ++i) pcs[depth++] = raw[i];
  return depth;
}

bool SymbolizeFrameSignalSafe(const void* pc, char* out, size_t capacity) {
  // Return addresses point past the call: look the symbol up one byte earlier.
  const char* lookup = static_cast<const char*>(pc);
  return absl::Symbolize(lookup - 1, out, static_cast<int>(capacity));
}

CapturedStack SymbolizeStack(void* const* pcs, int depth) {
  // The harness binary's frames also through its debug information (inlined calls, lines).
  Dl_info self{};
  dladdr(reinterpret_cast<void*>(&SymbolizeStack), &self);
  std::vector<uintptr_t> offsets;
  std::vector<int> resolved_index(depth, -1);
  for (int i = 0; i < depth; ++i) {
    Dl_info info{};
    if (self.dli_fbase != nullptr && dladdr(pcs[i], &info) != 0 && info.dli_fbase == self.dli_fbase) {
      resolved_index[i] = static_cast<int>(offsets.size());
      offsets.push_back(reinterpret_cast<uintptr_t>(pcs[i]) - 1 -
                        reinterpret_cast<uintptr_t>(self.dli_fbase));
    }
  }
  std::string unresolved;
  const std::vector<std::vector<SourceFrame>> chains =
      ResolveInlineFrames(OwnBinary(), offsets, kInlineBound, &unresolved);
  CapturedStack out;
  if (!unresolved.empty()) out.note = absl::StrCat("inlined frames unresolved: ", unresolved);
  size_t bytes = 0;
  auto add = [&](std::string frame) {
    if (frame.size() > kMaxFrameBytes) frame.resize(kMaxFrameBytes);
    if (bytes + frame.size() > kMaxStackBytes || out.frames.size() >= kMaxStackFrames) {
      if (!absl::StrContains(out.note, "cut at")) {
        absl::StrAppend(&out.note, out.note.empty() ? "" : "; ", "cut at ", out.frames.size(),
                        " frames");
      }
      return false;
    }
    bytes += frame.size();
    out.frames.push_back(std::move(frame));
    return true;
  };
  for (int i = 0; i < depth; ++i) {
    char name[kMaxFrameBytes];
    std::string function = SymbolizeFrameSignalSafe(pcs[i], name, sizeof(name))
                               ? std::string(name)
                               : absl::StrFormat("%p", pcs[i]);
    const std::string module = ModuleOf(pcs[i]);
    const std::string tag = module.empty() ? std::string() : absl::StrCat(" [", module, "]");
    const std::vector<SourceFrame>* chain =
        resolved_index[i] >= 0 ? &chains[static_cast<size_t>(resolved_index[i])] : nullptr;
    bool room = true;
    if (chain != nullptr && !chain->empty()) {
      for (size_t j = 0; room && j + 1 < chain->size(); ++j) {
        const SourceFrame& inlined = (*chain)[j];
        room = add(absl::StrCat(inlined.function, " (inlined)",
                                inlined.location.empty() ? "" : " at ", inlined.location, tag));
      }
      const std::string& location = chain->back().location;
      if (room) room = add(absl::StrCat(function, location.empty() ? "" : " at ", location, tag));
    } else {
      room = add(absl::StrCat(function, tag));
    }
    if (!room) break;
  }
  if (depth == kMaxStackFrames) {
    absl::StrAppend(&out.note, out.note.empty() ? "" : "; ", "the innermost ", kMaxStackFrames,
                    " frames");
  }
  return out;
}

CapturedStack CaptureThreadStack(pthread_t thread, absl::Duration wait) {
  SamplerState& s = Sampler();
  std::lock_guard<std::mutex> lock(s.capture);
  if (!s.installed) return {{}, "no stack: the stack sampler is not installed"};
  s.depth.store(-1, std::memory_order_relaxed);
  if (const int rc = pthread_kill(thread, StackSignal()); rc != 0) {
    return {{}, absl::StrCat("no stack: cannot signal the thread: ", std::strerror(rc))};
  }
  const auto until = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(wait);
  int depth = -1;
  while ((depth = s.depth.load(std::memory_order_acquire)) < 0 &&
         std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (depth < 0) {
    return {{}, absl::StrCat("no stack: the thread did not answer the stack signal within ",
                             absl::FormatDuration(wait))};
  }
  if (depth == 0) return {{}, "no stack: the unwinder found no frames"};
  return SymbolizeStack(s.pcs, depth);
}

std::string ShortFunctionName(absl::string_view function) {
  std::string name(function);
  for (const std::string noise : {"(anonymous namespace)::", "gh::"}) {
    for (size_t at; (at = name.find(noise)) != std::string::npos;) name.erase(at, noise.size());
  }
  if (const size_t paren = name.find('('); paren != std::string::npos && paren > 0) {
    name.resize(paren);
  }
  if (absl::StartsWith(name, "PMPI_")) name.erase(0, 1);
  while (absl::StartsWith(name, "_") && name.size() > 1) name.erase(0, 1);
  return name;
}

std::string StackSummary(const std::vector<std::string>& frames) {
  if (frames.empty()) return "";
  if (std::string python = PythonFrameSummary(frames.front()); !python.empty()) return python;
  std::vector<ParsedFrame> parsed;
  for (const std::string& frame : frames) parsed.push_back(ParseFrame(frame));
  // The harness binary is the module `main` or `_start` lives in (main is often a tail call
  // away), or failing those the one this code runs in.
  std::string harness;
  for (const ParsedFrame& f : parsed) {
    const std::string name = ShortFunctionName(f.function);
    if ((name == "main" || name == "start") && !f.module.empty()) harness = std::string(f.module);
  }
  if (harness.empty()) {
    const std::string own = OwnBinary();
    harness = own.substr(own.rfind('/') + 1);
  }
  if (!harness.empty()) {
    for (size_t i = 0; i < parsed.size(); ++i) {
      if (parsed[i].module != harness || IsLibraryPlumbing(parsed[i].function)) continue;
      const std::string own = parsed[i].location.empty()
                                  ? ShortFunctionName(parsed[i].function)
                                  : absl::StrCat(ShortFunctionName(parsed[i].function), " (",
                                                 parsed[i].location, ")");
      // The call out of the harness: the outermost foreign frame inside this one (past
      // inlined-away standard-library wrappers such as std::this_thread::sleep_for).
      for (size_t j = i; j-- > 0;) {
        if (parsed[j].module != harness) {
          return absl::StrCat(ShortFunctionName(parsed[j].function), " <- ", own);
        }
      }
      return own;
    }
  }
  // No module names (a crash handler's frames): the first frame past the signal's plumbing.
  for (const ParsedFrame& f : parsed) {
    if (!IsSignalPlumbing(f.function)) return ShortFunctionName(f.function);
  }
  return ShortFunctionName(parsed.front().function);
}

}  // namespace gh
