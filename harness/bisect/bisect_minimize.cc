#include "harness/bisect/bisect_minimize.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gh {

std::string FlagName(const std::string& flag) { return flag.substr(0, flag.find('=')); }

namespace {

std::string Text(const SettingChange& c, const std::optional<std::string>& value) {
  switch (c.kind) {
    case SettingChange::Kind::kPlain:
      return value ? absl::StrCat(c.variable, "=", *value) : absl::StrCat("unset ", c.variable);
    case SettingChange::Kind::kFlag:
      return value ? absl::StrCat(c.variable, " += ", *value) : absl::StrCat(c.variable, " without ", c.flag);
    case SettingChange::Kind::kPathList:
      return value ? absl::StrCat(c.variable, ": ", *value) : absl::StrCat(c.variable, " not extended");
  }
  return "";
}

std::string PathListText(const driver::EnvPlan& plan, const std::string& variable) {
  std::vector<std::string> parts;
  if (auto it = plan.prepend.find(variable); it != plan.prepend.end() && !it->second.empty()) {
    parts.push_back(absl::StrCat("prepend ", absl::StrJoin(it->second, ":")));
  }
  if (auto it = plan.append.find(variable); it != plan.append.end() && !it->second.empty()) {
    parts.push_back(absl::StrCat("append ", absl::StrJoin(it->second, ":")));
  }
  return absl::StrJoin(parts, " | ");
}

// flag name -> whole flag string, for one variable.
std::map<std::string, std::string> FlagsOf(const driver::EnvPlan& plan, const std::string& variable) {
  std::map<std::string, std::string> out;
  if (auto it = plan.flags.find(variable); it != plan.flags.end()) {
    for (const std::string& f : it->second) out[FlagName(f)] = f;  // later wins, as MergeFlags
  }
  return out;
}

template <typename T>
void Check(std::vector<std::string>& diffs, const char* what, const T& a, const T& b, const std::string& a_text,
           const std::string& b_text) {
  if (!(a == b)) diffs.push_back(absl::StrCat(what, " (", a_text, " vs ", b_text, ")"));
}

}  // namespace

std::string SettingChange::FailingText() const { return Text(*this, failing_value); }
std::string SettingChange::PassingText() const { return Text(*this, passing_value); }

absl::StatusOr<std::vector<SettingChange>> DiffSettings(const driver::CellPlan& passing,
                                                        const driver::CellPlan& failing) {
  std::vector<std::string> other;
  Check(other, "version", passing.version, failing.version, passing.version, failing.version);
  Check(other, "ranks", passing.ranks, failing.ranks, absl::StrCat(passing.ranks), absl::StrCat(failing.ranks));
  Check(other, "launcher", passing.launcher, failing.launcher, passing.launcher, failing.launcher);
  Check(other, "backend", passing.backend, failing.backend, passing.backend, failing.backend);
  Check(other, "share_gpu", passing.share_gpu, failing.share_gpu, passing.share_gpu ? "true" : "false",
        failing.share_gpu ? "true" : "false");
  Check(other, "args", passing.args, failing.args, absl::StrJoin(passing.args, " "), absl::StrJoin(failing.args, " "));
  Check(other, "launcher_prefix", passing.launcher_prefix, failing.launcher_prefix,
        absl::StrJoin(passing.launcher_prefix, " "), absl::StrJoin(failing.launcher_prefix, " "));
  Check(other, "points", passing.points, failing.points, absl::StrJoin(passing.points, " "),
        absl::StrJoin(failing.points, " "));
  if (!other.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--failing and --passing differ in ", absl::StrJoin(other, ", "),
        ": minimize varies environment variables and flags only; choose cells that differ in those"));
  }
  std::vector<SettingChange> changes;
  std::set<std::string> variables;
  for (const driver::EnvPlan* plan : {&passing.env, &failing.env}) {
    for (const auto& [k, v] : plan->set) variables.insert(k);
    for (const auto& [k, v] : plan->flags) variables.insert(k);
    for (const auto& [k, v] : plan->prepend) variables.insert(k);
    for (const auto& [k, v] : plan->append) variables.insert(k);
  }
  for (const std::string& variable : variables) {
    auto plain = [&](const driver::EnvPlan& plan) -> std::optional<std::string> {
      auto it = plan.set.find(variable);
      return it == plan.set.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    if (plain(passing.env) != plain(failing.env)) {
      changes.push_back({SettingChange::Kind::kPlain, variable, "", plain(failing.env), plain(passing.env), {}, {}});
    }
    std::map<std::string, std::string> pf = FlagsOf(passing.env, variable), ff = FlagsOf(failing.env, variable);
    std::set<std::string> names;
    for (const auto& [n, f] : pf) names.insert(n);
    for (const auto& [n, f] : ff) names.insert(n);
    for (const std::string& name : names) {
      auto p = pf.find(name);
      auto f = ff.find(name);
      std::optional<std::string> pv = p == pf.end() ? std::nullopt : std::optional<std::string>(p->second);
      std::optional<std::string> fv = f == ff.end() ? std::nullopt : std::optional<std::string>(f->second);
      if (pv != fv) changes.push_back({SettingChange::Kind::kFlag, variable, name, fv, pv, {}, {}});
    }
    std::string pp = PathListText(passing.env, variable), fp = PathListText(failing.env, variable);
    if (pp != fp) {
      SettingChange change{SettingChange::Kind::kPathList, variable, "",
                           fp.empty() ? std::nullopt : std::optional<std::string>(fp),
                           pp.empty() ? std::nullopt : std::optional<std::string>(pp), {}, {}};
      if (auto it = failing.env.prepend.find(variable); it != failing.env.prepend.end()) change.failing_prepend = it->second;
      if (auto it = failing.env.append.find(variable); it != failing.env.append.end()) change.failing_append = it->second;
      changes.push_back(std::move(change));
    }
  }
  return changes;
}

driver::CellPlan ApplyChanges(const driver::CellPlan& passing, const std::vector<SettingChange>& changes) {
  driver::CellPlan plan = passing;
  for (const SettingChange& c : changes) {
    switch (c.kind) {
      case SettingChange::Kind::kPlain:
        if (c.failing_value) {
          plan.env.set[c.variable] = *c.failing_value;
        } else {
          plan.env.set.erase(c.variable);
        }
        break;
      case SettingChange::Kind::kFlag: {
        std::vector<std::string>& flags = plan.env.flags[c.variable];
        flags.erase(std::remove_if(flags.begin(), flags.end(),
                                   [&](const std::string& f) { return FlagName(f) == c.flag; }),
                    flags.end());
        if (c.failing_value) flags.push_back(*c.failing_value);
        if (flags.empty()) plan.env.flags.erase(c.variable);
        break;
      }
      case SettingChange::Kind::kPathList:
        // The failing side's prepends and appends for the variable, whole.
        plan.env.prepend.erase(c.variable);
        plan.env.append.erase(c.variable);
        if (!c.failing_prepend.empty()) plan.env.prepend[c.variable] = c.failing_prepend;
        if (!c.failing_append.empty()) plan.env.append[c.variable] = c.failing_append;
        break;
    }
  }
  return plan;
}

}  // namespace gh
