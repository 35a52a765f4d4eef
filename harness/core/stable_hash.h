// The one stable hash of the harness (64-bit FNV-1a): the same on every machine and build, so
// what it names on disk (a resumed cell's hash, a cached trial's settings, a directory name)
// stays what earlier runs wrote. std::hash is not stable.
#ifndef GPUHARNESS_CORE_STABLE_HASH_H_
#define GPUHARNESS_CORE_STABLE_HASH_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace gh {

inline constexpr uint64_t kFnvOffsetBasis = 14695981039346656037ull;

// FNV-1a 64 of `text`, from `basis` (callers with files of their own keep theirs).
uint64_t Fnv1a64(absl::string_view text, uint64_t basis = kFnvOffsetBasis);

// Its 16 hex digits.
std::string StableHash(absl::string_view text);

}  // namespace gh

#endif  // GPUHARNESS_CORE_STABLE_HASH_H_
