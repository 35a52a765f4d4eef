#include "harness/driver/version_setup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "harness/core/stable_hash.h"
#include "harness/core/duration_text.h"
#include "harness/core/file_util.h"
#include "harness/core/regex.h"
#include "harness/core/state_json.h"
#include "harness/driver/cell_plan.h"
#include "nlohmann/json.hpp"

namespace gh::driver {
namespace {

std::string StatePath(const VersionSetupRequest& r) { return r.version_dir + "/setup.json"; }
std::string LogPath(const VersionSetupRequest& r) { return r.version_dir + "/setup.log"; }

// A cache only: a setup.json that is missing, malformed or of another command means run the
// set-up again (which rewrites it), never a throw.
bool CachedSuccess(const VersionSetupRequest& r) {
  const std::string path = StatePath(r);
  absl::StatusOr<nlohmann::json> j = ParseStateFile(path);
  if (!j.ok()) return false;
  const StateJson state(*j, path);
  absl::StatusOr<bool> ok = state.BoolOr("ok", false);
  absl::StatusOr<std::string> hash = state.StringOr("command_hash", "");
  return ok.ok() && *ok && hash.ok() && *hash == StableHash(r.command);
}

bool ReadsAsError(absl::string_view line) {
  static const Regex* const kError = [] {
    absl::StatusOr<Regex> re = Regex::Compile(
        R"((?i)(^|\s)(error|fatal|failed|failure)\b|^\s*([A-Za-z_][\w.]*)?(Error|Exception)\b|no such file|not found|cannot |could not)");
    return new Regex(*std::move(re));
  }();
  // pip's "WARNING:" lines and the like are context, never the cause.
  if (absl::StartsWithIgnoreCase(absl::StripLeadingAsciiWhitespace(line), "warning")) return false;
  return kError->Search(std::string_view(line.data(), line.size()));
}

}  // namespace

std::string SetupCauseLine(absl::string_view log, size_t max_chars) {
  absl::string_view last_text, last_error;
  for (absl::string_view raw : absl::StrSplit(log, '\n')) {
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty()) continue;
    last_text = line;
    if (ReadsAsError(line)) last_error = line;
  }
  std::string cause(last_error.empty() ? last_text : last_error);
  if (cause.size() > max_chars) cause = cause.substr(0, max_chars) + "...";
  return cause;
}

VersionSetupJob::VersionSetupJob(VersionSetupRequest request, ProcessRunner& runner, Clock& clock)
    : request_(std::move(request)), runner_(&runner), clock_(&clock),
      deadline_(clock.Now() + request_.timeout) {}

VersionSetupJob::VersionSetupJob(VersionSetupJob&& o) noexcept
    : request_(std::move(o.request_)), runner_(o.runner_), clock_(o.clock_), deadline_(o.deadline_),
      lock_fd_(std::exchange(o.lock_fd_, -1)), id_(std::exchange(o.id_, std::nullopt)),
      timed_out_(o.timed_out_), done_(std::move(o.done_)) {}

VersionSetupJob& VersionSetupJob::operator=(VersionSetupJob&& o) noexcept {
  if (this != &o) {
    if (lock_fd_ >= 0) ::close(lock_fd_);
    request_ = std::move(o.request_);
    runner_ = o.runner_;
    clock_ = o.clock_;
    deadline_ = o.deadline_;
    lock_fd_ = std::exchange(o.lock_fd_, -1);
    id_ = std::exchange(o.id_, std::nullopt);
    timed_out_ = o.timed_out_;
    done_ = std::move(o.done_);
  }
  return *this;
}

VersionSetupJob::~VersionSetupJob() {
  if (id_ && !done_) {  // abandoned while running (the driver was stopped): end it
    runner_->SignalGroup(*id_, SIGKILL);
    while (!runner_->Poll(*id_)) clock_->SleepFor(absl::Milliseconds(10));
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

std::optional<VersionSetupResult> VersionSetupJob::TryStart() {
  const VersionSetupRequest& r = request_;
  if (CachedSuccess(r)) return VersionSetupResult{true, true, ""};
  if (absl::Status st = MakeDirectories(r.version_dir); !st.ok()) {
    return VersionSetupResult{false, false, absl::StrCat("cannot create ", r.version_dir, ": ", st.message())};
  }
  const std::string lock_path = r.version_dir + "/setup.lock";
  if (lock_fd_ < 0) lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) {
    return VersionSetupResult{false, false, absl::StrCat("cannot open ", lock_path, ": ", strerror(errno))};
  }
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      return VersionSetupResult{false, false, absl::StrCat("cannot lock ", lock_path, ": ", strerror(errno))};
    }
    if (clock_->Now() >= deadline_) {
      return VersionSetupResult{false, false,
                                absl::StrCat("another run held ", lock_path, " for longer than ",
                                             FormatDurationText(r.timeout))};
    }
    return std::nullopt;  // another driver sets this version up: wait, then look again
  }
  if (CachedSuccess(r)) return VersionSetupResult{true, true, ""};  // it just finished
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", r.command};
  std::vector<std::string> env = r.base_env;
  env.push_back(absl::StrCat("GH_VERSION=", r.version));
  env.push_back(absl::StrCat("GH_VERSION_DIR=", r.version_dir));
  spec.env = std::move(env);
  spec.cwd = r.version_dir;
  spec.log_path = LogPath(r);
  absl::StatusOr<ProcessId> id = runner_->Start(spec);
  if (!id.ok()) {
    return Finish({false, false, absl::StrCat("setup could not start: ", id.status().message())});
  }
  id_ = *id;
  return std::nullopt;
}

VersionSetupResult VersionSetupJob::Finish(VersionSetupResult result) {
  const VersionSetupRequest& r = request_;
  nlohmann::json j = {{"version", r.version}, {"command", r.command}, {"command_hash", StableHash(r.command)},
                      {"ok", result.ok}, {"detail", result.detail}};
  absl::Status st = WriteFileAtomically(StatePath(r), j.dump(2) + "\n");
  if (!st.ok() && result.ok) {
    result.ok = false;
    result.detail = absl::StrCat("cannot record the setup: ", st.message());
  }
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
  done_ = result;
  return result;
}

std::optional<VersionSetupResult> VersionSetupJob::Poll() {
  if (done_) return done_;
  if (!id_) {
    std::optional<VersionSetupResult> early = TryStart();
    if (early) {
      done_ = early;
      if (lock_fd_ >= 0) {
        ::close(lock_fd_);
        lock_fd_ = -1;
      }
      return done_;
    }
    if (!id_) return std::nullopt;
  }
  std::optional<ProcessExit> exit = runner_->Poll(*id_);
  if (!exit) {
    if (!timed_out_ && clock_->Now() >= deadline_) {
      timed_out_ = true;
      runner_->SignalGroup(*id_, SIGKILL);
    }
    return std::nullopt;
  }
  const std::string log = LogPath(request_);
  if (timed_out_) {
    return Finish({false, false, absl::StrCat("setup timed out after ", FormatDurationText(request_.timeout),
                                              " (log ", log, ")")});
  }
  if (exit->signaled || exit->code != 0) {
    absl::StatusOr<std::string> text = ReadFileToString(log);
    const std::string cause = text.ok() ? SetupCauseLine(*text) : "";
    return Finish({false, false, absl::StrCat("setup ", exit->ToString(), " (log ", log, ")",
                                              cause.empty() ? "" : ": ", cause)});
  }
  return Finish({true, false, ""});
}

VersionSetupResult RunVersionSetup(const std::string& version, const std::string& command,
                                   const std::string& version_dir,
                                   const std::vector<std::string>& base_env, absl::Duration timeout,
                                   ProcessRunner& runner, Clock& clock) {
  VersionSetupJob job({version, command, version_dir, base_env, timeout}, runner, clock);
  for (;;) {
    if (std::optional<VersionSetupResult> r = job.Poll()) return *r;
    clock.SleepFor(absl::Milliseconds(50));
  }
}

}  // namespace gh::driver
