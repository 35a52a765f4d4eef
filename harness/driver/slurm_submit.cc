#include "harness/driver/slurm_submit.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "harness/core/child_process.h"
#include "harness/core/exit_codes.h"
#include "harness/core/file_util.h"
#include "harness/core/shell_quote.h"
#include "harness/driver/slurm_allocation.h"

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
  return absl::StrCat("sbatch --wait --parsable --output=", ShellQuote(log_path),
                      " --job-name=gpuharness-sweep ", sbatch_args, " --wrap ",
                      ShellQuote(absl::StrCat("exec ", ShellQuoteJoin(sweep_argv))));
}

namespace {

// JobState=... of `scontrol show job -o JOB`, "" when Slurm no longer knows the job.
std::string JobState(const std::string& job_id) {
  absl::StatusOr<std::string> text = RunScontrol({"show", "job", "-o", job_id});
  if (!text.ok()) return "";
  const size_t at = text->find("JobState=");
  if (at == std::string::npos) return "";
  const size_t begin = at + 9;
  return text->substr(begin, text->find_first_of(" \n", begin) - begin);
}

}  // namespace

bool IsSettledJobState(std::string_view state) {
  static constexpr std::string_view kPassing[] = {
      "PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "STAGE_OUT", "SIGNALING",
      "SUSPENDED", "RESIZING", "REQUEUED", "POWER_UP_NODE", "UPDATE_DB"};
  return std::find(std::begin(kPassing), std::end(kPassing), state) == std::end(kPassing);
}

std::string SlurmstepdEnding(absl::string_view log_text, absl::string_view job_id) {
  const std::string head = absl::StrCat("*** JOB ", job_id, " ON ");
  for (absl::string_view line : absl::StrSplit(log_text, '\n')) {
    const size_t at = line.find(head);
    if (at == absl::string_view::npos || !absl::EndsWith(absl::StripTrailingAsciiWhitespace(line), " ***")) continue;
    const absl::string_view rest = line.substr(at + head.size());
    const size_t cancelled = rest.find(" CANCELLED AT ");
    if (cancelled == absl::string_view::npos) continue;
    const absl::string_view why = rest.substr(cancelled);
    if (absl::StrContains(why, " DUE TO TIME LIMIT")) return "TIMEOUT";
    if (absl::StrContains(why, " DUE TO PREEMPTION")) return "PREEMPTED";
    if (absl::StrContains(why, " DUE TO NODE FAILURE")) return "NODE_FAIL";
    if (absl::StrContains(why, " DUE TO JOB REQUEUE")) return "REQUEUED";
    return "CANCELLED";
  }
  return "";
}

std::string SettledJobState(const std::function<std::string()>& read_state, absl::Duration patience,
                            absl::Duration step) {
  const absl::Time until = absl::Now() + patience;
  std::string state = read_state();
  while (!state.empty() && !IsSettledJobState(state) && absl::Now() < until) {
    absl::SleepFor(step);
    state = read_state();
  }
  return state;
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
  // ARGS are split as the shell splits them: the one shell string here, every other word quoted.
  CommandRequest request;
  request.child.argv = {"/bin/sh", "-c", command};
  request.timeout = absl::InfiniteDuration();  // as long as the batch job runs
  absl::StatusOr<CommandResult> sbatch = RunCommand(request);
  // --parsable: the job id ("ID" or "ID;cluster")
  std::string job_id = sbatch.ok() ? sbatch->out.substr(0, sbatch->out.find_first_of(";\n")) : "";
  absl::StatusOr<std::string> text = ReadFileToString(log);
  if (text.ok()) {
    std::fputs(text->c_str(), out);
    std::fflush(out);
  }
  if (!sbatch.ok() || sbatch->exit.signaled) {
    std::fprintf(stderr, "gpuharness sweep --slurm: sbatch did not run to its end%s%s\n", sbatch.ok() ? "" : ": ",
                 sbatch.ok() ? "" : std::string(sbatch.status().message()).c_str());
    return kExitInfrastructure;
  }
  const int code = sbatch->exit.code;
  if (!text.ok()) {
    std::fprintf(stderr,
                 "gpuharness sweep --slurm: sbatch exited %d and the job left no %s "
                 "(sbatch refused the arguments, or the job never started)\n",
                 code, log.c_str());
    return code == 0 ? kExitInfrastructure : kExitBadInput;
  }
  // A job Slurm ended (scancel, its time limit, a node failure) is no verdict, whatever
  // sbatch --wait exits with (0 for some cancelled jobs): DIR keeps the finished cells.
  // slurmstepd's line in the log says so at once; without it, scontrol's state, which under
  // load still says COMPLETING for a while after sbatch --wait returned: wait for it to settle.
  std::string state = SlurmstepdEnding(*text, job_id);
  if (state.empty() && !job_id.empty()) {
    constexpr absl::Duration kPatience = absl::Seconds(60);
    state = SettledJobState([&] { return JobState(job_id); }, kPatience, absl::Milliseconds(500));
    if (!state.empty() && !IsSettledJobState(state)) {
      // Nothing says Slurm ended it, and sbatch --wait returned: the job's own exit stands.
      std::fprintf(stderr,
                   "gpuharness sweep --slurm: Slurm still says batch job %s is %s %lld s after it "
                   "returned; going by its exit status %d\n",
                   job_id.c_str(), state.c_str(), static_cast<long long>(absl::ToInt64Seconds(kPatience)), code);
      return code;
    }
  }
  if (!state.empty() && state != "COMPLETED" && state != "FAILED") {
    std::fprintf(stderr,
                 "gpuharness sweep --slurm: batch job %s ended %s; %s keeps the finished cells: "
                 "run the same command again to resume\n",
                 job_id.c_str(), state.c_str(), out_dir.c_str());
    return kExitInfrastructure;
  }
  return code;
}

}  // namespace gh::driver
