// `gpuharness report DIR [--baseline DIR] [--out DIR2]`: summary.md, report.html and junit.xml
// for a results directory, compared with expectations and optionally a baseline.
#include <cstdio>
#include <string>
#include <string_view>

#include "harness/cli/commands.h"
#include "harness/report/report_writer.h"

namespace gh {
namespace {

constexpr char kReportUsage[] =
    "usage: gpuharness report DIR [--baseline DIR [--baseline-ignore AXIS]...] [--out DIR2]\n"
    "  Reads DIR/records.jsonl (and sweep.json, environment.json, cells/*/environment.json when\n"
    "  present) and writes summary.md, report.html and junit.xml into DIR, or DIR2 with --out.\n"
    "  --baseline DIR  also compare with an earlier results directory: regressions, fixes,\n"
    "                  changed signatures, new and vanished points.\n"
    "  --baseline-ignore AXIS  match cells with the baseline's without this axis, e.g. a\n"
    "                  version axis whose label changes from run to run (repeatable).\n"
    "  Exit status: 0 all expectations met and no regression, 1 otherwise, 2 bad input,\n"
    "  3 a report could not be written.\n";

int BadUsage(const std::string& message) {
  std::fprintf(stderr, "gpuharness report: %s\n%s", message.c_str(), kReportUsage);
  return kExitBadInput;
}

}  // namespace

int ReportCommand(int argc, char** argv) {
  ReportOptions options;
  std::string ignored_axis;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kReportUsage, stdout);
      return kExitOk;
    }
    std::string* value = nullptr;
    std::string_view flag = arg;
    std::string inline_value;
    bool has_inline = false;
    if (size_t eq = arg.find('='); arg.substr(0, 2) == "--" && eq != std::string_view::npos) {
      flag = arg.substr(0, eq);
      inline_value = std::string(arg.substr(eq + 1));
      has_inline = true;
    }
    if (flag == "--baseline") {
      value = &options.baseline_dir;
    } else if (flag == "--out") {
      value = &options.out_dir;
    } else if (flag == "--baseline-ignore") {
      value = &ignored_axis;
    } else if (!arg.empty() && arg[0] == '-') {
      return BadUsage("unknown flag '" + std::string(arg) + "'");
    } else if (options.dir.empty()) {
      options.dir = std::string(arg);
      continue;
    } else {
      return BadUsage("unexpected argument '" + std::string(arg) + "' (one DIR only)");
    }
    const char* needs = value == &ignored_axis ? " needs an axis name" : " needs a directory";
    if (has_inline) {
      *value = inline_value;
    } else if (i + 1 < argc) {
      *value = argv[++i];
    } else {
      return BadUsage(std::string(flag) + needs);
    }
    if (value->empty()) return BadUsage(std::string(flag) + needs);
    if (value == &ignored_axis) options.baseline_ignore_axes.insert(ignored_axis);
  }
  if (options.dir.empty()) return BadUsage("missing DIR");

  absl::StatusOr<ReportResult> result = WriteReports(options);
  if (!result.ok()) {
    std::fprintf(stderr, "gpuharness report: %s\n", std::string(result.status().message()).c_str());
    return result.status().code() == absl::StatusCode::kInvalidArgument ? kExitBadInput : kExitInfrastructure;
  }
  if (result->torn_lines > 0) {
    std::fprintf(stderr, "gpuharness report: %s/records.jsonl: skipped %d partial last line(s)\n",
                 options.dir.c_str(), result->torn_lines);
  }
  std::printf("%s\n", result->headline.c_str());
  for (const std::string& path : result->written) std::printf("wrote %s\n", path.c_str());
  return result->exit_status;
}

}  // namespace gh
