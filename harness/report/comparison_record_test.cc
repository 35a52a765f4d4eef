#include "harness/report/comparison_record.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::HasSubstr;

TEST(ComparisonRecord, RoundTripsThroughJson) {
  ComparisonRecord record;
  record.baseline = BaselineIdentity{.relative = "../night-1", .absolute = "/r/night-1",
                                     .records_hash = "0123456789abcdef", .records = 20};
  record.ignore_axes = {"fw"};
  record.filter = "ring*";
  record.perf.threshold = 0.05;
  record.perf.warn_only = true;
  absl::StatusOr<ComparisonRecord> back = ComparisonRecord::FromJson(record.ToJson(), "DIR/comparison.json");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->baseline.has_value());
  EXPECT_EQ(back->baseline->relative, "../night-1");
  EXPECT_EQ(back->baseline->absolute, "/r/night-1");
  EXPECT_EQ(back->baseline->records_hash, "0123456789abcdef");
  EXPECT_EQ(back->baseline->records, 20);
  EXPECT_EQ(back->ignore_axes, (std::set<std::string>{"fw"}));
  EXPECT_EQ(back->filter, "ring*");
  EXPECT_DOUBLE_EQ(back->perf.threshold, 0.05);
  EXPECT_TRUE(back->perf.warn_only);

  // Without a baseline it says so (null), and reads back as none.
  absl::StatusOr<ComparisonRecord> none = ComparisonRecord::FromJson(ComparisonRecord{}.ToJson(), "f");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->baseline.has_value());
}

TEST(ComparisonRecord, BadRecordsNameTheFileAndKey) {
  auto error = [](const char* text) {
    absl::StatusOr<ComparisonRecord> r = ComparisonRecord::FromJson(nlohmann::json::parse(text), "DIR/comparison.json");
    EXPECT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(r.status().message());
  };
  EXPECT_THAT(error(R"({"schema_version": 2})"), HasSubstr("DIR/comparison.json"));
  EXPECT_THAT(error(R"({"schema_version": 2})"), HasSubstr("newer than this gpuharness reads"));
  EXPECT_THAT(error(R"({"baseline": {"dir": "", "records": 1, "records_hash": "x"}})"), HasSubstr("dir"));
  EXPECT_THAT(error(R"({"baseline": {"dir": "b", "records": -1, "records_hash": "x"}})"), HasSubstr("records"));
  EXPECT_THAT(error(R"({"baseline": {"dir": "b", "records": 1}})"), HasSubstr("records_hash"));
  EXPECT_THAT(error(R"({"perf": {"threshold": 5}})"), HasSubstr("threshold"));
  EXPECT_THAT(error(R"([1])"), HasSubstr("DIR/comparison.json"));
}

}  // namespace
}  // namespace gh
