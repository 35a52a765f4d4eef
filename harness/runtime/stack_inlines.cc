#include "harness/runtime/stack_inlines.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "harness/runtime/bounded_command.h"

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
  absl::StatusOr<std::string> text = RunBoundedCommand(args, bound);
  if (!text.ok()) return fail(std::string(text.status().message()));
  return ParseAddr2lineOutput(*text, offsets.size());
}

}  // namespace gh
