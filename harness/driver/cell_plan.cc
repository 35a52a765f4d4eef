#include "harness/driver/cell_plan.h"

#include <cstdint>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "harness/core/stable_hash.h"
#include "harness/core/duration_text.h"
#include "harness/core/status_macros.h"
#include "harness/core/yaml_fields.h"

namespace gh::driver {
namespace {

std::string Where(const SourceLoc& loc) {
  return absl::StrCat(loc.file, ":", loc.line, ":", loc.column);
}

// Tracks who set a scalar setting or plain variable in the cell being merged, so that two
// axes disagreeing is reported naming both.
struct Setter {
  std::string value;
  SourceLoc loc;
  std::string who;  // "axis proto value 'll'"; empty for the defaults (which axes may override)
};

absl::Status SetOnce(std::map<std::string, Setter>* seen, const std::string& key,
                     const std::string& value, const SourceLoc& loc, const std::string& who) {
  auto it = seen->find(key);
  if (it != seen->end() && !it->second.who.empty() && it->second.value != value) {
    return YamlError(loc, key,
                     absl::StrCat(who, " sets '", value, "' but ", it->second.who, " at ",
                                  Where(it->second.loc), " sets '", it->second.value,
                                  "' in the same cell"));
  }
  (*seen)[key] = Setter{value, loc, who};
  return absl::OkStatus();
}

// A scalar setting as SetOnce compares it.
std::string SettingText(int value) { return absl::StrCat(value); }
std::string SettingText(const std::string& value) { return value; }
std::string SettingText(absl::Duration value) { return FormatDurationText(value); }
std::string SettingText(bool value) { return value ? "true" : "false"; }

struct Merger {
  CellPlan plan;
  std::map<std::string, Setter> seen;

  // Where the settings set `key`: its value goes to `field`, unless another axis of the cell
  // already set it otherwise.
  template <typename T>
  absl::Status SetScalar(const std::string& key, const std::optional<T>& value, T* field,
                         const SourceLoc& loc, const std::string& who) {
    if (!value.has_value()) return absl::OkStatus();
    GH_RETURN_IF_ERROR(SetOnce(&seen, key, SettingText(*value), loc, who));
    *field = *value;
    return absl::OkStatus();
  }

  absl::Status Add(const CellSettings& s, const SourceLoc& loc, const std::string& who) {
    for (const auto& [name, value] : s.env) {
      GH_RETURN_IF_ERROR(SetOnce(&seen, absl::StrCat("env.", name), value, loc, who));
      plan.env.set[name] = value;
    }
    for (const auto& [name, list] : s.flags) {
      auto& dst = plan.env.flags[name];
      dst.insert(dst.end(), list.begin(), list.end());
    }
    for (const auto& [name, value] : s.env_prepend) plan.env.prepend[name].push_back(value);
    for (const auto& [name, value] : s.env_append) plan.env.append[name].push_back(value);
    GH_RETURN_IF_ERROR(SetScalar("ranks", s.ranks, &plan.ranks, loc, who));
    GH_RETURN_IF_ERROR(SetScalar("launcher", s.launcher, &plan.launcher, loc, who));
    GH_RETURN_IF_ERROR(SetScalar("timeout", s.timeout, &plan.timeout, loc, who));
    GH_RETURN_IF_ERROR(SetScalar("backend", s.backend, &plan.backend, loc, who));
    GH_RETURN_IF_ERROR(SetScalar("share_gpu", s.share_gpu, &plan.share_gpu, loc, who));
    plan.args.insert(plan.args.end(), s.args.begin(), s.args.end());
    plan.points.insert(plan.points.end(), s.points.begin(), s.points.end());
    plan.launcher_prefix.insert(plan.launcher_prefix.end(), s.launcher_prefix.begin(),
                                s.launcher_prefix.end());
    return absl::OkStatus();
  }
};

std::string CanonicalSettings(const Matrix& matrix, const CellPlan& p) {
  std::string out;
  absl::StrAppend(&out, "ranks=", p.ranks, "\nlauncher=", p.launcher,
                  "\ntimeout=", FormatDurationText(p.timeout), "\nbackend=", p.backend,
                  "\nshare_gpu=", p.share_gpu, "\nargs=", absl::StrJoin(p.args, "\x1f"),
                  "\nprefix=", absl::StrJoin(p.launcher_prefix, "\x1f"),
                  "\npoints=", absl::StrJoin(p.points, "\x1f"), "\n");
  for (const auto& [k, v] : p.env.set) absl::StrAppend(&out, "set ", k, "=", v, "\n");
  for (const auto& [k, v] : p.env.flags) absl::StrAppend(&out, "flags ", k, "=", absl::StrJoin(v, "\x1f"), "\n");
  for (const auto& [k, v] : p.env.prepend) absl::StrAppend(&out, "prepend ", k, "=", absl::StrJoin(v, "\x1f"), "\n");
  for (const auto& [k, v] : p.env.append) absl::StrAppend(&out, "append ", k, "=", absl::StrJoin(v, "\x1f"), "\n");
  for (const MatrixScenario& s : matrix.scenarios) {
    absl::StrAppend(&out, "scenario ", s.as_written, " ", absl::StrJoin(s.points, "\x1f"), "\n");
  }
  return out;
}

bool RuleMatches(const ComboRule& rule, const std::vector<std::pair<std::string, std::string>>& labels) {
  for (const auto& [axis, label] : rule.labels) {
    bool ok = false;
    for (const auto& [a, l] : labels) ok = ok || (a == axis && l == label);
    if (!ok) return false;
  }
  return true;
}

std::string FlagName(const std::string& flag) {
  size_t eq = flag.find('=');
  return eq == std::string::npos ? flag : flag.substr(0, eq);
}

}  // namespace

std::vector<std::string> EnvPlan::Names() const {
  std::set<std::string> names;
  for (const auto& [k, v] : set) names.insert(k);
  for (const auto& [k, v] : flags) names.insert(k);
  for (const auto& [k, v] : prepend) names.insert(k);
  for (const auto& [k, v] : append) names.insert(k);
  return {names.begin(), names.end()};
}

std::map<std::string, std::string> CellPlan::LabelMap() const {
  return {labels.begin(), labels.end()};
}

std::string MergeFlags(const std::string& base, const std::vector<std::string>& flags) {
  std::vector<std::string> merged;
  auto add = [&merged](const std::string& flag) {
    for (std::string& existing : merged) {
      if (FlagName(existing) == FlagName(flag)) {
        existing = flag;
        return;
      }
    }
    merged.push_back(flag);
  };
  for (absl::string_view t : absl::StrSplit(base, ' ', absl::SkipWhitespace())) add(std::string(t));
  for (const std::string& f : flags) add(f);
  return absl::StrJoin(merged, " ");
}

std::vector<std::string> ApplyEnvPlan(const std::vector<std::string>& base, const EnvPlan& plan,
                                      const std::map<std::string, std::string>& extra,
                                      const std::string& version_dir) {
  std::map<std::string, std::string> env;
  std::vector<std::string> order;  // keep the base order, then new names
  for (const std::string& entry : base) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string name = entry.substr(0, eq);
    if (env.emplace(name, entry.substr(eq + 1)).second) order.push_back(name);
  }
  auto sub = [&version_dir](const std::string& v) {
    return absl::StrReplaceAll(v, {{"{version_dir}", version_dir}});
  };
  auto put = [&](const std::string& name, std::string value) {
    if (env.find(name) == env.end()) order.push_back(name);
    env[name] = std::move(value);
  };
  for (const auto& [name, value] : plan.set) put(name, sub(value));
  auto join_path = [](const std::vector<std::string>& parts) {
    std::vector<std::string> kept;
    for (const std::string& p : parts) {
      if (!p.empty()) kept.push_back(p);
    }
    return absl::StrJoin(kept, ":");
  };
  for (const auto& [name, parts] : plan.prepend) {
    std::vector<std::string> all;
    for (const std::string& p : parts) all.push_back(sub(p));
    auto it = env.find(name);
    if (it != env.end()) all.push_back(it->second);
    put(name, join_path(all));
  }
  for (const auto& [name, parts] : plan.append) {
    std::vector<std::string> all;
    auto it = env.find(name);
    if (it != env.end()) all.push_back(it->second);
    for (const std::string& p : parts) all.push_back(sub(p));
    put(name, join_path(all));
  }
  for (const auto& [name, flags] : plan.flags) {
    std::vector<std::string> subbed;
    for (const std::string& f : flags) subbed.push_back(sub(f));
    auto it = env.find(name);
    put(name, MergeFlags(it == env.end() ? "" : it->second, subbed));
  }
  for (const auto& [name, value] : extra) put(name, value);
  std::vector<std::string> out;
  out.reserve(order.size());
  for (const std::string& name : order) out.push_back(absl::StrCat(name, "=", env[name]));
  return out;
}

absl::StatusOr<std::vector<CellPlan>> ExpandCells(const Matrix& matrix) {
  std::vector<CellPlan> cells;
  size_t total = 1;
  for (const MatrixAxis& axis : matrix.axes) total *= axis.values.size();
  std::vector<size_t> index(matrix.axes.size(), 0);
  SourceLoc defaults_loc{matrix.file, 0, 0};
  for (size_t n = 0; n < total; ++n) {
    // Mixed-radix counter, last axis fastest.
    size_t rest = n;
    for (size_t a = matrix.axes.size(); a-- > 0;) {
      index[a] = rest % matrix.axes[a].values.size();
      rest /= matrix.axes[a].values.size();
    }
    std::vector<std::pair<std::string, std::string>> labels;
    for (size_t a = 0; a < matrix.axes.size(); ++a) {
      labels.emplace_back(matrix.axes[a].name, matrix.axes[a].values[index[a]].label);
    }
    bool excluded = false;
    for (const ComboRule& rule : matrix.exclude) excluded = excluded || RuleMatches(rule, labels);
    bool included = false;
    for (const ComboRule& rule : matrix.include) included = included || RuleMatches(rule, labels);
    if (excluded && !included) continue;

    Merger merger;
    absl::Status st = merger.Add(matrix.defaults, defaults_loc, "");
    if (!st.ok()) return st;
    for (size_t a = 0; a < matrix.axes.size(); ++a) {
      const MatrixAxis& axis = matrix.axes[a];
      const AxisValue& value = axis.values[index[a]];
      st = merger.Add(value.settings, value.loc,
                      absl::StrCat(axis.is_version ? "version" : "axis", " '", axis.name,
                                   "' value '", value.label, "'"));
      if (!st.ok()) return st;
      if (axis.is_version) {
        merger.plan.version = value.label;
        merger.plan.version_axis = axis.name;
      }
    }
    CellPlan plan = std::move(merger.plan);
    plan.labels = labels;
    std::vector<std::string> parts;
    for (const auto& [axis, label] : labels) parts.push_back(absl::StrCat(axis, "=", label));
    plan.id = parts.empty() ? "all" : absl::StrJoin(parts, ",");
    plan.dir_name = SafeDirName(plan.id);
    plan.settings_hash = StableHash(CanonicalSettings(matrix, plan));
    cells.push_back(std::move(plan));
  }
  if (cells.empty()) {
    return YamlError(SourceLoc{matrix.file, 1, 1}, "exclude", "every cell is excluded");
  }
  return cells;
}

}  // namespace gh::driver
