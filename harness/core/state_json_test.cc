#include "harness/core/state_json.h"

#include <string>

#include "gtest/gtest.h"

namespace gh {
namespace {

nlohmann::json Parse(const std::string& text) {
  absl::StatusOr<nlohmann::json> j = ParseStateText(text, "F");
  EXPECT_TRUE(j.ok()) << j.status();
  return j.ok() ? *j : nlohmann::json();
}

TEST(StateJson, TypedGettersReadWhatIsThere) {
  nlohmann::json j = Parse(R"({"s": "x", "i": 3, "f": 2.0, "b": true, "l": ["a", "b"], "m": {"k": "v"}, "n": null})");
  StateJson root(j, "DIR/done.json");
  EXPECT_EQ(*root.String("s"), "x");
  EXPECT_EQ(*root.Int("i"), 3);
  EXPECT_EQ(*root.Int("f"), 2);
  EXPECT_DOUBLE_EQ(*root.Number("i"), 3.0);
  EXPECT_TRUE(*root.Bool("b"));
  EXPECT_EQ(*root.StringListOrEmpty("l"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(root.StringMapOrEmpty("m")->at("k"), "v");
  EXPECT_EQ(*root.StringOr("n", "dflt"), "dflt");
  EXPECT_EQ(*root.StringOr("absent", "dflt"), "dflt");
  EXPECT_TRUE(root.StringListOrEmpty("absent")->empty());
  EXPECT_FALSE(root.Has("n"));
}

TEST(StateJson, WrongTypesAreErrorsNamingFileAndKey) {
  nlohmann::json j = Parse(R"({"hash": 12, "probes": [{"v": "a"}, {"v": "b"}, {"v": "c"}, {"v": 7}],
                               "trial_results": "x", "big": 18446744073709551615, "frac": 1.5})");
  StateJson root(j, "DIR/summary.json");
  absl::StatusOr<std::string> hash = root.String("hash");
  EXPECT_EQ(hash.status().message(), "DIR/summary.json: hash: expected a string, got number");
  absl::StatusOr<std::vector<StateJson>> probes = root.Array("probes");
  ASSERT_TRUE(probes.ok());
  EXPECT_EQ((*probes)[3].String("v").status().message(), "DIR/summary.json: probes[3].v: expected a string, got number");
  EXPECT_EQ(root.ArrayOrEmpty("trial_results").status().message(),
            "DIR/summary.json: trial_results: expected a list, got string");
  EXPECT_EQ(root.StringOr("hash", "").status().message(), "DIR/summary.json: hash: expected a string, got number");
  EXPECT_EQ(root.String("missing").status().message(), "DIR/summary.json: missing: missing");
  EXPECT_FALSE(root.Int("big").ok());
  EXPECT_FALSE(root.Int("frac").ok());
  EXPECT_FALSE(root.Bool("hash").ok());
  StateJson str((*probes)[0].raw()["v"], "F", "probes[0].v");
  EXPECT_EQ(str.String("x").status().message(), "F: probes[0].v: expected an object, got string");
  EXPECT_EQ(str.Items().status().message(), "F: probes[0].v: expected a list, got string");
}

TEST(StateJson, UnparsableTextIsInvalidArgument) {
  for (const char* text : {"", "{", "{\"a\": }", "\xff", "[1,]", "nan"}) {
    absl::StatusOr<nlohmann::json> j = ParseStateText(text, "DIR/x.json");
    EXPECT_TRUE(absl::IsInvalidArgument(j.status())) << text;
    EXPECT_EQ(j.status().message(), "DIR/x.json: not valid JSON");
  }
  EXPECT_FALSE(ParseStateFile("/nonexistent/x.json").ok());
}

TEST(StateJson, KeysInMessagesArePrintable) {
  nlohmann::json j = nlohmann::json::object();
  j["a\nb"] = 1;
  StateJson root(j, "F");
  EXPECT_EQ(root.String("a\nb").status().message(), "F: a\\x0ab: expected a string, got number");
}

}  // namespace
}  // namespace gh
