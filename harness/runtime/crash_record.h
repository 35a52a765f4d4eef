// The record written when a job dies during a point × trial. Rank 0 renders it before the
// point starts, with slots where the details go, and its signal handler fills the slots from
// the ranks' crash files (DIR/.ranks/rank<r>.crash: "<SIGNAME> in step '<step>'", then the
// crashing thread's raw return addresses, "pcs 0x.. 0x..", then one "frame <function>" line
// per symbolized frame, innermost first) and writes it in one write(2). Filling is async-signal-safe: no allocation, no locks, no stdio.
#ifndef GPUHARNESS_RUNTIME_CRASH_RECORD_H_
#define GPUHARNESS_RUNTIME_CRASH_RECORD_H_

#include <cstddef>
#include <string>

#include "harness/core/record.h"

namespace gh {

// Renders `record` as one records.jsonl line (ending in '\n') with outcome crash, the point's
// signature a slot, and per rank (rank 0..nranks-1, host and device as given in
// record.result.ranks when present) a signature slot, a step slot and stack slots.
std::string RenderCrashRecordTemplate(Record record);

// What rank 0's handler found for one rank.
// A crash file longer than this is cut when read (the handler reads at most this much).
inline constexpr size_t kMaxCrashFileBytes = 4096;

struct CrashRankText {
  const char* text = nullptr;  // the rank's crash file ("SIGSEGV in step 'exchange'\n..."), or null
  size_t length = 0;
};

// Bytes FillCrashRecord may need for a template of `template_length` bytes and `nranks` ranks.
size_t CrashRecordCapacity(size_t template_length, int nranks);

// Fills the template's slots into `out` (capacity from CrashRecordCapacity) and returns the
// length written. The point's signature names each rank that left a crash file ("SIGSEGV on
// rank 1 in step 'exchange'", several joined by "; "), or "killed by <root_signal>" when none
// did. Ranks without a file get "no crash report (<root_signal> ended the job)". Each rank's
// `stack` holds the file's frames and `stack_note` says where they came from, or why none.
// Async-signal-safe.
size_t FillCrashRecord(const char* tmpl, size_t tmpl_length, const CrashRankText* ranks,
                       int nranks, const char* root_signal, char* out, size_t capacity);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_CRASH_RECORD_H_
