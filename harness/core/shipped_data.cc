#include "harness/core/shipped_data.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace gh {
namespace {

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

std::string ShippedDataDir() {
  if (const char* dir = std::getenv("GH_DATA_DIR"); dir != nullptr && dir[0] != '\0') return dir;
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return "";
  const std::filesystem::path binary(std::string(exe, static_cast<size_t>(n)));
  return (binary.parent_path() / "../share/gpuharness").lexically_normal().string();
}

std::string ResolveShippedFile(ShippedKind kind, const std::string& value, const std::string& data_dir) {
  if (value.empty() || value[0] == '/' || IsFile(value)) return value;
  const std::string data = data_dir.empty() ? ShippedDataDir() : data_dir;
  if (data.empty()) return value;
  const std::string shipped = absl::StrCat(data, "/", std::string(EnumToName(kind)), "/", value);
  if (IsFile(shipped)) return shipped;
  if (!absl::EndsWith(value, ".yaml") && IsFile(shipped + ".yaml")) return shipped + ".yaml";
  return value;
}

}  // namespace gh
