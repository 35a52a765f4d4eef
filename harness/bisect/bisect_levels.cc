#include "harness/bisect/bisect_levels.h"

#include <cstdio>
#include <filesystem>
#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "harness/core/child_process.h"
#include "harness/core/file_util.h"
#include "harness/core/status_macros.h"
#include "harness/core/yaml_fields.h"
#include "harness/driver/sweep_plan.h"
#include "harness/driver/version_provider.h"

namespace gh {
namespace {

const std::vector<std::string>& RefineKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = {"name"};
    k.insert(k.end(), driver::VersionProviderKeys().begin(), driver::VersionProviderKeys().end());
    return k;
  }();
  return keys;
}

// Calls `visit` on every scalar under `node`.
void ForEachScalar(const YAML::Node& node, const std::function<void(const YAML::Node&)>& visit) {
  if (node.IsScalar()) {
    visit(node);
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) ForEachScalar(node[i], visit);
  } else if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) ForEachScalar(it->second, visit);
  }
}

// Opens versions.refine and names its one provider.
absl::StatusOr<std::string> RefineProvider(YamlMap& map) {
  std::string provider;
  int count = 0;
  for (const std::string& key : driver::VersionProviderKeys()) {
    if (map.Has(key)) provider = key, ++count;
  }
  if (count != 1) {
    return YamlError(map.Loc(), "versions.refine",
                     absl::StrCat("needs exactly one provider (", absl::StrJoin(driver::VersionProviderKeys(), ", "),
                                  ") whose range names the coarse answer's ends {good} and {bad}"));
  }
  return provider;
}

}  // namespace

absl::StatusOr<RefineSpec> ReadRefineSpec(const driver::Matrix& matrix) {
  if (!matrix.refine.IsDefined() || matrix.refine.IsNull()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--refine: ", matrix.file, " has no versions.refine (the finer version axis between the coarse answer's "
        "ends, e.g. refine: {name: commit, git: {repo: ..., range: \"{good}..{bad}\", build: ...}})"));
  }
  const YamlDoc doc(matrix.file);
  GH_ASSIGN_OR_RETURN(YamlMap map, YamlMap::Of(doc, matrix.refine, "versions.refine", RefineKeys()));
  RefineSpec spec;
  spec.matrix_path = matrix.file;
  spec.matrix_dir = std::string(absl::StripSuffix(AbsolutePath(matrix.dir), "/"));
  spec.node = matrix.refine;
  GH_ASSIGN_OR_RETURN(spec.name, map.String("name", true));
  GH_ASSIGN_OR_RETURN(spec.provider, RefineProvider(map));
  bool good = false, bad = false;
  ForEachScalar(map.Child(spec.provider), [&](const YAML::Node& scalar) {
    const std::string& text = scalar.Scalar();
    good = good || absl::StrContains(text, "{good}");
    bad = bad || absl::StrContains(text, "{bad}");
  });
  if (!good || !bad) {
    return YamlError(map.LocOfKey(spec.provider), map.Path(spec.provider),
                     absl::StrCat("gives no range between the coarse answer's ends: name both {good} and {bad} in it "
                                  "(missing: ", !good && !bad ? "both" : !good ? "{good}" : "{bad}",
                                  "; e.g. range: \"{good}..{bad}\")"));
  }
  GH_RETURN_IF_ERROR(map.Finish());
  return spec;
}

absl::Status CheckRefineSpec(const RefineSpec& spec, const std::string& good, const std::string& bad) {
  // The provider's fields are read before it lists anything: a listing that stops at once checks them.
  absl::StatusOr<driver::MatrixAxis> axis = ReadRefineAxis(
      spec, good, bad, [](const driver::VersionListCommand&) -> absl::StatusOr<std::string> {
        return absl::CancelledError("checked only");
      });
  if (axis.ok() || absl::IsCancelled(axis.status())) return absl::OkStatus();
  return axis.status();
}

absl::StatusOr<driver::MatrixAxis> ReadRefineAxis(const RefineSpec& spec, const std::string& good,
                                                  const std::string& bad,
                                                  const driver::ListCommandRunner& list_runner) {
  const YamlDoc doc(spec.matrix_path);
  GH_ASSIGN_OR_RETURN(YamlMap map, YamlMap::Of(doc, spec.node, "versions.refine", RefineKeys()));
  map.Child("name");
  driver::MatrixAxis axis;
  axis.name = spec.name;
  axis.is_version = true;
  axis.loc = map.Loc();
  // The provider names its keys under the map's own path: versions.refine.<provider>.
  GH_RETURN_IF_ERROR(driver::ReadVersionProvider(map, spec.provider, spec.matrix_dir, list_runner, &axis,
                                                 {{"{good}", good}, {"{bad}", bad}}));
  if (axis.values.size() < 2) {
    std::vector<std::string> labels;
    for (const driver::AxisValue& v : axis.values) labels.push_back(v.label);
    return YamlError(map.LocOfKey(spec.provider), map.Path(spec.provider),
                     absl::StrCat("lists ", axis.values.size(), " version(s) between ", good, " and ", bad, " (",
                                  absl::StrJoin(labels, ", "),
                                  "): a finer level needs both ends and the versions between them"));
  }
  return axis;
}

absl::StatusOr<BisectVersions> PlanRefinedVersions(const ProbePlan& coarse_plan, const LabelSet& cell,
                                                   driver::MatrixAxis axis, const BisectVersions& coarse,
                                                   int first_end, int last_end) {
  driver::Matrix matrix = coarse_plan.sweep.matrix;
  matrix.axes.back() = std::move(axis);
  ProbePlan fine = coarse_plan;
  GH_ASSIGN_OR_RETURN(fine.sweep, driver::PlanSweepOfMatrix(std::move(matrix)));
  GH_ASSIGN_OR_RETURN(BisectVersions versions, PlanBisectVersions(fine, cell));
  // The listing's ends are the coarse ends: their set-ups and trials serve this level as they are.
  versions.configs.front() = coarse.configs[first_end];
  versions.settings.front() = coarse.settings[first_end];
  versions.configs.back() = coarse.configs[last_end];
  versions.settings.back() = coarse.settings[last_end];
  return versions;
}

LevelAnswer MakeLevelAnswer(const std::string& axis, const BisectConfig& config, const BisectResult& result,
                            std::string report) {
  LevelAnswer level;
  level.axis = axis;
  level.find = result.find;
  level.found = result.status == BisectStatus::kFound;
  level.message = result.message;
  level.report = std::move(report);
  if (level.found) {
    level.first_bad = config.versions[result.answer.first_bad];
    level.last_good = config.versions[result.answer.last_good];
  }
  return level;
}

namespace {

std::string LevelText(const LevelAnswer& level, bool finer) {
  std::string text = absl::StrCat(level.axis, finer ? " between them" : "", ": ");
  if (!level.found) return absl::StrCat(text, "no answer (", level.message, ")");
  const std::string subject = level.subject.empty() ? "" : absl::StrCat(" '", level.subject, "'");
  if (level.find == BisectFind::kFix) {
    return absl::StrCat(text, "first good (the fix) ", level.last_good, subject, " (", level.first_bad, " bad)");
  }
  return absl::StrCat(text, "first bad ", level.first_bad, subject, " (", level.last_good, " good)");
}

}  // namespace

std::string LevelsLine(const std::vector<LevelAnswer>& levels) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < levels.size(); ++i) parts.push_back(LevelText(levels[i], i > 0));
  return absl::StrJoin(parts, "; ");
}

std::string LevelsMarkdown(const std::vector<LevelAnswer>& levels) {
  std::string md = absl::StrCat("## Levels\n\n", LevelsLine(levels), "\n\n");
  for (size_t i = 0; i < levels.size(); ++i) {
    absl::StrAppend(&md, "- level ", i + 1, " (", levels[i].axis, "): ", LevelText(levels[i], i > 0), "; see ",
                    levels[i].report, "\n");
  }
  return md + "\n";
}

nlohmann::json LevelsJson(const std::vector<LevelAnswer>& levels) {
  nlohmann::json out = nlohmann::json::array();
  for (const LevelAnswer& level : levels) {
    nlohmann::json j = {{"axis", level.axis}, {"found", level.found}, {"report", level.report}};
    if (level.found) {
      j["first_bad"] = level.first_bad;
      j["last_good"] = level.last_good;
      if (!level.subject.empty()) j["subject"] = level.subject;
    } else {
      j["message"] = level.message;
    }
    out.push_back(std::move(j));
  }
  return out;
}

std::string CommitSubject(const std::string& src) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::path(src) / ".git", ec)) return "";
  return CommandFirstLine({"git", "-C", src, "log", "-1", "--format=%s"});
}

}  // namespace gh
