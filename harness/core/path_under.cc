#include "harness/core/path_under.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/stable_hash.h"

namespace gh {

namespace {

namespace fs = std::filesystem;

absl::Status BadPart(const std::string& part, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("path part '", part, "' ", why));
}

// Names stay what earlier versions wrote.
std::string Hash8(absl::string_view text) { return StableHash(text).substr(0, 8); }

}  // namespace

absl::StatusOr<std::string> PathUnder(const std::string& dir, const std::vector<std::string>& parts) {
  if (dir.empty()) return absl::InvalidArgumentError("PathUnder: empty directory");
  fs::path base = fs::path(dir).lexically_normal();
  fs::path joined = base;
  for (const std::string& part : parts) {
    if (part.empty()) return BadPart(part, "is empty");
    if (part.find('\0') != std::string::npos) return BadPart(part, "holds a NUL byte");
    fs::path p(part);
    if (p.is_absolute() || part[0] == '/') return BadPart(part, "is absolute");
    for (const fs::path& component : p) {
      if (component == "..") return BadPart(part, "holds a '..' component");
    }
    joined /= p;
  }
  joined = joined.lexically_normal();
  // Whatever got past the checks above: the normal form must still start with `dir`'s.
  fs::path rel = joined.lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..") {
    return absl::InvalidArgumentError(absl::StrCat("path '", joined.string(), "' leaves ", dir));
  }
  std::string out = joined.string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string SafeDirName(absl::string_view text) {
  // A name kept whole is at most kMaxBytes; a changed one is cut to leave room for its hash, so
  // every result is at most kMaxBytes and SafeDirName(SafeDirName(x)) == SafeDirName(x).
  constexpr size_t kMaxBytes = 150;
  constexpr size_t kHashSuffix = 9;  // "-" and 8 hex digits
  std::string out(text);
  bool replaced = out.empty() || out.size() > kMaxBytes;
  for (size_t i = 0; i < out.size(); ++i) {
    char& c = out[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '=' || c == ',' || c == '+' || c == '-' || (c == '.' && i > 0);
    if (!ok) {
      c = '_';
      replaced = true;
    }
  }
  if (!replaced) return out;
  if (out.empty()) out = "_";
  out.resize(std::min(out.size(), kMaxBytes - kHashSuffix));
  return absl::StrCat(out, "-", Hash8(text));
}

}  // namespace gh
