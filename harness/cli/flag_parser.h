// The command line of a gpuharness subcommand: flags declared with their targets and error
// messages, positional arguments, --help. Arguments are read in order and the first error ends
// the parse: `gpuharness X --jobs 0 --help` is an error, `gpuharness X --help --jobs 0` the usage.
// A flag that takes a value takes the next argument, whatever it is (`--out --help` sets --out).
#ifndef GPUHARNESS_CLI_FLAG_PARSER_H_
#define GPUHARNESS_CLI_FLAG_PARSER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gh {

class FlagParser {
 public:
  // `command` names the subcommand in errors ("gpuharness sweep: ..."); `usage` is printed on
  // stdout for --help or -h, and on stderr after every error.
  FlagParser(std::string command, const char* usage);

  // Error messages are absl::Substitute templates: $0 is the flag ("--jobs"), $1 the value ("" when
  // there is none). Each flag is declared once (asserted).

  // A flag without a value: sets *target.
  FlagParser& Bool(std::string name, bool* target);
  // The next argument; `missing` is the error when there is none, or when it is "" and
  // `reject_empty`. Given twice, the last value wins.
  FlagParser& String(std::string name, std::string* target, std::string missing, bool reject_empty = false);
  // Like String, but every value is appended.
  FlagParser& Strings(std::string name, std::vector<std::string>* target, std::string missing);
  // An integer >= `min` (absl::SimpleAtoi); `invalid` is the error for a missing, malformed or
  // smaller value.
  FlagParser& Int(std::string name, int* target, int min, std::string invalid);
  FlagParser& Int(std::string name, std::optional<int>* target, int min, std::string invalid);
  // A number (absl::SimpleAtod); `invalid` as for Int.
  FlagParser& Double(std::string name, double* target, std::string invalid);
  // "90s", "10m", "1h30m", "500ms" or a plain number of seconds; a malformed one is reported as
  // "<flag>: <why>".
  FlagParser& Duration(std::string name, absl::Duration* target, std::string missing);
  // Any other value: `set` takes it and returns an error whose message is reported after "<flag>: ".
  FlagParser& Custom(std::string name, std::string missing, std::function<absl::Status(const std::string&)> set);
  // An argument not starting with '-' fills the first unfilled positional target, in the order
  // declared; one more, or any undeclared flag, is "unexpected argument '<arg>'".
  FlagParser& Positional(std::string* target);

  enum class Result { kParsed, kHelp };
  // Parses `args` (the arguments after the subcommand's name): kHelp when --help or -h came before
  // any error, InvalidArgument with the message of the first error.
  absl::StatusOr<Result> ParseArgs(const std::vector<std::string>& args) const;

  // ParseArgs on argv[1..argc), reporting: nullopt when the command goes on; otherwise its exit
  // status, 0 after the usage was printed for --help, 2 after an error was reported as by
  // BadArgument.
  std::optional<int> Parse(int argc, char** argv) const;

  // Reports bad input: "gpuharness <command>: <message>\n" and the usage on stderr. Returns the
  // exit status for bad input (2).
  int BadArgument(const std::string& message) const;

  const std::string& command() const { return command_; }

 private:
  struct Flag {
    std::string name;
    bool takes_value = true;
    std::string missing;  // template
    // Takes the value ("" for a flag without one); returns the error message, or nullopt.
    std::function<std::optional<std::string>(const std::string& value)> set;
  };

  FlagParser& Add(Flag flag);
  FlagParser& AddInt(std::string name, int min, std::string invalid, std::function<void(int)> store);

  std::string command_;
  const char* usage_;
  std::vector<Flag> flags_;
  std::vector<std::string*> positionals_;
};

// The default of --program: the path of this binary ("gpuharness" when it cannot be read).
std::string ThisProgram();

}  // namespace gh

#endif  // GPUHARNESS_CLI_FLAG_PARSER_H_
