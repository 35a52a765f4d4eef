// Scenario kinds for core unit tests, registered in a local ScenarioRegistry so that tests do
// not depend on the real kinds.
#ifndef GPUHARNESS_CORE_TESTDATA_FAKE_KINDS_H_
#define GPUHARNESS_CORE_TESTDATA_FAKE_KINDS_H_

#include "harness/core/registry.h"

namespace gh::testing {

// fake_ring: every parameter type. solo: no parameters, exactly one rank.
inline ScenarioRegistry MakeFakeRegistry() {
  ScenarioRegistry registry;
  KindInfo ring;
  ring.name = "fake_ring";
  ring.description = "a ring with every parameter type";
  ring.params = {
      {"bytes", ParamType::kBytes, int64_t{1 << 20}, "block size", {}, 1.0, double(1LL << 30)},
      {"dtype", ParamType::kEnum, std::string("f32"), "element type", {"f32", "bf16", "i32"}, {}, {}},
      {"transport", ParamType::kString, std::string("mpi_p2p"), "how", {}, {}, {}},
      {"iters", ParamType::kInt, int64_t{3}, "repeats", {}, 1.0, 100.0},
      {"scale", ParamType::kFloat, 1.5, "factor", {}, 0.0, 10.0},
      {"check", ParamType::kBool, true, "verify", {}, {}, {}},
  };
  ring.backends = {Backend::kHost};
  ring.ranks = {1, 8};
  registry.Register(ring);
  KindInfo solo;
  solo.name = "solo";
  solo.ranks = {1, 1};
  registry.Register(solo);
  return registry;
}

}  // namespace gh::testing

#endif  // GPUHARNESS_CORE_TESTDATA_FAKE_KINDS_H_
