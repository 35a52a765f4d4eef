// `gpuharness list --json`: the registered kinds as data, for tools that write scenarios (schema
// 2: "block" replaced "takes_exec_block").
//   {"schema_version": 1, "gpuharness_version": "0.1.0", "kinds": [
//     {"name": "ring_shift", "description": "...", "backends": ["host", "cuda"],
//      "ranks": {"min": 2, "max": null},            // max null: no upper bound
//      "isolate_trials": false, "block": null,     // kind exec: "exec", its own YAML block
//      "params": [{"name": "bytes", "type": "bytes", "default": 1048576,
//                  "min": 1, "max": null, "choices": [], "help": "..."}, ...]}, ...]}
// "type" is ParamTypeName; "default" is a JSON number for int, bytes (a byte count) and float,
// a boolean for bool and a string for string and enum; "choices" lists an enum's names (empty for
// other types); "min"/"max" are the inclusive bounds or null.
#ifndef GPUHARNESS_CLI_KIND_LISTING_H_
#define GPUHARNESS_CLI_KIND_LISTING_H_

#include <vector>

#include "harness/core/registry.h"
#include "nlohmann/json.hpp"

namespace gh {

nlohmann::json KindListingJson(const std::vector<const KindInfo*>& kinds);

}  // namespace gh

#endif  // GPUHARNESS_CLI_KIND_LISTING_H_
