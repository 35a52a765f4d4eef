#include "harness/core/point.h"

#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gh {
namespace {

[[noreturn]] void Die(const Point& point, std::string_view name, std::string_view what) {
  std::fprintf(stderr, "gpuharness: point '%s': parameter '%.*s' %.*s\n", point.name.c_str(),
               static_cast<int>(name.size()), name.data(), static_cast<int>(what.size()),
               what.data());
  std::abort();
}

const PointParam& Lookup(const Point& point, std::string_view name) {
  for (const PointParam& p : point.params) {
    if (p.name == name) return p;
  }
  Die(point, name, "does not exist");
}

// The value of parameter `name`, held as T and declared as `type` or `also`; otherwise the
// point dies naming the type it has and `wanted`.
template <typename T>
const T& Typed(const Point& point, std::string_view name, std::string_view wanted, ParamType type,
               ParamType also) {
  const PointParam& p = Lookup(point, name);
  const T* v = std::get_if<T>(&p.value);
  if ((p.type != type && p.type != also) || v == nullptr) {
    Die(point, name,
        absl::StrCat("has type ", std::string(ParamTypeName(p.type)), ", not ", std::string(wanted)));
  }
  return *v;
}

}  // namespace

int64_t Point::GetInt(std::string_view name) const {
  return Typed<int64_t>(*this, name, "int or bytes", ParamType::kInt, ParamType::kBytes);
}

double Point::GetFloat(std::string_view name) const {
  return Typed<double>(*this, name, "float", ParamType::kFloat, ParamType::kFloat);
}

bool Point::GetBool(std::string_view name) const {
  return Typed<bool>(*this, name, "bool", ParamType::kBool, ParamType::kBool);
}

const std::string& Point::GetString(std::string_view name) const {
  return Typed<std::string>(*this, name, "string or enum", ParamType::kString, ParamType::kEnum);
}

void Point::DieUnknownEnumName(std::string_view name, const std::string& value,
                               const std::vector<std::string>& choices) const {
  Die(*this, name, absl::StrCat("has value '", value, "', which its enum does not name (",
                                absl::StrJoin(choices, ", "), ")"));
}

std::string Point::Format(std::string_view name) const {
  const PointParam& p = Lookup(*this, name);
  return FormatParamValue(p.type, p.value);
}

absl::StatusOr<std::vector<Point>> ExpandPoints(const ScenarioSpec& spec, int nranks) {
  int64_t total = 1;
  bool too_many = false;
  for (const Axis& axis : spec.axes) {
    int64_t size = static_cast<int64_t>(axis.values.size());
    if (size == 0) return std::vector<Point>{};
    if (total > kMaxPointsPerScenario / size) too_many = true;  // also guards overflow
    if (!too_many) total *= size;
  }
  if (too_many || total > kMaxPointsPerScenario) {
    std::vector<std::string> sizes;
    for (const Axis& axis : spec.axes) {
      if (axis.values.size() > 1) sizes.push_back(absl::StrCat(axis.name, ": ", axis.values.size()));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        spec.loc.ToString(), ": scenario '", spec.name, "' expands to more than ",
        kMaxPointsPerScenario, " points (", absl::StrJoin(sizes, " x "), ")"));
  }

  std::vector<Point> points;
  points.reserve(static_cast<size_t>(total));
  std::vector<size_t> digit(spec.axes.size(), 0);  // mixed-radix counter, last axis fastest
  for (int64_t i = 0; i < total; ++i) {
    Point point;
    point.spec = &spec;
    point.index = static_cast<int>(i);
    point.nranks = nranks;
    point.name = spec.name;
    for (size_t a = 0; a < spec.axes.size(); ++a) {
      const Axis& axis = spec.axes[a];
      point.params.push_back({axis.name, axis.type, axis.values[digit[a]], axis.from_yaml});
      if (axis.from_yaml) {
        absl::StrAppend(&point.name, "/", axis.name, "=",
                        FormatParamValue(axis.type, axis.values[digit[a]]));
      }
    }
    absl::StrAppend(&point.name, "/np=", nranks);
    points.push_back(std::move(point));
    for (size_t a = spec.axes.size(); a-- > 0;) {
      if (++digit[a] < spec.axes[a].values.size()) break;
      digit[a] = 0;
    }
  }
  return points;
}

}  // namespace gh
