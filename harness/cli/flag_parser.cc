#include "harness/cli/flag_parser.h"

#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <climits>
#include <cstdio>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "harness/cli/commands.h"
#include "harness/core/duration_text.h"

namespace gh {

FlagParser::FlagParser(std::string command, const char* usage) : command_(std::move(command)), usage_(usage) {}

FlagParser& FlagParser::Add(Flag flag) {
  assert(std::none_of(flags_.begin(), flags_.end(), [&](const Flag& f) { return f.name == flag.name; }));
  flags_.push_back(std::move(flag));
  return *this;
}

FlagParser& FlagParser::Bool(std::string name, bool* target) {
  return Add({std::move(name), /*takes_value=*/false, "", [target](const std::string&) {
                *target = true;
                return std::optional<std::string>();
              }});
}

FlagParser& FlagParser::String(std::string name, std::string* target, std::string missing, bool reject_empty) {
  const std::string empty = absl::Substitute(missing, name, "");
  return Add({std::move(name), true, std::move(missing),
              [target, reject_empty, empty](const std::string& v) -> std::optional<std::string> {
                if (reject_empty && v.empty()) return empty;
                *target = v;
                return std::nullopt;
              }});
}

FlagParser& FlagParser::Strings(std::string name, std::vector<std::string>* target, std::string missing) {
  return Add({std::move(name), true, std::move(missing), [target](const std::string& v) {
                target->push_back(v);
                return std::optional<std::string>();
              }});
}

FlagParser& FlagParser::Int(std::string name, int* target, int min, std::string invalid) {
  return AddInt(std::move(name), min, std::move(invalid), [target](int n) { *target = n; });
}

FlagParser& FlagParser::Int(std::string name, std::optional<int>* target, int min, std::string invalid) {
  return AddInt(std::move(name), min, std::move(invalid), [target](int n) { *target = n; });
}

FlagParser& FlagParser::AddInt(std::string name, int min, std::string invalid, std::function<void(int)> store) {
  const std::string flag = name;
  return Add({std::move(name), true, invalid,
              [=](const std::string& v) -> std::optional<std::string> {
                int n = 0;
                if (!absl::SimpleAtoi(v, &n) || n < min) return absl::Substitute(invalid, flag, v);
                store(n);
                return std::nullopt;
              }});
}

FlagParser& FlagParser::Double(std::string name, double* target, std::string invalid) {
  const std::string flag = name;
  return Add({std::move(name), true, invalid,
              [=](const std::string& v) -> std::optional<std::string> {
                if (!absl::SimpleAtod(v, target)) return absl::Substitute(invalid, flag, v);
                return std::nullopt;
              }});
}

FlagParser& FlagParser::Duration(std::string name, absl::Duration* target, std::string missing) {
  return Custom(std::move(name), std::move(missing), [target](const std::string& v) {
    absl::StatusOr<absl::Duration> d = ParseDurationText(v);
    if (!d.ok()) return d.status();
    *target = *d;
    return absl::OkStatus();
  });
}

FlagParser& FlagParser::Custom(std::string name, std::string missing,
                               std::function<absl::Status(const std::string&)> set) {
  const std::string flag = name;
  return Add({std::move(name), true, std::move(missing),
              [flag, set = std::move(set)](const std::string& v) -> std::optional<std::string> {
                absl::Status st = set(v);
                if (!st.ok()) return absl::StrCat(flag, ": ", st.message());
                return std::nullopt;
              }});
}

FlagParser& FlagParser::Positional(std::string* target) {
  positionals_.push_back(target);
  return *this;
}

absl::StatusOr<FlagParser::Result> FlagParser::ParseArgs(const std::vector<std::string>& args) const {
  size_t filled = 0;  // positional targets
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") return Result::kHelp;
    const Flag* flag = nullptr;
    for (const Flag& f : flags_) {
      if (f.name == arg) {
        flag = &f;
        break;
      }
    }
    if (flag == nullptr) {
      if (arg.empty() || arg[0] == '-' || filled == positionals_.size()) {
        return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", arg, "'"));
      }
      *positionals_[filled++] = arg;
      continue;
    }
    std::string value;
    if (flag->takes_value) {
      if (i + 1 >= args.size()) return absl::InvalidArgumentError(absl::Substitute(flag->missing, arg, ""));
      value = args[++i];
    }
    if (std::optional<std::string> error = flag->set(value)) return absl::InvalidArgumentError(*error);
  }
  return Result::kParsed;
}

std::optional<int> FlagParser::Parse(int argc, char** argv) const {
  absl::StatusOr<Result> result = ParseArgs(std::vector<std::string>(argv + 1, argv + argc));
  if (!result.ok()) return BadArgument(std::string(result.status().message()));
  if (*result == Result::kParsed) return std::nullopt;
  std::fputs(usage_, stdout);
  return kExitOk;
}

int FlagParser::BadArgument(const std::string& message) const {
  std::fprintf(stderr, "gpuharness %s: %s\n%s", command_.c_str(), message.c_str(), usage_);
  return kExitBadInput;
}

std::string ThisProgram() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "gpuharness";
  buf[n] = '\0';
  return buf;
}

}  // namespace gh
