// Kind `exec`: every rank runs the scenario's command (a framework repro such as a JAX script)
// as its child and turns its end and output into the rank's outcome (exec_classify.h). The
// command, its environment and the rules come from the scenario's `exec:` block
// (docs/scenarios/exec.md). Rank 0 picks a free TCP port for {coordinator} and broadcasts it.
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/core/name_rules.h"
#include "harness/core/path_under.h"
#include "harness/core/rank_log_path.h"
#include "harness/core/registry.h"
#include "harness/core/status_macros.h"
#include "harness/runtime/point_context.h"
#include "harness/scenarios/exec_block_loader.h"
#include "harness/scenarios/exec_classify.h"
#include "harness/scenarios/exec_command_record.h"
#include "harness/scenarios/exec_process.h"
#include "harness/scenarios/exec_stack_dump.h"
#include "harness/scenarios/exec_template.h"
#include "harness/scenarios/kind_backends.h"
#if defined(GH_HAVE_CUDA)
#include "harness/runtime/cuda_resources.h"
#endif

namespace gh {
namespace {

// The command's deadline when the block names none: the scenario's timeout less a margin
// (a tenth, at least 1 s and at most 10 s) for killing the group and reporting.
absl::Duration DefaultCommandTimeout(absl::Duration scenario_timeout) {
  absl::Duration margin = std::clamp(scenario_timeout / 10, absl::Seconds(1), absl::Seconds(10));
  absl::Duration timeout = scenario_timeout - margin;
  return timeout > absl::ZeroDuration() ? timeout : scenario_timeout / 2;
}

// A TCP port free on this host right now (bound to port 0, then released); 0 on failure.
int PickFreePort() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = 0;
  int port = 0;
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

std::string HostName() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name)) != 0) return "localhost";
  return name;
}

// "host:port" agreed by every rank: 127.0.0.1 when all ranks share rank 0's host, else rank
// 0's host name. Collective over `comm`.
std::string AgreeCoordinator(MPI_Comm comm, int rank) {
  char host[HOST_NAME_MAX + 1] = {};
  int port = 0;
  if (rank == 0) {
    std::string mine = HostName();
    std::strncpy(host, mine.c_str(), HOST_NAME_MAX);
    port = PickFreePort();
  }
  MPI_Bcast(host, sizeof(host), MPI_CHAR, 0, comm);
  MPI_Bcast(&port, 1, MPI_INT, 0, comm);
  int same_host = HostName() == host ? 1 : 0;
  int all_same = 0;
  MPI_Allreduce(&same_host, &all_same, 1, MPI_INT, MPI_MIN, comm);
  return absl::StrCat(all_same ? "127.0.0.1" : host, ":", port);
}

// The kind's parameters, which split a point's name into its log folders (core/rank_log_path.h).
std::set<std::string> ParamNames(const Point& point) {
  std::set<std::string> names;
  for (const PointParam& p : point.params) names.insert(p.name);
  return names;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

RankOutcome ErrorOutcome(std::string signature) {
  return RankOutcome::Error(std::move(signature), "exec");
}

class Exec : public Scenario {
 public:
  RankOutcome Run(PointContext& ctx) override {
    const Point& point = ctx.point();
    const ExecBlock& block = static_cast<const ExecBlock&>(*point.spec->block);
    ctx.SetStep("coordinator");
    const std::string coordinator = AgreeCoordinator(ctx.comm(), ctx.rank());

    int device = ctx.local_rank();
#if defined(GH_HAVE_CUDA)
    if (ctx.cuda() != nullptr) device = ctx.cuda()->device();
#endif
    const std::string results = ctx.out_dir().empty() ? "." : ctx.out_dir();
    // DIR/logs/<scenario>/<param>=<value>/.../np=<n>, each part a safe folder name: a parameter
    // value such as "../../x" names a folder inside DIR/logs, never a place outside it.
    absl::StatusOr<std::string> placed =
        PathUnder(results, {RankLogPath(point.name, ParamNames(point), ctx.rank(), ctx.trial())});
    if (!placed.ok()) return ErrorOutcome(std::string(placed.status().message()));
    const std::string log_path = *placed;
    const std::string log_dir = std::filesystem::path(log_path).parent_path().string();
    std::error_code ec;
    std::filesystem::create_directories(log_dir, ec);
    if (ec) return ErrorOutcome(absl::StrCat("cannot create ", log_dir, ": ", ec.message()));
    std::filesystem::path file_dir = std::filesystem::path(point.spec->loc.file).parent_path();
    if (file_dir.empty()) file_dir = ".";
    const std::string scenario_dir =
        std::filesystem::weakly_canonical(std::filesystem::absolute(file_dir), ec).string();

    std::map<std::string, std::string> values = {
        {"rank", absl::StrCat(ctx.rank())},
        {"nranks", absl::StrCat(ctx.nranks())},
        {"local_rank", absl::StrCat(ctx.local_rank())},
        {"device", absl::StrCat(device)},
        {"coordinator", coordinator},
        {"out", std::filesystem::absolute(log_dir).lexically_normal().string()},
        {"dir", scenario_dir},
    };
    for (const PointParam& p : point.params) {
      // Sizes and counts as plain numbers (a command wants 4096, not 4K).
      values[p.name] = std::holds_alternative<int64_t>(p.value)
                           ? absl::StrCat(std::get<int64_t>(p.value))
                           : FormatParamValue(p.type, p.value);
    }

    ExecCommand command;
    ExecRules rules;
    absl::Status expanded = Expand(block, values, command, rules);
    if (!expanded.ok()) return ErrorOutcome(std::string(expanded.message()));
#if defined(GH_HAVE_CUDA)
    // The rank's GPU, unless the block chose itself.
    if (ctx.cuda() != nullptr) {
      bool named = false;
      for (const auto& [name, value] : command.env) named = named || name == "CUDA_VISIBLE_DEVICES";
      if (!named) command.env.emplace_back("CUDA_VISIBLE_DEVICES", VisibleDeviceFor(device));
    }
#endif
    if (command.workdir.empty()) command.workdir = scenario_dir;
    command.log_path = log_path;
    command.timeout = block.timeout.value_or(DefaultCommandTimeout(point.spec->timeout));

    // For repro scripts, before the stack dump's own variables join the command's; a failure to
    // write it costs the repro, not the point.
    (void)WriteExecCommandRecord(command, point.name, ctx.rank(), ctx.nranks(), coordinator, block.exit_status);
    ExecStackDump stacks(absl::StrCat(command.log_path, ".stacks"));
    if (absl::Status prepared = stacks.Prepare(command); !prepared.ok()) {
      return ErrorOutcome(std::string(prepared.message()));
    }
    ctx.SetStep("exec");
    absl::StatusOr<ExecEnd> end = RunExecCommand(command);
    if (!end.ok()) return ErrorOutcome(std::string(end.status().message()));
    ctx.SetStep("classify");
    RankOutcome outcome = ClassifyExecEnd(*end, ReadFile(command.log_path), rules);
    if (end->timed_out) stacks.Attach(command.log_path, outcome);
    outcome.metrics.push_back(Metric{"command_s", absl::ToDoubleSeconds(end->elapsed), "s"});
    return outcome;
  }

 private:
  static absl::Status Expand(const ExecBlock& block, const std::map<std::string, std::string>& values,
                             ExecCommand& command, ExecRules& rules) {
    for (const std::string& arg : block.argv) {
      absl::StatusOr<std::string> text = ExpandExecTemplate(arg, values);
      if (!text.ok()) return text.status();
      GH_RETURN_IF_ERROR(CheckEnvValue(*text));  // no NUL: execve would cut the argument there
      if (!text->empty() || arg.empty()) command.argv.push_back(*text);  // "{flags}" with no flags: gone
    }
    if (command.argv.empty()) return absl::InvalidArgumentError("exec.argv expands to nothing");
    for (const auto& [name, value] : block.env) {
      absl::StatusOr<std::string> text = ExpandExecTemplate(value, values);
      if (!text.ok()) return text.status();
      GH_RETURN_IF_ERROR(CheckEnvValue(*text));  // a parameter may bring a NUL
      if (!text->empty()) command.env.emplace_back(name, *text);  // "" leaves the inherited value
    }
    absl::StatusOr<std::string> workdir = ExpandExecTemplate(block.workdir, values);
    if (!workdir.ok()) return workdir.status();
    command.workdir = *workdir;
    for (size_t i = 0; i < block.pass.size(); ++i) {
      absl::StatusOr<std::string> text = ExpandExecTemplate(block.pass[i], values);
      if (!text.ok()) return text.status();
      GH_RETURN_IF_ERROR(rules.AddPass(absl::StrCat("exec.pass[", i, "]"), *text));
    }
    for (size_t i = 0; i < block.signatures.size(); ++i) {
      const ExecSignatureRule& rule = block.signatures[i];
      absl::StatusOr<std::string> text = ExpandExecTemplate(rule.regex, values);
      if (!text.ok()) return text.status();
      GH_RETURN_IF_ERROR(rules.AddSignature(absl::StrCat("exec.signatures[", i, "].regex"),
                                            rule.name, *text, rule.outcome));
    }
    for (size_t i = 0; i < block.skips.size(); ++i) {
      const ExecSkipRule& rule = block.skips[i];
      absl::StatusOr<std::string> regex = ExpandExecTemplate(rule.regex, values);
      if (!regex.ok()) return regex.status();
      absl::StatusOr<std::string> reason = ExpandExecTemplate(rule.reason, values);
      if (!reason.ok()) return reason.status();
      GH_RETURN_IF_ERROR(
          rules.AddSkip(absl::StrCat("exec.skip[", i, "]"), *regex, *std::move(reason)));
    }
    rules.exit_status = block.exit_status;
    rules.tail_lines = block.tail_lines;
    return absl::OkStatus();
  }

#if defined(GH_HAVE_CUDA)
  // The device ordinal as the child must name it: through an inherited CUDA_VISIBLE_DEVICES
  // list when there is one (ordinals index into it).
  static std::string VisibleDeviceFor(int device) {
    const char* inherited = std::getenv("CUDA_VISIBLE_DEVICES");
    if (inherited == nullptr || *inherited == '\0') return absl::StrCat(device);
    std::vector<std::string> ids;
    std::stringstream list(inherited);
    for (std::string id; std::getline(list, id, ',');) ids.push_back(id);
    if (device >= 0 && static_cast<size_t>(device) < ids.size()) return ids[device];
    return absl::StrCat(device);
  }
#endif
};

KindInfo DescribeExec() {
  KindInfo info;
  info.name = "exec";
  info.description =
      "Every rank runs the command of the scenario's exec: block (e.g. a framework repro) in "
      "its own process group, logs its output to DIR/logs/<point>/rank<r>.log, kills the group "
      "at the timeout, and classifies the end by the block's rules (skip lines, signature "
      "regexes, signal, exit status, required lines).";
  info.params =
      ParamsBuilder()
          .String("flags", "",
                  "free text for the command, as {flags} (e.g. XLA_FLAGS values); an axis of "
                  "flag sets")
          .String("variant", "",
                  "free text for the command, as {variant} (e.g. which algorithm or program)")
          .Bytes("size", 0, "a size for the command, as {size} (bytes, written 4096, 4K, 1M)")
          .Min(0)
          .Int("count", 0, "a number for the command, as {count} (e.g. elements per device)")
          .Build();
  info.backends = HostAndCudaBackends();
  info.ranks = RankRequirement{1, INT_MAX};
  info.block_key = "exec";
  info.read_block = ReadExecBlock;
  info.make = [] { return std::make_unique<Exec>(); };
  return info;
}

}  // namespace

GH_REGISTER_SCENARIO(exec, DescribeExec);

}  // namespace gh
