// Subcommands of the gpuharness binary. Each returns the process exit status:
// 0 every outcome met its expectation, 1 some did not, 2 bad input, 3 infrastructure failure.
#ifndef GPUHARNESS_CLI_COMMANDS_H_
#define GPUHARNESS_CLI_COMMANDS_H_

#include "harness/core/exit_codes.h"

namespace gh {

// argv[0] is the subcommand name ("run"), followed by its arguments.
int RunCommand(int argc, char** argv);     // cli/run_command.cc: one job, under mpirun or alone
int ListCommand(int argc, char** argv);    // cli/list_command.cc: kinds, params, backends
int SweepCommand(int argc, char** argv);   // cli/sweep_command.cc: flag/version matrices
int ReportCommand(int argc, char** argv);  // cli/report_command.cc: reports from a results DIR
int BisectCommand(int argc, char** argv);    // cli/bisect_command.cc: first bad version
int MinimizeCommand(int argc, char** argv);  // cli/minimize_command.cc: smallest flipping change
int ReproCommand(int argc, char** argv);     // cli/repro_command.cc: standalone repro script
int DoctorCommand(int argc, char** argv);    // cli/doctor_command.cc: is this machine ready?

}  // namespace gh

#endif  // GPUHARNESS_CLI_COMMANDS_H_
