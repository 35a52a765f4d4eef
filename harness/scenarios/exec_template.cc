#include "harness/scenarios/exec_template.h"

#include "absl/strings/str_cat.h"

namespace gh {
namespace {

bool IsIdentifierChar(char c) { return (c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9'); }

// Length of the identifier placeholder starting at text[i] == '{' (including both braces), or 0.
size_t PlaceholderLength(std::string_view text, size_t i) {
  if (i + 1 >= text.size() || !(text[i + 1] >= 'a' && text[i + 1] <= 'z')) return 0;
  size_t j = i + 1;
  while (j < text.size() && IsIdentifierChar(text[j])) ++j;
  if (j >= text.size() || text[j] != '}') return 0;
  return j - i + 1;
}

// Walks `text`, calling `on_name` for each placeholder and `on_text` for literal text.
template <typename OnText, typename OnName>
absl::Status Walk(std::string_view text, OnText on_text, OnName on_name) {
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 2, "{{") == 0 || text.compare(i, 2, "}}") == 0) {
      on_text(text.substr(i, 1));
      i += 2;
      continue;
    }
    if (text[i] == '{') {
      if (size_t n = PlaceholderLength(text, i); n > 0) {
        absl::Status status = on_name(std::string(text.substr(i + 1, n - 2)));
        if (!status.ok()) return status;
        i += n;
        continue;
      }
    }
    on_text(text.substr(i, 1));
    ++i;
  }
  return absl::OkStatus();
}

}  // namespace

const std::set<std::string>& ExecFixedPlaceholders() {
  static const std::set<std::string>* names = new std::set<std::string>{
      "rank", "nranks", "local_rank", "device", "coordinator", "out", "dir"};
  return *names;
}

absl::Status CheckExecTemplate(std::string_view text, const std::set<std::string>& known) {
  return Walk(
      text, [](std::string_view) {},
      [&](const std::string& name) {
        if (known.count(name) > 0) return absl::OkStatus();
        return absl::InvalidArgumentError(absl::StrCat("unknown placeholder {", name, "}"));
      });
}

absl::StatusOr<std::string> ExpandExecTemplate(std::string_view text,
                                               const std::map<std::string, std::string>& values) {
  std::string out;
  absl::Status status = Walk(
      text, [&](std::string_view literal) { out.append(literal); },
      [&](const std::string& name) {
        auto it = values.find(name);
        if (it == values.end()) {
          return absl::InvalidArgumentError(absl::StrCat("unknown placeholder {", name, "}"));
        }
        out += it->second;
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return out;
}

}  // namespace gh
