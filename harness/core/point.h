// A point: one combination of a scenario's axes at one rank count. Point names are stable and
// sortable; filters, baselines and bisect key on them.
#ifndef GPUHARNESS_CORE_POINT_H_
#define GPUHARNESS_CORE_POINT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/scenario_spec.h"

namespace gh {

struct PointParam {
  std::string name;
  ParamType type;
  ParamValue value;
  bool in_name;  // set in YAML: part of the point's name
};

struct Point {
  const ScenarioSpec* spec = nullptr;  // owned by the caller; outlives the point
  int index = 0;                       // position in expansion order
  int nranks = 1;
  std::vector<PointParam> params;      // the kind's declared order
  std::string name;  // "<scenario>/<param>=<value>/.../np=<nranks>", only YAML-set params

  // Typed access by name. A missing name or wrong type is a programming error (the loader
  // validated every parameter against the kind's schema): these abort with a message.
  int64_t GetInt(std::string_view name) const;    // kInt and kBytes
  double GetFloat(std::string_view name) const;
  bool GetBool(std::string_view name) const;
  const std::string& GetString(std::string_view name) const;  // kString and kEnum
  // A kEnum parameter as its enum, through E's name table (param.h). A name the table lacks
  // is a programming error (the choices were declared from another list): it aborts naming
  // the point, the parameter, the value and the table's names. Never a default.
  template <NamedEnum E>
  E GetEnum(std::string_view name) const {
    const std::string& text = GetString(name);
    if (std::optional<E> value = EnumFromName<E>(text)) return *value;
    DieUnknownEnumName(name, text, EnumChoices<E>());
  }
  std::string Format(std::string_view name) const;  // as written in the point name

 private:
  [[noreturn]] void DieUnknownEnumName(std::string_view name, const std::string& value,
                                       const std::vector<std::string>& choices) const;
};

// Largest number of points one scenario may expand to; more is an error naming the axes.
inline constexpr int64_t kMaxPointsPerScenario = 100000;

// The cartesian product of the spec's axes, first axis slowest. Fails (naming the file and the
// axes) when the product exceeds kMaxPointsPerScenario.
absl::StatusOr<std::vector<Point>> ExpandPoints(const ScenarioSpec& spec, int nranks);

}  // namespace gh

#endif  // GPUHARNESS_CORE_POINT_H_
