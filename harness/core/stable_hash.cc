#include "harness/core/stable_hash.h"

#include "absl/strings/str_format.h"

namespace gh {

uint64_t Fnv1a64(absl::string_view text, uint64_t basis) {
  uint64_t h = basis;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string StableHash(absl::string_view text) { return absl::StrFormat("%016x", Fnv1a64(text)); }

}  // namespace gh
