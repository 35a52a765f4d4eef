#include "harness/core/path_under.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(PathUnder, JoinsRelativeParts) {
  absl::StatusOr<std::string> p = PathUnder("/r/out", {"logs", "a=1/np=2"});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "/r/out/logs/a=1/np=2");
  EXPECT_EQ(*PathUnder("out/", {"./x//y"}), "out/x/y");
  EXPECT_EQ(*PathUnder("/r", {"a..b"}), "/r/a..b");
}

TEST(PathUnder, RefusesEveryWayOut) {
  for (const std::string& part : {std::string("../x"), std::string("../../../../x"), std::string("a/../../x"),
                                  std::string(".."), std::string("/etc"), std::string(""),
                                  std::string("a\0b", 3), std::string("a/..")}) {
    SCOPED_TRACE(part);
    absl::StatusOr<std::string> p = PathUnder("/r/out", {"logs", part});
    EXPECT_FALSE(p.ok()) << *p;
    EXPECT_TRUE(absl::IsInvalidArgument(p.status()));
  }
}

TEST(SafeDirName, KeepsPlainNamesAndNeverEscapes) {
  EXPECT_EQ(SafeDirName("proto=ll,np=4,nccl=2.28.9"), "proto=ll,np=4,nccl=2.28.9");
  for (const std::string& text : {std::string(".."), std::string("."), std::string(""), std::string("../../../../x"),
                                  std::string("/abs"), std::string(".hidden"), std::string("a/b"),
                                  std::string("a\0b", 3), std::string(400, 'x'), std::string("\xff\xfe"),
                                  std::string(150, 'y') + " "}) {
    SCOPED_TRACE(text);
    const std::string name = SafeDirName(text);
    EXPECT_FALSE(name.empty());
    EXPECT_NE(name[0], '.');
    EXPECT_EQ(name.find('/'), std::string::npos);
    EXPECT_EQ(name.find('\0'), std::string::npos);
    EXPECT_LE(name.size(), 150u);
    EXPECT_TRUE(PathUnder("/r", {name}).ok());
    EXPECT_EQ(SafeDirName(name), name);
  }
}

TEST(SafeDirName, DistinctTextsGiveDistinctNames) {
  std::set<std::string> names;
  for (const char* text : {"a/b", "a b", "a_b", "a:b", ".a", "_a", "..", "_.", "", "_"}) names.insert(SafeDirName(text));
  EXPECT_EQ(names.size(), 10u);
  EXPECT_EQ(SafeDirName("a/b").substr(0, 4), "a_b-");
  EXPECT_EQ(SafeDirName("../x").substr(0, 5), "_._x-");
}

}  // namespace
}  // namespace gh
