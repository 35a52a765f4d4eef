// Test-only: a scenario text loaded and expanded, for the tests of what is judged per point
// (expectations, metric bounds, records), and a fixture around it.
#ifndef GPUHARNESS_CORE_TESTDATA_LOADED_SCENARIO_H_
#define GPUHARNESS_CORE_TESTDATA_LOADED_SCENARIO_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "harness/core/point.h"
#include "harness/core/registry.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/status_macros.h"

namespace gh::testing {

// A registry of one host kind, `name`, on 1 to 8 ranks.
inline ScenarioRegistry RegistryOfOneHostKind(std::string name, std::vector<ParamDef> params) {
  ScenarioRegistry registry;
  KindInfo kind;
  kind.name = std::move(name);
  kind.params = std::move(params);
  kind.backends = {Backend::kHost};
  kind.ranks = {1, 8};
  registry.Register(kind);
  return registry;
}

// Loads `text`, which holds one scenario, into `spec` and expands its points at `nranks`; the
// points point at `spec`, which must outlive them.
inline absl::StatusOr<std::vector<Point>> LoadAndExpand(const std::string& text,
                                                        const std::string& file,
                                                        const ScenarioRegistry& registry,
                                                        int nranks, ScenarioSpec& spec) {
  GH_ASSIGN_OR_RETURN(std::vector<ScenarioSpec> specs, LoadScenarioText(text, file, registry));
  if (specs.empty()) return absl::InvalidArgumentError(file + ": no scenario");
  spec = std::move(specs[0]);
  return ExpandPoints(spec, nranks);
}

// A fixture for the tests of one scenario text, as scenarios/ring.yaml on 2 ranks: SetUp loads
// it into spec_ and expands points_ (a fatal failure where it does not load).
class LoadedScenarioTest : public ::testing::Test {
 protected:
  LoadedScenarioTest(std::string text, ScenarioRegistry registry)
      : text_(std::move(text)), registry_(std::move(registry)) {}
  void SetUp() override {
    absl::StatusOr<std::vector<Point>> points =
        LoadAndExpand(text_, "scenarios/ring.yaml", registry_, 2, spec_);
    ASSERT_TRUE(points.ok()) << points.status();
    points_ = *std::move(points);
  }
  const Point& PointNamed(const std::string& name) const {
    for (const Point& p : points_) {
      if (p.name == name) return p;
    }
    ADD_FAILURE() << "no point " << name;
    return points_[0];
  }

  const std::string text_;
  ScenarioRegistry registry_;
  ScenarioSpec spec_;
  std::vector<Point> points_;
};

}  // namespace gh::testing

#endif  // GPUHARNESS_CORE_TESTDATA_LOADED_SCENARIO_H_
