// gpuharness: multi-process GPU regression test harness. See README.md and docs/.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "harness/cli/commands.h"
#include "harness/core/build_info.h"
#include "harness/core/did_you_mean.h"
#include "harness/history/history_command.h"
#include "harness/runtime/trial_isolation.h"

namespace {

struct Subcommand {
  const char* name;
  int (*fn)(int, char**);
  const char* summary;
};

constexpr Subcommand kSubcommands[] = {
    {"run", gh::RunCommand, "run scenarios on every rank of this job (under mpirun, or alone)"},
    {"list", gh::ListCommand, "list scenario kinds, their parameters and backends (--json)"},
#if defined(GH_HAVE_DRIVER)
    {"sweep", gh::SweepCommand, "run scenarios over flag and version matrices, compare, report"},
    {"report", gh::ReportCommand, "write summary.md, junit.xml and report.html for a results dir"},
    {"bisect", gh::BisectCommand, "find the first version where a scenario's failure appears"},
    {"minimize", gh::MinimizeCommand, "find the smallest environment/flag change that flips a result"},
    {"repro", gh::ReproCommand, "write a standalone script that reproduces a recorded point"},
#endif
    {"history", gh::HistoryCommand, "ingest results into the history database and query it"},
    {"doctor", gh::DoctorCommand, "check that this machine can run gpuharness, and say how to fix what it lacks"},
};

void PrintUsage(std::FILE* out) {
  std::fprintf(out, "usage: gpuharness <command> [args]\n\ncommands:\n");
  for (const auto& sub : kSubcommands) std::fprintf(out, "  %-8s %s\n", sub.name, sub.summary);
  std::fprintf(out, "  %-8s %s\n", "help", "`gpuharness help CMD` describes a command, as `gpuharness CMD --help`");
  std::fprintf(out,
               "\noptions:\n"
               "  --version  print the version, commit, build type, CUDA, NCCL and MPI built with\n"
               "  --help     print this help\n");
}

const Subcommand* FindSubcommand(std::string_view name) {
  for (const auto& sub : kSubcommands) {
    if (name == sub.name) return &sub;
  }
  return nullptr;
}

// "gpuharness: unknown command 'sweap'; did you mean sweep?" (or flag), exit 2.
int UnknownCommand(const std::string& name) {
  std::vector<std::string> names = {"help"};
  for (const auto& sub : kSubcommands) names.emplace_back(sub.name);
  if (name.size() > 1 && name[0] == '-') {
    const std::string flag = name.substr(0, name.find('='));
    std::fprintf(stderr, "gpuharness: unknown flag %s%s\n", flag.c_str(),
                 gh::DidYouMeanSuffix(flag, {"--help", "--version"}).c_str());
  } else {
    std::fprintf(stderr, "gpuharness: unknown command '%s'%s\n", name.c_str(),
                 gh::DidYouMeanSuffix(name, names).c_str());
  }
  std::fprintf(stderr, "usage: gpuharness <command> [args] (gpuharness --help lists the commands)\n");
  return gh::kExitBadInput;
}

// `gpuharness help [CMD]`: CMD's help exactly as `gpuharness CMD --help` prints it.
int HelpCommand(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stdout);
    return gh::kExitOk;
  }
  if (argc > 2) {
    std::fprintf(stderr, "gpuharness help: unexpected argument '%s'\nusage: gpuharness help [CMD]\n", argv[2]);
    return gh::kExitBadInput;
  }
  const Subcommand* sub = FindSubcommand(argv[1]);
  if (sub == nullptr) return UnknownCommand(argv[1]);
  std::string name = sub->name, help = "--help";
  char* sub_argv[] = {name.data(), help.data(), nullptr};
  return sub->fn(2, sub_argv);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return gh::kExitBadInput;
  }
  std::string_view name = argv[1];
  if (name == "--help" || name == "-h") {
    PrintUsage(stdout);
    return gh::kExitOk;
  }
  if (name == "--version") {
    std::fputs(gh::BuildInfoText(gh::ThisBuild()).c_str(), stdout);
    return gh::kExitOk;
  }
  if (name == "help") return HelpCommand(argc - 1, argv + 1);
  // Hidden: the child side of an isolated trial (harness/runtime/trial_isolation.h).
  if (name == "trial-worker") return gh::TrialWorkerCommand(argc - 1, argv + 1);
  if (const Subcommand* sub = FindSubcommand(name)) return sub->fn(argc - 1, argv + 1);
  return UnknownCommand(argv[1]);
}
