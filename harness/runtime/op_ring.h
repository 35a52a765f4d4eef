// The last harness operations a rank issued in the running point × trial, Flight-Recorder
// style: each step it entered (scenario steps such as "exchange", and the runtime's), with the
// step's occurrence in the point ("exchange #17"), a sequence number over the point and, where
// the scenario names it, the communication the step issues and its size ("send/recv", 4096).
// At a timeout the ranks' rings are compared to find where they parted (hang_report.h).
//
// Thread-safety: Record is called by the rank's main thread only (no locks, no allocation:
// it must stay cheap on every step); Snapshot may be called by any thread at any time and
// skips an entry the writer is overwriting.
#ifndef GPUHARNESS_RUNTIME_OP_RING_H_
#define GPUHARNESS_RUNTIME_OP_RING_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace gh {

struct OpEntry {
  int64_t sequence = 0;        // 1-based over the point × trial
  std::string step;            // "exchange"
  int64_t occurrence = 0;      // 1-based: the how-many-th time the point entered this step
  std::string operation = {};  // "send/recv", "all_gather"; "" when the step named none
  int64_t bytes = 0;           // the operation's size on this rank; 0: not given
  friend bool operator==(const OpEntry&, const OpEntry&) = default;
};

// "exchange #17".
std::string FormatOp(const OpEntry& op);
// "exchange #17 (send/recv 4 KiB)"; "exchange #17" when the step named no operation.
std::string FormatOpWithCall(const OpEntry& op);
// "4 KiB", "1 MiB", "1000 B": sizes as a person reads them.
std::string FormatOpBytes(int64_t bytes);

class OpRing {
 public:
  static constexpr int kCapacity = 32;
  // Distinct step names whose occurrences are counted (more are counted as the last one's).
  static constexpr int kMaxSteps = 16;

  // Forgets everything: a new point × trial starts.
  void Reset();
  // `step` and `operation` (nullptr: none) must have static storage duration (string
  // literals, or an enum's name table).
  void Record(const char* step, const char* operation = nullptr, int64_t bytes = 0);
  // The entries still held, oldest first.
  std::vector<OpEntry> Snapshot() const;

 private:
  struct Slot {
    std::atomic<int64_t> sequence{0};  // 0: empty
    std::atomic<const char*> step{nullptr};
    std::atomic<int64_t> occurrence{0};
    std::atomic<const char*> operation{nullptr};
    std::atomic<int64_t> bytes{0};
    std::atomic<int64_t> guard{0};  // sequence once the slot is whole
  };
  std::array<Slot, kCapacity> slots_;
  std::atomic<int64_t> next_{1};
  // Occurrence counters, by step pointer (string literals: one pointer per name in practice,
  // compared by content when they differ).
  std::array<const char*, kMaxSteps> step_names_{};
  std::array<int64_t, kMaxSteps> step_counts_{};
  int distinct_steps_ = 0;
};

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_OP_RING_H_
