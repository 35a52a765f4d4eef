#include "harness/cli/kind_listing.h"

#include <climits>

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(KindListingTest, EveryFieldOfAKind) {
  KindInfo kind;
  kind.name = "demo";
  kind.description = "a demo";
  kind.backends = {Backend::kHost, Backend::kCuda};
  kind.ranks = {2, INT_MAX};
  kind.params = {
      {"size", ParamType::kBytes, int64_t{4096}, "block size", {}, 4.0, 1024.0 * 1024},
      {"mode", ParamType::kEnum, std::string("fast"), "how", {"fast", "slow"}, {}, {}},
      {"scale", ParamType::kFloat, 0.5, "", {}, 0.0, {}},
      {"check", ParamType::kBool, true, "verify", {}, {}, {}},
  };
  const nlohmann::json listing = KindListingJson({&kind});
  EXPECT_EQ(listing["schema_version"], 2);
  EXPECT_EQ(listing["gpuharness_version"], GH_VERSION);
  EXPECT_EQ(listing["kinds"], nlohmann::json::parse(R"([{
    "name": "demo", "description": "a demo", "backends": ["host", "cuda"],
    "ranks": {"min": 2, "max": null}, "isolate_trials": false, "block": null,
    "params": [
      {"name": "size", "type": "bytes", "default": 4096, "choices": [], "min": 4, "max": 1048576,
       "help": "block size"},
      {"name": "mode", "type": "enum", "default": "fast", "choices": ["fast", "slow"], "min": null,
       "max": null, "help": "how"},
      {"name": "scale", "type": "float", "default": 0.5, "choices": [], "min": 0.0, "max": null, "help": ""},
      {"name": "check", "type": "bool", "default": true, "choices": [], "min": null, "max": null,
       "help": "verify"}]}])"));
  kind.ranks = {1, 8};
  EXPECT_EQ(KindListingJson({&kind})["kinds"][0]["ranks"], nlohmann::json::parse(R"({"min": 1, "max": 8})"));
}

TEST(KindListingTest, ARegisteredKindAsDeclared) {
  const KindInfo* kind = ScenarioRegistry::Global().Find("isolation_selftest");
  ASSERT_NE(kind, nullptr);
  const nlohmann::json listing = KindListingJson({kind})["kinds"][0];
  EXPECT_EQ(listing["isolate_trials"], true);
  EXPECT_EQ(listing["ranks"], nlohmann::json::parse(R"({"min": 1, "max": null})"));
  EXPECT_EQ(listing["backends"][0], "host");
  EXPECT_EQ(listing["params"], nlohmann::json::parse(R"j([
      {"name": "fault", "type": "enum", "default": "none", "choices": ["none", "crash", "hang", "exit", "fail"],
       "min": null, "max": null, "help": "what the chosen trial does"},
      {"name": "fault_trial", "type": "int", "default": 0, "choices": [], "min": -1, "max": 10000,
       "help": "the trial that faults (-1: every trial)"}])j"));
}

}  // namespace
}  // namespace gh
