#include "harness/runtime/stack_inlines.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace gh {
namespace {

// "/work/x/harness/../../harness/scenarios/ring_shift.cc:191 (discriminator 2)" -> "ring_shift.cc:191".
std::string ShortLocation(absl::string_view location) {
  if (absl::StartsWith(location, "??")) return "";
  if (const size_t space = location.find(' '); space != absl::string_view::npos) {
    location = location.substr(0, space);
  }
  if (const size_t slash = location.rfind('/'); slash != absl::string_view::npos) {
    location.remove_prefix(slash + 1);
  }
  if (absl::EndsWith(location, ":0") || absl::EndsWith(location, ":?")) return "";
  return std::string(location);
}

}  // namespace

std::vector<std::vector<SourceFrame>> ParseAddr2lineOutput(absl::string_view text, size_t addresses) {
  std::vector<std::vector<SourceFrame>> chains;
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  for (size_t i = 0; i < lines.size();) {
    if (!absl::StartsWith(lines[i], "0x")) {  // out of step: give up rather than misattribute
      return std::vector<std::vector<SourceFrame>>(addresses);
    }
    ++i;
    std::vector<SourceFrame> chain;
    while (i < lines.size() && !absl::StartsWith(lines[i], "0x")) {
      SourceFrame frame;
      frame.function = std::string(lines[i]);
      frame.location = i + 1 < lines.size() ? ShortLocation(lines[i + 1]) : "";
      i += 2;
      if (frame.function != "??") chain.push_back(std::move(frame));
    }
    chains.push_back(std::move(chain));
  }
  chains.resize(addresses);
  return chains;
}

std::vector<std::vector<SourceFrame>> ResolveInlineFrames(const std::string& binary,
                                                          const std::vector<uintptr_t>& offsets,
                                                          absl::Duration bound,
                                                          std::string* why) {
  std::vector<std::vector<SourceFrame>> none(offsets.size());
  auto fail = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return none;
  };
  if (offsets.empty()) return none;
  std::vector<std::string> args = {"addr2line", "-a", "-C", "-f", "-i", "-e", binary};
  for (uintptr_t offset : offsets) args.push_back(absl::StrFormat("0x%x", offset));
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return fail("no pipe for addr2line");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, "addr2line", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (spawned != 0) {
    close(out[0]);
    return fail(absl::StrCat("cannot run addr2line: ", std::strerror(spawned)));
  }
  std::string text;
  bool complete = false;
  const auto deadline = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(bound);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{out[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    char buffer[4096];
    const ssize_t n = read(out[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      complete = n == 0;
      break;
    }
    text.append(buffer, static_cast<size_t>(n));
  }
  close(out[0]);
  if (!complete) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!complete) {
    return fail(absl::StrCat("addr2line gave no answer within ", absl::FormatDuration(bound)));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return fail("addr2line failed");
  return ParseAddr2lineOutput(text, offsets.size());
}

}  // namespace gh
