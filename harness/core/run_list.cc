#include "harness/core/run_list.h"

#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gh {

std::string FormatRunList(const std::vector<RunKey>& runs) {
  std::string out;
  for (const RunKey& run : runs) absl::StrAppend(&out, run.point, "\t", run.trial, "\n");
  return out;
}

absl::StatusOr<std::vector<RunKey>> ParseRunList(const std::string& text, const std::string& path,
                                                 std::vector<int>* line_numbers) {
  std::vector<RunKey> runs;
  std::set<RunKey> seen;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const auto where = [&] { return absl::StrCat(path, ":", line_number, ": "); };
    const size_t tab = line.rfind('\t');
    if (tab == absl::string_view::npos || tab == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where(), "expected '<point name><TAB><trial>', got '", line, "'"));
    }
    RunKey run;
    run.point = std::string(line.substr(0, tab));
    const absl::string_view trial = line.substr(tab + 1);
    if (!absl::SimpleAtoi(trial, &run.trial) || run.trial < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where(), "trial must be a whole number >= 0, got '", trial, "'"));
    }
    if (!seen.insert(run).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where(), "run '", run.point, "' trial ", run.trial, " is listed twice"));
    }
    runs.push_back(std::move(run));
    if (line_numbers != nullptr) line_numbers->push_back(line_number);
  }
  return runs;
}

}  // namespace gh
