#include "harness/runtime/crash_guard.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string.h>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"
#include "harness/core/signal_name.h"
#include "harness/runtime/crash_record.h"
#include "harness/runtime/stack_dump.h"

namespace gh {
namespace {

// The signal's name in a crash file; "SIG?" for one without a name. Async-signal-safe.
const char* CrashSignalName(int signal_number) {
  const char* name = SignalNameOrNull(signal_number);
  return name != nullptr ? name : "SIG?";
}

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int kTerminationSignals[] = {SIGTERM, SIGINT};
constexpr size_t kRankTextCapacity = kMaxCrashFileBytes;

struct PendingCrashRecord {
  std::string line;          // template with slots
  std::vector<char> filled;  // room for the filled line
};

// A signal handler can only reach globals. Everything here is written before the handlers
// are installed (or, for the pending record, published through an atomic pointer).
struct CrashGuardState {
  bool installed = false;
  int rank = 0;
  int nranks = 1;
  const std::atomic<const char*>* step = nullptr;
  const RecordsWriter* records = nullptr;
  std::string own_file;                 // DIR/.ranks/rank<r>.crash
  std::string deputy_file;              // rank 0: rank 1 stood in for it (CrashGuardConfig)
  std::vector<std::string> rank_files;  // rank 0: every rank's file
  std::vector<std::vector<char>> rank_texts;
  std::vector<CrashRankText> rank_views;
  PendingCrashRecord slots[2];
  int next_slot = 0;
  std::atomic<PendingCrashRecord*> pending{nullptr};
  std::atomic<bool> handling{false};
  std::vector<char> alt_stack;
};

CrashGuardState& State() {
  static CrashGuardState* state = new CrashGuardState();  // never destroyed: handlers outlive main
  return *state;
}

void WriteHex(int fd, const void* pc) {
  char digits[2 + 2 * sizeof(uintptr_t)];
  uintptr_t v = reinterpret_cast<uintptr_t>(pc);
  size_t n = sizeof(digits);
  do {
    digits[--n] = "0123456789abcdef"[v & 0xf];
    v >>= 4;
  } while (v != 0 && n > 2);
  digits[--n] = 'x';
  digits[--n] = '0';
  WriteAll(fd, digits + n, sizeof(digits) - n);
}

// "<SIGNAME> in step '<step>'", then the faulting thread's raw return addresses (written
// before anything can go wrong symbolizing them), then one symbolized "frame" line each
// (Abseil's symbolizer is async-signal-safe; crash_record.h reads the file).
void WriteOwnCrashFile(CrashGuardState& s, int signal_number, const void* ucontext) {
  const int fd = open(s.own_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const char* name = CrashSignalName(signal_number);
  const char* step = s.step != nullptr ? s.step->load(std::memory_order_relaxed) : nullptr;
  if (step == nullptr) step = "unknown";
  WriteAll(fd, name, std::strlen(name));
  WriteAll(fd, " in step '", 10);
  WriteAll(fd, step, strnlen(step, 200));
  WriteAll(fd, "'", 1);
  void* pcs[kMaxStackFrames];
  const int depth = CaptureRawStack(pcs, kMaxStackFrames, ucontext);
  WriteAll(fd, "\npcs", 4);
  for (int i = 0; i < depth; ++i) {
    WriteAll(fd, " ", 1);
    WriteHex(fd, pcs[i]);
  }
  WriteAll(fd, "\n", 1);
  // Frames past the reader's limit would be cut anyway.
  size_t written = 0;
  for (int i = 0; i < depth && written < kMaxCrashFileBytes; ++i) {
    char function[kMaxFrameBytes];
    WriteAll(fd, "frame ", 6);
    if (SymbolizeFrameSignalSafe(pcs[i], function, sizeof(function))) {
      const size_t n = strnlen(function, sizeof(function));
      WriteAll(fd, function, n);
      written += n;
    } else {
      WriteHex(fd, pcs[i]);
    }
    WriteAll(fd, "\n", 1);
    written += 24;
  }
  close(fd);
}

void AppendPendingRecord(CrashGuardState& s, int signal_number) {
  PendingCrashRecord* record = s.pending.exchange(nullptr);
  if (record == nullptr || s.records == nullptr) return;
  if (!s.deputy_file.empty() && access(s.deputy_file.c_str(), F_OK) == 0) return;  // rank 1 recorded it
  for (int r = 0; r < s.nranks; ++r) {
    s.rank_views[r] = CrashRankText{};
    const int fd = open(s.rank_files[r].c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n;
    do {
      n = read(fd, s.rank_texts[r].data(), kRankTextCapacity);
    } while (n < 0 && errno == EINTR);
    close(fd);
    if (n > 0) s.rank_views[r] = CrashRankText{s.rank_texts[r].data(), static_cast<size_t>(n)};
  }
  const size_t length =
      FillCrashRecord(record->line.data(), record->line.size(), s.rank_views.data(), s.nranks,
                      CrashSignalName(signal_number), record->filled.data(), record->filled.size());
  s.records->AppendRawSignalSafe(record->filled.data(), length);
}

void OnSignal(int signal_number, siginfo_t*, void* ucontext) {
  const int saved_errno = errno;
  CrashGuardState& s = State();
  if (!s.handling.exchange(true)) {
    const bool fatal = signal_number != SIGTERM && signal_number != SIGINT;
    if (fatal) WriteOwnCrashFile(s, signal_number, ucontext);
    if (s.rank == 0) AppendPendingRecord(s, signal_number);
  }
  // Default action: the signal is blocked while we run, so the raise lands on return.
  signal(signal_number, SIG_DFL);
  raise(signal_number);
  errno = saved_errno;
}

}  // namespace

absl::Status InstallCrashGuard(const CrashGuardConfig& config) {
  CrashGuardState& s = State();
  if (s.installed) return absl::FailedPreconditionError("the crash guard is already installed");
  s.rank = config.rank;
  s.nranks = config.nranks;
  s.step = config.step;
  s.records = config.records;
  s.deputy_file = config.deputy_file;
  s.own_file = absl::StrCat(config.ranks_dir, "/rank", config.rank, ".crash");
  if (config.rank == 0) {
    for (int r = 0; r < config.nranks; ++r) {
      s.rank_files.push_back(absl::StrCat(config.ranks_dir, "/rank", r, ".crash"));
      s.rank_texts.emplace_back(kRankTextCapacity);
    }
    s.rank_views.resize(config.nranks);
  }
  // Room to run the handler when the fault is a stack overflow.
  // Room for the symbolizer too: it reads symbol tables through buffers on the stack.
  s.alt_stack.resize(std::max<size_t>(SIGSTKSZ, 256 * 1024));
  stack_t stack{};
  stack.ss_sp = s.alt_stack.data();
  stack.ss_size = s.alt_stack.size();
  if (sigaltstack(&stack, nullptr) != 0) {
    return absl::InternalError(absl::StrCat("sigaltstack: ", std::strerror(errno)));
  }
  // Loads the unwinder now: the handler must not be the first to call it.
  if (absl::Status sampler = InstallStackSampler(); !sampler.ok()) return sampler;
  struct sigaction action {};
  action.sa_sigaction = OnSignal;
  sigemptyset(&action.sa_mask);
  for (int sig : kTerminationSignals) sigaddset(&action.sa_mask, sig);
  action.sa_flags = SA_ONSTACK | SA_SIGINFO;
  for (int sig : kFatalSignals) {
    if (sigaction(sig, &action, nullptr) != 0) {
      return absl::InternalError(absl::StrCat("sigaction(", CrashSignalName(sig), "): ",
                                              std::strerror(errno)));
    }
  }
  if (config.rank == 0) {
    for (int sig : kTerminationSignals) {
      if (sigaction(sig, &action, nullptr) != 0) {
        return absl::InternalError(absl::StrCat("sigaction(", CrashSignalName(sig), "): ",
                                                std::strerror(errno)));
      }
    }
  }
  s.installed = true;
  return absl::OkStatus();
}

void SetPendingCrashRecord(std::string crash_record_template) {
  CrashGuardState& s = State();
  PendingCrashRecord& slot = s.slots[s.next_slot];
  // The other slot may be the one published; this one is not (Clear or the last Set moved on).
  if (s.pending.load() == &slot) s.pending.store(nullptr);
  slot.line = std::move(crash_record_template);
  slot.filled.resize(CrashRecordCapacity(slot.line.size(), s.nranks));
  s.pending.store(&slot);
  s.next_slot ^= 1;
}

void ClearPendingCrashRecord() { State().pending.store(nullptr); }

}  // namespace gh
