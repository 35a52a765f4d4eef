#include "harness/core/name_rules.h"

#include <string>

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(NameRules, EnvNamesArePosix) {
  for (const char* ok : {"A", "_", "NCCL_PROTO", "a1_B2"}) EXPECT_TRUE(CheckEnvName(ok).ok()) << ok;
  for (const std::string& bad : {std::string(""), std::string("A=B"), std::string("1X"), std::string("A-B"),
                                 std::string("$(touch x)"), std::string("A B"), std::string("A\nB"),
                                 std::string("A\0B", 3), std::string("X;rm")}) {
    absl::Status st = CheckEnvName(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << bad;
    EXPECT_NE(st.message().find("not an environment variable name"), std::string::npos) << st;
    EXPECT_EQ(std::string(st.message()).find('\n'), std::string::npos) << st;
  }
}

TEST(NameRules, EnvValuesRefuseNulAndInvalidUtf8) {
  EXPECT_TRUE(CheckEnvValue("").ok());
  EXPECT_TRUE(CheckEnvValue("a=b $(x) \n\x1b").ok());
  absl::Status st = CheckEnvValue(std::string("ab\0cd", 5));
  EXPECT_TRUE(absl::IsInvalidArgument(st));
  EXPECT_NE(st.message().find("ab\\x00cd"), std::string::npos) << st;
  EXPECT_NE(CheckEnvValue("\xff").message().find("not valid UTF-8"), std::string::npos);
}

TEST(NameRules, Labels) {
  for (const char* ok : {"2.28.9", "LL128", "cuda12/2.28", "dev build", "\xc3\xa9t\xc3\xa9", "\xe2\x9c\x93"}) {
    EXPECT_TRUE(CheckLabel(ok).ok()) << ok;
  }
  struct Case {
    std::string label;
    const char* why;
  };
  for (const Case& c : {Case{"", "must not be empty"}, Case{"a,b", "','"}, Case{"x=y,v=z", "','"},
                        Case{"x=y", "'='"}, Case{"\xff", "UTF-8"}, Case{"\xc0\xaf", "UTF-8"},
                        Case{"\xed\xa0\x80", "UTF-8"}, Case{"\xe2\x9c", "UTF-8"}, Case{"a\nb", "control"},
                        Case{std::string("a\0b", 3), "control"}, Case{"\x1b[31mred", "control"},
                        Case{"a\x7f", "control"}, Case{"\xc2\x9b", "control"}, Case{"tab\there", "control"}}) {
    absl::Status st = CheckLabel(c.label);
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << c.label;
    EXPECT_NE(st.message().find(c.why), std::string::npos) << st;
    // The message itself stays printable: no raw control or invalid bytes reach a console.
    for (char ch : st.message()) EXPECT_TRUE(ch >= 0x20 && ch < 0x7f) << st;
  }
}

TEST(NameRules, PrintableText) {
  EXPECT_EQ(PrintableText("a\nb\\\xff"), "a\\x0ab\\x5c\\xff");
  EXPECT_TRUE(IsValidUtf8("plain"));
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
}

}  // namespace
}  // namespace gh
