// "did you mean X?" for a mistyped command, flag or YAML key: one rule everywhere.
#ifndef GPUHARNESS_CORE_DID_YOU_MEAN_H_
#define GPUHARNESS_CORE_DID_YOU_MEAN_H_

#include <string>
#include <string_view>
#include <vector>

namespace gh {

// The choice closest to `word` by edit distance (insert, delete, substitute, swap of two
// neighbours), when it is close enough to be a typo: at most 1 edit for words of up to 4
// characters, 2 up to 8, 3 beyond. "" when none is, or when `word` is itself a choice.
std::string ClosestChoice(std::string_view word, const std::vector<std::string>& choices);

// "; did you mean X?" when ClosestChoice finds X, else "". Appended to "unknown ..." messages.
std::string DidYouMeanSuffix(std::string_view word, const std::vector<std::string>& choices);

}  // namespace gh

#endif  // GPUHARNESS_CORE_DID_YOU_MEAN_H_
