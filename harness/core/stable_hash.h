// A short hash of text that is the same on every machine and build (FNV-1a, 64 bits, as 16 hex
// digits): for telling whether a file read back is the one recorded earlier. Not cryptographic.
#ifndef GPUHARNESS_CORE_STABLE_HASH_H_
#define GPUHARNESS_CORE_STABLE_HASH_H_

#include <string>
#include <string_view>

namespace gh {

std::string StableHash(std::string_view text);

}  // namespace gh

#endif  // GPUHARNESS_CORE_STABLE_HASH_H_
