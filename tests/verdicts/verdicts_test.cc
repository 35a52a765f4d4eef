// Issue 15 items 2-5 and 13 against the real binary: verdicts only on what ran. A launcher that
// fails, a missing launcher and mpirun refusing root are infrastructure (exit 3, never a met
// `expect: crash`); a rank SIGKILLed from outside is a crash naming the rank and SIGKILL; a run
// cut short by a crash leaves what `gpuharness report` needs to say what never ran; an
// unwritable --out is exit 3 for every command.
#include <sys/mount.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/core/testdata/temp_dir.h"
#include "tests/common/shell_run.h"

namespace gh {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

namespace fs = std::filesystem;

using gh::testing::CommandRun;
using gh::testing::ShellWord;

// Runs a shell command line, stdin from /dev/null; stdout+stderr captured and echoed.
CommandRun Shell(const std::string& command) {
  CommandRun run = gh::testing::RunShell(command + " < /dev/null");
  std::printf("$ %s\n%s[exit %d]\n", command.c_str(), run.console.c_str(), run.exit_code);
  return run;
}

CommandRun Gpuharness(const std::string& args, const std::string& env_prefix = "") {
  // CI containers run as root, which Open MPI refuses unless told; an explicit setting wins.
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", /*overwrite=*/0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", /*overwrite=*/0);
  setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", /*overwrite=*/0);
  return Shell(env_prefix + ShellWord(GH_GPUHARNESS_BIN) + " " + args);
}

// `gpuharness sweep DIR/m.yaml --out DIR/out`, after `env_prefix` on the command line.
CommandRun SweepIn(const std::string& dir, const std::string& env_prefix = "") {
  return Gpuharness("sweep " + ShellWord(dir + "/m.yaml") + " --out " + ShellWord(dir + "/out"),
                    env_prefix);
}

std::string FreshDir(const std::string& name) {
  const std::string dir = gh::testing::FreshNamedTempDir("gh_verdicts_" + name);
  fs::create_directories(dir);
  return dir;
}

void Write(const std::string& path, const std::string& text) {
  ASSERT_TRUE(WriteFileAtomically(path, text).ok()) << path;
}

std::vector<Record> Records(const std::string& path) {
  absl::StatusOr<RecordsFileContents> c = ReadRecordsFile(path);
  EXPECT_TRUE(c.ok()) << c.status();
  if (!c.ok()) return {};
  EXPECT_EQ(c->torn_lines, 0);
  return c->records;
}

// Two ring_shift points on the host backend, both expected to crash: a sweep in which nothing
// ran must not meet that.
constexpr char kExpectCrash[] =
    "name: ring\nkind: ring_shift\nparams: {bytes: [4K, 8K], transport: mpi_p2p}\n"
    "timeout: 30s\nwarmup: 0\niterations: 1\nexpect: crash\n";

std::string Matrix(const std::string& launcher) {
  return "name: infra\nscenarios: [s.yaml]\ndefaults: {backend: host, ranks: 2, timeout: 60s, "
         "launcher: " + launcher + "}\n";
}

// kExpectCrash swept in `dir` with `launcher` (after `env_prefix` on the command line): every
// record is infra with `signature`, unmet; the sweep exits 3 and its headline says infra.
void ExpectSweepIsAllInfra(const std::string& dir, const std::string& launcher,
                           const std::string& signature, const std::string& env_prefix = "") {
  Write(dir + "/s.yaml", kExpectCrash);
  Write(dir + "/m.yaml", Matrix(launcher));
  const CommandRun sweep = SweepIn(dir, env_prefix);
  const std::string out = dir + "/out";
  EXPECT_EQ(sweep.exit_code, 3) << "nothing ran: infrastructure, not a verdict";
  EXPECT_THAT(sweep.console, HasSubstr("2 points (2 trials): 2 infra; 2 unmet expectations"));
  // The console says the outcome once: "infra: <cause>", where the record says "infrastructure: <cause>".
  EXPECT_THAT(sweep.console, HasSubstr("infra: " + signature.substr(std::string("infrastructure: ").size())))
      << "the cell's line quotes the launcher";
  std::vector<Record> records = Records(out + "/records.jsonl");
  ASSERT_EQ(records.size(), 2u);
  for (const Record& r : records) {
    EXPECT_EQ(r.result.outcome, Outcome::kInfra) << r.point;
    EXPECT_EQ(r.result.signature, signature) << r.point;
    EXPECT_EQ(r.expected.outcome, Outcome::kCrash);
    EXPECT_FALSE(r.matched);
  }
  const std::string junit = ReadFileToString(out + "/junit.xml").value_or("");
  EXPECT_THAT(junit, HasSubstr("errors=\"2\""));
  // The launcher's words once, not "not run (infrastructure): infrastructure: ...".
  EXPECT_THAT(junit, HasSubstr("<error message=\"not run (infrastructure): "));
  EXPECT_THAT(junit, Not(HasSubstr("not run (infrastructure): infrastructure: ")));
}

// Issue 15 item 2: `false` as the launcher. Before: two `crash` records meeting `expect: crash`,
// exit 0 with "0 unmet".
TEST(VerdictsE2E, ALauncherThatExitsAtOnceIsInfraAndCannotPass) {
  const std::string dir = FreshDir("false_launcher");
  Write(dir + "/false.yaml", "name: false\nargv: [\"false\", \"{program}\", \"{args}\"]\n");
  ExpectSweepIsAllInfra(dir, "false.yaml",
                        "infrastructure: job ended before recording anything (empty log) (job "
                        "exited with status 1) (on all 3 attempts)");
}

// Issue 15 item 3: a launcher program that does not exist.
TEST(VerdictsE2E, AMissingLauncherIsInfraQuotingWhyItCannotExecute) {
  const std::string dir = FreshDir("missing_launcher");
  Write(dir + "/gone.yaml",
        "name: gone\nargv: [\"/nonexistent/gh-mpirun\", \"{program}\", \"{args}\"]\n");
  ExpectSweepIsAllInfra(dir, "gone.yaml",
                        "infrastructure: gpuharness: cannot execute '/nonexistent/gh-mpirun': "
                        "No such file or directory (job exited with status 127) (on all 3 attempts)");
}

// Issue 15 item 3: the real mpirun refusing to run as root (without OMPI_ALLOW_RUN_AS_ROOT).
TEST(VerdictsE2E, MpirunRefusingRootIsInfraQuotingMpirun) {
  if (geteuid() != 0) GTEST_SKIP() << "mpirun refuses only root";
  const std::string dir = FreshDir("mpirun_root");
  ExpectSweepIsAllInfra(dir, "mpirun",
                        "infrastructure: mpirun has detected an attempt to run as root. (job "
                        "exited with status 1) (on all 3 attempts)",
                        "env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM ");
}

// Issue 15 item 4: rank 1 SIGKILLed from outside (as the OOM killer does) in the first point:
// the record names rank 1 and SIGKILL (mpirun's line), not "killed by SIGTERM"; the next point
// runs in a continuation and passes.
TEST(VerdictsE2E, ARankKilledFromOutsideIsACrashNamingTheRankAndSigkill) {
  const std::string dir = FreshDir("sigkill");
  Write(dir + "/s.yaml",
        "name: oom\nkind: exec\nranks: {min: 2}\ntimeout: 60s\n"
        "params: {variant: [kill, calm]}\n"
        "exec:\n"
        // The command runs under the process seam's keeper: the rank is its parent's parent.
        "  argv: [sh, -c, 'if [ {variant} = kill ] && [ {rank} = 1 ]; then read -r _ _ _ rank _ < /proc/$PPID/stat; kill -KILL $rank; sleep 30; fi']\n"
        "expect:\n"
        "  - when: {variant: kill}\n"
        "    outcome: crash\n"
        "    signature: '^crash: rank 1 killed by SIGKILL \\(job exited with status [0-9]+\\)$'\n"
        "  - pass\n");
  Write(dir + "/m.yaml", "name: oom\nscenarios: [s.yaml]\n"
                         "defaults: {backend: host, ranks: 2, timeout: 120s, launcher: mpirun}\n");
  CommandRun sweep = SweepIn(dir);
  EXPECT_EQ(sweep.exit_code, 0) << "the kill was expected by rank and signal, the calm point passes";
  std::map<std::string, Record> by_variant;
  for (Record& r : Records(dir + "/out/records.jsonl")) by_variant[r.params.value("variant", "?")] = r;
  ASSERT_EQ(by_variant.size(), 2u);
  const Record& killed = by_variant["kill"];
  EXPECT_EQ(killed.result.outcome, Outcome::kCrash);
  EXPECT_THAT(killed.result.signature, ::testing::MatchesRegex(
                                           "crash: rank 1 killed by SIGKILL \\(job exited with status [0-9]+\\)"));
  EXPECT_TRUE(killed.matched);
  ASSERT_EQ(killed.result.ranks.size(), 2u);
  EXPECT_EQ(killed.result.ranks[1].signature, "killed by SIGKILL (as mpirun reported)");
  EXPECT_EQ(by_variant["calm"].result.outcome, Outcome::kPass);
}

// Issue 15 item 5: `gpuharness run` alone, crashing in its second of four runs. It dies by the
// signal (139), leaving the crash record and planned.runs; `gpuharness report DIR` then writes
// junit.xml from what was recorded and says 2 of 4 planned runs never ran.
TEST(VerdictsE2E, ARunCutShortByACrashLeavesWhatReportNeeds) {
  const std::string dir = FreshDir("run_crash");
  Write(dir + "/s.yaml",
        "name: ring\nkind: ring_shift\nparams: {bytes: [4K, 8K], fault: [none, crash], "
        "fault_rank: 0, transport: mpi_p2p}\ntimeout: 30s\nwarmup: 0\niterations: 1\n");
  const std::string out = dir + "/out";
  CommandRun run = Gpuharness("run " + ShellWord(dir + "/s.yaml") + " --backend host --out " + ShellWord(out));
  EXPECT_EQ(run.exit_code, 139) << "the process dies of SIGSEGV: a shell shows 128 + 11";
  std::vector<Record> records = Records(out + "/records.jsonl");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].result.outcome, Outcome::kPass);
  EXPECT_EQ(records[1].result.outcome, Outcome::kCrash);
  EXPECT_EQ(ReadFileToString(out + "/planned.runs").value_or(""),
            "ring/bytes=4K/transport=mpi_p2p/fault=none/fault_rank=0/np=1\t0\n"
            "ring/bytes=4K/transport=mpi_p2p/fault=crash/fault_rank=0/np=1\t0\n"
            "ring/bytes=8K/transport=mpi_p2p/fault=none/fault_rank=0/np=1\t0\n"
            "ring/bytes=8K/transport=mpi_p2p/fault=crash/fault_rank=0/np=1\t0\n");
  EXPECT_FALSE(fs::exists(out + "/junit.xml")) << "rank 0 died with the job";
  CommandRun report = Gpuharness("report " + ShellWord(out));
  EXPECT_EQ(report.exit_code, 1) << "the crash was not expected";
  EXPECT_THAT(report.console,
              HasSubstr("2 of 4 planned runs never ran (the job ended before them; the plan is " +
                        out + "/planned.runs)"));
  const std::string junit = ReadFileToString(out + "/junit.xml").value_or("");
  EXPECT_THAT(junit, HasSubstr("tests=\"2\" failures=\"1\""));
  // A run that finished says nothing of the kind.
  const std::string whole = dir + "/whole";
  Write(dir + "/ok.yaml", "name: ok\nkind: ring_shift\nparams: {bytes: 4K, transport: mpi_p2p}\n"
                          "timeout: 30s\nwarmup: 0\niterations: 1\n");
  ASSERT_EQ(Gpuharness("run " + ShellWord(dir + "/ok.yaml") + " --backend host --out " + ShellWord(whole)).exit_code, 0);
  CommandRun clean = Gpuharness("report " + ShellWord(whole));
  EXPECT_EQ(clean.exit_code, 0);
  EXPECT_THAT(clean.console, Not(HasSubstr("never ran")));
}

// The bisect matrix (two versions) and the minimize matrix (two cells), nothing to set up.
constexpr char kBisectMatrix[] =
    "name: probe\nscenarios: [s.yaml]\ndefaults: {backend: host, ranks: 1, timeout: 60s, launcher: direct}\n"
    "versions:\n  name: version\n  values:\n    - {label: v1}\n    - {label: v2}\n";
constexpr char kMinimizeMatrix[] =
    "name: probe\nscenarios: [s.yaml]\ndefaults: {backend: host, ranks: 1, timeout: 60s, launcher: direct}\n"
    "axes:\n  - name: proto\n    values:\n      - {label: a, env: {GH_VERDICTS_X: a}}\n"
    "      - {label: b, env: {GH_VERDICTS_X: b}}\n"
    "versions:\n  name: version\n  values:\n    - {label: v1}\n";

constexpr char kPassing[] =
    "name: ring\nkind: ring_shift\nparams: {bytes: 4K, transport: mpi_p2p}\n"
    "timeout: 30s\nwarmup: 0\niterations: 1\n";

// Issue 15 item 13: an --out that cannot be written (/proc takes no new directories, even from
// root) is exit 3 with "not writable" for every command, as the README says.
TEST(VerdictsE2E, AnUnwritableOutExitsThreeForEveryCommand) {
  const std::string dir = FreshDir("unwritable");
  Write(dir + "/s.yaml", kPassing);
  Write(dir + "/m.yaml", "name: one\nscenarios: [s.yaml]\n"
                         "defaults: {backend: host, ranks: 1, timeout: 60s, launcher: direct}\n");
  Write(dir + "/bisect.yaml", kBisectMatrix);
  Write(dir + "/minimize.yaml", kMinimizeMatrix);
  const std::string bad = "/proc/gh_verdicts_no_such/out";
  ASSERT_EQ(Gpuharness("run " + ShellWord(dir + "/s.yaml") + " --backend host --out " + ShellWord(dir + "/ran")).exit_code, 0);
  const std::map<std::string, std::string> commands = {
      {"run", "run " + ShellWord(dir + "/s.yaml") + " --backend host --out " + bad},
      {"sweep", "sweep " + ShellWord(dir + "/m.yaml") + " --out " + bad},
      {"bisect", "bisect " + ShellWord(dir + "/bisect.yaml") + " --good v1 --bad v2 --out " + bad},
      {"minimize", "minimize " + ShellWord(dir + "/minimize.yaml") +
                       " --failing proto=a --passing proto=b --out " + bad},
      {"report", "report " + ShellWord(dir + "/ran") + " --out " + bad},
  };
  for (const auto& [name, args] : commands) {
    CommandRun run = Gpuharness(args);
    EXPECT_EQ(run.exit_code, 3) << name;
    EXPECT_THAT(run.console, HasSubstr("/proc/gh_verdicts_no_such")) << name;
    EXPECT_THAT(run.console, name == "run" ? HasSubstr("cannot write results to") : HasSubstr("not writable"))
        << name;
  }
}

// Issue 15 item 13: an existing DIR on a read-only mount says it is not writable, not "another
// sweep is running there". Needs a bind mount (root with CAP_SYS_ADMIN); skips elsewhere.
TEST(VerdictsE2E, AnExistingDirOnAReadOnlyMountSaysNotWritable) {
  const std::string dir = FreshDir("read_only");
  Write(dir + "/s.yaml", kPassing);
  Write(dir + "/m.yaml", "name: one\nscenarios: [s.yaml]\n"
                         "defaults: {backend: host, ranks: 1, timeout: 60s, launcher: direct}\n");
  const std::string ro = dir + "/ro";
  ASSERT_EQ(Gpuharness("run " + ShellWord(dir + "/s.yaml") + " --backend host --out " + ShellWord(ro)).exit_code, 0);
  if (mount(ro.c_str(), ro.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    GTEST_SKIP() << "cannot bind-mount here (needs CAP_SYS_ADMIN)";
  }
  struct Unmount {
    std::string path;
    ~Unmount() { umount(path.c_str()); }
  } unmount{ro};
  ASSERT_EQ(mount(ro.c_str(), ro.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr), 0);
  CommandRun sweep = Gpuharness("sweep " + ShellWord(dir + "/m.yaml") + " --out " + ShellWord(ro));
  EXPECT_EQ(sweep.exit_code, 3);
  EXPECT_THAT(sweep.console, HasSubstr("--out " + ro + ": not writable: Read-only file system"));
  EXPECT_THAT(sweep.console, Not(HasSubstr("another sweep")));
  CommandRun report = Gpuharness("report " + ShellWord(ro));
  EXPECT_EQ(report.exit_code, 3);
  EXPECT_THAT(report.console, HasSubstr(ro + ": not writable: Read-only file system"));
  CommandRun run = Gpuharness("run " + ShellWord(dir + "/s.yaml") + " --backend host --out " + ShellWord(ro));
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_THAT(run.console, HasSubstr("Read-only file system"));
}

// A bisect whose end cannot run at all (mpirun refusing root on every attempt; a set-up that
// fails) has no verdict on the code: exit 3, as a sweep of it, not 1 "no answer".
TEST(VerdictsE2E, ABisectWhoseEndCannotRunIsInfrastructure) {
  const std::string dir = FreshDir("bisect_end_cannot_run");
  Write(dir + "/s.yaml", "name: s\nkind: exec\ntimeout: 30s\nexec:\n  argv: [\"true\"]\nexpect: pass\n");
  Write(dir + "/m.yaml",
        "name: ends\nscenarios: [s.yaml]\ndefaults: {backend: host, ranks: 1, timeout: 60s}\n"
        "versions:\n  values:\n    - {label: v1}\n    - {label: v2}\n    - {label: v3, setup: \"exit 7\"}\n");
  if (geteuid() == 0) {
    const CommandRun refused = Gpuharness("bisect " + ShellWord(dir + "/m.yaml") +
                                              " --good v1 --bad v2 --max-trials 1 --out " + ShellWord(dir + "/out1"),
                                          "env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM ");
    EXPECT_EQ(refused.exit_code, 3) << "mpirun refused every attempt: no verdict";
    EXPECT_THAT(refused.console, HasSubstr("mpirun has detected an attempt to run as root"));
  }
  const CommandRun unset = Gpuharness("bisect " + ShellWord(dir + "/m.yaml") +
                                      " --good v1 --bad v3 --max-trials 1 --out " + ShellWord(dir + "/out2"));
  EXPECT_EQ(unset.exit_code, 3) << "the bad end's set-up failed: no verdict";
  EXPECT_THAT(unset.console, HasSubstr("no answer"));
}

// An --out that names a file is a directory that cannot be written: exit 3, not bad input.
TEST(VerdictsE2E, ABisectIntoAFileIsInfrastructure) {
  const std::string dir = FreshDir("bisect_out_file");
  Write(dir + "/s.yaml", "name: s\nkind: exec\ntimeout: 30s\nexec:\n  argv: [\"true\"]\nexpect: pass\n");
  Write(dir + "/m.yaml", "name: ends\nscenarios: [s.yaml]\ndefaults: {backend: host, ranks: 1}\n"
                         "versions:\n  values: [{label: v1}, {label: v2}]\n");
  Write(dir + "/afile", "not a directory\n");
  const CommandRun run = Gpuharness("bisect " + ShellWord(dir + "/m.yaml") + " --good v1 --bad v2 --out " +
                                    ShellWord(dir + "/afile"));
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_THAT(run.console, HasSubstr("--out " + dir + "/afile: not writable"));
  EXPECT_EQ(ReadFileToString(dir + "/afile").value_or(""), "not a directory\n");
}

}  // namespace
}  // namespace gh
