#include "harness/core/registry.h"

#include "gtest/gtest.h"
#include "harness/core/scenario_spec.h"
#include "harness/core/testdata/fake_kinds.h"

namespace gh {
namespace {

TEST(ScenarioRegistryTest, RegisterFindAllSorted) {
  ScenarioRegistry registry;
  EXPECT_TRUE(registry.All().empty());
  EXPECT_EQ(registry.Find("zeta"), nullptr);
  KindInfo zeta;
  zeta.name = "zeta";
  zeta.description = "first";
  KindInfo alpha;
  alpha.name = "alpha";
  EXPECT_TRUE(registry.Register(zeta));
  EXPECT_TRUE(registry.Register(alpha));
  KindInfo zeta_again;
  zeta_again.name = "zeta";
  zeta_again.description = "second";
  EXPECT_FALSE(registry.Register(zeta_again));  // the first one stays
  ASSERT_NE(registry.Find("zeta"), nullptr);
  EXPECT_EQ(registry.Find("zeta")->description, "first");
  std::vector<const KindInfo*> all = registry.All();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]->name, "alpha");
  EXPECT_EQ(all[1]->name, "zeta");
}

TEST(ScenarioRegistryTest, FakeRegistryHasItsKinds) {
  ScenarioRegistry registry = testing::MakeFakeRegistry();
  ASSERT_NE(registry.Find("fake_ring"), nullptr);
  EXPECT_EQ(registry.Find("fake_ring")->params.size(), 6u);
  EXPECT_NE(registry.Find("solo"), nullptr);
}

KindInfo DescribeRegistrarProbe() {
  KindInfo info;
  info.name = "core_test_registrar_probe";
  info.description = "registered by GH_REGISTER_SCENARIO in registry_test.cc";
  return info;
}
GH_REGISTER_SCENARIO(core_test_registrar_probe, DescribeRegistrarProbe);

TEST(ScenarioRegistryTest, RegistrarRegistersInTheGlobalRegistry) {
  const KindInfo* kind = ScenarioRegistry::Global().Find("core_test_registrar_probe");
  ASSERT_NE(kind, nullptr);
  EXPECT_EQ(kind->description, "registered by GH_REGISTER_SCENARIO in registry_test.cc");
}

TEST(BackendNameTest, Names) {
  EXPECT_EQ(BackendName(Backend::kHost), "host");
  EXPECT_EQ(BackendName(Backend::kCuda), "cuda");
}

TEST(ScenarioSpecTest, SourceLocAndRankRequirementText) {
  EXPECT_EQ((SourceLoc{"s.yaml", 12, 5}).ToString(), "s.yaml:12:5");
  EXPECT_EQ((SourceLoc{"s.yaml", 0, 0}).ToString(), "s.yaml");
  EXPECT_EQ((RankRequirement{4, 4}).ToString(), "4");
  EXPECT_EQ((RankRequirement{2, INT_MAX}).ToString(), ">=2");
  EXPECT_EQ((RankRequirement{2, 8}).ToString(), "2..8");
  EXPECT_TRUE((RankRequirement{2, 8}).Admits(8));
  EXPECT_FALSE((RankRequirement{2, 8}).Admits(1));
  EXPECT_FALSE((RankRequirement{2, 8}).Admits(9));
}

}  // namespace
}  // namespace gh
