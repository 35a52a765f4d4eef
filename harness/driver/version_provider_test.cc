#include "harness/driver/version_provider.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/driver/matrix.h"

namespace gh::driver {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kHead[] = "name: m\nscenarios: [s.yaml]\nversions:\n";

// A list runner that answers every command with `out` and remembers the commands.
struct FakeLister {
  std::string out;
  std::vector<VersionListCommand> seen = {};
  ListCommandRunner Runner() {
    return [this](const VersionListCommand& r) -> absl::StatusOr<std::string> {
      seen.push_back(r);
      return out;
    };
  }
};

absl::StatusOr<Matrix> Load(const std::string& versions, FakeLister& lister) {
  return LoadMatrixText(std::string(kHead) + versions, "m.yaml", "/mats", lister.Runner());
}

std::vector<std::string> Labels(const Matrix& m) {
  std::vector<std::string> out;
  for (const AxisValue& v : m.axes.back().values) out.push_back(v.label);
  return out;
}

TEST(PipProvider, ListsTheIndexInRangeOldestFirstAndWritesAVenvSetUp) {
  FakeLister lister{"WARNING: pip index is currently an experimental command.\njax (0.6.2)\n"
                    "Available versions: 0.6.2, 0.6.0, 0.5.3, 0.5.2, 0.4.38, 0.4.30, 0.4.29, 0.7.0rc1\n"};
  absl::StatusOr<Matrix> m = Load(R"(  name: jax
  pip:
    requirements: "jax=={version} jaxlib=={version}"
    index: jax
    range: ">=0.4.30,<0.6.1"
)", lister);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(Labels(*m), ElementsAre("0.4.30", "0.4.38", "0.5.2", "0.5.3", "0.6.0"));
  ASSERT_EQ(lister.seen.size(), 1u);
  EXPECT_EQ(lister.seen[0].command, "python3 -m pip index versions --disable-pip-version-check jax");
  FakeLister wheels{"jax-0.4.38-py3-none-any.whl\njaxlib-0.4.38-cp311-manylinux.whl\njax-0.4.20-py3-none-any.whl\n"};
  m = Load(R"(  pip:
    requirements: "jax=={version} jaxlib=={version}"
    index: jax
    range: ">=0.4.30,<0.6.1"
    wheelhouse: "{matrix_dir}/wheels"
)", wheels);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(Labels(*m), ElementsAre("0.4.38")) << "a wheelhouse lists its wheels, in range";
  EXPECT_EQ(wheels.seen.at(0).command, "ls -1 /mats/wheels");
  const CellSettings& s = m->axes.back().values[0].settings;
  EXPECT_THAT(s.setup, HasSubstr("export PIP_CACHE_DIR=\"$HOME/.cache/gpuharness-pip\""));
  EXPECT_THAT(s.setup, HasSubstr("python3 -m venv venv\n"));
  EXPECT_THAT(s.setup, HasSubstr("venv/bin/python -m pip install --no-input --find-links /mats/wheels "
                                 "jax==0.4.38 jaxlib==0.4.38\n"))
      << "{matrix_dir} resolved in the set-up";
  EXPECT_THAT(s.setup, HasSubstr("printf '%s' 'jax==0.4.38\njaxlib==0.4.38\n' > provenance.expected\n"))
      << "the pins it asks for, checked against what it installs";
  EXPECT_EQ(s.env_prepend.at("PATH"), "{version_dir}/venv/bin");
  EXPECT_EQ(s.env.at("VIRTUAL_ENV"), "{version_dir}/venv");
}

TEST(PipProvider, IndexCommandAndExplicitVersions) {
  FakeLister lister{"Available versions: 1.2, 1.10\n"};
  absl::StatusOr<Matrix> m = Load("  pip: {requirements: \"nvidia-nccl-cu13=={version}\", index: nvidia-nccl-cu13}\n", lister);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(Labels(*m), ElementsAre("1.2", "1.10")) << "numeric order";
  EXPECT_EQ(lister.seen.at(0).command, "python3 -m pip index versions --disable-pip-version-check nvidia-nccl-cu13");
  EXPECT_EQ(lister.seen.at(0).cwd, "/mats");
  FakeLister none;
  m = Load("  pip: {requirements: \"jax=={version}\", versions: [\"0.4.36\", \"0.6.0\"], cache: /c}\n", none);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(Labels(*m), ElementsAre("0.4.36", "0.6.0"));
  EXPECT_TRUE(none.seen.empty()) << "an explicit list runs nothing";
  EXPECT_THAT(m->axes.back().values[0].settings.setup, HasSubstr("PIP_CACHE_DIR=/c "));
}

TEST(PipProvider, BadYamlNamesFileLineColumnAndKey) {
  FakeLister lister{"Available versions: 1.0\n"};
  auto err = [&](const std::string& yaml) {
    absl::StatusOr<Matrix> m = Load(yaml, lister);
    EXPECT_TRUE(absl::IsInvalidArgument(m.status())) << m.status();
    return std::string(m.status().message());
  };
  EXPECT_EQ(err("  pip: {requirments: x, index: jax}\n"),
            "m.yaml:4:9: versions.pip.requirments: unknown key; did you mean requirements?");
  EXPECT_THAT(err("  pip: {requirements: \"jax\", index: jax}\n"),
              HasSubstr("m.yaml:4:23: versions.pip.requirements: must contain {version}"));
  EXPECT_THAT(err("  pip: {requirements: \"jax=={version}\", index: jax, range: \">=x\"}\n"),
              HasSubstr("m.yaml:4:60: versions.pip.range: bad range clause"));
  EXPECT_THAT(err("  pip: {requirements: \"jax=={version}\"}\n"),
              HasSubstr("m.yaml:4:8: versions.pip: needs exactly one of `versions` (a list) or `index`"));
  EXPECT_THAT(err("  pip: {requirements: \"jax=={version}\", index: jax, range: \">=2\"}\n"),
              HasSubstr("versions.pip.index: no version of jax in >=2"));
  EXPECT_THAT(err("  pip: {requirements: \"jax=={version}\", index: jax}\n  values: [a]\n"),
              HasSubstr("versions: needs exactly one of `values`, `list`, `pip`, `git` or `container`"));
  EXPECT_THAT(err("  pipp: {requirements: x}\n"), HasSubstr("versions.pipp: unknown key; did you mean pip?"));
}

TEST(PipProvider, AListingThatFailsIsReportedAtItsKey) {
  absl::StatusOr<Matrix> m = LoadMatrixText(
      std::string(kHead) + "  pip: {requirements: \"jax=={version}\", index: jax}\n", "m.yaml", "/mats",
      [](const VersionListCommand&) -> absl::StatusOr<std::string> {
        return absl::FailedPreconditionError("`pip index` exited with status 1");
      });
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("m.yaml:4:48: versions.pip.index: listing failed: `pip index` exited"));
}

TEST(GitProvider, TagsMatchingAPatternInNaturalOrderWithAWorktreeAndBuildPerRevision) {
  FakeLister lister{"aaa\trefs/tags/v2.28.9-1\nbbb\trefs/tags/v2.28.10-1\nccc\trefs/tags/v2.28.3-1\n"
                    "ddd\trefs/tags/other\n"};
  absl::StatusOr<Matrix> m = Load(R"(  name: nccl
  git:
    repo: https://github.com/NVIDIA/nccl.git
    tags: "v2.28.*"
    build: "make -j16 src.build BUILDDIR={prefix} && cmake -S {matrix_dir}/.. -B {prefix}/gh -DGH_NCCL_ROOT={prefix}"
)", lister);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(Labels(*m), ElementsAre("v2.28.3-1", "v2.28.9-1", "v2.28.10-1"));
  EXPECT_EQ(lister.seen.at(0).command, "git ls-remote --tags --refs https://github.com/NVIDIA/nccl.git");
  const CellSettings& s = m->axes.back().values[0].settings;
  EXPECT_THAT(s.setup, HasSubstr("git clone --quiet --mirror https://github.com/NVIDIA/nccl.git"));
  EXPECT_THAT(s.setup, HasSubstr("flock 9"));
  EXPECT_THAT(s.setup, HasSubstr("worktree add --quiet --detach \"$PWD/src\" v2.28.3-1\n"));
  // The label's commit is pinned before the build, the checkout's HEAD observed after it.
  EXPECT_THAT(s.setup, HasSubstr("echo \"commit==$(git -C \"$mirror\" rev-parse --verify v2.28.3-1^{commit})\" > "
                                 "\"$GH_VERSION_DIR/provenance.expected\"\n"));
  EXPECT_THAT(s.setup, ::testing::EndsWith("echo \"commit==$(git -C \"$GH_VERSION_DIR/src\" rev-parse HEAD)\" > "
                                           "\"$GH_VERSION_DIR/provenance.observed\"\n"));
  EXPECT_THAT(s.setup, HasSubstr("CMAKE_CXX_COMPILER_LAUNCHER=ccache"));
  EXPECT_THAT(s.setup, HasSubstr("cd src\nmake -j16 src.build BUILDDIR=\"$GH_VERSION_DIR/prefix\" && cmake -S /mats/.. "
                                 "-B \"$GH_VERSION_DIR/prefix\"/gh -DGH_NCCL_ROOT=\"$GH_VERSION_DIR/prefix\"\n"));
  EXPECT_EQ(s.env_prepend.at("PATH"), "{version_dir}/prefix/bin");
  EXPECT_EQ(s.env_prepend.at("LD_LIBRARY_PATH"), "{version_dir}/prefix/lib");
  EXPECT_EQ(s.env_prepend.at("PYTHONPATH"), "{version_dir}/prefix/python");
}

TEST(GitProvider, TagsMaySeveralGlobsSeparatedByABar) {
  FakeLister lister{"a\trefs/tags/v2.30.7-1\nb\trefs/tags/v2.29.2-1\nc\trefs/tags/v2.27.3-1\n"
                    "d\trefs/tags/v2.28.3-1\ne\trefs/tags/v2.31.1-1\nf\trefs/tags/v2.29.2-0rc\n"};
  absl::StatusOr<Matrix> m = Load("  git: {repo: r, tags: \"v2.2[89].*-1|v2.30.*-1\"}\n", lister);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(Labels(*m), ElementsAre("v2.28.3-1", "v2.29.2-1", "v2.30.7-1"));
}

TEST(GitProvider, ARangeIsItsFirstRevisionThenEveryFirstParentCommit) {
  FakeLister lister{"1111111111111111111111111111111111111111\n2222222222222222222222222222222222222222\n"};
  absl::StatusOr<Matrix> m = Load("  git: {repo: \"{matrix_dir}/repo\", range: \"v1..main\"}\n", lister);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(Labels(*m), ElementsAre("111111111111", "222222222222"));
  EXPECT_EQ(lister.seen.at(0).command,
            "git -C /mats/repo rev-parse --verify 'v1^{commit}' && git -C /mats/repo rev-list --first-parent "
            "--reverse v1..main");
  EXPECT_THAT(Load("  git: {repo: r, range: \"v1...main\"}\n", lister).status().message(),
              HasSubstr("m.yaml:4:25: versions.git.range: expected OLD..NEW"));
  EXPECT_THAT(Load("  git: {repo: r, tags: \"v*\", range: a..b}\n", lister).status().message(),
              HasSubstr("versions.git: needs exactly one of `tags`"));
  EXPECT_THAT(Load("  git: {repo: r, tags: \"v*\", bulid: make}\n", lister).status().message(),
              HasSubstr("versions.git.bulid: unknown key; did you mean build?"));
}

TEST(ContainerProvider, ADirectoryOfImagesPerRuntime) {
  FakeLister lister{"jax-24.10.sqsh\njax-24.04.sqsh\nnotes.txt\n"};
  absl::StatusOr<Matrix> m = Load("  container: {runtime: enroot, images: imgs, mounts: [/data]}\n", lister);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(Labels(*m), ElementsAre("jax-24.04", "jax-24.10"));
  const CellSettings& s = m->axes.back().values[0].settings;
  EXPECT_THAT(s.launcher_prefix, ElementsAre("enroot", "start", "--mount", "{version_dir}:{version_dir}", "--mount",
                                             "/data:/data", "/mats/imgs/jax-24.04.sqsh"));
  EXPECT_THAT(s.setup, HasSubstr("test -r /mats/imgs/jax-24.04.sqsh"));
  // The image's digest is recorded (version_provenance.h).
  EXPECT_THAT(s.setup, HasSubstr("echo \"image==sha256:$(sha256sum < /mats/imgs/jax-24.04.sqsh | cut -d' ' -f1)\" > "
                                 "\"$GH_VERSION_DIR/provenance.observed\"\n"));
}

TEST(ContainerProvider, TagsFromACommandWithAnImageTemplate) {
  FakeLister lister{"24.04\n24.10\n"};
  absl::StatusOr<Matrix> m = Load(
      "  container: {runtime: docker, tags_command: \"{matrix_dir}/tags.sh\", image: \"nvcr.io/nvidia/jax:{version}\"}\n",
      lister);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(lister.seen.at(0).command, "/mats/tags.sh") << "{matrix_dir} resolved, run in the matrix's directory";
  const CellSettings& s = m->axes.back().values[1].settings;
  EXPECT_EQ(s.setup, "set -e\ndocker pull nvcr.io/nvidia/jax:24.10\necho \"image==$(docker image inspect --format "
                     "'{{.Id}}' nvcr.io/nvidia/jax:24.10)\" > \"$GH_VERSION_DIR/provenance.observed\"\n");
  EXPECT_THAT(s.launcher_prefix, ElementsAre("docker", "run", "--rm", "--network=host", "--ipc=host", "-v",
                                             "{version_dir}:{version_dir}", "nvcr.io/nvidia/jax:24.10"));
  m = Load("  container: {runtime: apptainer, tags: [\"1\"], image: \"img:{version}\"}\n", lister);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(m->axes.back().values[0].settings.setup, HasSubstr("apptainer pull image.sif docker://img:1\n"));
  EXPECT_EQ(m->axes.back().values[0].settings.launcher_prefix.back(), "{version_dir}/image.sif");
  EXPECT_THAT(Load("  container: {runtime: lxc, tags: [\"1\"], image: i}\n", lister).status().message(),
              HasSubstr("m.yaml:4:24: versions.container.runtime: expected docker, podman, apptainer or enroot, got 'lxc'"));
  EXPECT_THAT(Load("  container: {runtime: docker, tags: [\"1\"]}\n", lister).status().message(),
              HasSubstr("versions.container: `tags`/`tags_command` need `image`"));
}

TEST(MatrixDir, IsResolvedInEveryStringOfAVersionValue) {
  FakeLister lister;
  absl::StatusOr<Matrix> m = Load(R"(  values:
    - {label: a, setup: "{matrix_dir}/install.sh {version_dir}", env: {X: "{matrix_dir}/x"}, args: ["{matrix_dir}"],
       launcher_prefix: ["{matrix_dir}/wrap"], env_prepend: {PATH: "{matrix_dir}/bin"}}
)", lister);
  ASSERT_TRUE(m.ok()) << m.status();
  const CellSettings& s = m->axes.back().values[0].settings;
  EXPECT_EQ(s.setup, "/mats/install.sh {version_dir}");
  EXPECT_EQ(s.env.at("X"), "/mats/x");
  EXPECT_THAT(s.args, ElementsAre("/mats"));
  EXPECT_THAT(s.launcher_prefix, ElementsAre("/mats/wrap"));
  EXPECT_EQ(s.env_prepend.at("PATH"), "/mats/bin");
}

TEST(VersionLists, ParsersAndOrder) {
  EXPECT_THAT(ParsePipIndexVersions("jax (1)\nAvailable versions: 1, 0.9\n"), ElementsAre("1", "0.9"));
  EXPECT_THAT(ParseWheelhouseVersions("jax-0.4.36-py3-none-any.whl\njaxlib-0.4.36-cp311-manylinux.whl\n"
                                      "Jax-0.5.0-py3-none-any.whl\nREADME\n", "jax"),
              ElementsAre("0.4.36", "0.5.0"));
  EXPECT_THAT(ParseWheelhouseVersions("nvidia_nccl_cu13-2.28.9-py3-none-manylinux.whl\n", "nvidia-nccl-cu13"),
              ElementsAre("2.28.9"));
  absl::StatusOr<std::vector<std::string>> f = FilterVersionRange({"0.5", "0.4.30", "0.4.30", "0.10", "1.0rc1"}, ">=0.4.30");
  ASSERT_TRUE(f.ok());
  EXPECT_THAT(*f, ElementsAre("0.4.30", "0.5", "0.10"));
  EXPECT_TRUE(NaturalLess("v2.28.9-1", "v2.28.10-1"));
  EXPECT_FALSE(NaturalLess("v2.28.10-1", "v2.28.9-1"));
  EXPECT_TRUE(NaturalLess("a", "a1"));
}

}  // namespace
}  // namespace gh::driver
