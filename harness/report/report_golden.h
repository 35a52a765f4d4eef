// Test-only: golden files under harness/report/testdata/. Set GH_UPDATE_GOLDEN=1 to rewrite them
// from the current output (then review the diff before committing).
#ifndef GPUHARNESS_REPORT_REPORT_GOLDEN_H_
#define GPUHARNESS_REPORT_REPORT_GOLDEN_H_

#include <cstdlib>
#include <string>

#include "harness/core/file_util.h"

namespace gh::testing {

inline std::string TestdataPath(const std::string& name) {
  std::string here = __FILE__;
  return here.substr(0, here.rfind('/')) + "/testdata/" + name;
}

// The golden file's text; with GH_UPDATE_GOLDEN set, first replaces it with `actual`.
inline std::string Golden(const std::string& name, const std::string& actual) {
  const std::string path = TestdataPath(name);
  if (std::getenv("GH_UPDATE_GOLDEN") != nullptr) (void)WriteFileAtomically(path, actual);
  absl::StatusOr<std::string> text = ReadFileToString(path);
  return text.ok() ? *text : std::string("(missing golden file ") + path + ")";
}

}  // namespace gh::testing

#endif  // GPUHARNESS_REPORT_REPORT_GOLDEN_H_
