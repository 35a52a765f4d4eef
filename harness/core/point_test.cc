#include "harness/core/point.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/point_filter.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/testdata/fake_kinds.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

ScenarioSpec LoadSpec(const std::string& yaml) {
  ScenarioRegistry registry = testing::MakeFakeRegistry();
  absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioText(yaml, "p.yaml", registry);
  EXPECT_TRUE(specs.ok()) << specs.status();
  return specs.ok() ? (*specs)[0] : ScenarioSpec{};
}

std::vector<std::string> Names(const std::vector<Point>& points) {
  std::vector<std::string> names;
  for (const Point& p : points) names.push_back(p.name);
  return names;
}

TEST(ExpandPointsTest, FirstAxisSlowestOnlyYamlParamsInNamesInDeclaredOrder) {
  // YAML order (dtype before bytes) does not matter: the kind's declared order does.
  ScenarioSpec spec = LoadSpec(
      "name: ring\nkind: fake_ring\nparams:\n  dtype: [f32, bf16]\n  bytes: [4K, 1M, 1536]\n"
      "  check: false\n");
  absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec, 4);
  ASSERT_TRUE(points.ok()) << points.status();
  EXPECT_THAT(Names(*points),
              ElementsAre("ring/bytes=4K/dtype=f32/check=false/np=4",
                          "ring/bytes=4K/dtype=bf16/check=false/np=4",
                          "ring/bytes=1M/dtype=f32/check=false/np=4",
                          "ring/bytes=1M/dtype=bf16/check=false/np=4",
                          "ring/bytes=1536/dtype=f32/check=false/np=4",
                          "ring/bytes=1536/dtype=bf16/check=false/np=4"));
  for (size_t i = 0; i < points->size(); ++i) {
    const Point& p = (*points)[i];
    EXPECT_EQ(p.index, static_cast<int>(i));
    EXPECT_EQ(p.nranks, 4);
    EXPECT_EQ(p.spec, &spec);
    ASSERT_EQ(p.params.size(), 6u);  // every param, defaults included
    EXPECT_EQ(p.params[0].name, "bytes");
    EXPECT_TRUE(p.params[0].in_name);
    EXPECT_EQ(p.params[2].name, "transport");
    EXPECT_FALSE(p.params[2].in_name);
  }
  const Point& last = points->back();
  EXPECT_EQ(last.GetInt("bytes"), 1536);
  EXPECT_EQ(last.GetString("dtype"), "bf16");
  EXPECT_EQ(last.GetString("transport"), "mpi_p2p");
  EXPECT_EQ(last.GetInt("iters"), 3);
  EXPECT_EQ(last.GetFloat("scale"), 1.5);
  EXPECT_FALSE(last.GetBool("check"));
  EXPECT_EQ(last.Format("bytes"), "1536");
  EXPECT_EQ(last.Format("scale"), "1.5");
  EXPECT_EQ((*points)[2].Format("bytes"), "1M");
}

TEST(ExpandPointsTest, NoYamlParamsGivesOnePointNamedByScenarioAndRanks) {
  ScenarioSpec spec = LoadSpec("name: plain\nkind: fake_ring\n");
  absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec, 2);
  ASSERT_TRUE(points.ok());
  EXPECT_THAT(Names(*points), ElementsAre("plain/np=2"));
  EXPECT_EQ((*points)[0].GetInt("bytes"), 1 << 20);
}

TEST(ExpandPointsTest, IsStable) {
  ScenarioSpec spec = LoadSpec(
      "name: s\nkind: fake_ring\nparams:\n  iters: [3, 1, 2]\n  scale: [0.5, 0.25]\n");
  absl::StatusOr<std::vector<Point>> a = ExpandPoints(spec, 1);
  absl::StatusOr<std::vector<Point>> b = ExpandPoints(spec, 1);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(Names(*a), Names(*b));
  EXPECT_THAT(Names(*a), ElementsAre("s/iters=3/scale=0.5/np=1", "s/iters=3/scale=0.25/np=1",
                                     "s/iters=1/scale=0.5/np=1", "s/iters=1/scale=0.25/np=1",
                                     "s/iters=2/scale=0.5/np=1", "s/iters=2/scale=0.25/np=1"));
}

TEST(ExpandPointsTest, TooManyPointsNamesFileAndAxes) {
  ScenarioSpec spec;
  spec.name = "huge";
  spec.loc = {"big.yaml", 3, 1};
  Axis a{"a", ParamType::kInt, {}, true, {}};
  for (int i = 0; i < 1000; ++i) a.values.push_back(int64_t{i});
  Axis b = a;
  b.name = "b";
  Axis one{"c", ParamType::kInt, {int64_t{1}}, false, {}};
  spec.axes = {a, one, b};
  absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec, 1);
  ASSERT_FALSE(points.ok());
  EXPECT_EQ(points.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(points.status().message(),
            "big.yaml:3:1: scenario 'huge' expands to more than 100000 points (a: 1000 x b: 1000)");
}

TEST(ExpandPointsTest, ExactlyTheLimitIsAllowed) {
  ScenarioSpec spec;
  spec.name = "edge";
  Axis a{"a", ParamType::kInt, {}, true, {}};
  for (int i = 0; i < 1000; ++i) a.values.push_back(int64_t{i});
  Axis b{"b", ParamType::kInt, {}, true, {}};
  for (int i = 0; i < 100; ++i) b.values.push_back(int64_t{i});
  spec.axes = {a, b};
  absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec, 1);
  ASSERT_TRUE(points.ok());
  EXPECT_EQ(points->size(), 100000u);
  EXPECT_EQ(points->back().name, "edge/a=999/b=99/np=1");
}

TEST(PointDeathTest, MisuseAbortsWithAMessage) {
  ScenarioSpec spec = LoadSpec("name: d\nkind: fake_ring\n");
  absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec, 1);
  ASSERT_TRUE(points.ok());
  const Point& p = (*points)[0];
  EXPECT_DEATH(p.GetInt("nope"), "point 'd/np=1': parameter 'nope' does not exist");
  EXPECT_DEATH(p.GetInt("dtype"), "parameter 'dtype' has type enum, not int or bytes");
  EXPECT_DEATH(p.GetFloat("iters"), "parameter 'iters' has type int, not float");
  EXPECT_DEATH(p.GetBool("scale"), "parameter 'scale' has type float, not bool");
  EXPECT_DEATH(p.GetString("check"), "parameter 'check' has type bool, not string or enum");
}

TEST(PointNameMatchesTest, Globs) {
  const std::string name = "ring_shift/transport=nccl_p2p/bytes=1M/dtype=f32/np=4";
  for (const std::string& glob : {std::string(), std::string("*"), name}) {
    EXPECT_TRUE(PointNameMatches(glob, name)) << glob;
  }
  for (const char* glob : {"ring_shift/*", "ring_shift/*/dtype=f32/*", "*/bytes=1M/*", "*np=?",
                           "ring_shift/*/np=4", "ring?shift*", "**np=4"}) {
    EXPECT_TRUE(PointNameMatches(glob, name)) << glob;
  }
  // The whole name must match: a plain substring does not.
  for (const char* glob :
       {"bytes=1M", "ring_shift", "*/dtype=bf16/*", "*np=??", "ring_shift/*/np=8"}) {
    EXPECT_FALSE(PointNameMatches(glob, name)) << glob;
  }
  EXPECT_FALSE(PointNameMatches("?", ""));
  EXPECT_TRUE(PointNameMatches("*", ""));
}

}  // namespace
}  // namespace gh
