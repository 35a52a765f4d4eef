// Placeholders in the `exec:` block's strings: "{name}" is replaced by the value of `name`;
// "{{" and "}}" stand for literal braces. Braces around anything that is not a lower-case
// identifier ("\\d{2}", "{2,3}") are left as they are, so regex quantifiers need no escaping.
#ifndef GPUHARNESS_SCENARIOS_EXEC_TEMPLATE_H_
#define GPUHARNESS_SCENARIOS_EXEC_TEMPLATE_H_

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace gh {

// The placeholders every exec rank fills: rank, nranks, local_rank, device, coordinator, out,
// dir.
const std::set<std::string>& ExecFixedPlaceholders();

// InvalidArgument naming the first placeholder not in `known` ("unknown placeholder {rnak}").
absl::Status CheckExecTemplate(std::string_view text, const std::set<std::string>& known);

// Replaces every placeholder; InvalidArgument for one not in `values`.
absl::StatusOr<std::string> ExpandExecTemplate(std::string_view text,
                                               const std::map<std::string, std::string>& values);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_EXEC_TEMPLATE_H_
