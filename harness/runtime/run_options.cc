#include "harness/runtime/run_options.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace gh {

const char* RunUsage() {
  return "usage: gpuharness run SCENARIO.yaml... --out DIR [--backend auto|host|cuda]\n"
         "                     [--share-gpu] [--filter GLOB] [--runs FILE]\n"
         "\n"
         "Runs every point of the scenarios on every rank of this job (under mpirun -np N, or\n"
         "alone as one rank) and writes DIR/records.jsonl, DIR/environment.json, DIR/junit.xml.\n"
         "\n"
         "  --out DIR        results directory (created; records.jsonl is started afresh)\n"
         "  --backend B      auto (cuda when built with it and every rank sees a GPU), host\n"
         "                   (CPU memory, MPI transports) or cuda (device memory, NCCL)\n"
         "  --share-gpu      let several ranks of a host drive one GPU (NCCL over sockets)\n"
         "  --filter GLOB    run only points whose name matches (* and ?), e.g.\n"
         "                   'ring_shift*/dtype=f32/*'\n"
         "  --runs FILE      run only the point x trial runs FILE lists, one per line as\n"
         "                   '<point name><TAB><trial>' (the sweep continues a job that ended\n"
         "                   early this way)\n"
         "\n"
         "Exit status: 0 every outcome met its expectation, 1 some did not, 2 bad input,\n"
         "3 infrastructure failure.\n";
}

absl::StatusOr<RunOptions> ParseRunOptions(const std::vector<std::string>& args) {
  RunOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      options.help = true;
      return options;
    }
    if (!absl::StartsWith(arg, "-")) {
      options.scenario_files.push_back(arg);
      continue;
    }
    std::string name = arg;
    std::string value;
    bool has_value = false;
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    if (name == "--share-gpu") {
      if (has_value) return absl::InvalidArgumentError("--share-gpu takes no value");
      options.share_gpu = true;
      continue;
    }
    if (name != "--out" && name != "--backend" && name != "--filter" && name != "--runs") {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag '", name, "' (see gpuharness run --help)"));
    }
    if (!has_value) {
      if (i + 1 >= args.size()) return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
      value = args[++i];
    }
    if (name == "--out") {
      if (value.empty()) return absl::InvalidArgumentError("--out needs a directory");
      options.out_dir = value;
    } else if (name == "--filter") {
      options.filter = value;
    } else if (name == "--runs") {
      if (value.empty()) return absl::InvalidArgumentError("--runs needs a file");
      options.runs_file = value;
    } else {
      if (value == "auto") {
        options.backend = BackendChoice::kAuto;
      } else if (value == "host") {
        options.backend = BackendChoice::kHost;
      } else if (value == "cuda") {
        options.backend = BackendChoice::kCuda;
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("--backend: expected auto, host or cuda, got '", value, "'"));
      }
    }
  }
  if (options.scenario_files.empty()) {
    return absl::InvalidArgumentError("no scenario file given (see gpuharness run --help)");
  }
  if (options.out_dir.empty()) {
    return absl::InvalidArgumentError("--out DIR is required (see gpuharness run --help)");
  }
  return options;
}

}  // namespace gh
