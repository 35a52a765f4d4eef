// `gpuharness report DIR [--baseline DIR] [--out DIR2]`: reports for a results directory.
#include <cstdio>
#include <string>
#include <string_view>

#include "harness/cli/commands.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/report/console_table.h"
#include "harness/report/junit.h"

namespace gh {
namespace {

constexpr char kReportUsage[] =
    "usage: gpuharness report DIR [--baseline DIR] [--out DIR2]\n"
    "  Reads DIR/records.jsonl and writes junit.xml into DIR (or DIR2).\n";

}  // namespace

int ReportCommand(int argc, char** argv) {
  std::string dir, out_dir;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kReportUsage, stdout);
      return kExitOk;
    }
    if (arg == "--out" && i + 1 < argc) {
      out_dir = argv[++i];
    } else if (!arg.empty() && arg[0] != '-' && dir.empty()) {
      dir = std::string(arg);
    } else {
      std::fprintf(stderr, "gpuharness report: unexpected argument '%s'\n%s", argv[i], kReportUsage);
      return kExitBadInput;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr, "gpuharness report: missing DIR\n%s", kReportUsage);
    return kExitBadInput;
  }
  if (out_dir.empty()) out_dir = dir;
  auto contents = ReadRecordsFile(dir + "/records.jsonl");
  if (!contents.ok()) {
    std::fprintf(stderr, "gpuharness report: %s\n", std::string(contents.status().message()).c_str());
    return kExitBadInput;
  }
  if (auto made = MakeDirectories(out_dir); !made.ok()) {
    std::fprintf(stderr, "gpuharness report: %s\n", std::string(made.message()).c_str());
    return kExitInfrastructure;
  }
  if (auto written = WriteFileAtomically(out_dir + "/junit.xml",
                                         RenderJUnit(contents->records, "gpuharness"));
      !written.ok()) {
    std::fprintf(stderr, "gpuharness report: %s\n", std::string(written.message()).c_str());
    return kExitInfrastructure;
  }
  std::fputs(RenderConsoleTable(contents->records).c_str(), stdout);
  for (const Record& record : contents->records) {
    if (!record.matched) return kExitUnmet;
  }
  return kExitOk;
}

}  // namespace gh
