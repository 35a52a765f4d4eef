// FindReproArms reads DIR's state files strictly and names every place absolutely, so a script
// made from a relative DIR runs from anywhere.
#include "harness/bisect/repro_finder.h"

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "nlohmann/json.hpp"

namespace gh {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A bisect's DIR, named relative to the working directory.
std::string MakeBisectDir(const std::string& name, const nlohmann::json& trial_results) {
  const fs::path dir = fs::path(::testing::TempDir()) / "repro_finder_test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir / "probes/v2/trial0");
  const std::string rel = fs::relative(dir, fs::current_path()).string();
  nlohmann::json summary = {{"kind", "bisect"}, {"status", "found"}, {"version_axis", "nccl"},
                            {"answer", {{"first_bad", "v2"}, {"last_good", "v1"}}},
                            {"probes", {{{"version", "v2"}, {"trial_results", trial_results}}}}};
  EXPECT_TRUE(WriteFileAtomically((dir / "summary.json").string(), summary.dump()).ok());
  nlohmann::json job = {{"argv", {"gpuharness", "run", "s.yaml", "--out", "x"}},
                        {"cwd", rel + "/probes/v2/trial0"},
                        {"version", "v2"},
                        {"version_dir", rel + "/versions/v2"}};
  EXPECT_TRUE(WriteFileAtomically((dir / "probes/v2/trial0/job.json").string(), job.dump()).ok());
  return rel;
}

TEST(ReproFinder, ARelativeDirGivesAbsolutePaths) {
  const std::string rel = MakeBisectDir("relative", nlohmann::json::array());
  ASSERT_FALSE(fs::path(rel).is_absolute());
  // The trial's detail as the bisect wrote it: under DIR, as DIR was given.
  nlohmann::json trials = {{{"outcome", "fail"}, {"signature", "wrong data"}, {"point", "p"},
                            {"detail", rel + "/probes/v2/trial0"}}};
  MakeBisectDir("relative", trials);
  absl::StatusOr<ReproArms> arms = FindReproArms(rel, "p");
  ASSERT_TRUE(arms.ok()) << arms.status();
  EXPECT_TRUE(fs::path(arms->failing.cwd).is_absolute()) << arms->failing.cwd;
  EXPECT_TRUE(fs::path(arms->failing.version_dir).is_absolute()) << arms->failing.version_dir;
  EXPECT_EQ(arms->failing.cwd, fs::absolute(rel + "/probes/v2/trial0").lexically_normal().string());
  EXPECT_EQ(arms->failing.observed, "fail: wrong data");
}

TEST(ReproFinder, WrongTypesInSummaryAreBadInputNamingFileAndKey) {
  const std::string rel = MakeBisectDir("types", "fail");
  absl::StatusOr<ReproArms> arms = FindReproArms(rel, "p");
  EXPECT_TRUE(absl::IsInvalidArgument(arms.status()));
  EXPECT_EQ(arms.status().message(),
            rel + "/summary.json: probes[0].trial_results: expected a list, got string");
  MakeBisectDir("types", {{{"outcome", "fail"}, {"point", "p"}, {"detail", 7}}});
  EXPECT_EQ(FindReproArms(rel, "p").status().message(),
            rel + "/summary.json: probes[0].trial_results[0].detail: expected a string, got number");
}

}  // namespace
}  // namespace gh
