#include "harness/driver/slurm_submit.h"

#include <sys/wait.h>

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "harness/core/exit_codes.h"
#include "harness/core/file_util.h"
#include "harness/core/shell_quote.h"

namespace gh::driver {

std::vector<std::string> WithoutSlurmFlag(int argc, char** argv, const std::string& program) {
  std::vector<std::string> out = {program};
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--slurm") == 0) {
      ++i;
      continue;
    }
    if (std::strncmp(argv[i], "--slurm=", 8) == 0) continue;
    out.push_back(argv[i]);
  }
  return out;
}

std::string SbatchCommand(const std::string& sbatch_args, const std::vector<std::string>& sweep_argv,
                          const std::string& log_path) {
  return absl::StrCat("sbatch --wait --output=", ShellQuote(log_path),
                      " --job-name=gpuharness-sweep ", sbatch_args, " --wrap ",
                      ShellQuote(absl::StrCat("exec ", ShellQuoteJoin(sweep_argv))));
}

int SubmitSweepBatch(const std::string& sbatch_args, const std::vector<std::string>& sweep_argv,
                     const std::string& out_dir, std::FILE* out) {
  if (absl::Status st = MakeDirectories(out_dir); !st.ok()) {
    std::fprintf(stderr, "gpuharness sweep --slurm: %s\n", std::string(st.message()).c_str());
    return kExitInfrastructure;
  }
  const std::string log = absl::StrCat(out_dir, "/slurm-sweep.log");
  std::remove(log.c_str());
  const std::string command = SbatchCommand(sbatch_args, sweep_argv, log);
  std::fprintf(out, "gpuharness sweep --slurm: $ %s\n", command.c_str());
  std::fflush(out);
  const int status = std::system(command.c_str());
  absl::StatusOr<std::string> text = ReadFileToString(log);
  if (text.ok()) {
    std::fputs(text->c_str(), out);
    std::fflush(out);
  }
  if (status == -1 || !WIFEXITED(status)) {
    std::fprintf(stderr, "gpuharness sweep --slurm: sbatch did not run to its end\n");
    return kExitInfrastructure;
  }
  const int code = WEXITSTATUS(status);
  if (!text.ok()) {
    std::fprintf(stderr,
                 "gpuharness sweep --slurm: sbatch exited %d and the job left no %s "
                 "(sbatch refused the arguments, or the job never started)\n",
                 code, log.c_str());
    return code == 0 ? kExitInfrastructure : kExitBadInput;
  }
  return code;
}

}  // namespace gh::driver
