// Fault tests (label "faults"): the driver and single ranks killed at pseudo-random moments
// (the seed is printed; GH_FAULT_SEED replays one), then rerun to completion, asserting from
// records.jsonl and the process table that every planned run is recorded exactly once, that no
// gpuharness or mpirun process is left, and that no verdict is made up for a run that did not
// happen. Also: two bisects into one DIR, a stopped bisect that resumes to the same answer, and
// a version list command that is stopped, capped and timed out.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/testdata/temp_dir.h"
#include "nlohmann/json.hpp"
#include "tests/common/shell_run.h"

extern char** environ;

namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;
using gh::testing::ReadWholeFile;

std::string FreshDir(const std::string& name) {
  const std::string dir = gh::testing::FreshNamedTempDir("faults_" + name);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string Data(const std::string& file) { return std::string(GH_FAULTS_DIR) + "/" + file; }

// ARGV (argv[0] a path) in the background, stdout and stderr into `log`.
pid_t SpawnProgram(std::vector<std::string> argv, const std::string& log) {
  std::vector<char*> c;
  for (std::string& a : argv) c.push_back(a.data());
  c.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, c[0], &actions, nullptr, c.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0) << "cannot start " << c[0];
  std::printf("$ %s  (pid %d, log %s)\n", [&] {
    std::string line;
    for (const std::string& a : argv) line += (line.empty() ? "" : " ") + a;
    return line;
  }().c_str(), pid, log.c_str());
  return pid;
}

// `gpuharness ARGS...` in the background, stdout and stderr into `log`.
pid_t Spawn(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> argv = {GH_GPUHARNESS_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return SpawnProgram(std::move(argv), log);
}

// The exit code (128 + N for signal N), or -1 when it is still running after `limit` (then it
// is killed).
int WaitExit(pid_t pid, double limit_s = 180) {
  const auto until = Clock::now() + std::chrono::duration<double>(limit_s);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool Exited(pid_t pid, int* code) {
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) != pid) return false;
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return true;
}

struct Proc {
  int pid = 0;
  int ppid = 0;
  std::vector<std::string> argv;
};

// Live processes (zombies excluded) whose command line mentions `dir`: the driver, mpirun and
// the ranks of a run into `dir` all do.
std::vector<Proc> ProcessesMentioning(const std::string& dir) {
  std::vector<Proc> found;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return found;
  while (dirent* e = readdir(proc)) {
    const int pid = std::atoi(e->d_name);
    if (pid <= 0 || pid == getpid()) continue;
    const std::string stat = ReadWholeFile("/proc/" + std::string(e->d_name) + "/stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] == 'Z') continue;
    const std::string cmdline = ReadWholeFile("/proc/" + std::string(e->d_name) + "/cmdline");
    if (cmdline.find(dir) == std::string::npos) continue;
    Proc p{pid, std::atoi(stat.c_str() + close + 4), {}};  // "pid (comm) S ppid ..."
    std::stringstream parts(cmdline);
    for (std::string arg; std::getline(parts, arg, '\0');) p.argv.push_back(arg);
    found.push_back(p);
  }
  closedir(proc);
  return found;
}

std::string Describe(const std::vector<Proc>& procs) {
  std::string text;
  for (const Proc& p : procs) {
    text += "  " + std::to_string(p.pid) + ":";
    for (const std::string& a : p.argv) text += " " + a;
    text += "\n";
  }
  return text;
}

// Waits up to `limit_s` for no process to mention `dir`; returns what is left.
std::vector<Proc> LeftoversAfter(const std::string& dir, double limit_s) {
  const auto until = Clock::now() + std::chrono::duration<double>(limit_s);
  std::vector<Proc> left = ProcessesMentioning(dir);
  while (!left.empty() && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = ProcessesMentioning(dir);
  }
  return left;
}

// The ranks of the sweep into `dir` now running: `gpuharness run ... --out DIR/...`. A rank's
// child between its fork and its exec has the rank's command line and environment too; it is
// not a rank, and its parent is.
std::vector<int> RankPids(const std::string& dir) {
  std::vector<Proc> runs;
  for (const Proc& p : ProcessesMentioning(dir)) {
    const bool harness = p.argv.size() > 1 && p.argv[0].size() >= 10 &&
                         p.argv[0].compare(p.argv[0].size() - 10, 10, "gpuharness") == 0;
    if (harness && p.argv[1] == "run") runs.push_back(p);
  }
  std::vector<int> ranks;
  for (const Proc& p : runs) {
    const bool forked = std::any_of(runs.begin(), runs.end(), [&](const Proc& q) { return q.pid == p.ppid; });
    if (!forked) ranks.push_back(p.pid);
  }
  return ranks;
}

int CountStoppedLeftovers(const std::string& log) {
  int stopped = 0;
  std::stringstream lines(ReadWholeFile(log));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("stopping ", 0) == 0) stopped += std::atoi(line.c_str() + 9);
  }
  return stopped;
}

uint32_t Seed() {
  const char* fixed = std::getenv("GH_FAULT_SEED");
  if (fixed != nullptr) return static_cast<uint32_t>(std::strtoul(fixed, nullptr, 10));
  return static_cast<uint32_t>(std::chrono::system_clock::now().time_since_epoch().count() % 1000000007);
}

// What the faults did and what they left, over all episodes.
struct Figures {
  int driver_sigkills = 0, driver_sigterms = 0, rank_sigkills = 0;
  int lost = 0, duplicated = 0, crashes = 0, made_up = 0;
  int orphans_seen = 0, orphans_survived = 0, stopped_by_reruns = 0, left = 0;
};

// Whether `pid` descends from `ancestor` (its parent chain in /proc reaches it).
bool DescendsFrom(int pid, int ancestor) {
  for (int hops = 0; pid > 1 && hops < 64; ++hops) {
    const std::string stat = ReadWholeFile("/proc/" + std::to_string(pid) + "/stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) return false;
    std::istringstream rest(stat.substr(close + 2));
    std::string state;
    int parent = 0;
    rest >> state >> parent;
    if (parent == ancestor) return true;
    pid = parent;
  }
  return false;
}

// One fault against a sweep into `out`: SIGKILL (40%) or SIGTERM (30%) to the driver, or
// SIGKILL to one of its ranks (30%), at a random moment. Returns false when the sweep finished
// before the fault (nothing left to break in this DIR).
bool OneFault(const std::vector<std::string>& sweep, const std::string& out, const std::string& log,
              std::mt19937& rng, Figures& f) {
  const std::vector<Proc> before = ProcessesMentioning(out);
  f.orphans_seen += static_cast<int>(before.size());
  pid_t driver = Spawn(sweep, log);
  std::vector<std::string> driver_argv = {GH_GPUHARNESS_BIN};
  driver_argv.insert(driver_argv.end(), sweep.begin(), sweep.end());
  // The rerun stops what an earlier driver left running before it starts anything: once its
  // first job runs (a new process other than the driver), none of those processes is alive.
  const auto started_by = Clock::now() + std::chrono::seconds(20);
  std::vector<Proc> now;
  for (bool job_started = false; !job_started && Clock::now() < started_by;) {
    now = ProcessesMentioning(out);
    for (const Proc& p : now) {
      bool known = p.pid == driver;
      for (const Proc& old : before) known = known || p.pid == old.pid;
      // A child an orphaned rank forks (trial isolation, a bounded command) is new too, but it is
      // not the rerun's job: only the new driver's descendants are. And only once they have
      // exec'd: until then a child (popen's shell for `nvidia-smi -L` while the driver counts
      // GPUs, before it stops anything) shows the driver's own command line (CI's seed 29017241).
      job_started = job_started || (!known && p.argv != driver_argv && DescendsFrom(p.pid, driver));
    }
    // (Not from `now`: until its exec the driver's command line is still this test's.)
    const std::string stat = ReadWholeFile("/proc/" + std::to_string(driver) + "/stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] == 'Z') break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (const Proc& p : now) {
    for (const Proc& old : before) {
      if (p.pid == old.pid) {
        ++f.orphans_survived;
        ADD_FAILURE() << "an earlier driver's process survived the rerun's start:\n" << Describe({old});
      }
    }
  }
  const int action = static_cast<int>(rng() % 10);
  const double delay = 0.3 + (rng() % 2500) / 1000.0;
  int code = -1;
  const auto until = Clock::now() + std::chrono::duration<double>(delay);
  while (Clock::now() < until && !Exited(driver, &code)) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::string what;
  if (code >= 0) {
    what = "finished before the fault";
  } else if (action >= 7) {
    std::vector<int> ranks = RankPids(out);
    if (ranks.empty()) {
      what = "no rank running";
    } else {
      kill(ranks[rng() % ranks.size()], SIGKILL);
      ++f.rank_sigkills;
      what = "SIGKILL to a rank";
    }
    code = WaitExit(driver);
    EXPECT_NE(code, -1) << "the sweep did not finish after a rank was killed";
  } else {
    const int sig = action < 4 ? SIGKILL : SIGTERM;
    kill(driver, sig);
    (sig == SIGKILL ? f.driver_sigkills : f.driver_sigterms)++;
    what = sig == SIGKILL ? "SIGKILL to the driver" : "SIGTERM to the driver";
    code = WaitExit(driver, 60);
    if (sig == SIGTERM) {
      EXPECT_TRUE(code == 3 || code == 0 || code == 1) << "exit " << code;
      if (code == 3) {
        EXPECT_THAT(ReadWholeFile(log), HasSubstr("Rerun the same command to resume."));
      }
      // A stopped driver stops its jobs before it exits.
      EXPECT_EQ(Describe(LeftoversAfter(out, 2)), "") << "left by a SIGTERMed driver";
    }
  }
  f.stopped_by_reruns += CountStoppedLeftovers(log);
  std::printf("  %s after %.2f s (orphans found before it started: %zu); exit %d\n", what.c_str(), delay,
              before.size(), code);
  return what != "finished before the fault";
}

// After the sweep into `out` has finished: every planned (cell, point, trial) recorded once
// (2 cells x 3 points x 3 trials), nothing but pass or, where a rank was killed, crash.
void CheckRecords(const std::string& out, int rank_sigkills, Figures& f) {
  std::map<std::string, int> seen;
  int crashes = 0;
  std::stringstream lines(ReadWholeFile(out + "/records.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    nlohmann::json r = nlohmann::json::parse(line, nullptr, false);
    ASSERT_TRUE(r.is_object()) << line;
    ++seen[r["cell"].dump() + " " + r["point"].get<std::string>() + " #" + std::to_string(r["trial"].get<int>())];
    const std::string outcome = r["outcome"].get<std::string>();
    if (outcome == "crash") {
      ++crashes;
    } else if (outcome != "pass") {
      ++f.made_up;
      ADD_FAILURE() << "a verdict no fault explains: " << line;
    }
  }
  for (const char* flavor : {"a", "b"}) {
    for (int count = 1; count <= 3; ++count) {
      for (int trial = 0; trial < 3; ++trial) {
        const std::string key = nlohmann::json({{"flavor", flavor}}).dump() + " slow_points/count=" +
                                std::to_string(count) + "/np=2 #" + std::to_string(trial);
        auto it = seen.find(key);
        if (it == seen.end()) {
          ++f.lost;
          ADD_FAILURE() << "never recorded: " << key;
        } else {
          f.duplicated += it->second - 1;
          EXPECT_EQ(it->second, 1) << "recorded " << it->second << " times: " << key;
        }
      }
    }
  }
  EXPECT_EQ(seen.size(), 18u);
  // A crash is only where a rank was killed: at most one point per killed rank.
  EXPECT_LE(crashes, rank_sigkills);
  f.crashes += crashes;
}

TEST(Faults, SweepKilledAtRandomRecordsEveryRunOnceAndLeavesNoProcess) {
  const uint32_t seed = Seed();
  std::printf("GH_FAULT_SEED=%u\n", seed);
  std::mt19937 rng(seed);
  const std::string tmp = FreshDir("sweep");
  Figures f;
  // Episodes: a fresh DIR, faults until the sweep gets through (at most 5), a clean rerun.
  for (int episode = 0; episode < 3; ++episode) {
    const std::string out = tmp + "/out" + std::to_string(episode);
    const std::vector<std::string> sweep = {"sweep", Data("sweep.yaml"), "--out", out, "--kill-grace", "2s"};
    std::printf("episode %d:\n", episode);
    const int rank_kills_before = f.rank_sigkills;
    for (int round = 0; round < 5; ++round) {
      const std::string log = tmp + "/e" + std::to_string(episode) + "_round" + std::to_string(round) + ".log";
      if (!OneFault(sweep, out, log, rng, f)) break;
    }
    const int rank_kills = f.rank_sigkills - rank_kills_before;
    const std::string final_log = tmp + "/e" + std::to_string(episode) + "_final.log";
    const int final_code = WaitExit(Spawn(sweep, final_log));
    f.stopped_by_reruns += CountStoppedLeftovers(final_log);
    EXPECT_TRUE(final_code == 0 || (final_code == 1 && rank_kills > 0))
        << "final sweep exit " << final_code << "\n" << ReadWholeFile(final_log);
    const std::vector<Proc> left = LeftoversAfter(out, 3);
    f.left += static_cast<int>(left.size());
    EXPECT_EQ(left.size(), 0u) << "left running:\n" << Describe(left);
    CheckRecords(out, rank_kills, f);
  }
  std::printf("faults (seed %u): kills: %d driver SIGKILL, %d driver SIGTERM, %d rank SIGKILL; "
              "lost %d, duplicated %d, crash records %d, made-up verdicts %d; orphans found after a "
              "kill %d (alive when the rerun started: %d), stopped by reruns %d, left at the end %d\n",
              seed, f.driver_sigkills, f.driver_sigterms, f.rank_sigkills, f.lost, f.duplicated, f.crashes,
              f.made_up, f.orphans_seen, f.orphans_survived, f.stopped_by_reruns, f.left);
}

// Waits until `path` exists (a bisect has started a trial) or `limit_s` passes.
bool AppearsWithin(const std::string& path, double limit_s) {
  const auto until = Clock::now() + std::chrono::duration<double>(limit_s);
  while (!std::filesystem::exists(path)) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

std::vector<std::string> BisectArgs(const std::string& out) {
  return {"bisect", Data("bisect.yaml"), "--good", "v1", "--bad", "v5", "--max-trials", "1", "--kill-grace", "2s",
          "--out", out};
}

TEST(Faults, OneRunPerDirAndAStoppedBisectResumesToTheSameAnswer) {
  const std::string tmp = FreshDir("bisect");
  const std::string out = tmp + "/out";
  pid_t first = Spawn(BisectArgs(out), tmp + "/first.log");
  ASSERT_TRUE(AppearsWithin(out + "/probes", 60)) << ReadWholeFile(tmp + "/first.log");
  // A second bisect, a minimize and a sweep into the same DIR are refused at once.
  for (const auto& [name, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"bisect", BisectArgs(out)},
           {"minimize", {"minimize", Data("minimize.yaml"), "--failing", "bad=yes", "--passing", "bad=no",
                         "--max-trials", "1", "--out", out}},
           {"sweep", {"sweep", Data("bisect.yaml"), "--out", out}}}) {
    const auto start = Clock::now();
    const int code = WaitExit(Spawn(args, tmp + "/second_" + name + ".log"), 30);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    EXPECT_EQ(code, 3) << name;
    EXPECT_LT(seconds, 10) << name;
    EXPECT_THAT(ReadWholeFile(tmp + "/second_" + name + ".log"),
                HasSubstr(out + ": another gpuharness sweep, bisect or minimize is using it"))
        << name;
  }
  // Mid-trial, after a first batch is in the state file: SIGINT stops it, its jobs first.
  ASSERT_TRUE(AppearsWithin(out + "/bisect_state.json", 60)) << ReadWholeFile(tmp + "/first.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  int code = -1;
  ASSERT_FALSE(Exited(first, &code)) << "the first bisect ended before it could be stopped";
  ASSERT_FALSE(RankPids(out).empty()) << "no trial running to stop";
  kill(first, SIGINT);
  code = WaitExit(first, 30);
  const std::string first_log = ReadWholeFile(tmp + "/first.log");
  std::printf("%s", first_log.c_str());
  EXPECT_EQ(code, 3);
  EXPECT_THAT(first_log, HasSubstr("stopped; its running trials were ended. Rerun the same command to resume."));
  const std::vector<Proc> left = ProcessesMentioning(out);
  EXPECT_EQ(left.size(), 0u) << "left running after SIGINT:\n" << Describe(left);
  EXPECT_FALSE(std::filesystem::exists(out + "/summary.json"));

  code = WaitExit(Spawn(BisectArgs(out), tmp + "/rerun.log"));
  const std::string rerun_log = ReadWholeFile(tmp + "/rerun.log");
  std::printf("%s", rerun_log.c_str());
  EXPECT_EQ(code, 0);
  EXPECT_THAT(rerun_log, HasSubstr("first bad: v3, last good: v2"));
  EXPECT_THAT(rerun_log, ::testing::ContainsRegex("[1-9][0-9]* from the state file"));
}

TEST(Faults, VersionListCommandIsStoppedCappedAndTimedOut) {
  const std::string tmp = FreshDir("list");
  // SIGTERM while the command runs: the driver stops at once, exit 3, the command gone.
  pid_t sweep = Spawn({"sweep", Data("list_forever.yaml"), "--out", tmp + "/out"}, tmp + "/forever.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  const auto start = Clock::now();
  kill(sweep, SIGTERM);
  const int code = WaitExit(sweep, 30);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 3.0);
  EXPECT_EQ(code, 3);
  EXPECT_THAT(ReadWholeFile(tmp + "/forever.log"),
              HasSubstr("stopped while running `sleep 300`. Rerun the same command to resume."));
  // Flooding output and an overrun time limit are bad input at the command's key.
  EXPECT_EQ(WaitExit(Spawn({"sweep", Data("list_flood.yaml"), "--out", tmp + "/out"}, tmp + "/flood.log"), 30), 2);
  EXPECT_THAT(ReadWholeFile(tmp + "/flood.log"),
              HasSubstr(Data("list_flood.yaml") + ":7:19: versions.list.command: failed: `yes v1` printed more "
                        "than 10000 versions (the limit)"));
  EXPECT_EQ(WaitExit(Spawn({"sweep", Data("list_slow.yaml"), "--out", tmp + "/out"}, tmp + "/slow.log"), 30), 2);
  EXPECT_THAT(ReadWholeFile(tmp + "/slow.log"),
              HasSubstr("versions.list.command: failed: `sleep 30` did not finish within 500ms "
                        "(versions.list.timeout)"));
  EXPECT_FALSE(std::filesystem::exists(tmp + "/out"));
}

// Waits up to `limit_s` for a live process whose command line mentions `text`.
bool ProcessAppears(const std::string& text, double limit_s) {
  const auto until = Clock::now() + std::chrono::duration<double>(limit_s);
  while (ProcessesMentioning(text).empty()) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// A stop request (SIGINT, SIGTERM, SIGHUP) while a version set-up runs stops bisect and minimize
// at once, set-up included, exit 3, as it stops a sweep.
TEST(Faults, BisectAndMinimizeStopAtOnceDuringAVersionSetUp) {
  const std::string tmp = FreshDir("setup_stop");
  struct Case {
    std::string name;
    std::vector<std::string> args;
    int signal;
  };
  const std::vector<Case> cases = {
      {"bisect", {"bisect", Data("setup_slow.yaml"), "--cell", "bad=yes", "--good", "v1", "--bad", "v2",
                  "--max-trials", "1", "--kill-grace", "2s", "--out", tmp + "/bisect"}, SIGINT},
      {"minimize", {"minimize", Data("setup_slow.yaml"), "--failing", "bad=yes,version=v1", "--passing",
                    "bad=no,version=v1", "--max-trials", "1", "--kill-grace", "2s", "--out", tmp + "/minimize"}, SIGTERM},
      {"bisect_hup", {"bisect", Data("setup_slow.yaml"), "--cell", "bad=yes", "--good", "v1", "--bad", "v2",
                      "--max-trials", "1", "--kill-grace", "2s", "--out", tmp + "/bisect_hup"}, SIGHUP},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string out = tmp + "/" + c.name;
    pid_t driver = Spawn(c.args, tmp + "/" + c.name + ".log");
    ASSERT_TRUE(ProcessAppears(out + "/versions/v", 60)) << ReadWholeFile(tmp + "/" + c.name + ".log");
    const auto start = Clock::now();
    kill(driver, c.signal);
    const int code = WaitExit(driver, 60);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const std::string log = ReadWholeFile(tmp + "/" + c.name + ".log");
    EXPECT_EQ(code, 3) << log;
    EXPECT_LT(seconds, 5.0) << "the set-up (300 s) held the driver";
    EXPECT_THAT(log, HasSubstr("stopped; its running trials were ended. Rerun the same command to resume."));
    EXPECT_EQ(Describe(LeftoversAfter(out, 3)), "") << "the set-up outlived its stopped driver";
  }
}

// A SIGKILLed driver leaves no version set-up (sweep, bisect) and no list command running,
// children of their shells included, without waiting for a rerun to stop them.
TEST(Faults, ASigkilledDriverLeavesNoSetUpAndNoListCommand) {
  const std::string tmp = FreshDir("sigkill_children");
  const std::vector<std::pair<std::string, std::vector<std::string>>> setups = {
      {"sweep", {"sweep", Data("setup_slow.yaml"), "--out", tmp + "/sweep"}},
      {"bisect", {"bisect", Data("setup_slow.yaml"), "--cell", "bad=yes", "--good", "v1", "--bad", "v2",
                  "--max-trials", "1", "--out", tmp + "/bisect"}},
  };
  for (const auto& [name, args] : setups) {
    SCOPED_TRACE(name);
    const std::string out = tmp + "/" + name;
    pid_t driver = Spawn(args, tmp + "/" + name + ".log");
    ASSERT_TRUE(ProcessAppears(out + "/versions/v", 60)) << ReadWholeFile(tmp + "/" + name + ".log");
    kill(driver, SIGKILL);
    WaitExit(driver, 10);
    EXPECT_EQ(Describe(LeftoversAfter(out, 3)), "") << "the set-up outlived its SIGKILLed driver";
  }
  // The list command's child names a marker of its own (a list command runs before any DIR).
  const std::string marker = tmp + "/list-marker";
  std::string matrix = ReadWholeFile(Data("list_child.yaml"));
  matrix.replace(matrix.rfind("LIST_MARKER"), 11, marker);  // the command's, not the comment's
  matrix.replace(matrix.find("file: slow_check.yaml"), 21, "file: " + Data("slow_check.yaml"));
  std::ofstream(tmp + "/list_child.yaml") << matrix;
  pid_t driver = Spawn({"sweep", tmp + "/list_child.yaml", "--out", tmp + "/list"}, tmp + "/list.log");
  ASSERT_TRUE(ProcessAppears(marker, 30)) << ReadWholeFile(tmp + "/list.log");
  kill(driver, SIGKILL);
  WaitExit(driver, 10);
  EXPECT_EQ(Describe(LeftoversAfter(marker, 3)), "") << "the list command's child outlived its SIGKILLed driver";
}

// The ranks of a job into `out` (`gpuharness run ... --out OUT...`), by rank: each names it in
// OMPI_COMM_WORLD_RANK in its environment.
std::map<int, int> RanksByNumber(const std::string& out) {
  std::map<int, int> ranks;
  for (int pid : RankPids(out)) {
    const std::string env = ReadWholeFile("/proc/" + std::to_string(pid) + "/environ");
    const size_t at = env.find("OMPI_COMM_WORLD_RANK=");
    if (at != std::string::npos) ranks[std::atoi(env.c_str() + at + 21)] = pid;
  }
  return ranks;
}

// Waits up to `limit_s` for rank 0 of the job into `out` to be in its first point (its exec
// command's log exists) and returns its pid, 0 when it never gets there.
int RankZeroInAPoint(const std::string& out, double limit_s) {
  const auto until = Clock::now() + std::chrono::duration<double>(limit_s);
  while (Clock::now() < until) {
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(out, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename() != "rank0.log") continue;
      std::map<int, int> ranks = RanksByNumber(out);
      if (ranks.size() == 4) return ranks[0];
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

std::vector<nlohmann::json> RecordsOf(const std::string& path) {
  std::vector<nlohmann::json> records;
  std::stringstream lines(ReadWholeFile(path));
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) records.push_back(nlohmann::json::parse(line, nullptr, false));
  }
  return records;
}

// A rank 0 frozen (SIGSTOP) in a point is unresponsive, not crashed: rank 1 records the timeout
// in its place, naming it, and the later points not run; in a sweep those run again.
// The other ranks' halves of a gather complete without rank 0, so they are a point ahead of it:
// the timeout is recorded for the point rank 0 is frozen in, the first it has not recorded.
TEST(Faults, AFrozenRankZeroIsATimeoutNamingItNotACrash) {
  const std::string tmp = FreshDir("frozen");
  const std::string run_out = tmp + "/run";
  pid_t job = SpawnProgram({GH_FAULTS_MPIRUN, "-np", "4", GH_GPUHARNESS_BIN, "run", Data("frozen.yaml"), "--out",
                            run_out, "--backend", "host"},
                           tmp + "/run.log");
  const int rank0 = RankZeroInAPoint(run_out, 30);
  ASSERT_NE(rank0, 0) << ReadWholeFile(tmp + "/run.log");
  kill(rank0, SIGSTOP);
  WaitExit(job, 120);
  const std::string log = ReadWholeFile(tmp + "/run.log");
  std::vector<nlohmann::json> records = RecordsOf(run_out + "/records.jsonl");
  ASSERT_EQ(records.size(), 3u) << log;
  EXPECT_EQ(records[0]["outcome"], "timeout") << records[0].dump();
  EXPECT_THAT(records[0]["signature"].get<std::string>(), HasSubstr("unresponsive [ranks 0]"));
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(records[i]["outcome"], "skip") << records[i].dump();
    EXPECT_EQ(records[i].value("not_run", false), true) << records[i].dump();
  }
  EXPECT_THAT(log, HasSubstr("rank 0 did not end the job 30s after the timeout"));
  EXPECT_EQ(Describe(LeftoversAfter(run_out, 5)), "");

  // The same in a sweep: the frozen point is a timeout naming rank 0; the others run again.
  const std::string sweep_out = tmp + "/sweep";
  pid_t sweep = Spawn({"sweep", Data("frozen_sweep.yaml"), "--out", sweep_out}, tmp + "/sweep.log");
  const int sweep_rank0 = RankZeroInAPoint(sweep_out, 30);
  ASSERT_NE(sweep_rank0, 0) << ReadWholeFile(tmp + "/sweep.log");
  kill(sweep_rank0, SIGSTOP);
  const int code = WaitExit(sweep, 150);
  records = RecordsOf(sweep_out + "/records.jsonl");
  ASSERT_EQ(records.size(), 3u) << ReadWholeFile(tmp + "/sweep.log");
  EXPECT_EQ(code, 1) << ReadWholeFile(tmp + "/sweep.log");  // a timeout against `expect: pass`
  EXPECT_EQ(records[0]["outcome"], "timeout") << records[0].dump();
  EXPECT_THAT(records[0]["signature"].get<std::string>(), HasSubstr("unresponsive [ranks 0]"));
  EXPECT_EQ(records[1]["outcome"], "pass") << records[1].dump();
  EXPECT_EQ(records[2]["outcome"], "pass") << records[2].dump();
  EXPECT_EQ(Describe(LeftoversAfter(sweep_out, 5)), "");
}

}  // namespace
