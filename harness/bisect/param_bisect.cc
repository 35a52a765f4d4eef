#include "harness/bisect/param_bisect.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "harness/bisect/bisect_state.h"
#include "harness/core/did_you_mean.h"
#include "harness/core/file_util.h"
#include "harness/core/param.h"
#include "harness/core/path_under.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/status_macros.h"
#include "harness/core/yaml_fields.h"
#include "harness/driver/sweep_plan.h"

namespace gh {
namespace {

constexpr int64_t kMaxValues = 100000;

// The parameter `name` of the first scenario that has it; the error lists every parameter.
absl::StatusOr<const Axis*> FindParam(const std::vector<ScenarioSpec>& specs, const std::string& name,
                                      const std::string& file) {
  std::vector<std::string> names;
  for (const ScenarioSpec& spec : specs) {
    for (const Axis& axis : spec.axes) {
      if (axis.name == name) return &axis;
      if (std::find(names.begin(), names.end(), axis.name) == names.end()) names.push_back(axis.name);
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("--param: '", name, "' is not a parameter of ", file,
                                                 " (its parameters: ", absl::StrJoin(names, ", "), ")",
                                                 DidYouMeanSuffix(name, names)));
}

absl::StatusOr<int64_t> ParseInteger(ParamType type, const std::string& text, const std::string& flag) {
  int64_t value = 0;
  if (type == ParamType::kBytes) {
    absl::StatusOr<int64_t> bytes = ParseBytes(text);
    if (bytes.ok()) return *bytes;
  } else if (absl::SimpleAtoi(text, &value)) {
    return value;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(flag, ": '", text, "' is not an integer (--numeric bisects the integers between --good and --bad)"));
}

// --numeric: every integer from the lower end to the higher in steps, both ends included.
absl::StatusOr<std::vector<std::string>> NumericValues(const Axis& axis, const ParamSearch& search) {
  if (axis.type != ParamType::kInt && axis.type != ParamType::kBytes) {
    return absl::InvalidArgumentError(absl::StrCat("--numeric: '", search.name, "' is a ", std::string(ParamTypeName(axis.type)),
                                                   " parameter; numeric bisection needs an integer one"));
  }
  if (search.step < 1) return absl::InvalidArgumentError(absl::StrCat("--step: must be at least 1, got ", search.step));
  GH_ASSIGN_OR_RETURN(int64_t good, ParseInteger(axis.type, search.good, "--good"));
  GH_ASSIGN_OR_RETURN(int64_t bad, ParseInteger(axis.type, search.bad, "--bad"));
  if (good == bad) {
    return absl::InvalidArgumentError(absl::StrCat("--bad: ", search.bad, " is --good's value; a boundary lies between two values"));
  }
  const int64_t low = std::min(good, bad), high = std::max(good, bad);
  // Unsigned: the span between any two int64 values fits, where high - low could overflow.
  const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  const uint64_t steps = span / static_cast<uint64_t>(search.step);  // values: steps + 1, or + 2 with high
  if (steps >= static_cast<uint64_t>(kMaxValues) - 1) {
    const std::string count = steps < UINT64_MAX ? absl::StrCat(steps + 1) : absl::StrCat("more than ", steps);
    return absl::InvalidArgumentError(absl::StrCat("--step: ", count, " values from ", low, " to ", high,
                                                   " (at most ", kMaxValues, "); take a larger --step"));
  }
  std::vector<std::string> values;
  for (uint64_t i = 0; i * static_cast<uint64_t>(search.step) < span; ++i) {
    const int64_t v = static_cast<int64_t>(static_cast<uint64_t>(low) + i * static_cast<uint64_t>(search.step));
    values.push_back(FormatParamValue(axis.type, ParamValue(v)));
  }
  values.push_back(FormatParamValue(axis.type, ParamValue(high)));
  return values;
}

absl::StatusOr<int> IndexOf(const std::vector<std::string>& values, const std::string& value, const std::string& flag,
                            const std::string& param, const std::string& file) {
  auto it = std::find(values.begin(), values.end(), value);
  if (it != values.end()) return static_cast<int>(it - values.begin());
  return absl::InvalidArgumentError(absl::StrCat(flag, ": '", value, "' is not a listed value of ", param, " in ", file,
                                                 " (values: ", absl::StrJoin(values, ", "),
                                                 "); --numeric bisects the integers between two values"));
}

absl::StatusOr<const driver::PlannedCell*> OneCell(const ProbePlan& plan, const LabelSet& cell) {
  GH_ASSIGN_OR_RETURN(std::vector<const driver::PlannedCell*> cells, SelectCells(plan.sweep, cell, "--cell"));
  if (cells.size() == 1) return cells[0];
  std::vector<std::string> ids;
  for (const driver::PlannedCell* c : cells) ids.push_back(c->plan.id);
  return absl::InvalidArgumentError(absl::StrCat(
      "--cell: a boundary search runs in one cell; ", cells.size(), " cells match '", FormatLabelSet(cell), "'",
      ids.empty() ? "" : absl::StrCat(" (", absl::StrJoin(ids, "; "), ")"),
      ": fix the matrix's axes (its version included) with --cell axis=label,..."));
}

}  // namespace

absl::StatusOr<std::string> ScenarioWithParam(const std::string& text, const std::string& file,
                                              const std::string& param, const std::string& value) {
  GH_ASSIGN_OR_RETURN(std::vector<YAML::Node> docs, ParseYamlDocuments(text, file));
  bool listed = false;
  for (const YAML::Node& doc : docs) {
    const YAML::Node& d = doc;
    listed = listed || (d.IsMap() && d["params"].IsMap() && d["params"][param].IsDefined());
  }
  YAML::Emitter out;
  for (YAML::Node& doc : docs) {
    if (doc.IsMap()) {
      const YAML::Node& d = doc;
      const bool has = d["params"].IsMap() && d["params"][param].IsDefined();
      if (has || !listed) {
        if (!d["params"].IsMap()) doc["params"] = YAML::Node(YAML::NodeType::Map);
        doc["params"][param] = value;
      }
    }
    out << YAML::BeginDoc << doc << YAML::EndDoc;
  }
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(file, ec).parent_path();
  return absl::StrReplaceAll(out.c_str(), {{"{dir}", dir.lexically_normal().string()}});
}

absl::StatusOr<ParamVersions> PlanParamVersions(const ProbePlan& plan, const LabelSet& cell,
                                                const ParamSearch& search) {
  if (plan.job.files.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("--scenario: a boundary search runs one scenario file; the matrix runs ",
                                                   plan.job.files.size(), ": name one with --scenario"));
  }
  const driver::JobScenarioFile& file = plan.job.files[0];
  GH_ASSIGN_OR_RETURN(const Axis* axis, FindParam(*file.specs, search.name, file.path));
  ParamVersions out;
  out.param = search.name;
  out.numeric = search.numeric;
  out.scenario_path = file.path;
  GH_ASSIGN_OR_RETURN(out.scenario_text, ReadFileToString(file.path));
  std::vector<std::string> values;
  if (search.numeric) {
    GH_ASSIGN_OR_RETURN(values, NumericValues(*axis, search));
  } else {
    for (const ParamValue& v : axis->values) values.push_back(FormatParamValue(axis->type, v));
    if (search.good == search.bad) {
      return absl::InvalidArgumentError(absl::StrCat("--bad: ", search.bad, " is --good's value; a boundary lies between two values"));
    }
  }
  // A numeric value is compared as the scenario writes it (4096 bytes is 4K).
  auto label_of = [&](const std::string& text) {
    absl::StatusOr<int64_t> n = ParseInteger(axis->type, text, "");
    return search.numeric && n.ok() ? FormatParamValue(axis->type, ParamValue(*n)) : text;
  };
  GH_ASSIGN_OR_RETURN(out.good, IndexOf(values, label_of(search.good), "--good", search.name, file.path));
  GH_ASSIGN_OR_RETURN(out.bad, IndexOf(values, label_of(search.bad), "--bad", search.name, file.path));
  // Both ends' copies must load (a value the kind refuses is bad input, found now).
  for (int end : {out.good, out.bad}) {
    GH_ASSIGN_OR_RETURN(std::string text, ScenarioWithParam(out.scenario_text, file.path, search.name, values[end]));
    absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioText(text, file.path);
    if (!specs.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(end == out.good ? "--good" : "--bad", ": ", search.name, "=",
                                                     values[end], ": ", specs.status().message()));
    }
  }
  GH_ASSIGN_OR_RETURN(const driver::PlannedCell* chosen, OneCell(plan, cell));
  GH_ASSIGN_OR_RETURN(ProbeConfig config, MakeProbeConfig(plan, *chosen, ""));
  config.cell.jobs.clear();  // planned over each value's copy when it is first probed
  out.versions.axis = search.name;
  for (const std::string& value : values) {
    ProbeConfig c = config;
    c.label = value;
    c.dir_name = SafeDirName(absl::StrCat(search.name, "=", value));
    out.versions.configs.push_back(std::move(c));
    out.versions.settings.push_back(SettingsHash(
        {{"cell", chosen->hash}, {"job", plan.job_hash}, {"param", search.name}, {"value", value}}));
  }
  return out;
}

absl::Status MaterializeParamValue(const ParamVersions& values, const ProbePlan& plan, ProbeConfig& config,
                                   const std::string& out_dir) {
  if (!config.cell.jobs.empty()) return absl::OkStatus();
  GH_ASSIGN_OR_RETURN(std::string text,
                      ScenarioWithParam(values.scenario_text, values.scenario_path, values.param, config.label));
  const std::string path = absl::StrCat(out_dir, "/params/", config.dir_name, ".yaml");
  GH_RETURN_IF_ERROR(MakeDirectories(out_dir + "/params"));
  GH_RETURN_IF_ERROR(WriteFileAtomically(path, text));
  GH_ASSIGN_OR_RETURN(std::vector<ScenarioSpec> specs, LoadScenarioFile(path));
  driver::PlannedJob job = plan.job;
  job.files[0].path = path;
  job.files[0].specs = std::make_shared<const std::vector<ScenarioSpec>>(std::move(specs));
  GH_ASSIGN_OR_RETURN(config.cell.jobs, driver::PlanCellJobs({job}, config.cell.plan));
  config.job = std::move(job);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TrialResult>> PreparingTrialRunner::RunTrials(const std::vector<Request>& batch) {
  for (const Request& r : batch) GH_RETURN_IF_ERROR(prepare_(r.version));
  return inner_.RunTrials(batch);
}

absl::Status PreparingTrialRunner::Start(const Request& request) {
  GH_RETURN_IF_ERROR(prepare_(request.version));
  return inner_.Start(request);
}

absl::StatusOr<TrialRunner::Finished> PreparingTrialRunner::Wait() { return inner_.Wait(); }

std::string BoundaryText(const std::string& param, const BisectConfig& config, const BisectResult& result) {
  if (result.status != BisectStatus::kFound) return "";
  const std::string& bad = config.versions[result.answer.first_bad];
  const std::string& good = config.versions[result.answer.last_good];
  std::string text =
      result.find == BisectFind::kFix
          ? absl::StrCat(param, " in (", bad, ", ", good, "]: ", bad, " fails, ", good, " passes again")
          : absl::StrCat(param, " in (", good, ", ", bad, "]: ", good, " passes, ", bad, " fails");
  if (!result.answer.unclassified.empty()) {
    std::vector<std::string> labels;
    for (int i : result.answer.unclassified) labels.push_back(config.versions[i]);
    absl::StrAppend(&text, " (unclassified between: ", absl::StrJoin(labels, ", "), ")");
  }
  return text;
}

std::string BoundaryMarkdown(const std::string& param, const BisectConfig& config, const BisectResult& result,
                             bool numeric) {
  const std::string text = BoundaryText(param, config, result);
  return absl::StrCat("## Boundary\n\n", text.empty() ? absl::StrCat("no boundary found: ", result.message) : text,
                      "\n\nSearched ", config.versions.size(), " values of ", param,
                      numeric ? absl::StrCat(" (every integer from ", config.versions.front(), " to ",
                                             config.versions.back(), " in steps)")
                              : " (the scenario's listed values, in order)",
                      ".\n\n");
}

}  // namespace gh
