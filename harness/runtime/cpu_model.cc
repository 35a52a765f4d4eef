#include "harness/runtime/cpu_model.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "harness/core/file_util.h"

namespace gh {

std::string ParseCpuModel(const std::string& cpuinfo) {
  for (absl::string_view line : absl::StrSplit(cpuinfo, '\n')) {
    if (!absl::StartsWith(line, "model name")) continue;
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  }
  return "";
}

std::string HostCpuModel() {
  absl::StatusOr<std::string> cpuinfo = ReadFileToString("/proc/cpuinfo");
  return cpuinfo.ok() ? ParseCpuModel(*cpuinfo) : "";
}

}  // namespace gh
