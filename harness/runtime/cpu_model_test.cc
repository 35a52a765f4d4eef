#include "harness/runtime/cpu_model.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(CpuModelTest, TheFirstModelNameTrimmed) {
  EXPECT_EQ(ParseCpuModel("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9654 96-Core Processor  \n"
                          "processor\t: 1\nmodel name\t: other\n"),
            "AMD EPYC 9654 96-Core Processor");
  EXPECT_EQ(ParseCpuModel("processor\t: 0\nCPU implementer\t: 0x41\n"), "");
}

}  // namespace
}  // namespace gh
