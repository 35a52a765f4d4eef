#include "harness/report/run_facts.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "harness/core/record_start.h"

namespace gh {
namespace {

// "2026-12-07 12:20–12:31 UTC", one minute "2026-12-07 12:20 UTC", over midnight both dates.
std::string WhenText(absl::Time first, absl::Time last) {
  const absl::TimeZone utc = absl::UTCTimeZone();
  const std::string day = absl::FormatTime("%Y-%m-%d", first, utc);
  const std::string from = absl::FormatTime("%H:%M", first, utc);
  const std::string to = absl::FormatTime("%H:%M", last, utc);
  if (absl::FormatTime("%Y-%m-%d", last, utc) != day) {
    return absl::StrCat(day, " ", from, " UTC – ", absl::FormatTime("%Y-%m-%d %H:%M", last, utc), " UTC");
  }
  return from == to ? absl::StrCat(day, " ", from, " UTC") : absl::StrCat(day, " ", from, "–", to, " UTC");
}

}  // namespace

std::string RunFacts::Line() const {
  std::string line;
  if (!when.empty()) absl::StrAppend(&line, " ", when);
  if (!where.empty()) absl::StrAppend(&line, " on ", where);
  if (!versions.empty()) absl::StrAppend(&line, " with ", versions);
  return line.empty() ? "" : absl::StrCat("Ran", line);
}

RunFacts DescribeRun(const std::vector<Record>& records, const std::vector<LabeledEnvironment>& environments,
                     const SweepInfo* sweep) {
  RunFacts facts;
  std::optional<absl::Time> first, last;
  for (const Record& r : records) {
    std::optional<absl::Time> start = RecordStart(r);
    if (!start) continue;
    const absl::Time end = *start + absl::Seconds(std::isfinite(r.duration_s) ? std::max(0.0, r.duration_s) : 0.0);
    if (!first || *start < *first) first = start;
    if (!last || end > *last) last = end;
  }
  if (first) {
    facts.when = WhenText(*first, *last);
    facts.first_start = absl::FormatTime("%Y-%m-%dT%H:%M:%S", *first, absl::UTCTimeZone());
  }

  facts.hosts = DistinctFactValues(environments, "hosts");
  std::vector<std::string> machine = DistinctFactValues(environments, "GPU");
  if (machine.empty()) {
    for (const std::string& backend : DistinctFactValues(environments, "backend")) {
      machine.push_back(absl::StrCat(backend, " backend"));
    }
    for (const LabeledEnvironment& environment : environments) {
      auto cpu = environment.fingerprint.find("cpu_model");
      if (!environment.fingerprint.is_object() || cpu == environment.fingerprint.end() || !cpu->is_string() ||
          cpu->get<std::string>().empty()) {
        continue;
      }
      const std::string text = absl::StrCat("cpu: ", cpu->get<std::string>());
      if (std::find(machine.begin(), machine.end(), text) == machine.end()) machine.push_back(text);
    }
  }
  facts.where = absl::StrJoin(facts.hosts, ", ");
  if (!machine.empty()) {
    const std::string what = absl::StrJoin(machine, ", ");
    facts.where = facts.where.empty() ? what : absl::StrCat(facts.where, " (", what, ")");
  }

  std::vector<std::string> version_axes;
  if (sweep != nullptr) {
    for (const SweepAxisInfo& axis : sweep->axes) {
      if (!axis.is_version) continue;
      std::vector<std::string> ran;
      for (const std::string& label : axis.labels) {
        const bool used = std::any_of(records.begin(), records.end(), [&](const Record& r) {
          auto it = r.cell.find(axis.name);
          return it != r.cell.end() && it->second == label;
        });
        if (used) ran.push_back(label);
      }
      if (!ran.empty()) version_axes.push_back(absl::StrCat(axis.name, " ", absl::StrJoin(ran, ", ")));
    }
  }
  std::vector<std::string> software;
  const std::pair<const char*, const char*> kSoftware[] = {{"harness", "gpuharness"},
                                                           {"NCCL", "NCCL"},
                                                           {"driver", "driver"},
                                                           {"CUDA runtime", "CUDA runtime"},
                                                           {"MPI", ""}};
  for (const auto& [fact, name] : kSoftware) {
    const std::vector<std::string> values = DistinctFactValues(environments, fact);
    if (values.empty()) continue;
    const std::string joined = absl::StrJoin(values, ", ");
    software.push_back(*name == '\0' ? joined : absl::StrCat(name, " ", joined));
  }
  facts.versions = absl::StrJoin(version_axes, "; ");
  if (!software.empty()) {
    absl::StrAppend(&facts.versions, facts.versions.empty() ? "" : "; ", absl::StrJoin(software, ", "));
  }
  return facts;
}

}  // namespace gh
