// `gpuharness list [--json]`: every registered kind with its backends, rank requirement and
// parameters, as text or as JSON.
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "harness/cli/command_line.h"
#include "harness/cli/commands.h"
#include "harness/cli/kind_listing.h"
#include "harness/core/did_you_mean.h"
#include "harness/core/param.h"
#include "harness/core/registry.h"

namespace gh {
namespace {

constexpr char kListAbout[] =
    "  Prints every scenario kind (or the named ones): what it does, the backends built into this\n"
    "  binary that run it, the rank counts it accepts, and each parameter with its type, default,\n"
    "  allowed values and meaning.\n";

std::string FormatBound(ParamType type, double bound) {
  if (type == ParamType::kBytes) return FormatBytes(static_cast<int64_t>(bound));
  if (type == ParamType::kInt) return absl::StrCat(static_cast<int64_t>(bound));
  return absl::StrFormat("%g", bound);
}

std::string DescribeParam(const ParamDef& param) {
  std::string line = absl::StrFormat("    %-12s %-6s default %s", param.name,
                                     std::string(ParamTypeName(param.type)),
                                     FormatParamValue(param.type, param.default_value));
  if (!param.choices.empty()) {
    absl::StrAppend(&line, "; one of ", absl::StrJoin(param.choices, ", "));
  }
  if (param.min && param.max) {
    absl::StrAppend(&line, "; ", FormatBound(param.type, *param.min), "..",
                    FormatBound(param.type, *param.max));
  } else if (param.min) {
    absl::StrAppend(&line, "; >= ", FormatBound(param.type, *param.min));
  } else if (param.max) {
    absl::StrAppend(&line, "; <= ", FormatBound(param.type, *param.max));
  }
  absl::StrAppend(&line, "\n");
  if (!param.help.empty()) absl::StrAppend(&line, "        ", param.help, "\n");
  return line;
}

std::string DescribeKind(const KindInfo& kind) {
  std::vector<std::string> backends;
  for (Backend backend : kind.backends) backends.emplace_back(BackendName(backend));
  std::string text = absl::StrCat(kind.name, "\n  ", kind.description, "\n");
  absl::StrAppend(&text, "  backends: ", backends.empty() ? "none in this build" : absl::StrJoin(backends, ", "),
                  "\n  ranks: ", kind.ranks.ToString(), "\n  params:\n");
  for (const ParamDef& param : kind.params) absl::StrAppend(&text, DescribeParam(param));
  return text;
}

}  // namespace

int ListCommand(int argc, char** argv) {
  std::vector<std::string> names;
  bool json = false;
  CommandLine flags("list", "[KIND...] [--json]", kListAbout);
  flags.Positionals("KIND", &names)
      .Bool("--json", &json, "print the listing as JSON (harness/cli/kind_listing.h describes it)");
  if (std::optional<int> exit_status = flags.Parse(argc, argv)) return *exit_status;
  std::vector<std::string> known;
  for (const KindInfo* kind : ScenarioRegistry::Global().All()) known.push_back(kind->name);
  for (const std::string& name : names) {
    if (ScenarioRegistry::Global().Find(name) == nullptr) {
      std::fprintf(stderr, "gpuharness list: unknown kind '%s' (known: %s)%s\n", name.c_str(),
                   absl::StrJoin(known, ", ").c_str(), DidYouMeanSuffix(name, known).c_str());
      return kExitBadInput;
    }
  }
  const std::set<std::string> wanted(names.begin(), names.end());
  std::vector<const KindInfo*> kinds;
  for (const KindInfo* kind : ScenarioRegistry::Global().All()) {
    if (wanted.empty() || wanted.count(kind->name) != 0) kinds.push_back(kind);
  }
  if (json) {
    std::printf("%s\n", KindListingJson(kinds).dump(2).c_str());
  } else {
    for (size_t i = 0; i < kinds.size(); ++i) std::printf("%s%s", i == 0 ? "" : "\n", DescribeKind(*kinds[i]).c_str());
  }
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace gh
