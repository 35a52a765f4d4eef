// A version's set-up is checked against what its label asked for: a set-up that installs 2.0
// where the label says 3.0 fails as infrastructure, and a stale cache is set up again once.
#include "harness/driver/version_provenance.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/testdata/temp_dir.h"
#include "harness/driver/version_setup.h"

namespace gh::driver {
namespace {

using ::testing::HasSubstr;

// The first line a shell command prints, without its newline.
std::string CommandOutput(const std::string& command) {
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[256];
    while (fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
    pclose(pipe);
  }
  return out.substr(0, out.find('\n'));
}

TEST(ProvenancePinsTest, OnlyExactPinsOfOneRelease) {
  EXPECT_EQ(ProvenancePins({"jax==0.7.0", "jax_lib[cuda12]==0.7.0", "numpy<2", "foo==1.*", "bar>=1,==2"}),
            "jax==0.7.0\njax-lib==0.7.0\n");
  EXPECT_EQ(NormalizePackageName("Jax__Lib.x"), "jax-lib-x");
}

// A set-up in the shape of the pip provider's: the pin it asks for (fakelib==3.0), then a
// venv-shaped package list holding the version ../install.txt names (3.0 without it); each run
// counted in runs.txt. One command throughout, so its cached success is reused.
constexpr char kFakePipSetup[] =
    "echo run >> runs.txt; printf 'fakelib==3.0\\n' > provenance.expected; rm -rf venv; "
    "v=$(cat ../install.txt 2>/dev/null || echo 3.0); "
    "mkdir -p venv/lib/python3.11/site-packages/fakelib-$v.dist-info venv/lib/python3.11/site-packages/pip-24.0.dist-info";

class VersionProvenanceTest : public ::gh::testing::TempDirTest {
 protected:
  void Installs(const std::string& version) {
    std::filesystem::create_directories(dir_);
    ASSERT_TRUE(WriteFileAtomically(dir_ + "/install.txt", version + "\n").ok());
  }
  VersionSetupResult Setup(const std::string& command = kFakePipSetup) {
    return RunVersionSetup("3.0", command, dir_ + "/3.0", CurrentEnvironment(), absl::Seconds(30), runner_, clock_);
  }
  int Runs() {
    const std::string runs = ReadFileToString(dir_ + "/3.0/runs.txt").value_or("");
    return static_cast<int>(std::count(runs.begin(), runs.end(), '\n'));
  }
  const std::string dir_ = temp_dir();
  PosixProcessRunner runner_;
  RealClock clock_;
};

TEST_F(VersionProvenanceTest, ASetUpThatInstallsAnotherVersionThanItsLabelFails) {
  Installs("2.0");
  const VersionSetupResult r = Setup();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.detail, absl::StrCat("provenance: asked fakelib 3.0, the set-up installed fakelib 2.0 (log ", dir_,
                                   "/3.0/setup.log)"));
  const std::string json = ReadFileToString(dir_ + "/3.0/provenance.json").value_or("");
  EXPECT_THAT(json, HasSubstr("\"installed\": {\n    \"fakelib\": \"2.0\"\n  }"));
  EXPECT_THAT(json, HasSubstr("\"ok\": false"));
  // Not cached as a success: the next sweep tries again.
  EXPECT_FALSE(Setup().ok);
  EXPECT_EQ(Runs(), 2);
}

TEST_F(VersionProvenanceTest, ASetUpThatInstallsItsLabelPassesAndRecordsWhatItChecked) {
  VersionSetupResult r = Setup();
  EXPECT_TRUE(r.ok) << r.detail;
  EXPECT_FALSE(r.cached);
  EXPECT_EQ(CheckVersionProvenance(dir_ + "/3.0").CheckedText(), "fakelib 3.0");
  EXPECT_THAT(ReadFileToString(dir_ + "/3.0/provenance.json").value_or(""), HasSubstr("\"ok\": true"));
  r = Setup();
  EXPECT_TRUE(r.ok && r.cached);
  EXPECT_EQ(Runs(), 1);
  // A set-up that names nothing to check is not checked.
  std::filesystem::remove_all(dir_);
  r = Setup("mkdir -p venv/lib/python3.11/site-packages/fakelib-2.0.dist-info");
  EXPECT_TRUE(r.ok);
  EXPECT_FALSE(CheckVersionProvenance(dir_ + "/3.0").checked);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/3.0/provenance.json"));
}

TEST_F(VersionProvenanceTest, AStaleCacheIsSetUpAgainOnce) {
  ASSERT_TRUE(Setup().ok);
  // The cache's venv replaced behind its back (another tool, a stale image): set up again.
  std::filesystem::rename(dir_ + "/3.0/venv/lib/python3.11/site-packages/fakelib-3.0.dist-info",
                          dir_ + "/3.0/venv/lib/python3.11/site-packages/fakelib-2.0.dist-info");
  VersionSetupResult r = Setup();
  EXPECT_TRUE(r.ok) << r.detail;
  EXPECT_FALSE(r.cached);
  EXPECT_EQ(Runs(), 2);
  // Pruned: the package gone.
  std::filesystem::remove_all(dir_ + "/3.0/venv/lib/python3.11/site-packages/fakelib-3.0.dist-info");
  r = Setup();
  EXPECT_TRUE(r.ok) << r.detail;
  EXPECT_EQ(Runs(), 3);
  // Stale, and the set-up again installs the wrong version: once, then it fails saying both.
  std::filesystem::rename(dir_ + "/3.0/venv/lib/python3.11/site-packages/fakelib-3.0.dist-info",
                          dir_ + "/3.0/venv/lib/python3.11/site-packages/fakelib-2.0.dist-info");
  Installs("2.0");
  r = Setup();
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.detail, HasSubstr("provenance: asked fakelib 3.0, the set-up installed fakelib 2.0 (log "));
  EXPECT_THAT(r.detail, HasSubstr("; set up again after the cached set-up held the wrong packages: asked fakelib 3.0, "
                                  "the set-up installed fakelib 2.0"));
  EXPECT_EQ(Runs(), 4);
}

TEST_F(VersionProvenanceTest, AMissingPackageIsNamed) {
  const VersionSetupResult r = Setup("printf 'fakelib==3.0\\nother==1.0\\n' > provenance.expected; "
                                     "mkdir -p venv/lib/python3.12/site-packages/fakelib-3.0.dist-info");
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.detail, HasSubstr("provenance: asked other 1.0, other is not installed (log "));
  EXPECT_EQ(CheckVersionProvenance(dir_ + "/3.0").CheckedText(), "fakelib 3.0, other not installed");
}

// A git set-up pins the label's commit and observes the checkout's HEAD after its build (the
// shell lines the git provider writes, on a repository made here); a build that leaves another
// commit checked out fails, naming both.
TEST_F(VersionProvenanceTest, AGitSetUpThatBuildsAnotherCommitThanItsLabelFails) {
  const std::string repo = dir_ + "/repo";
  std::filesystem::create_directories(repo);
  const std::string git = absl::StrCat("git -C ", repo, " -c user.email=t@example.com -c user.name=t ");
  ASSERT_EQ(std::system(absl::StrCat("git init -q ", repo, " && ", git, "commit -q --allow-empty -m one && ", git,
                                     "commit -q --allow-empty -m two").c_str()), 0);
  const std::string x = CommandOutput(absl::StrCat("git -C ", repo, " rev-parse HEAD"));
  const std::string y = CommandOutput(absl::StrCat("git -C ", repo, " rev-parse HEAD~1"));
  ASSERT_EQ(x.size(), 40u);
  auto setup = [&](const std::string& build) {
    return absl::StrCat("set -e\nmirror=", repo, "\nrm -rf src && git clone -q ", repo, " src\n",
                        GitProvenanceResolveLine("\"$mirror\"", x), "cd src\n", build, "\n",
                        GitProvenanceObserveLine());
  };
  VersionSetupResult r = Setup(setup("true"));
  EXPECT_TRUE(r.ok) << r.detail;
  EXPECT_THAT(ReadFileToString(dir_ + "/3.0/provenance.json").value_or(""),
              HasSubstr(absl::StrCat("\"installed\": {\n    \"commit\": \"", x, "\"\n  }")));
  r = Setup(setup(absl::StrCat("git -c advice.detachedHead=false checkout -q ", y)));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.detail, absl::StrCat("provenance: asked commit ", x, ", the set-up built commit ", y, " (log ", dir_,
                                   "/3.0/setup.log)"));
}

// A container set-up's image digest is recorded, with nothing to check it against.
TEST_F(VersionProvenanceTest, AnImageDigestIsRecorded) {
  std::filesystem::create_directories(dir_);
  ASSERT_TRUE(WriteFileAtomically(dir_ + "/image.sqsh", "abc").ok());
  const VersionSetupResult r = Setup(ImageProvenanceObserveLine(dir_ + "/image.sqsh"));
  EXPECT_TRUE(r.ok) << r.detail;
  const VersionProvenance p = CheckVersionProvenance(dir_ + "/3.0");
  EXPECT_TRUE(p.mismatch.empty());
  EXPECT_EQ(p.installed.at("image"),  // sha256 of "abc"
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_THAT(ReadFileToString(dir_ + "/3.0/provenance.json").value_or(""),
              HasSubstr("\"observed\": {\n    \"image\": \"sha256:ba7816bf"));
}

}  // namespace
}  // namespace gh::driver
