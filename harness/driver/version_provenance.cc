#include "harness/driver/version_provenance.h"

#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "harness/core/file_util.h"
#include "nlohmann/json.hpp"

namespace gh::driver {

namespace fs = std::filesystem;

std::string VersionProvenance::CheckedText() const {
  std::vector<std::string> parts;
  for (const auto& [name, version] : asked) {
    auto it = installed.find(name);
    parts.push_back(it == installed.end() ? absl::StrCat(name, " not installed") : absl::StrCat(name, " ", it->second));
  }
  return absl::StrJoin(parts, ", ");
}

std::string NormalizePackageName(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool sep = c == '-' || c == '_' || c == '.';
    if (sep) {
      if (!out.empty() && out.back() != '-') out.push_back('-');
    } else {
      out.push_back(absl::ascii_tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

std::string ProvenancePins(const std::vector<std::string>& requirements) {
  std::string out;
  for (const std::string& r : requirements) {
    const size_t at = r.find("==");
    if (at == std::string::npos || at == 0) continue;
    std::string name = r.substr(0, at);
    if (const size_t extras = name.find('['); extras != std::string::npos) name.resize(extras);  // jax[cpu]
    if (name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
        std::string::npos) {
      continue;  // "bar>=1,==2": not one release
    }
    const std::string version(absl::StripAsciiWhitespace(r.substr(at + 2)));
    if (version.empty() || version.find_first_of(",;* ") != std::string::npos) continue;  // not one release
    absl::StrAppend(&out, NormalizePackageName(name), "==", version, "\n");
  }
  return out;
}

namespace {

// A shell line writing `name==<value>` to the version directory's `file`; `value` is shell text
// inside double quotes (a command substitution).
std::string PinLine(const std::string& name, const std::string& value, const std::string& file) {
  return absl::StrCat("echo \"", name, "==", value, "\" > \"$GH_VERSION_DIR/", file, "\"\n");
}

}  // namespace

std::string GitProvenanceResolveLine(const std::string& quoted_mirror, const std::string& quoted_revision) {
  return PinLine("commit", absl::StrCat("$(git -C ", quoted_mirror, " rev-parse --verify ", quoted_revision, "^{commit})"),
                 "provenance.expected");
}

std::string GitProvenanceObserveLine() {
  return PinLine("commit", "$(git -C \"$GH_VERSION_DIR/src\" rev-parse HEAD)", "provenance.observed");
}

std::string ImageProvenanceObserveLine(const std::string& quoted_path) {
  return PinLine("image", absl::StrCat("sha256:$(sha256sum < ", quoted_path, " | cut -d' ' -f1)"),
                 "provenance.observed");
}

std::string PulledImageProvenanceObserveLine(const std::string& runtime, const std::string& quoted_ref) {
  return PinLine("image", absl::StrCat("$(", runtime, " image inspect --format '{{.Id}}' ", quoted_ref, ")"),
                 "provenance.observed");
}

namespace {

// `name==value` lines; `normalize` folds package names as pip compares them.
std::vector<std::pair<std::string, std::string>> ParsePins(const std::string& text, bool normalize) {
  std::vector<std::pair<std::string, std::string>> pins;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipWhitespace())) {
    std::vector<std::string> pin = absl::StrSplit(absl::StripAsciiWhitespace(line), absl::MaxSplits("==", 1));
    if (pin.size() == 2) pins.emplace_back(normalize ? NormalizePackageName(pin[0]) : pin[0], pin[1]);
  }
  return pins;
}

}  // namespace

VersionProvenance CheckVersionProvenance(const std::string& version_dir) {
  VersionProvenance p;
  const std::vector<std::pair<std::string, std::string>> observed =
      ParsePins(ReadFileToString(version_dir + "/provenance.observed").value_or(""), /*normalize=*/false);
  const absl::StatusOr<std::string> expected = ReadFileToString(version_dir + "/provenance.expected");
  p.checked = expected.ok();
  if (!p.checked && observed.empty()) return p;
  p.asked = ParsePins(expected.value_or(""), /*normalize=*/true);
  std::error_code ec;
  for (const fs::directory_entry& lib : fs::directory_iterator(version_dir + "/venv/lib", ec)) {
    std::error_code ec2;
    for (const fs::directory_entry& e : fs::directory_iterator(lib.path() / "site-packages", ec2)) {
      std::string name = e.path().filename().string();
      constexpr std::string_view kSuffix = ".dist-info";
      if (name.size() <= kSuffix.size() || name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
        continue;
      }
      name.resize(name.size() - kSuffix.size());
      const size_t dash = name.find('-');  // "jax_lib-0.7.0": the name's '-' are '_' in the directory
      if (dash == std::string::npos) continue;
      p.installed[NormalizePackageName(name.substr(0, dash))] = name.substr(dash + 1);
    }
  }
  for (const auto& [name, value] : observed) p.installed[name] = value;
  std::vector<std::string> wrong;
  for (const auto& [name, version] : p.asked) {
    auto it = p.installed.find(name);
    const bool built = name == "commit";  // a git set-up builds its checkout
    if (it == p.installed.end()) {
      wrong.push_back(absl::StrCat("asked ", name, " ", version, ", ", name,
                                   built ? " was never observed" : " is not installed"));
    } else if (it->second != version) {
      wrong.push_back(absl::StrCat("asked ", name, " ", version, ", the set-up ", built ? "built" : "installed", " ",
                                   name, " ", it->second));
    }
  }
  p.mismatch = absl::StrJoin(wrong, "; ");
  nlohmann::json asked = nlohmann::json::object(), installed = nlohmann::json::object();
  for (const auto& [name, version] : p.asked) {
    asked[name] = version;
    auto it = p.installed.find(name);
    installed[name] = it == p.installed.end() ? nlohmann::json() : nlohmann::json(it->second);
  }
  nlohmann::json seen = nlohmann::json::object();
  for (const auto& [name, value] : observed) seen[name] = value;
  (void)WriteFileAtomically(version_dir + "/provenance.json",
                            nlohmann::json{{"asked", asked}, {"installed", installed}, {"observed", seen},
                                           {"ok", p.mismatch.empty()}, {"mismatch", p.mismatch}}
                                    .dump(2) + "\n");
  return p;
}

}  // namespace gh::driver
