// Inlined frames and source lines for return addresses in the harness binary, from its debug
// information (binutils' addr2line, run once per stack outside any signal handler, within a
// time bound). An optimized build inlines most of a scenario's helpers into their callers: the
// symbol table alone names `RingShift::Run` where the rank sleeps in `Stall`.
#ifndef GPUHARNESS_RUNTIME_STACK_INLINES_H_
#define GPUHARNESS_RUNTIME_STACK_INLINES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gh {

struct SourceFrame {
  std::string function;  // as the debug information names it ("Stall" for an inlined one)
  std::string location;  // "ring_shift.cc:191" (file name only); "" when unknown
};

// For each address (offsets into `binary`), its chain innermost first: the inlined functions,
// then the function they were inlined into. An address the debug information does not cover
// gets an empty chain; all empty when addr2line is missing, fails or outlives `bound`, and
// then `why` (when given) says which ("addr2line gave no answer within 2s").
std::vector<std::vector<SourceFrame>> ResolveInlineFrames(const std::string& binary,
                                                          const std::vector<uintptr_t>& offsets,
                                                          absl::Duration bound,
                                                          std::string* why = nullptr);

// Parses addr2line -a -f -i output (an address line "0x...", then function / file:line pairs)
// into one chain per address, in order.
std::vector<std::vector<SourceFrame>> ParseAddr2lineOutput(absl::string_view text, size_t addresses);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_STACK_INLINES_H_
