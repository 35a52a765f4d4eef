#include "harness/driver/launcher.h"

#include <sys/stat.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "harness/core/file_util.h"
#include "harness/core/shipped_data.h"
#include "harness/core/yaml_fields.h"

namespace gh::driver {
namespace {

// Kept identical to launchers/*.yaml (a unit test compares them).
constexpr char kMpirun[] = R"(# Open MPI's mpirun: every variable the cell sets is exported to the ranks with -x.
name: mpirun
argv: [mpirun, --oversubscribe, -np, "{ranks}", "{env_flags}", "{program}", "{args}"]
env_flag: ["-x", "{name}"]
)";
constexpr char kSrun[] = R"(# Slurm's srun with PMIx; the environment is inherited by the tasks. -O lets more tasks
# than CPUs run on a node (overcommit), as the host backend needs on small machines.
name: srun
argv: [srun, -n, "{ranks}", --mpi=pmix, -O, "{program}", "{args}"]
)";
constexpr char kDirect[] = R"(# The program started as is: one process, one rank (a singleton MPI job).
name: direct
argv: ["{program}", "{args}"]
max_ranks: 1
)";

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

absl::Status CheckPlaceholders(const std::vector<std::string>& items,
                               const std::vector<std::string>& allowed) {
  for (const std::string& item : items) {
    size_t pos = 0;
    while ((pos = item.find('{', pos)) != std::string::npos) {
      size_t end = item.find('}', pos);
      if (end == std::string::npos) break;
      std::string name = item.substr(pos, end - pos + 1);
      bool ok = false;
      for (const std::string& a : allowed) ok = ok || a == name;
      if (!ok) {
        return absl::InvalidArgumentError(
            absl::StrCat("unknown placeholder ", name, " in '", item, "'"));
      }
      pos = end + 1;
    }
  }
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>& BuiltinLauncherNames() {
  static const std::vector<std::string> names = {"direct", "mpirun", "srun"};
  return names;
}

absl::StatusOr<std::string> BuiltinLauncherText(const std::string& name) {
  if (name == "mpirun") return std::string(kMpirun);
  if (name == "srun") return std::string(kSrun);
  if (name == "direct") return std::string(kDirect);
  return absl::NotFoundError(absl::StrCat("no builtin launcher '", name, "'"));
}

absl::StatusOr<LauncherSpec> LoadLauncherText(const std::string& text,
                                              const std::string& display_name) {
  absl::StatusOr<std::vector<YAML::Node>> docs = ParseYamlDocuments(text, display_name);
  if (!docs.ok()) return docs.status();
  if (docs->size() != 1) {
    return YamlError(SourceLoc{display_name, 1, 1}, "(document)",
                     "a launcher file holds exactly one YAML document");
  }
  absl::StatusOr<YamlMap> map = YamlMap::Of(YamlDoc(display_name), (*docs)[0], "",
                                                  {"name", "argv", "env_flag", "max_ranks"});
  if (!map.ok()) return map.status();
  LauncherSpec spec;
  spec.source = display_name;
  absl::StatusOr<std::string> name = map->String("name", true);
  if (!name.ok()) return name.status();
  spec.name = *name;
  SourceLoc argv_loc = map->LocOfKey("argv");
  absl::StatusOr<std::vector<std::string>> argv = map->StringList("argv");
  if (!argv.ok()) return argv.status();
  if (argv->empty()) return YamlError(map->Loc(), "argv", "missing required key (a non-empty list)");
  spec.argv = *argv;
  SourceLoc env_loc = map->LocOfKey("env_flag");
  absl::StatusOr<std::vector<std::string>> env_flag = map->StringList("env_flag");
  if (!env_flag.ok()) return env_flag.status();
  spec.env_flag = *env_flag;
  if (map->Has("max_ranks")) {
    absl::StatusOr<int64_t> max_ranks = map->Int("max_ranks", 1, 1 << 20);
    if (!max_ranks.ok()) return max_ranks.status();
    spec.max_ranks = static_cast<int>(*max_ranks);
  }
  absl::Status st = map->Finish();
  if (!st.ok()) return st;
  st = CheckPlaceholders(spec.argv,
                         {"{ranks}", "{program}", "{args}", "{env_flags}"});
  if (!st.ok()) return YamlError(argv_loc, "argv", std::string(st.message()));
  st = CheckPlaceholders(spec.env_flag, {"{name}"});
  if (!st.ok()) return YamlError(env_loc, "env_flag", std::string(st.message()));
  bool has_program = false;
  for (const std::string& a : spec.argv) has_program = has_program || absl::StrContains(a, "{program}");
  if (!has_program) return YamlError(argv_loc, "argv", "must contain {program}");
  return spec;
}

absl::StatusOr<LauncherSpec> ResolveLauncher(const std::string& value,
                                             const std::string& matrix_dir) {
  if (absl::StrContains(value, "/") || absl::EndsWith(value, ".yaml")) {
    std::string path = value[0] == '/' ? value : absl::StrCat(matrix_dir, "/", value);
    absl::StatusOr<std::string> text = ReadFileToString(path);
    if (!text.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("launcher '", value, "': cannot read ", path));
    }
    return LoadLauncherText(*text, path);
  }
  for (const std::string& dir :
       {absl::StrCat(matrix_dir, "/../launchers"), absl::StrCat(matrix_dir, "/launchers")}) {
    std::string path = absl::StrCat(dir, "/", value, ".yaml");
    if (IsFile(path)) {
      absl::StatusOr<std::string> text = ReadFileToString(path);
      if (!text.ok()) return text.status();
      return LoadLauncherText(*text, path);
    }
  }
  // Installed (or built) launchers/ beside the binary, then the compiled-in copies.
  if (const std::string shipped = ResolveShippedFile(ShippedKind::kLauncher, value); shipped != value) {
    absl::StatusOr<std::string> text = ReadFileToString(shipped);
    if (!text.ok()) return text.status();
    return LoadLauncherText(*text, shipped);
  }
  absl::StatusOr<std::string> builtin = BuiltinLauncherText(value);
  if (!builtin.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "launcher '", value, "': no launchers/", value,
        ".yaml beside the matrix and no builtin of that name (builtins: direct, mpirun, srun)"));
  }
  return LoadLauncherText(*builtin, absl::StrCat("builtin:", value));
}

absl::StatusOr<std::vector<std::string>> ExpandLauncherArgv(const LauncherSpec& launcher,
                                                            const LaunchInputs& inputs) {
  if (launcher.max_ranks && inputs.ranks > *launcher.max_ranks) {
    return absl::InvalidArgumentError(absl::StrCat("launcher '", launcher.name, "' runs at most ",
                                                   *launcher.max_ranks, " rank(s), the cell needs ",
                                                   inputs.ranks));
  }
  if (!inputs.step_args.empty() && launcher.argv.front() != "srun") {
    return absl::InvalidArgumentError(absl::StrCat(
        "launcher '", launcher.name, "' does not start with srun: it cannot run a Slurm job step"));
  }
  std::vector<std::string> out = inputs.prefix;
  std::string ranks = absl::StrCat(inputs.ranks);
  for (const std::string& item : launcher.argv) {
    if (&item == &launcher.argv[1] && !inputs.step_args.empty()) {
      out.insert(out.end(), inputs.step_args.begin(), inputs.step_args.end());
    }
    if (item == "{args}") {
      out.insert(out.end(), inputs.args.begin(), inputs.args.end());
    } else if (item == "{env_flags}") {
      for (const std::string& name : inputs.env_names) {
        for (const std::string& t : launcher.env_flag) {
          out.push_back(absl::StrReplaceAll(t, {{"{name}", name}}));
        }
      }
    } else {
      out.push_back(absl::StrReplaceAll(item, {{"{ranks}", ranks}, {"{program}", inputs.program}}));
    }
  }
  return out;
}

}  // namespace gh::driver
