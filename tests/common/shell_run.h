// Runs a shell command line and captures what it printed: shared by the whole-binary tests that
// drive gpuharness through sh (bisect, perf, verdicts, sweep, nightly) and by harness_run.h.
#ifndef GPUHARNESS_TESTS_COMMON_SHELL_RUN_H_
#define GPUHARNESS_TESTS_COMMON_SHELL_RUN_H_

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gh::testing {

struct CommandRun {
  int exit_code = -1;   // 128 + N where a signal N ended it
  std::string console;  // stdout and stderr
  double seconds = 0;   // wall time (RunLogged only)
};

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// One shell word: single-quoted, so the shell expands nothing in it.
inline std::string ShellWord(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `command` with sh, stdout and stderr captured together.
inline CommandRun RunShell(const std::string& command) {
  const std::string line = command + " 2>&1";
  CommandRun run;
  FILE* pipe = popen(line.c_str(), "r");
  if (pipe == nullptr) return run;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) run.console.append(buf, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

// RunShell with the variables `env` set for `command` alone (NAME='value' before it).
inline CommandRun RunShellWith(const std::vector<std::pair<std::string, std::string>>& env,
                               const std::string& command) {
  std::string line;
  for (const auto& [name, value] : env) line += name + "=" + ShellWord(value) + " ";
  return RunShell(line + command);
}

// Runs `command` with sh, stdin from /dev/null, stdout and stderr to the file `log` (kept for a
// look after the test), and echoes the command line and what it printed (for ctest -V).
inline CommandRun RunLogged(const std::string& command, const std::string& log) {
  const std::string line = command + " > " + log + " 2>&1 < /dev/null";
  CommandRun run;
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(line.c_str());
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.console = ReadWholeFile(log);
  std::printf("$ %s\n%s[exit %d after %.1f s]\n", line.c_str(), run.console.c_str(), run.exit_code,
              run.seconds);
  return run;
}

}  // namespace gh::testing

#endif  // GPUHARNESS_TESTS_COMMON_SHELL_RUN_H_
