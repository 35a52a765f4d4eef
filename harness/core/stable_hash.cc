#include "harness/core/stable_hash.h"

#include <cstdint>

#include "absl/strings/str_format.h"

namespace gh {

std::string StableHash(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return absl::StrFormat("%016x", h);
}

}  // namespace gh
