#include "harness/driver/sweep_dry_run.h"

#include "absl/strings/str_cat.h"
#include "harness/core/duration_text.h"
#include "harness/core/file_util.h"
#include "harness/core/path_under.h"
#include "harness/core/shell_quote.h"
#include "harness/driver/cell_job.h"
#include "harness/driver/sweep_narrowing.h"

namespace gh::driver {

absl::Status PrintDryRun(const SweepPlan& plan, const DryRunInputs& in, std::FILE* out) {
  std::fprintf(out, "sweep %s: %zu cells, %zu job(s) per cell%s\n", plan.matrix.name.c_str(), plan.cells.size(),
               plan.jobs.size(),
               in.processes > 1 ? absl::StrCat(", run ", in.processes,
                                               " times (--processes; process k >= 1 in <cell>/process<k>/)")
                                      .c_str()
                                : "");
  const std::string out_dir = in.out_dir.empty() ? "DIR" : AbsolutePath(in.out_dir);
  if (plan.matrix.has_version_axis()) {  // each version's set-up, as it would run
    for (const AxisValue& v : plan.matrix.axes.back().values) {
      if (v.settings.setup.empty()) continue;
      std::fprintf(out, "version %s: set-up in %s/versions/%s:\n    $ %s\n", v.label.c_str(), out_dir.c_str(),
                   SafeDirName(v.label).c_str(), v.settings.setup.c_str());
    }
  }
  for (const PlannedCell& pc : plan.cells) {
    const CellPlan& c = pc.plan;
    std::fprintf(out, "%s  (ranks %d, timeout %s, launcher %s)\n", c.id.c_str(), c.ranks,
                 FormatDurationText(c.timeout).c_str(), pc.launcher.name.c_str());
    for (const CellJob& cell_job : pc.jobs) {
      CellJobInputs inputs;
      inputs.cell = &pc;
      inputs.job = &plan.jobs[cell_job.job];
      inputs.cell_job = &cell_job;
      inputs.program = in.program;
      inputs.dir = absl::StrCat(out_dir, "/cells/", c.dir_name);
      inputs.name = cell_job.name;
      inputs.version_dir = c.version.empty() ? "" : absl::StrCat(out_dir, "/versions/", SafeDirName(c.version));
      inputs.base_env = in.base_env;
      absl::StatusOr<CellJobSpec> spec = MakeCellJobSpec(inputs);
      if (!spec.ok()) return spec.status();
      if (&cell_job == &pc.jobs.front()) {
        // Quoted as a shell reads them: a person pastes these lines.
        for (const auto& [name, value] : spec->cell_env) {
          std::fprintf(out, "    %s=%s\n", name.c_str(), ShellQuote(value).c_str());
        }
      }
      std::fprintf(out, "    $ %s\n", ShellQuoteJoin(spec->process.argv).c_str());
      if (!spec->runs_path.empty()) {
        std::fprintf(out, "      (%s lists its %zu runs)\n", spec->runs_path.c_str(), spec->listed_runs);
      }
    }
  }
  return absl::OkStatus();
}

void PrintCollectedPoints(const SweepPlan& plan, std::FILE* out) {
  size_t points = 0, runs = 0;
  for (const PlannedCell& pc : plan.cells) {
    for (const CellJob& cell_job : pc.jobs) points += cell_job.points.size();
    runs += CellRuns(pc);
  }
  std::fprintf(out, "sweep %s: %zu cells, %zu points, %zu runs\n", plan.matrix.name.c_str(), plan.cells.size(), points,
               runs);
  for (const PlannedCell& pc : plan.cells) {
    std::fprintf(out, "%s\n", pc.plan.id.c_str());
    for (const CellJob& cell_job : pc.jobs) {
      for (const ExpectedPoint& p : cell_job.points) {
        const size_t trials = p.Trials().size();
        std::fprintf(out, "    %s%s\n", p.point.name.c_str(),
                     trials > 1 ? absl::StrCat("  (", trials, " trials)").c_str() : "");
      }
    }
  }
}

}  // namespace gh::driver
