#include "harness/runtime/op_ring.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "harness/core/param.h"

namespace gh {

std::string FormatOp(const OpEntry& op) { return absl::StrCat(op.step, " #", op.occurrence); }

std::string FormatOpBytes(int64_t bytes) {
  // FormatBytes writes exact multiples of 1024 as "4K": the unit is its last letter.
  const std::string exact = FormatBytes(bytes);
  if (exact.empty() || !std::isalpha(static_cast<unsigned char>(exact.back()))) {
    return absl::StrCat(bytes, " B");
  }
  return absl::StrCat(exact.substr(0, exact.size() - 1), " ", exact.substr(exact.size() - 1), "iB");
}

std::string FormatOpWithCall(const OpEntry& op) {
  if (op.operation.empty()) return FormatOp(op);
  return absl::StrCat(FormatOp(op), " (", op.operation,
                      op.bytes > 0 ? absl::StrCat(" ", FormatOpBytes(op.bytes)) : "", ")");
}

void OpRing::Reset() {
  for (Slot& slot : slots_) {
    slot.guard.store(0, std::memory_order_relaxed);
    slot.sequence.store(0, std::memory_order_release);
  }
  next_.store(1, std::memory_order_release);
  distinct_steps_ = 0;
}

void OpRing::Record(const char* step, const char* operation, int64_t bytes) {
  int index = 0;
  while (index < distinct_steps_ && step_names_[index] != step &&
         std::strcmp(step_names_[index], step) != 0) {
    ++index;
  }
  if (index == distinct_steps_) {
    if (distinct_steps_ < kMaxSteps) {
      ++distinct_steps_;
      step_counts_[index] = 0;
    } else {
      index = kMaxSteps - 1;
    }
    step_names_[index] = step;
  }
  const int64_t occurrence = ++step_counts_[index];
  const int64_t sequence = next_.fetch_add(1, std::memory_order_relaxed);
  Slot& slot = slots_[static_cast<size_t>(sequence % kCapacity)];
  // A reader that sees guard == sequence after reading the fields saw them whole.
  slot.guard.store(0, std::memory_order_release);
  slot.sequence.store(sequence, std::memory_order_relaxed);
  slot.step.store(step, std::memory_order_relaxed);
  slot.occurrence.store(occurrence, std::memory_order_relaxed);
  slot.operation.store(operation, std::memory_order_relaxed);
  slot.bytes.store(bytes, std::memory_order_relaxed);
  slot.guard.store(sequence, std::memory_order_release);
}

std::vector<OpEntry> OpRing::Snapshot() const {
  const int64_t next = next_.load(std::memory_order_acquire);
  std::vector<OpEntry> out;
  for (int64_t sequence = std::max<int64_t>(1, next - kCapacity); sequence < next; ++sequence) {
    const Slot& slot = slots_[static_cast<size_t>(sequence % kCapacity)];
    if (slot.guard.load(std::memory_order_acquire) != sequence) continue;
    OpEntry entry;
    entry.sequence = slot.sequence.load(std::memory_order_relaxed);
    const char* step = slot.step.load(std::memory_order_relaxed);
    entry.occurrence = slot.occurrence.load(std::memory_order_relaxed);
    const char* operation = slot.operation.load(std::memory_order_relaxed);
    entry.bytes = slot.bytes.load(std::memory_order_relaxed);
    if (slot.guard.load(std::memory_order_acquire) != sequence || step == nullptr ||
        entry.sequence != sequence) {
      continue;
    }
    entry.step = step;
    if (operation != nullptr) entry.operation = operation;
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace gh
