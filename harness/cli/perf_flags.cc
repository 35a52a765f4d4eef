#include "harness/cli/perf_flags.h"

#include "absl/strings/str_cat.h"

namespace gh {

void PerfFlags::Add(CommandLine& flags) {
  flags
      .String("--perf-threshold", {"PCT", "a percentage"}, &threshold,
              "a metric that changed by less than this is 'no change' vs the\n"
              "baseline, however significant (default 5%)")
      .Bool("--perf-warn-only", &warn_only,
            "report metrics slower than the baseline's but do not exit 1 for them");
}

std::optional<int> PerfFlags::Apply(const CommandLine& flags, PerfOptions& options) const {
  options.warn_only = warn_only;
  if (threshold.empty()) return std::nullopt;
  absl::StatusOr<double> fraction = ParsePercent(threshold);
  if (!fraction.ok()) return flags.BadArgument(absl::StrCat("--perf-threshold: ", fraction.status().message()));
  options.threshold = *fraction;
  return std::nullopt;
}

}  // namespace gh
