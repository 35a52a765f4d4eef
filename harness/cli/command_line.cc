#include "harness/cli/command_line.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cassert>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "harness/cli/commands.h"
#include "harness/core/did_you_mean.h"
#include "harness/core/duration_text.h"
#include "harness/core/point_filter.h"
#include "harness/core/status_macros.h"

namespace gh {

// `set` takes one value ("" for a flag without one) and returns the error message, or nullopt.
struct CommandLine::Flag {
  std::string name;
  std::string metavar;  // "" for a flag without a value
  std::string noun;     // "a directory": "--out needs a directory"
  std::string help;
  std::function<std::optional<std::string>(const std::string& value)> set;
};

struct CommandLine::Positional_ {
  std::string name;
  std::string* one = nullptr;                // or
  std::vector<std::string>* many = nullptr;  // every remaining one
  bool required = false;
};

namespace {

constexpr size_t kHelpColumn = 24;

// The flag part of "--ot=x".
std::string FlagName(const std::string& arg) { return arg.substr(0, arg.find('=')); }

}  // namespace

CommandLine::CommandLine(std::string command, std::string synopsis, std::string about, std::string epilog)
    : command_(std::move(command)), synopsis_(std::move(synopsis)), about_(std::move(about)),
      epilog_(std::move(epilog)) {}

CommandLine::~CommandLine() = default;

CommandLine& CommandLine::Add(Flag flag) {
  assert(std::none_of(flags_.begin(), flags_.end(), [&](const Flag& f) { return f.name == flag.name; }));
  flags_.push_back(std::move(flag));
  return *this;
}

CommandLine& CommandLine::Bool(std::string name, bool* target, std::string help) {
  const std::string error = absl::StrCat(name, " takes no value");
  return Add({std::move(name), "", "", std::move(help), [=](const std::string& v) -> std::optional<std::string> {
                if (v != "true") return error;  // CLI11's value for a bare flag
                *target = true;
                return std::nullopt;
              }});
}

CommandLine& CommandLine::String(std::string name, ValueKind kind, std::string* target, std::string help) {
  return Custom(std::move(name), kind, [target](const std::string& v) {
    *target = v;
    return absl::OkStatus();
  }, std::move(help));
}

CommandLine& CommandLine::Strings(std::string name, ValueKind kind, std::vector<std::string>* target,
                                  std::string help) {
  return Custom(std::move(name), kind, [target](const std::string& v) {
    target->push_back(v);
    return absl::OkStatus();
  }, std::move(help));
}

CommandLine& CommandLine::Int(std::string name, ValueKind kind, int min, int* target, std::string help) {
  return AddInt(std::move(name), kind, min, [target](int n) { *target = n; }, std::move(help));
}

CommandLine& CommandLine::Int(std::string name, ValueKind kind, int min, std::optional<int>* target,
                              std::string help) {
  return AddInt(std::move(name), kind, min, [target](int n) { *target = n; }, std::move(help));
}

CommandLine& CommandLine::AddInt(std::string name, ValueKind kind, int min, std::function<void(int)> store,
                                 std::string help) {
  return Custom(std::move(name), kind, [=](const std::string& v) -> absl::Status {
    int n = 0;
    if (!absl::SimpleAtoi(v, &n) || n < min) {
      return absl::InvalidArgumentError(absl::StrCat("expected an integer >= ", min, ", got '", v, "'"));
    }
    store(n);
    return absl::OkStatus();
  }, std::move(help));
}

CommandLine& CommandLine::Double(std::string name, ValueKind kind, double* target, std::string help) {
  return Custom(std::move(name), kind, [target](const std::string& v) -> absl::Status {
    double x = 0;
    if (!absl::SimpleAtod(v, &x) || !std::isfinite(x)) {
      return absl::InvalidArgumentError(absl::StrCat("expected a number, got '", v, "'"));
    }
    *target = x;
    return absl::OkStatus();
  }, std::move(help));
}

CommandLine& CommandLine::Filter(std::string name, std::string* target, std::string help) {
  return Custom(std::move(name), kFilterValue, [target](const std::string& v) -> absl::Status {
    GH_RETURN_IF_ERROR(CheckPointFilter(v));
    *target = v;
    return absl::OkStatus();
  }, std::move(help));
}

CommandLine& CommandLine::Duration(std::string name, absl::Duration* target, std::string help) {
  return Custom(std::move(name), kDurationValue, [target](const std::string& v) -> absl::Status {
    // The YAML grammar (one birthplace); its messages are those of a matrix's `timeout:`.
    absl::StatusOr<absl::Duration> d = ParseDurationText(v);
    if (!d.ok()) return d.status();
    *target = *d;
    return absl::OkStatus();
  }, std::move(help));
}

CommandLine& CommandLine::Choice(std::string name, std::vector<std::string> choices, std::string* target,
                                 std::string help) {
  std::string expected = choices.back();
  if (choices.size() > 1) {
    expected = absl::StrCat(absl::StrJoin(choices.begin(), choices.end() - 1, ", "), " or ", choices.back());
  }
  const std::string metavar = absl::StrJoin(choices, "|");
  return AddValued(std::move(name), metavar, "a value", [=](const std::string& v) -> absl::Status {
    if (std::find(choices.begin(), choices.end(), v) == choices.end()) {
      return absl::InvalidArgumentError(absl::StrCat("expected ", expected, ", got '", v, "'"));
    }
    *target = v;
    return absl::OkStatus();
  }, std::move(help));
}

CommandLine& CommandLine::Custom(std::string name, ValueKind kind,
                                 std::function<absl::Status(const std::string&)> set, std::string help) {
  return AddValued(std::move(name), kind.metavar, kind.noun, std::move(set), std::move(help));
}

CommandLine& CommandLine::AddValued(std::string name, std::string metavar, const std::string& noun,
                                    std::function<absl::Status(const std::string&)> set, std::string help) {
  // Messages name the long form of a paired flag: "--filter: ...", not "-k, --filter: ...".
  const size_t comma = name.find(", ");
  const std::string flag = comma == std::string::npos ? name : name.substr(comma + 2);
  const std::string empty = absl::StrCat(flag, " needs ", noun);
  return Add({std::move(name), std::move(metavar), noun, std::move(help),
              [=, set = std::move(set)](const std::string& v) -> std::optional<std::string> {
                if (v.empty()) return empty;
                absl::Status st = set(v);
                if (!st.ok()) return absl::StrCat(flag, ": ", st.message());
                return std::nullopt;
              }});
}

CommandLine& CommandLine::Positional(std::string name, std::string* target, bool required) {
  assert(positionals_.empty() || positionals_.back().many == nullptr);
  positionals_.push_back({std::move(name), target, nullptr, required});
  return *this;
}

CommandLine& CommandLine::Positionals(std::string name, std::vector<std::string>* target) {
  assert(positionals_.empty() || positionals_.back().many == nullptr);
  positionals_.push_back({std::move(name), nullptr, target, false});
  return *this;
}

absl::StatusOr<CommandLine::Result> CommandLine::Split(const std::vector<std::string>& args,
                                                       std::vector<std::pair<const Flag*, std::string>>* values,
                                                       std::vector<std::string>* positionals) const {
  CLI::App app;
  app.allow_extras();  // undeclared flags come back in remaining(), worded below
  app.set_help_flag("-h,--help");
  std::map<const CLI::Option*, const Flag*> flag_of;
  for (const Flag& flag : flags_) {
    CLI::Option* option = flag.metavar.empty() ? app.add_flag(flag.name) : app.add_option(flag.name);
    if (!flag.metavar.empty()) {
      // One value per occurrence, taken as given ("[a,b]" is not a list).
      option->expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    }
    flag_of[option] = &flag;
  }
  std::vector<std::string> positional_values;
  CLI::Option* positional = app.add_option("positionals", positional_values)->allow_extra_args(false);
  // CLI11 pops from the back. It reads "--out=" as "--out" and takes the next argument; here it
  // is an empty value, as "--out ''" is.
  std::vector<std::string> reversed;
  for (auto it = args.rbegin(); it != args.rend(); ++it) {
    if (it->size() > 3 && it->starts_with("--") && it->back() == '=') {
      reversed.emplace_back();
      reversed.push_back(it->substr(0, it->size() - 1));
    } else {
      reversed.push_back(*it);
    }
  }
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return Result::kHelp;
  } catch (const CLI::ArgumentMismatch& e) {
    // Thrown only when the arguments ran out before a flag's value: the flag is the last one.
    for (const Flag& flag : flags_) {
      if (!args.empty() && flag.name == FlagName(args.back())) {
        return absl::InvalidArgumentError(absl::StrCat(flag.name, " needs ", flag.noun));
      }
    }
    return absl::InvalidArgumentError(e.what());
  } catch (const CLI::ParseError& e) {
    return absl::InvalidArgumentError(e.what());  // none other is expected of these declarations
  }
  for (const std::string& extra : app.remaining()) {
    if (extra.size() > 1 && extra[0] == '-') {
      std::vector<std::string> names = {"--help"};
      // "-v, --verbose" is suggested as its long name.
      for (const Flag& flag : flags_) names.push_back(flag.name.substr(flag.name.rfind(' ') + 1));
      const std::string name = FlagName(extra);
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", name, DidYouMeanSuffix(name, names)));
    }
  }
  std::map<const CLI::Option*, size_t> taken;  // results consumed per option
  for (const CLI::Option* option : app.parse_order()) {
    auto it = flag_of.find(option);
    if (it == flag_of.end()) continue;
    values->emplace_back(it->second, option->results().at(taken[option]++));
  }
  *positionals = positional->results();
  for (const std::string& extra : app.remaining()) positionals->push_back(extra);  // reported as unexpected
  return Result::kParsed;
}

absl::StatusOr<CommandLine::Result> CommandLine::ParseArgs(const std::vector<std::string>& args) {
  std::vector<std::pair<const Flag*, std::string>> values;
  std::vector<std::string> positionals;
  absl::StatusOr<Result> result = Split(args, &values, &positionals);
  if (!result.ok() || *result == Result::kHelp) return result;
  for (const auto& [flag, value] : values) {
    if (std::optional<std::string> error = flag->set(value)) return absl::InvalidArgumentError(*error);
  }
  size_t next = 0;
  for (const std::string& arg : positionals) {
    if (next == positionals_.size()) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", arg, "'"));
    }
    if (positionals_[next].many != nullptr) {
      positionals_[next].many->push_back(arg);
    } else {
      *positionals_[next++].one = arg;
    }
  }
  for (const Positional_& p : positionals_) {
    if (p.required && p.one->empty()) return absl::InvalidArgumentError(absl::StrCat("missing ", p.name));
  }
  return Result::kParsed;
}

std::optional<int> CommandLine::Parse(int argc, char** argv) {
  absl::StatusOr<Result> result = ParseArgs(std::vector<std::string>(argv + 1, argv + argc));
  if (!result.ok()) return BadArgument(std::string(result.status().message()));
  if (*result == Result::kParsed) return std::nullopt;
  std::fputs(Help().c_str(), stdout);
  return kExitOk;
}

std::string CommandLine::ErrorText(const std::string& message) const {
  return absl::StrCat("gpuharness ", command_, ": ", message, "\nusage: gpuharness ", command_, " ", synopsis_,
                      " (gpuharness help ", command_, " for more)\n");
}

int CommandLine::BadArgument(const std::string& message) const {
  std::fputs(ErrorText(message).c_str(), stderr);
  return kExitBadInput;
}

std::string CommandLine::Help() const {
  std::string text = absl::StrCat("usage: gpuharness ", command_, " ", synopsis_, "\n", about_, "options:\n");
  auto add = [&text](const std::string& label, const std::string& help) {
    std::string line = absl::StrCat("  ", label);
    const std::string indent(kHelpColumn, ' ');
    bool first = true;
    for (absl::string_view help_line : absl::StrSplit(help, '\n')) {
      if (first && line.size() + 2 > kHelpColumn) absl::StrAppend(&text, line, "\n");
      if (first && line.size() + 2 <= kHelpColumn) {
        absl::StrAppend(&text, line, std::string(kHelpColumn - line.size(), ' '), help_line, "\n");
      } else {
        absl::StrAppend(&text, indent, help_line, "\n");
      }
      first = false;
    }
  };
  for (const Flag& flag : flags_) add(flag.metavar.empty() ? flag.name : flag.name + " " + flag.metavar, flag.help);
  add("-h, --help", "print this help");
  absl::StrAppend(&text, epilog_);
  return text;
}

std::string ThisProgram() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "gpuharness";
  buf[n] = '\0';
  return buf;
}

}  // namespace gh
