// Every user regular expression (exec signature, pass and skip rules, expectation signatures,
// bisect --hunt-signature) goes through this one type, backed by RE2: matching is linear in the
// text, with no recursion, so a 10 MiB output line cannot overflow the stack. RE2's syntax is
// ECMAScript's less back-references and look-around; a pattern using them fails to compile.
#ifndef GPUHARNESS_CORE_REGEX_H_
#define GPUHARNESS_CORE_REGEX_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace re2 {
class RE2;
}

namespace gh {

class Regex {
 public:
  // InvalidArgument with RE2's own explanation ("missing ): (abc") for a bad pattern; the
  // caller adds the file, line and key.
  static absl::StatusOr<Regex> Compile(std::string_view pattern);

  // Whether the pattern matches anywhere in `text` (std::regex_search's meaning).
  bool Search(std::string_view text) const;
  // The whole match and every capture group (unmatched groups empty) of the first match in
  // `text`; nullopt when there is none.
  std::optional<std::vector<std::string>> SearchGroups(std::string_view text) const;

  const std::string& pattern() const { return pattern_; }

 private:
  Regex(std::string pattern, std::shared_ptr<const re2::RE2> re)
      : pattern_(std::move(pattern)), re_(std::move(re)) {}
  std::string pattern_;
  std::shared_ptr<const re2::RE2> re_;  // shared: RE2 is immutable and thread-safe once built
};

}  // namespace gh

#endif  // GPUHARNESS_CORE_REGEX_H_
