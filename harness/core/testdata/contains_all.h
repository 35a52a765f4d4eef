// Test-only: one matcher for "the text holds every one of these parts", so that a test lists
// the parts as data; a failure names each part that is missing.
#ifndef GPUHARNESS_CORE_TESTDATA_CONTAINS_ALL_H_
#define GPUHARNESS_CORE_TESTDATA_CONTAINS_ALL_H_

#include <string>
#include <vector>

#include "gmock/gmock.h"

namespace gh::testing {

inline ::testing::Matcher<const std::string&> ContainsAll(const std::vector<std::string>& parts) {
  std::vector<::testing::Matcher<const std::string&>> each;
  each.reserve(parts.size());
  for (const std::string& part : parts) each.push_back(::testing::HasSubstr(part));
  return ::testing::AllOfArray(each);
}

}  // namespace gh::testing

#endif  // GPUHARNESS_CORE_TESTDATA_CONTAINS_ALL_H_
