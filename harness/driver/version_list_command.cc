#include "harness/driver/version_list_command.h"

#include "absl/strings/str_cat.h"
#include "harness/core/child_process.h"
#include "harness/core/duration_text.h"
#include "harness/driver/stop_signals.h"

namespace gh::driver {

absl::StatusOr<std::string> RunVersionListCommand(const VersionListCommand& r) {
  CommandRequest request;
  request.child.argv = {"/bin/sh", "-c", r.command};
  request.child.cwd = r.cwd;
  request.timeout = r.timeout;
  request.stop = r.stop != nullptr ? r.stop : &StopFlag();
  request.max_bytes = r.max_bytes;
  // Non-empty lines are labels; counted as the output comes.
  size_t counted = 0, lines = 0;
  bool line_has_text = false;
  request.check = [&](absl::string_view out) -> absl::Status {
    for (; counted < out.size(); ++counted) {
      const char c = out[counted];
      if (c == '\n') {
        line_has_text = false;
      } else if (!line_has_text && c != ' ' && c != '\t' && c != '\r') {
        line_has_text = true;
        ++lines;
      }
    }
    if (lines <= r.max_lines) return absl::OkStatus();
    return absl::FailedPreconditionError(
        absl::StrCat("`", r.command, "` printed more than ", r.max_lines, " versions (the limit)"));
  };
  absl::StatusOr<CommandResult> ran = RunCommand(request);
  if (absl::IsCancelled(ran.status())) {
    return absl::CancelledError(absl::StrCat("stopped while running `", r.command, "`"));
  }
  if (absl::IsDeadlineExceeded(ran.status())) {
    return absl::FailedPreconditionError(absl::StrCat("`", r.command, "` did not finish within ",
                                                      FormatDurationText(r.timeout), " (versions.list.timeout)"));
  }
  if (absl::IsResourceExhausted(ran.status())) {
    return absl::FailedPreconditionError(
        absl::StrCat("`", r.command, "` printed more than ", r.max_bytes, " bytes (the limit)"));
  }
  if (!ran.ok()) return ran.status();
  if (!ran->ok()) {
    // The tool's own reason ("fatal: repository ... not found") belongs in the error, not above it.
    const std::string why = LastLine(ran->err);
    return absl::FailedPreconditionError(
        absl::StrCat("`", r.command, "` exited with status ",
                     ran->exit.signaled ? 128 + ran->exit.signal : ran->exit.code, why.empty() ? "" : ": ", why));
  }
  return std::move(ran->out);
}

}  // namespace gh::driver
