#include "harness/cli/run_flags.h"

#include "harness/core/shipped_data.h"

namespace gh {
namespace {

constexpr char kRunAbout[] =
    "  Runs every point of the scenarios on every rank of this job (under mpirun -np N, or\n"
    "  alone as one rank) and writes DIR/records.jsonl, DIR/environment.json, DIR/junit.xml.\n"
    "  A SCENARIO that is no file names a shipped one: ring_shift_bandwidth is\n"
    "  <prefix>/share/gpuharness/scenarios/ring_shift_bandwidth.yaml.\n";
constexpr char kRunEpilog[] =
    "exit: 0 every outcome met its expectation, 1 some did not, 2 bad input,\n"
    "3 infrastructure failure\n";

}  // namespace

RunFlags::RunFlags() : flags_("run", "SCENARIO.yaml... --out DIR [options]", kRunAbout, kRunEpilog) {
  flags_.Positionals("SCENARIO.yaml", &options_.scenario_files)
      .String("--out", kDirValue, &options_.out_dir, "results directory (created; records.jsonl is started afresh)")
      .Choice("--backend", {"auto", "host", "cuda"}, &backend_,
              "auto (cuda when built with it and every rank sees a GPU), host\n"
              "(CPU memory, MPI transports) or cuda (device memory, NCCL)")
      .Bool("--share-gpu", &options_.share_gpu, "let several ranks of a host drive one GPU (NCCL over sockets)")
      .Filter("-k, --filter", &options_.filter,
              "run only the points whose name matches: a glob (* and ?), or globs\n"
              "joined by and, or, not and parentheses, e.g.\n"
              "'ring_shift/* and not *bytes=1G*'")
      .String("--runs", kFileValue, &options_.runs_file,
              "run only the point x trial runs FILE lists, one per line as\n"
              "'<point name><TAB><trial>' (the sweep continues a job that ended\n"
              "early this way)")
      .String("--nccl-inspector", kFileValue, &options_.nccl_inspector_plugin,
              "NCCL's Inspector profiler plugin (libnccl-profiler-inspector.so)\n"
              "for scenarios with 'nccl_inspector: true' (default:\n"
              "$GH_NCCL_INSPECTOR_PLUGIN)")
      .Bool("-v, --verbose", &verbose_, "end with the table of every point, passes included\n"
            "(default: only a FAILED line per unmet expectation)");
}

absl::StatusOr<CommandLine::Result> RunFlags::Parse(const std::vector<std::string>& args) {
  absl::StatusOr<CommandLine::Result> result = flags_.ParseArgs(args);
  if (!result.ok() || *result == CommandLine::Result::kHelp) return result;
  if (options_.scenario_files.empty()) return absl::InvalidArgumentError("missing SCENARIO.yaml");
  for (std::string& file : options_.scenario_files) file = ResolveShippedFile(ShippedKind::kScenario, file);
  if (options_.out_dir.empty()) return absl::InvalidArgumentError("--out DIR is required");
  options_.backend = backend_ == "host"   ? BackendChoice::kHost
                     : backend_ == "cuda" ? BackendChoice::kCuda
                                          : BackendChoice::kAuto;
  return result;
}

}  // namespace gh
