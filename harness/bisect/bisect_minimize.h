// What differs between a passing and a failing configuration, as single changes ddmin can apply
// one subset at a time: a plain environment variable set, changed or unset; one flag of an
// XLA_FLAGS-style variable added, changed or removed; a PATH-like variable's prepends/appends.
#ifndef GPUHARNESS_BISECT_BISECT_MINIMIZE_H_
#define GPUHARNESS_BISECT_BISECT_MINIMIZE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/driver/cell_plan.h"

namespace gh {

struct SettingChange {
  enum class Kind { kPlain, kFlag, kPathList };
  Kind kind = Kind::kPlain;
  std::string variable;
  std::string flag;                            // kFlag: "--xla_gpu_enable_dynamic_slice_fusion"
  std::optional<std::string> failing_value;    // kPlain: the value; kFlag: the whole flag string;
  std::optional<std::string> passing_value;    // kPathList: "prepend a:b | append c"; nullopt: not set
  std::vector<std::string> failing_prepend;    // kPathList: what applying the change installs
  std::vector<std::string> failing_append;
  // "NCCL_CUMEM_ENABLE=1" (what the failing side has), "unset NCCL_X", "XLA_FLAGS += --a=1",
  // "XLA_FLAGS without --a".
  std::string FailingText() const;
  // The same for the passing side: the workaround wording ("NCCL_CUMEM_ENABLE=0").
  std::string PassingText() const;
};

// The changes that turn `passing` into `failing`, sorted by variable then flag. Differences
// other than the environment (ranks, launcher, backend, arguments, version) are
// InvalidArgument naming them: minimize varies the environment only.
absl::StatusOr<std::vector<SettingChange>> DiffSettings(const driver::CellPlan& passing,
                                                        const driver::CellPlan& failing);

// `passing` with `changes` applied (its id and labels unchanged).
driver::CellPlan ApplyChanges(const driver::CellPlan& passing, const std::vector<SettingChange>& changes);

// The flag's name: "--a=1" -> "--a", "--b" -> "--b".
std::string FlagName(const std::string& flag);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_BISECT_MINIMIZE_H_
