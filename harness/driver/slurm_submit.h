// `gpuharness sweep --slurm "ARGS"` outside an allocation: the same sweep (the command line
// without --slurm) submitted as one batch job, `sbatch --wait ARGS`, whose script is that
// command; inside the job the sweep finds the allocation and packs its cells across the nodes
// (slurm_sweep.h). The job's output goes to DIR/slurm-sweep.log, which is printed when the
// job ends, so the report reads as usual; DIR must be on a file system the nodes share.
#ifndef GPUHARNESS_DRIVER_SLURM_SUBMIT_H_
#define GPUHARNESS_DRIVER_SLURM_SUBMIT_H_

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gh::driver {

// `program` and the subcommand's argv (argv[0] "sweep") without "--slurm VALUE" / "--slurm=VALUE".
std::vector<std::string> WithoutSlurmFlag(int argc, char** argv, const std::string& program);

// The shell command: sbatch --wait --parsable --output=LOG --job-name=gpuharness-sweep ARGS (as the
// shell splits them) --wrap 'exec SWEEP...'.
std::string SbatchCommand(const std::string& sbatch_args, const std::vector<std::string>& sweep_argv,
                          const std::string& log_path);

// Whether Slurm is done with a job in `state` (COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL,
// ...); false for the states a job passes through (PENDING, RUNNING, COMPLETING, ...), which
// scontrol can still show for a moment after sbatch --wait returned.
bool IsSettledJobState(std::string_view state);

// `read_state()` until it is settled or "" (Slurm forgot the job), at most `patience` in steps of
// `step`; the last state read (still unsettled when the patience ran out).
std::string SettledJobState(const std::function<std::string()>& read_state, absl::Duration patience,
                            absl::Duration step);

// How slurmstepd's "*** JOB ID ON NODE CANCELLED AT TIME [DUE TO WHY] ***" line in the batch job's
// output says Slurm ended job `job_id`, as a JobState: CANCELLED, TIMEOUT (time limit), PREEMPTED,
// NODE_FAIL or REQUEUED; "" without such a line. Definitive at once, while scontrol can say
// COMPLETING for minutes (KillWait, slow nodes) and hides the state the job ends in.
std::string SlurmstepdEnding(absl::string_view log_text, absl::string_view job_id);

// Submits and waits. Returns the sweep's exit status (the job's, as sbatch --wait gives it),
// 2 when sbatch refused ARGS, 3 when the job ended without the sweep's log or by a signal,
// or when Slurm ended it (slurmstepd's line in the log, else JobState CANCELLED, TIMEOUT,
// NODE_FAIL, ...: said, with how to resume).
int SubmitSweepBatch(const std::string& sbatch_args, const std::vector<std::string>& sweep_argv,
                     const std::string& out_dir, std::FILE* out);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SLURM_SUBMIT_H_
