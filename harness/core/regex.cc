#include "harness/core/regex.h"

#include "absl/status/status.h"
#include "re2/re2.h"

namespace gh {

absl::StatusOr<Regex> Regex::Compile(std::string_view pattern) {
  RE2::Options options;
  options.set_log_errors(false);     // the error travels in the Status, not to stderr
  options.set_max_mem(64 << 20);     // room for long user patterns; still bounded
  auto re = std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()),
                                        options);
  if (!re->ok()) return absl::InvalidArgumentError(re->error());
  return Regex(std::string(pattern), std::move(re));
}

bool Regex::Search(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

std::optional<std::vector<std::string>> Regex::SearchGroups(std::string_view text) const {
  const int groups = re_->NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> pieces(groups);
  const re2::StringPiece input(text.data(), text.size());
  if (!re_->Match(input, 0, input.size(), RE2::UNANCHORED, pieces.data(), groups)) {
    return std::nullopt;
  }
  std::vector<std::string> out;
  out.reserve(groups);
  for (const re2::StringPiece& piece : pieces) out.emplace_back(piece.data(), piece.size());
  return out;
}

}  // namespace gh
