#include "harness/driver/launcher.h"

#include <stdlib.h>

#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"

namespace gh::driver {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// GH_DATA_DIR set for one test's span (core/shipped_data.h): no shipped launchers at "/nonexistent".
class ScopedDataDir {
 public:
  explicit ScopedDataDir(const std::string& dir) {
    if (const char* old = getenv("GH_DATA_DIR")) old_ = old;
    setenv("GH_DATA_DIR", dir.c_str(), 1);
  }
  ~ScopedDataDir() {
    if (old_) {
      setenv("GH_DATA_DIR", old_->c_str(), 1);
    } else {
      unsetenv("GH_DATA_DIR");
    }
  }

 private:
  std::optional<std::string> old_;
};

TEST(LauncherTest, MpirunExpandsEnvFlagsArgsAndPrefix) {
  ScopedDataDir no_shipped_launchers("/nonexistent");
  absl::StatusOr<LauncherSpec> spec = ResolveLauncher("mpirun", "/nonexistent");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->source, "builtin:mpirun");
  LaunchInputs in;
  in.ranks = 4;
  in.program = "/bin/gpuharness";
  in.args = {"run", "a.yaml", "--out", "/o"};
  in.env_names = {"NCCL_PROTO", "CUDA_VISIBLE_DEVICES"};
  in.prefix = {"enroot", "start", "img"};
  absl::StatusOr<std::vector<std::string>> argv = ExpandLauncherArgv(*spec, in);
  ASSERT_TRUE(argv.ok()) << argv.status();
  EXPECT_THAT(*argv, ElementsAre("enroot", "start", "img", "mpirun", "--oversubscribe", "-np", "4",
                                 "-x", "NCCL_PROTO", "-x", "CUDA_VISIBLE_DEVICES",
                                 "/bin/gpuharness", "run", "a.yaml", "--out", "/o"));
}

TEST(LauncherTest, SrunAndDirect) {
  LaunchInputs in;
  in.ranks = 2;
  in.program = "/p";
  in.args = {"run", "x"};
  in.env_names = {"A"};
  absl::StatusOr<LauncherSpec> srun = ResolveLauncher("srun", "/nonexistent");
  ASSERT_TRUE(srun.ok());
  EXPECT_THAT(*ExpandLauncherArgv(*srun, in),
              ElementsAre("srun", "-n", "2", "--mpi=pmix", "-O", "/p", "run", "x"));
  absl::StatusOr<LauncherSpec> direct = ResolveLauncher("direct", "/nonexistent");
  ASSERT_TRUE(direct.ok());
  absl::StatusOr<std::vector<std::string>> too_many = ExpandLauncherArgv(*direct, in);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(std::string(too_many.status().message()),
            "launcher 'direct' runs at most 1 rank(s), the cell needs 2");
  in.ranks = 1;
  EXPECT_THAT(*ExpandLauncherArgv(*direct, in), ElementsAre("/p", "run", "x"));
}

// The source tree's root, from this file's path (CMake compiles it by absolute path).
std::string SourceRoot() {
  std::string file = __FILE__;
  return file.substr(0, file.rfind("/harness/driver/"));
}

// The compiled-in launchers are the shipped files, byte for byte.
TEST(LauncherTest, BuiltinsMatchShippedFiles) {
  for (const std::string& name : BuiltinLauncherNames()) {
    absl::StatusOr<std::string> file =
        ReadFileToString(SourceRoot() + "/launchers/" + name + ".yaml");
    ASSERT_TRUE(file.ok()) << name << ": " << file.status();
    EXPECT_EQ(*file, *BuiltinLauncherText(name)) << name;
  }
}

// Writes DIR/launchers/NAME.yaml holding `text`, as a matrix's folder or an install keeps one.
void WriteLauncherFile(const std::string& dir, const std::string& name, const std::string& text) {
  ASSERT_TRUE(MakeDirectories(dir + "/launchers").ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/launchers/" + name + ".yaml", text).ok());
}

TEST(LauncherTest, FileBesideTheMatrixWinsOverBuiltin) {
  std::string dir = ::testing::TempDir() + "/launcher_test_dir";
  ASSERT_NO_FATAL_FAILURE(WriteLauncherFile(dir, "mpirun", "name: mine\nargv: [wrap, '{program}', '{args}']\n"));
  absl::StatusOr<LauncherSpec> spec = ResolveLauncher("mpirun", dir);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name, "mine");
  absl::StatusOr<LauncherSpec> by_path = ResolveLauncher("launchers/mpirun.yaml", dir);
  ASSERT_TRUE(by_path.ok()) << by_path.status();
  EXPECT_EQ(by_path->source, dir + "/launchers/mpirun.yaml");
}

// An installed prefix's share/gpuharness/launchers/srun.yaml (a site's own srun line) serves a
// matrix anywhere, before the compiled-in copy; one beside the matrix still wins.
TEST(LauncherTest, ShippedLauncherWinsOverBuiltinAndLosesToTheMatrixsOwn) {
  const std::string data = ::testing::TempDir() + "/launcher_test_data";
  ASSERT_NO_FATAL_FAILURE(
      WriteLauncherFile(data, "srun", "name: site_srun\nargv: [srun, --mpi=pmix_v4, '{program}', '{args}']\n"));
  ScopedDataDir shipped(data);
  absl::StatusOr<LauncherSpec> spec = ResolveLauncher("srun", "/nonexistent");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name, "site_srun");
  EXPECT_EQ(spec->source, data + "/launchers/srun.yaml");
  absl::StatusOr<LauncherSpec> builtin = ResolveLauncher("direct", "/nonexistent");
  ASSERT_TRUE(builtin.ok()) << builtin.status();
  EXPECT_EQ(builtin->source, "builtin:direct");
  const std::string matrix_dir = ::testing::TempDir() + "/launcher_test_matrix";
  ASSERT_NO_FATAL_FAILURE(
      WriteLauncherFile(matrix_dir, "srun", "name: matrix_srun\nargv: [srun, '{program}', '{args}']\n"));
  absl::StatusOr<LauncherSpec> own = ResolveLauncher("srun", matrix_dir);
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_EQ(own->name, "matrix_srun");
}

TEST(LauncherTest, Errors) {
  EXPECT_EQ(std::string(LoadLauncherText("name: x\nargv: [a, '{prog}']\n", "l.yaml").status().message()),
            "l.yaml:2:7: argv: unknown placeholder {prog} in '{prog}'");
  EXPECT_EQ(std::string(LoadLauncherText("name: x\nargv: [a, b]\n", "l.yaml").status().message()),
            "l.yaml:2:7: argv: must contain {program}");
  EXPECT_EQ(std::string(LoadLauncherText("name: x\n", "l.yaml").status().message()),
            "l.yaml:1:1: argv: missing required key (a non-empty list)");
  EXPECT_THAT(std::string(LoadLauncherText("name: x\nargv: ['{program}']\nshell: yes\n", "l.yaml")
                              .status()
                              .message()),
              HasSubstr("l.yaml:3:1: shell: unknown key"));
  EXPECT_EQ(std::string(LoadLauncherText("name: x\nargv: ['{program}']\nmax_rank: 1\n", "l.yaml")
                            .status()
                            .message()),
            "l.yaml:3:1: max_rank: unknown key; did you mean max_ranks?");
  EXPECT_EQ(std::string(LoadLauncherText("nme: x\nargv: ['{program}']\n", "l.yaml")
                            .status()
                            .message()),
            "l.yaml:1:1: nme: unknown key; did you mean name?");
  absl::StatusOr<LauncherSpec> unknown = ResolveLauncher("pbs", "/nonexistent");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("launcher 'pbs': no launchers/pbs.yaml"));
}

TEST(LauncherTest, SlurmStepArgsGoRightAfterSrun) {
  absl::StatusOr<LauncherSpec> srun = ResolveLauncher("srun", "/nonexistent");
  ASSERT_TRUE(srun.ok()) << srun.status();
  LaunchInputs in;
  in.ranks = 3;
  in.program = "/bin/gpuharness";
  in.args = {"run", "a.yaml"};
  in.prefix = {"enroot", "start"};
  in.step_args = {"--exact", "-N", "1", "-w", "n1,n1,n1", "--distribution=arbitrary"};
  absl::StatusOr<std::vector<std::string>> argv = ExpandLauncherArgv(*srun, in);
  ASSERT_TRUE(argv.ok()) << argv.status();
  EXPECT_THAT(*argv, ElementsAre("enroot", "start", "srun", "--exact", "-N", "1", "-w", "n1,n1,n1",
                                 "--distribution=arbitrary", "-n", "3", "--mpi=pmix", "-O",
                                 "/bin/gpuharness", "run", "a.yaml"));
  absl::StatusOr<LauncherSpec> mpirun = ResolveLauncher("mpirun", "/nonexistent");
  ASSERT_TRUE(mpirun.ok());
  absl::StatusOr<std::vector<std::string>> refused = ExpandLauncherArgv(*mpirun, in);
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status()));
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("launcher 'mpirun' does not start with srun: it cannot run a Slurm job step"));
}

}  // namespace
}  // namespace gh::driver
