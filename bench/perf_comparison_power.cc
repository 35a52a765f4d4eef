// How often the baseline comparison (core/perf_comparison.h) errs on measured data: its A/A
// false-alarm rate and its power for a planted 5 % drop, per size, for 1 to 5 processes per
// side, with the default options. Not a Google Benchmark and not a test: a program printing
// tables (docs/performance.md, "Perf comparison on the H200").
//
// Input: records of separate processes of one configuration (each a records.jsonl, or a
// directory holding one), by default the H200 ring_shift runs in bench/data/h200_ring_shift
// (six A/A processes, two under NCCL_MAX_NCHANNELS=1). Every grouping of the A/A processes into
// two disjoint sides of k processes is compared, in both directions for the power:
//   false alarm  any metric flagged slower or faster between two groups of A/A processes;
//   power        the planted drop flagged slower, the drop made by scaling every sample of the
//                "now" side at >= 1 MiB (bandwidth x 0.95, times / 0.95): a resampling estimate
//                from measured samples, not a measurement of a slowed GPU.
// Then the slow processes against the A/A ones, each verdict printed with its interval.
//
// --metrics NAME,NAME counts only those metrics (default: every metric with samples), so each
// statistic (the per-iteration median, the graph replay) gets its own tables.
//
// Usage: perf_comparison_power [--metrics NAME,...] [AA_RECORDS...] [--slow SLOW_RECORDS...]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "harness/core/comparison.h"
#include "harness/core/perf_statistics.h"
#include "harness/core/records_file.h"

namespace {

using gh::Comparison;
using gh::MetricChange;
using gh::PerfVerdict;
using gh::Record;

constexpr int64_t kPowerFromBytes = int64_t{1} << 20;
constexpr double kPlantedDrop = 0.05;

using Process = std::vector<Record>;

// --metrics: the metrics counted (empty: all).
std::set<std::string> counted_metrics;
bool Counted(const std::string& metric) { return counted_metrics.empty() || counted_metrics.count(metric) > 0; }

Process Load(const std::string& path) {
  std::string file = path;
  if (std::filesystem::is_directory(path)) file = path + "/records.jsonl";
  absl::StatusOr<gh::RecordsFileContents> contents = gh::ReadRecordsFile(file);
  if (!contents.ok()) {
    std::fprintf(stderr, "%s: %s\n", file.c_str(), std::string(contents.status().message()).c_str());
    std::exit(2);
  }
  return contents->records;
}

int64_t BytesOf(const Record& record) { return record.params.value("bytes", int64_t{0}); }

std::string SizeOf(const Record& record) {
  const std::string& point = record.point;
  const size_t at = point.find("bytes=");
  return at == std::string::npos ? point : point.substr(at + 6, point.find('/', at) - at - 6);
}

// The processes `members` of `all`, their records one after the other (as `cat` would give).
std::vector<Record> Side(const std::vector<Process>& all, const std::vector<int>& members, bool plant_drop) {
  std::vector<Record> out;
  for (int i : members) {
    for (Record record : all[static_cast<size_t>(i)]) {
      if (plant_drop && BytesOf(record) >= kPowerFromBytes) {
        for (gh::Metric& metric : record.result.metrics) {
          const double factor = gh::HigherIsBetter(metric) ? 1 - kPlantedDrop : 1 / (1 - kPlantedDrop);
          metric.value *= factor;
          for (double& sample : metric.samples) sample *= factor;
        }
      }
      out.push_back(std::move(record));
    }
  }
  return out;
}

// Every way to pick two disjoint groups of k of n processes: ordered (before, now) pairs.
std::vector<std::pair<std::vector<int>, std::vector<int>>> Groupings(int n, int k) {
  std::vector<std::vector<int>> subsets;
  for (int mask = 0; mask < (1 << n); ++mask) {
    if (__builtin_popcount(static_cast<unsigned>(mask)) != k) continue;
    std::vector<int> members;
    for (int i = 0; i < n; ++i) {
      if (mask & (1 << i)) members.push_back(i);
    }
    subsets.push_back(members);
  }
  std::vector<std::pair<std::vector<int>, std::vector<int>>> out;
  for (const auto& a : subsets) {
    for (const auto& b : subsets) {
      const bool disjoint = std::none_of(a.begin(), a.end(), [&](int i) { return std::count(b.begin(), b.end(), i) > 0; });
      if (disjoint) out.push_back({a, b});
    }
  }
  return out;
}

struct Tally {
  int hits = 0, trials = 0;
  std::string Rate() const {
    return trials == 0 ? "-" : absl::StrFormat("%d/%d (%.1f %%)", hits, trials, 100.0 * hits / trials);
  }
};

struct SizeTallies {
  std::vector<std::string> sizes;               // in record order
  std::map<std::string, int64_t> bytes;         // size -> bytes
  std::map<std::string, std::map<int, Tally>> by_size;  // size -> k -> tally
  std::map<int, Tally> all, large;              // k -> over every size / >= 1 MiB
};

// Compares every grouping of k processes per side; counts per size the metrics that `counts`.
void Measure(const std::vector<Process>& aa, int k, bool plant_drop, SizeTallies& tallies,
             bool (*counts)(const MetricChange&)) {
  for (const auto& [before_members, now_members] : Groupings(static_cast<int>(aa.size()), k)) {
    // A/A: each unordered pair once (the comparison is symmetric in what it flags).
    if (!plant_drop && before_members > now_members) continue;
    const std::vector<Record> before = Side(aa, before_members, false);
    const std::vector<Record> now = Side(aa, now_members, plant_drop);
    const Comparison comparison = gh::CompareResults(now, &before);
    for (const gh::PointComparison& entry : comparison.points) {
      if (!entry.now) continue;
      const Record* first = nullptr;
      for (const Record& r : aa[0]) {
        if (r.point == entry.key.point) first = &r;
      }
      if (first == nullptr) continue;
      const int64_t bytes = BytesOf(*first);
      if (plant_drop && bytes < kPowerFromBytes) continue;
      const std::string size = SizeOf(*first);
      if (tallies.bytes.emplace(size, bytes).second) tallies.sizes.push_back(size);
      for (const MetricChange& change : entry.perf) {
        if (!Counted(change.metric)) continue;
        const int hit = counts(change) ? 1 : 0;
        for (Tally* t : {&tallies.by_size[size][k], &tallies.all[k]}) {
          t->hits += hit;
          ++t->trials;
        }
        if (bytes >= kPowerFromBytes) {
          tallies.large[k].hits += hit;
          ++tallies.large[k].trials;
        }
      }
    }
  }
}

void PrintTable(const char* title, const SizeTallies& t, const std::vector<int>& ks) {
  std::printf("\n%s\n\n| size |", title);
  for (int k : ks) std::printf(" %d vs %d |", k, k);
  std::printf("\n|---|");
  for (size_t i = 0; i < ks.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const std::string& size : t.sizes) {
    std::printf("| %s |", size.c_str());
    for (int k : ks) {
      auto it = t.by_size.at(size).find(k);
      std::printf(" %s |", it == t.by_size.at(size).end() ? "-" : it->second.Rate().c_str());
    }
    std::printf("\n");
  }
  for (const auto& [label, totals] : {std::pair{"all sizes", &t.all}, std::pair{">= 1 MiB", &t.large}}) {
    std::printf("| **%s** |", label);
    for (int k : ks) {
      auto it = totals->find(k);
      std::printf(" %s |", it == totals->end() ? "-" : it->second.Rate().c_str());
    }
    std::printf("\n");
  }
}

// The spread of the A/A processes' medians of `metric` per size: the between-process noise.
void PrintSpread(const std::vector<Process>& aa, const std::string& metric) {
  std::printf("\nBetween-process spread of %s (each process's median)\n\n"
              "| size | process medians | max/min - 1 |\n|---|---|---|\n", metric.c_str());
  for (const Record& point : aa[0]) {
    std::vector<double> medians;
    for (const Process& process : aa) {
      for (const Record& r : process) {
        if (r.point != point.point) continue;
        for (const gh::Metric& m : r.result.metrics) {
          if (m.name == metric && !m.samples.empty()) medians.push_back(gh::MedianOf(m.samples));
        }
      }
    }
    if (medians.empty()) continue;
    std::string list;
    for (double m : medians) list += absl::StrFormat("%s%.2f", list.empty() ? "" : " ", m);
    const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
    std::printf("| %s | %s | %.1f %% |\n", SizeOf(point).c_str(), list.c_str(), 100 * (*hi / *lo - 1));
  }
}

// The slow processes against as many A/A processes (at most 3), then one against one.
void PrintSlow(const std::vector<Process>& aa, const std::vector<Process>& slow) {
  std::vector<Process> pool = aa;
  pool.insert(pool.end(), slow.begin(), slow.end());
  const int n_aa = static_cast<int>(aa.size());
  std::vector<int> base, now;
  for (int i = 0; i < std::min(3, n_aa); ++i) base.push_back(i);
  for (int i = 0; i < static_cast<int>(slow.size()); ++i) now.push_back(n_aa + i);
  for (const auto& [label, b, n] : {std::tuple{"all slow processes vs the first A/A ones", base, now},
                                    std::tuple{"one slow process vs one A/A process", std::vector<int>{0},
                                               std::vector<int>{n_aa}}}) {
    const std::vector<Record> before = Side(pool, b, false);
    const Comparison comparison = gh::CompareResults(Side(pool, n, false), &before);
    std::printf("\nSlow run, %s (%zu vs %zu processes)\n\n| size | metric | verdict |\n|---|---|---|\n", label,
                n.size(), b.size());
    for (const gh::PointComparison& entry : comparison.points) {
      if (!entry.now) continue;
      for (const MetricChange& change : entry.perf) {
        if (!Counted(change.metric)) continue;
        const std::string size = entry.key.point.substr(entry.key.point.find("bytes=") + 6);
        std::printf("| %s | %s | %s |\n", size.substr(0, size.find('/')).c_str(), change.metric.c_str(),
                    change.Text().c_str());
      }
    }
  }
}

bool Flagged(const MetricChange& c) { return c.verdict != PerfVerdict::kNoChange; }
bool Slower(const MetricChange& c) { return c.verdict == PerfVerdict::kSlower; }

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> aa_paths, slow_paths;
  bool slow = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--slow") {
      slow = true;
    } else if (arg == "--metrics" && i + 1 < argc) {
      for (absl::string_view name : absl::StrSplit(argv[++i], ',', absl::SkipEmpty())) {
        counted_metrics.insert(std::string(name));
      }
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "%s: unknown option '%s' (expected --metrics NAME,... or --slow)\n", argv[0], arg.c_str());
      return 2;
    } else {
      (slow ? slow_paths : aa_paths).push_back(arg);
    }
  }
  if (aa_paths.empty() && slow_paths.empty()) {
    // The source tree's data, or the copy beside the working directory (a carried checkout).
    std::string data = GH_BENCH_DATA_DIR "/h200_ring_shift";
    if (!std::filesystem::exists(data)) data = "bench/data/h200_ring_shift";
    for (int i = 1; i <= 6; ++i) aa_paths.push_back(absl::StrFormat("%s/aa_run%d.jsonl", data, i));
    for (int i = 1; i <= 2; ++i) slow_paths.push_back(absl::StrFormat("%s/ch1_%d.jsonl", data, i));
  }
  std::vector<Process> aa, slow_runs;
  for (const std::string& p : aa_paths) aa.push_back(Load(p));
  for (const std::string& p : slow_paths) slow_runs.push_back(Load(p));
  if (aa.size() < 2) {
    std::fprintf(stderr, "usage: %s [AA_RECORDS...] [--slow SLOW_RECORDS...]: give 2 or more A/A processes\n", argv[0]);
    return 2;
  }
  const gh::PerfOptions defaults;
  std::printf("# Perf comparison on %zu A/A processes (%zu slow), threshold %.0f %%, defaults of core/perf_comparison.h\n",
              aa.size(), slow_runs.size(), defaults.threshold * 100);
  if (!counted_metrics.empty()) std::printf("Metrics counted: %s\n", absl::StrJoin(counted_metrics, ", ").c_str());
  // The spread of a time among the counted metrics (time_median_us when none is one).
  auto time = std::find_if(counted_metrics.begin(), counted_metrics.end(),
                           [](const std::string& name) { return name.rfind("time_", 0) == 0; });
  PrintSpread(aa, time != counted_metrics.end() ? *time : "time_median_us");
  std::vector<int> ks;
  for (int k = 1; 2 * k <= static_cast<int>(aa.size()) && k <= 5; ++k) ks.push_back(k);
  SizeTallies false_alarms, power;
  for (int k : ks) {
    Measure(aa, k, false, false_alarms, Flagged);
    Measure(aa, k, true, power, Slower);
  }
  PrintTable("A/A false alarms (metrics flagged slower or faster / metrics compared)", false_alarms, ks);
  PrintTable("Power for a planted 5 % drop at >= 1 MiB (flagged slower / compared; resampled from measured samples)",
             power, ks);
  if (!slow_runs.empty()) PrintSlow(aa, slow_runs);
  return 0;
}
