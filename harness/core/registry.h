// The scenario registry: every kind registers itself from its own file with
// GH_REGISTER_SCENARIO; `gpuharness list` and the YAML loader read it.
#ifndef GPUHARNESS_CORE_REGISTRY_H_
#define GPUHARNESS_CORE_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/outcome.h"
#include "harness/core/param.h"
#include "harness/core/scenario_spec.h"
#include "harness/core/yaml_fields.h"

namespace gh {

enum class Backend { kHost, kCuda };
std::string_view BackendName(Backend backend);  // "host", "cuda"

class PointContext;  // harness/runtime/point_context.h: the rank's view of the job

// One scenario kind's body. Run() executes one point × trial on this rank and returns this
// rank's outcome; the runtime reduces outcomes to rank 0. Run() must not throw.
class Scenario {
 public:
  virtual ~Scenario() = default;
  virtual RankOutcome Run(PointContext& ctx) = 0;
};

struct KindInfo {
  std::string name;
  std::string description;
  std::vector<ParamDef> params;   // declared order = order in point names
  std::vector<Backend> backends;  // those compiled into this binary that support the kind
  RankRequirement ranks;          // what the kind itself can run with
  bool isolate_trials = false;    // each trial in a fresh child process
  // A kind with a top-level block of its own (kind exec: "exec") names it and reads it; every
  // scenario of the kind must have the block, no other kind may. `node` is undefined when the
  // scenario has none (the reader words that error); `spec` is read but for the block.
  std::string block_key;
  std::function<absl::StatusOr<std::shared_ptr<const KindBlock>>(const YamlDoc& doc, const YAML::Node& node,
                                                                 const KindInfo& kind, const ScenarioSpec& spec)>
      read_block;
  std::function<std::unique_ptr<Scenario>()> make;
};

class ScenarioRegistry {
 public:
  static ScenarioRegistry& Global();
  // Returns false (and keeps the first) when the name is taken.
  bool Register(KindInfo info);
  const KindInfo* Find(std::string_view name) const;
  std::vector<const KindInfo*> All() const;  // sorted by name

 private:
  std::vector<std::unique_ptr<KindInfo>> kinds_;
};

namespace internal {
struct ScenarioRegistrar {
  explicit ScenarioRegistrar(KindInfo (*describe)());
};
}  // namespace internal

}  // namespace gh

// In the kind's own .cc: `GH_REGISTER_SCENARIO(ring_shift, DescribeRingShift);` where
// DescribeRingShift() returns its KindInfo. The kind's object library is linked whole.
#define GH_REGISTER_SCENARIO(kind, describe_fn) \
  static ::gh::internal::ScenarioRegistrar gh_registrar_##kind(describe_fn)

#endif  // GPUHARNESS_CORE_REGISTRY_H_
