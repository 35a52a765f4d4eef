// Shell-style wildcards, the one matcher behind every glob a user writes: `when: {gpu: ...}`
// in expectations and the point-name filter of --filter.
#ifndef GPUHARNESS_CORE_GLOB_H_
#define GPUHARNESS_CORE_GLOB_H_

#include <string_view>

namespace gh {

// '*' matches any run of characters ('/' included), '?' any one; everything else itself.
bool GlobMatches(std::string_view pattern, std::string_view text);

}  // namespace gh

#endif  // GPUHARNESS_CORE_GLOB_H_
