// Typed scenario parameters: the values an axis takes and the schema a kind declares.
#ifndef GPUHARNESS_CORE_PARAM_H_
#define GPUHARNESS_CORE_PARAM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"

namespace gh {

enum class ParamType {
  kInt,     // 64-bit integer
  kFloat,   // double
  kBool,
  kString,  // free text
  kEnum,    // one of ParamDef::choices
  kBytes,   // a byte count written as 4096, 4K, 1M, 2GiB (powers of 1024); held as int64
};
std::string_view ParamTypeName(ParamType type);

// A parameter's value. kBytes and kInt hold int64_t, kEnum and kString hold std::string.
using ParamValue = std::variant<bool, int64_t, double, std::string>;

// How a value is written in point names and tables: bytes as 4K/1M/1G when exact, floats
// without trailing zeros. Stable: baselines and bisect key on it.
std::string FormatParamValue(ParamType type, const ParamValue& value);

// Parses "4096", "4K", "4KiB", "1M", "2G" (powers of 1024, case-insensitive suffix).
absl::StatusOr<int64_t> ParseBytes(std::string_view text);
std::string FormatBytes(int64_t bytes);

// One parameter of a scenario kind, as `gpuharness list` prints it.
struct ParamDef {
  std::string name;
  ParamType type = ParamType::kInt;
  ParamValue default_value;
  std::string help;
  std::vector<std::string> choices;  // kEnum only
  std::optional<double> min;         // inclusive bounds for kInt/kFloat/kBytes
  std::optional<double> max;
};

}  // namespace gh

#endif  // GPUHARNESS_CORE_PARAM_H_
