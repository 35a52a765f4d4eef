#include "harness/core/param.h"

#include <limits>
#include <span>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/point.h"

namespace gh {
namespace {

// A table declared the way kinds declare theirs; the values are out of name order on purpose.
enum class Flavor { kSweet, kSour, kBitter };
inline constexpr EnumName<Flavor> kFlavorNames[] = {
    {Flavor::kSour, "sour"}, {Flavor::kSweet, "sweet"}, {Flavor::kBitter, "bitter"}};
constexpr std::span<const EnumName<Flavor>> EnumNames(Flavor) { return kFlavorNames; }

Point PointWithFlavor(std::string name) {
  Point point;
  point.name = "taste/np=1";
  point.params.push_back({"flavor", ParamType::kEnum, std::move(name), true});
  return point;
}

TEST(EnumTableTest, GetEnumRoundTripsEveryDeclaredName) {
  for (const EnumName<Flavor>& entry : kFlavorNames) {
    SCOPED_TRACE(entry.name);
    EXPECT_EQ(PointWithFlavor(std::string(entry.name)).GetEnum<Flavor>("flavor"), entry.value);
    EXPECT_EQ(EnumToName(entry.value), entry.name);
    ASSERT_TRUE(ParseEnum<Flavor>("flavor", entry.name).ok());
    EXPECT_EQ(*ParseEnum<Flavor>("flavor", entry.name), entry.value);
  }
}

TEST(EnumTableTest, GetEnumOfANameTheTableLacksAbortsNamingParameterValueAndChoices) {
  EXPECT_DEATH(PointWithFlavor("umami").GetEnum<Flavor>("flavor"),
               "flavor.*umami.*sour, sweet, bitter");
}

TEST(EnumTableTest, ParseEnumOfAnUndeclaredNameNamesTheParameterAndTheAllowedNames) {
  absl::StatusOr<Flavor> parsed = ParseEnum<Flavor>("flavor", "umami");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(parsed.status().message(),
            "unknown flavor 'umami' (expected one of sour, sweet, bitter)");
  // Case matters: names are written exactly as declared.
  EXPECT_FALSE(ParseEnum<Flavor>("flavor", "Sour").ok());
  EXPECT_FALSE(ParseEnum<Flavor>("flavor", "").ok());
}

TEST(EnumTableTest, EnumFromNameNeverDefaults) {
  EXPECT_EQ(EnumFromName<Flavor>("sweet"), Flavor::kSweet);
  EXPECT_EQ(EnumFromName<Flavor>("salty"), std::nullopt);
}

TEST(ParamsBuilderTest, EnumChoicesAreTheTablesNamesInOrderAndDefaultIsItsName) {
  std::vector<ParamDef> params = ParamsBuilder()
                                     .Bytes("bytes", 4096, "block")
                                     .Min(4)
                                     .Enum("flavor", Flavor::kBitter, "taste")
                                     .Int("count", 3, "how many")
                                     .Range(1, 9)
                                     .Build();
  ASSERT_EQ(params.size(), 3u);
  const ParamDef& flavor = params[1];
  EXPECT_EQ(flavor.name, "flavor");
  EXPECT_EQ(flavor.type, ParamType::kEnum);
  EXPECT_THAT(flavor.choices, testing::ElementsAre("sour", "sweet", "bitter"));
  EXPECT_EQ(flavor.default_value, ParamValue(std::string("bitter")));
  EXPECT_EQ(flavor.help, "taste");
  EXPECT_FALSE(flavor.min.has_value());
  EXPECT_FALSE(flavor.max.has_value());
  // Bound setters apply to the parameter declared last, and only to it.
  EXPECT_EQ(params[0].type, ParamType::kBytes);
  EXPECT_EQ(params[0].min, 4.0);
  EXPECT_FALSE(params[0].max.has_value());
  EXPECT_TRUE(params[0].choices.empty());
  EXPECT_EQ(params[2].min, 1.0);
  EXPECT_EQ(params[2].max, 9.0);
  EXPECT_EQ(params[2].default_value, ParamValue(int64_t{3}));
}

TEST(ParamTypeNameTest, EveryType) {
  EXPECT_EQ(ParamTypeName(ParamType::kInt), "int");
  EXPECT_EQ(ParamTypeName(ParamType::kFloat), "float");
  EXPECT_EQ(ParamTypeName(ParamType::kBool), "bool");
  EXPECT_EQ(ParamTypeName(ParamType::kString), "string");
  EXPECT_EQ(ParamTypeName(ParamType::kEnum), "enum");
  EXPECT_EQ(ParamTypeName(ParamType::kBytes), "bytes");
}

TEST(ParseBytesTest, AcceptsPlainNumbersAndSuffixes) {
  EXPECT_EQ(*ParseBytes("0"), 0);
  EXPECT_EQ(*ParseBytes("4096"), 4096);
  EXPECT_EQ(*ParseBytes("4K"), 4096);
  EXPECT_EQ(*ParseBytes("4k"), 4096);
  EXPECT_EQ(*ParseBytes("4KiB"), 4096);
  EXPECT_EQ(*ParseBytes("4kib"), 4096);
  EXPECT_EQ(*ParseBytes("1M"), 1048576);
  EXPECT_EQ(*ParseBytes("3MiB"), 3 * 1048576);
  EXPECT_EQ(*ParseBytes("2G"), int64_t{2} << 30);
  EXPECT_EQ(*ParseBytes("1T"), int64_t{1} << 40);
  EXPECT_EQ(*ParseBytes("1P"), int64_t{1} << 50);
  EXPECT_EQ(*ParseBytes("7E"), int64_t{7} << 60);
  EXPECT_EQ(*ParseBytes("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(*ParseBytes("8388607T"), (int64_t{8388607} << 40));
}

TEST(ParseBytesTest, RejectsGarbageWithTheText) {
  for (const char* text : {"", "abc", "4X", "4KB", "4 K", " 4K", "4K ", "K", "1.5M", "4Kib2",
                           "0x10", "+4K", "4MiBs"}) {
    absl::StatusOr<int64_t> parsed = ParseBytes(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(),
              std::string("expected a byte size such as 4K or 1M, got '") + text + "'");
  }
}

TEST(ParseBytesTest, RejectsNegatives) {
  EXPECT_EQ(ParseBytes("-1").status().message(), "a byte size cannot be negative, got '-1'");
  EXPECT_EQ(ParseBytes("-4K").status().message(), "a byte size cannot be negative, got '-4K'");
}

TEST(ParseBytesTest, RejectsOverflow) {
  for (const char* text : {"9223372036854775808", "99999999999999999999999", "8E", "8388608T",
                           "9007199254740992K"}) {
    absl::StatusOr<int64_t> parsed = ParseBytes(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().message(), std::string("byte size '") + text +
                                             "' is too large (the limit is 2^63-1 bytes)");
  }
}

TEST(FormatBytesTest, ExactPowersUseTheLargestSuffix) {
  EXPECT_EQ(FormatBytes(0), "0");
  EXPECT_EQ(FormatBytes(1), "1");
  EXPECT_EQ(FormatBytes(1000), "1000");
  EXPECT_EQ(FormatBytes(1023), "1023");
  EXPECT_EQ(FormatBytes(1024), "1K");
  EXPECT_EQ(FormatBytes(1536), "1536");
  EXPECT_EQ(FormatBytes(3072), "3K");
  EXPECT_EQ(FormatBytes(4096), "4K");
  EXPECT_EQ(FormatBytes(1048576), "1M");
  EXPECT_EQ(FormatBytes(1048576 + 1024), "1025K");
  EXPECT_EQ(FormatBytes(int64_t{1} << 30), "1G");
  EXPECT_EQ(FormatBytes(int64_t{5} << 40), "5T");
  EXPECT_EQ(FormatBytes(int64_t{1} << 50), "1P");
  EXPECT_EQ(FormatBytes(int64_t{1} << 62), "4E");
  EXPECT_EQ(FormatBytes(std::numeric_limits<int64_t>::max()), "9223372036854775807");
  EXPECT_EQ(FormatBytes(-1024), "-1024");
}

TEST(FormatBytesTest, RoundTripsThroughParseBytes) {
  for (int64_t bytes : {int64_t{1}, int64_t{4096}, int64_t{1536}, int64_t{3} << 20,
                        int64_t{1} << 40, int64_t{123456789}}) {
    EXPECT_EQ(*ParseBytes(FormatBytes(bytes)), bytes) << bytes;
  }
}

TEST(FormatParamValueTest, EveryType) {
  EXPECT_EQ(FormatParamValue(ParamType::kBytes, int64_t{4096}), "4K");
  EXPECT_EQ(FormatParamValue(ParamType::kBytes, int64_t{4097}), "4097");
  EXPECT_EQ(FormatParamValue(ParamType::kInt, int64_t{4096}), "4096");
  EXPECT_EQ(FormatParamValue(ParamType::kInt, int64_t{-3}), "-3");
  EXPECT_EQ(FormatParamValue(ParamType::kBool, true), "true");
  EXPECT_EQ(FormatParamValue(ParamType::kBool, false), "false");
  EXPECT_EQ(FormatParamValue(ParamType::kEnum, std::string("bf16")), "bf16");
  EXPECT_EQ(FormatParamValue(ParamType::kString, std::string("a b")), "a b");
}

TEST(FormatParamValueTest, FloatsAreShortestRoundTripWithoutTrailingZeros) {
  EXPECT_EQ(FormatParamValue(ParamType::kFloat, 1.0), "1");
  EXPECT_EQ(FormatParamValue(ParamType::kFloat, 0.5), "0.5");
  EXPECT_EQ(FormatParamValue(ParamType::kFloat, 0.1), "0.1");
  EXPECT_EQ(FormatParamValue(ParamType::kFloat, 2.50), "2.5");
  EXPECT_EQ(FormatParamValue(ParamType::kFloat, -0.25), "-0.25");
  EXPECT_EQ(FormatParamValue(ParamType::kFloat, 100.0), "100");
  EXPECT_EQ(FormatParamValue(ParamType::kFloat, 1e-7), "1e-07");
  EXPECT_EQ(FormatParamValue(ParamType::kFloat, 0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatParamValue(ParamType::kFloat, 0.0), "0");
}

}  // namespace
}  // namespace gh
