// The command line of a gpuharness subcommand, declared once: each flag and positional with its
// target, value name and help. CLI11 splits the arguments (`--flag value`, `--flag=value`,
// repeats, positionals in any order); this layer types the values and words every error one way:
//   unknown flag --ot; did you mean --out?      (an undeclared flag, with a suggestion if close)
//   unexpected argument 'x'                      (a positional too many)
//   --out needs a directory                      (a value missing, or empty)
//   --jobs: expected an integer >= 1, got '0'    (a bad integer)
//   --alpha: expected a number, got 'x'          (a bad number)
//   --kill-grace: <the YAML duration grammar's message>
//   --takes-no-value takes no value              (--dry-run=yes)
//   missing MATRIX.yaml                          (a required positional)
// --help and -h print Help(); help wins over every error but a missing last value.
// A flag that takes a value takes the next argument, whatever it is (`--out --help` sets --out);
// `--out=` is an empty value.
#ifndef GPUHARNESS_CLI_COMMAND_LINE_H_
#define GPUHARNESS_CLI_COMMAND_LINE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gh {

// What a flag's value is: shown in the help ("DIR") and in "--out needs a directory".
struct ValueKind {
  const char* metavar;
  const char* noun;
};
inline constexpr ValueKind kDirValue{"DIR", "a directory"};
inline constexpr ValueKind kFileValue{"FILE", "a file"};
inline constexpr ValueKind kPathValue{"PATH", "a path"};
inline constexpr ValueKind kAxisValue{"AXIS", "an axis name"};
inline constexpr ValueKind kFilterValue{"FILTER", "a point filter"};  // core/point_filter.h
inline constexpr ValueKind kCountValue{"N", "an integer"};
inline constexpr ValueKind kNumberValue{"P", "a number"};
inline constexpr ValueKind kDurationValue{"T", "a duration"};

class CommandLine {
 public:
  // `command` names the subcommand ("sweep") in errors and help; `synopsis` follows
  // "usage: gpuharness " in the help; `about` (lines, each ending in '\n') follows it, and
  // `epilog` (likewise) ends the help.
  CommandLine(std::string command, std::string synopsis, std::string about, std::string epilog = "");
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // `help` may hold several lines separated by '\n'; each flag is declared once (asserted).
  // A flag without a value: sets *target. `name` may pair a short and a long name, "-v, --verbose".
  CommandLine& Bool(std::string name, bool* target, std::string help);
  // A value, the last one given wins; "" is "needs <noun>".
  CommandLine& String(std::string name, ValueKind kind, std::string* target, std::string help);
  // Like String, but every value is appended (a repeatable flag).
  CommandLine& Strings(std::string name, ValueKind kind, std::vector<std::string>* target, std::string help);
  // An integer >= `min`.
  CommandLine& Int(std::string name, ValueKind kind, int min, int* target, std::string help);
  CommandLine& Int(std::string name, ValueKind kind, int min, std::optional<int>* target, std::string help);
  // A finite number.
  CommandLine& Double(std::string name, ValueKind kind, double* target, std::string help);
  // The YAML duration grammar: a bare number is seconds; 500ms, 90s, 10m, 1h30m.
  CommandLine& Duration(std::string name, absl::Duration* target, std::string help);
  // A point filter (core/point_filter.h), checked as it is read: "--filter: expected 'or', 'and'
  // or the end at column 7, found '*np=2'".
  CommandLine& Filter(std::string name, std::string* target, std::string help);
  // One of `choices`: "--backend: expected auto, host or cuda, got 'tpu'".
  CommandLine& Choice(std::string name, std::vector<std::string> choices, std::string* target, std::string help);
  // Any other value: `set` takes it; its error's message is reported after "<flag>: ".
  CommandLine& Custom(std::string name, ValueKind kind, std::function<absl::Status(const std::string&)> set,
                      std::string help);
  // Positional arguments fill the targets in the order declared. `required`: without it,
  // "missing <name>".
  CommandLine& Positional(std::string name, std::string* target, bool required);
  // Every remaining positional argument (declare it last).
  CommandLine& Positionals(std::string name, std::vector<std::string>* target);

  enum class Result { kParsed, kHelp };
  // Parses `args` (those after the subcommand's name): kHelp for --help or -h, InvalidArgument
  // with the one message of the first error otherwise.
  absl::StatusOr<Result> ParseArgs(const std::vector<std::string>& args);

  // ParseArgs on argv[1..argc), reporting: nullopt when the command goes on; otherwise its exit
  // status, 0 after Help() was printed on stdout, 2 after an error was reported as by BadArgument.
  std::optional<int> Parse(int argc, char** argv);

  // What BadArgument prints: "gpuharness <command>: <message>\n" and a pointer to the help.
  std::string ErrorText(const std::string& message) const;
  // Prints ErrorText on stderr; returns the exit status for bad input (2).
  int BadArgument(const std::string& message) const;

  // usage, about, the positionals and flags with their help, epilog.
  std::string Help() const;
  const std::string& command() const { return command_; }

 private:
  struct Flag;
  struct Positional_;
  CommandLine& Add(Flag flag);
  CommandLine& AddInt(std::string name, ValueKind kind, int min, std::function<void(int)> store, std::string help);
  CommandLine& AddValued(std::string name, std::string metavar, const std::string& noun,
                         std::function<absl::Status(const std::string&)> set, std::string help);
  // The CLI11 pass: the flags' values in the order given, the positionals, what was left over.
  absl::StatusOr<Result> Split(const std::vector<std::string>& args,
                               std::vector<std::pair<const Flag*, std::string>>* values,
                               std::vector<std::string>* positionals) const;

  std::string command_, synopsis_, about_, epilog_;
  std::vector<Flag> flags_;
  std::vector<Positional_> positionals_;
};

// The default of --program: the path of this binary ("gpuharness" when it cannot be read).
std::string ThisProgram();

}  // namespace gh

#endif  // GPUHARNESS_CLI_COMMAND_LINE_H_
