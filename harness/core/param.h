// Typed scenario parameters: the values an axis takes and the schema a kind declares.
#ifndef GPUHARNESS_CORE_PARAM_H_
#define GPUHARNESS_CORE_PARAM_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
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

// An enum parameter's names, written once: a table of {value, name} pairs beside the enum,
// found by argument-dependent lookup through a function `EnumNames(E)` in E's namespace:
//   enum class RingDtype { kF32, kBF16 };
//   inline constexpr EnumName<RingDtype> kRingDtypeNames[] = {{RingDtype::kF32, "f32"}, ...};
//   constexpr std::span<const EnumName<RingDtype>> EnumNames(RingDtype) { return kRingDtypeNames; }
// ParamsBuilder::Enum derives the parameter's choices from it and Point::GetEnum<E> reads the
// value back through it, so a name cannot be declared in one place and missing in the other.
// GH_ENUM_NAMES (core/enum_names.h) writes the table and the function in one line.
template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};

template <typename E>
concept NamedEnum = requires(E e) {
  { EnumNames(e) } -> std::convertible_to<std::span<const EnumName<E>>>;
};

// Every name of E, in table order (a parameter's `choices`).
template <NamedEnum E>
std::vector<std::string> EnumChoices() {
  std::vector<std::string> names;
  for (const EnumName<E>& entry : EnumNames(E{})) names.emplace_back(entry.name);
  return names;
}

// E's name in its table; "" for a value the table lacks (a programming error).
template <NamedEnum E>
std::string_view EnumToName(E value) {
  for (const EnumName<E>& entry : EnumNames(E{})) {
    if (entry.value == value) return entry.name;
  }
  return "";
}

// The value named `name`, or nullopt: never a default.
template <NamedEnum E>
std::optional<E> EnumFromName(std::string_view name) {
  for (const EnumName<E>& entry : EnumNames(E{})) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

// "unknown <what> '<name>' (expected one of a, b, c)", as InvalidArgument.
absl::Status UnknownEnumNameError(std::string_view what, std::string_view name,
                                  const std::vector<std::string>& choices);

// EnumFromName, or InvalidArgument naming `what` (e.g. "allocator") and the choices.
template <NamedEnum E>
absl::StatusOr<E> ParseEnum(std::string_view what, std::string_view name) {
  if (std::optional<E> value = EnumFromName<E>(name)) return *value;
  return UnknownEnumNameError(what, name, EnumChoices<E>());
}

// Declares a kind's parameters in order, one call each; the bound setters apply to the
// parameter declared last:
//   info.params = ParamsBuilder()
//                     .Bytes("bytes", 1 << 20, "per-rank block").Min(4)
//                     .Enum("dtype", RingDtype::kF32, "element type")
//                     .Build();
class ParamsBuilder {
 public:
  ParamsBuilder& Int(std::string name, int64_t default_value, std::string help) {
    return Add(std::move(name), ParamType::kInt, default_value, std::move(help));
  }
  ParamsBuilder& Float(std::string name, double default_value, std::string help) {
    return Add(std::move(name), ParamType::kFloat, default_value, std::move(help));
  }
  ParamsBuilder& Bool(std::string name, bool default_value, std::string help) {
    return Add(std::move(name), ParamType::kBool, default_value, std::move(help));
  }
  ParamsBuilder& String(std::string name, std::string default_value, std::string help) {
    return Add(std::move(name), ParamType::kString, std::move(default_value), std::move(help));
  }
  ParamsBuilder& Bytes(std::string name, int64_t default_value, std::string help) {
    return Add(std::move(name), ParamType::kBytes, default_value, std::move(help));
  }
  // Choices are E's table; the default is written as the enum value, not as a name.
  template <NamedEnum E>
  ParamsBuilder& Enum(std::string name, E default_value, std::string help) {
    Add(std::move(name), ParamType::kEnum, std::string(EnumToName(default_value)), std::move(help));
    params_.back().choices = EnumChoices<E>();
    return *this;
  }
  // Inclusive bounds of the last kInt/kFloat/kBytes parameter.
  ParamsBuilder& Min(double min) {
    params_.back().min = min;
    return *this;
  }
  ParamsBuilder& Max(double max) {
    params_.back().max = max;
    return *this;
  }
  ParamsBuilder& Range(double min, double max) { return Min(min).Max(max); }
  std::vector<ParamDef> Build() { return std::move(params_); }

 private:
  ParamsBuilder& Add(std::string name, ParamType type, ParamValue default_value, std::string help);
  std::vector<ParamDef> params_;
};

}  // namespace gh

#endif  // GPUHARNESS_CORE_PARAM_H_
