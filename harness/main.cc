// gpuharness: multi-process GPU regression test harness. See README.md and docs/.
#include <cstdio>
#include <cstring>
#include <string_view>

#include "harness/cli/commands.h"
#include "harness/runtime/trial_isolation.h"

namespace {

struct Subcommand {
  const char* name;
  int (*fn)(int, char**);
  const char* summary;
};

constexpr Subcommand kSubcommands[] = {
    {"run", gh::RunCommand, "run scenarios on every rank of this job (under mpirun, or alone)"},
    {"list", gh::ListCommand, "list scenario kinds, their parameters and backends"},
#if defined(GH_HAVE_DRIVER)
    {"sweep", gh::SweepCommand, "run scenarios over flag and version matrices, compare, report"},
    {"report", gh::ReportCommand, "write summary.md, junit.xml and report.html for a results dir"},
    {"bisect", gh::BisectCommand, "find the first version where a scenario's failure appears"},
    {"minimize", gh::MinimizeCommand, "find the smallest environment/flag change that flips a result"},
    {"repro", gh::ReproCommand, "write a standalone script that reproduces a recorded point"},
#endif
};

void PrintUsage(std::FILE* out) {
  std::fprintf(out, "usage: gpuharness <command> [args]\n\ncommands:\n");
  for (const auto& sub : kSubcommands) std::fprintf(out, "  %-8s %s\n", sub.name, sub.summary);
  std::fprintf(out, "\n`gpuharness <command> --help` describes a command.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return gh::kExitBadInput;
  }
  std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    PrintUsage(stdout);
    return gh::kExitOk;
  }
  if (name == "--version") {
    std::printf("gpuharness %s\n", GH_VERSION);
    return gh::kExitOk;
  }
  // Hidden: the child side of an isolated trial (harness/runtime/trial_isolation.h).
  if (name == "trial-worker") return gh::TrialWorkerCommand(argc - 1, argv + 1);
  for (const auto& sub : kSubcommands) {
    if (name == sub.name) return sub.fn(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "gpuharness: unknown command '%s'\n\n", argv[1]);
  PrintUsage(stderr);
  return gh::kExitBadInput;
}
