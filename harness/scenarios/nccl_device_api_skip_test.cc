#include "harness/scenarios/nccl_device_api_skip.h"

#include "gtest/gtest.h"
#include "harness/core/expectation.h"
#include "harness/core/skip_cause.h"

namespace gh {
namespace {

constexpr char kRefusal[] =
    "ncclDevCommCreate: ncclInvalidArgument: Cannot create device communicator: ncclDevCommRequirements_t "
    "size mismatch";

TEST(DeviceApiVersionSkip, TheVersionRefusalUnderDifferentVersionsIsASkipNamingBoth) {
  EXPECT_EQ(DeviceApiVersionSkip(kRefusal, "2.28.9", "2.29.2"),
            std::string("built against NCCL 2.28.9, runtime 2.29.2: ") + kRefusal);
}

TEST(DeviceApiVersionSkip, SameVersionsOrAnotherRefusalAreJudgedAsBefore) {
  EXPECT_EQ(DeviceApiVersionSkip(kRefusal, "2.29.2", "2.29.2"), std::nullopt) << "a real failure then";
  EXPECT_EQ(DeviceApiVersionSkip("ncclDevCommCreate: ncclInvalidUsage: Communicator does not support symmetric memory!",
                                 "2.28.9", "2.28.3"),
            std::nullopt)
      << "2.28.9 headers work with 2.28.3; that refusal is the scenario's own expectation";
  EXPECT_EQ(DeviceApiVersionSkip(kRefusal, "", "2.29.2"), std::nullopt) << "unknown compiled version";
}

TEST(DeviceApiVersionSkip, TheSkipIsNotApplicableHereAndMeetsAnExpectedPass) {
  const std::optional<std::string> skip = DeviceApiVersionSkip(kRefusal, "2.28.9", "2.30.7");
  ASSERT_TRUE(skip.has_value());
  EXPECT_TRUE(IsNotApplicableSkip(Outcome::kSkip, *skip));
  EXPECT_TRUE(MeetsExpectation(Expectation{}, Outcome::kSkip, *skip)) << "sliced_collective expects pass";
}

}  // namespace
}  // namespace gh
