#include "harness/runtime/bounded_command.h"

#include "absl/strings/str_cat.h"
#include "harness/core/child_process.h"

namespace gh {

absl::StatusOr<std::string> RunBoundedCommand(const std::vector<std::string>& args, absl::Duration bound) {
  if (args.empty()) return absl::InvalidArgumentError("no command to run");
  const std::string& name = args[0];
  CommandRequest request;
  request.child.argv = args;
  request.timeout = bound;
  request.max_bytes = size_t{64} << 20;
  absl::StatusOr<CommandResult> ran = RunCommand(request);
  if (absl::IsNotFound(ran.status())) return ran.status();  // "cannot run 'NAME': why"
  if (absl::IsDeadlineExceeded(ran.status())) {
    return absl::DeadlineExceededError(absl::StrCat(name, " gave no answer within ", absl::FormatDuration(bound)));
  }
  if (!ran.ok()) return absl::InternalError(absl::StrCat(name, " failed: ", ran.status().message()));
  if (!ran->ok()) return absl::InternalError(absl::StrCat(name, " failed"));
  return std::move(ran->out);
}

}  // namespace gh
