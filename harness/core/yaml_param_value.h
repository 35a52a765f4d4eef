// One value of a kind's declared parameter read from YAML (a `params:` axis value, a `when:`
// condition value), typed and bounds-checked by its ParamDef.
#ifndef GPUHARNESS_CORE_YAML_PARAM_VALUE_H_
#define GPUHARNESS_CORE_YAML_PARAM_VALUE_H_

#include <string>

#include "absl/status/statusor.h"
#include "harness/core/param.h"
#include "harness/core/yaml_fields.h"

namespace gh {

// "expected a byte size such as 4K or 1M, got 'abc'", "2G is above the maximum 1G", ...
absl::StatusOr<ParamValue> ReadParamValue(const YamlDoc& doc, const ParamDef& def,
                                          const YAML::Node& node, const std::string& path);

}  // namespace gh

#endif  // GPUHARNESS_CORE_YAML_PARAM_VALUE_H_
