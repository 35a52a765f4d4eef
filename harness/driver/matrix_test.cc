#include "harness/driver/matrix.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/testdata/error_cases.h"

namespace gh::driver {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<Matrix> Load(const std::string& text,
                            const ListCommandRunner& list = [](const VersionListCommand&)
                                -> absl::StatusOr<std::string> { return std::string("1.0\n"); }) {
  return LoadMatrixText(text, "m.yaml", "/mats", list);
}

std::string Err(const std::string& text) {
  absl::StatusOr<Matrix> m = Load(text);
  EXPECT_FALSE(m.ok()) << "expected an error for:\n" << text;
  EXPECT_TRUE(absl::IsInvalidArgument(m.status())) << m.status();
  return std::string(m.status().message());
}

constexpr char kFull[] = R"(name: nccl_flags
description: two axes and a version
scenarios:
  - file: ../scenarios/ring.yaml
    points: ["*/dtype=f32/*"]
  - plain.yaml
defaults: {launcher: mpirun, ranks: 4, timeout: 10m, backend: host, share_gpu: true}
axes:
  - name: proto
    values:
      - {label: simple, env: {NCCL_PROTO: Simple}}
      - {label: ll, env: {NCCL_PROTO: LL}, flags: {XLA_FLAGS: ["--a=1", "--b"]}}
  - name: np
    values: [{label: "2", ranks: 2}, {label: "4", ranks: 4, timeout: 90s}]
versions:
  name: nccl
  values:
    - label: "2.28.3"
      env: {LD_LIBRARY_PATH: /usr/lib/x86_64-linux-gnu}
    - label: "2.28.9"
      setup: "ln -s /x lib"
      env_prepend: {LD_LIBRARY_PATH: "{version_dir}/lib"}
      launcher_prefix: [enroot, start, img]
include: [{proto: ll, nccl: "2.28.9"}]
exclude: [{proto: ll, np: "4"}]
)";

TEST(MatrixTest, LoadsEveryKey) {
  absl::StatusOr<Matrix> m = Load(kFull);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->name, "nccl_flags");
  EXPECT_EQ(m->description, "two axes and a version");
  ASSERT_EQ(m->scenarios.size(), 2u);
  EXPECT_EQ(m->scenarios[0].path, "/mats/../scenarios/ring.yaml");
  EXPECT_EQ(m->scenarios[0].points, std::vector<std::string>{"*/dtype=f32/*"});
  EXPECT_EQ(m->scenarios[1].path, "/mats/plain.yaml");
  EXPECT_TRUE(m->scenarios[1].points.empty());
  EXPECT_EQ(*m->defaults.ranks, 4);
  EXPECT_EQ(*m->defaults.launcher, "mpirun");
  EXPECT_EQ(*m->defaults.timeout, absl::Minutes(10));
  EXPECT_EQ(*m->defaults.backend, "host");
  EXPECT_TRUE(*m->defaults.share_gpu);
  ASSERT_EQ(m->axes.size(), 3u);
  EXPECT_EQ(m->axes[0].name, "proto");
  EXPECT_FALSE(m->axes[0].is_version);
  EXPECT_EQ(m->axes[0].values[1].label, "ll");
  EXPECT_EQ(m->axes[0].values[1].settings.env.at("NCCL_PROTO"), "LL");
  EXPECT_EQ(m->axes[0].values[1].settings.flags.at("XLA_FLAGS"),
            (std::vector<std::string>{"--a=1", "--b"}));
  EXPECT_EQ(m->axes[0].values[1].loc.line, 12);
  EXPECT_EQ(*m->axes[1].values[1].settings.timeout, absl::Seconds(90));
  EXPECT_EQ(m->axes[2].name, "nccl");
  EXPECT_TRUE(m->axes[2].is_version);
  EXPECT_TRUE(m->has_version_axis());
  EXPECT_EQ(m->axes[2].values[1].settings.setup, "ln -s /x lib");
  EXPECT_EQ(m->axes[2].values[1].settings.env_prepend.at("LD_LIBRARY_PATH"), "{version_dir}/lib");
  EXPECT_EQ(m->axes[2].values[1].settings.launcher_prefix,
            (std::vector<std::string>{"enroot", "start", "img"}));
  ASSERT_EQ(m->include.size(), 1u);
  EXPECT_EQ(m->include[0].labels.at("nccl"), "2.28.9");
  ASSERT_EQ(m->exclude.size(), 1u);
  EXPECT_EQ(m->exclude[0].labels.at("np"), "4");
}

TEST(MatrixTest, VersionListRunsTheCommandAndFillsTheTemplate) {
  std::string seen_command, seen_cwd;
  absl::StatusOr<Matrix> m = Load(R"(name: v
scenarios: [a.yaml]
versions:
  name: commit
  list:
    command: git rev-list --reverse A..B
    template: {env: {PYTHONPATH: "/src/{version}"}, setup: "build {version}"}
)",
                                  [&](const VersionListCommand& request)
                                      -> absl::StatusOr<std::string> {
                                    seen_command = request.command;
                                    seen_cwd = request.cwd;
                                    return std::string("abc\n  def  \n\n");
                                  });
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(seen_command, "git rev-list --reverse A..B");
  EXPECT_EQ(seen_cwd, "/mats");
  ASSERT_EQ(m->axes.size(), 1u);
  ASSERT_EQ(m->axes[0].values.size(), 2u);
  EXPECT_EQ(m->axes[0].values[0].label, "abc");
  EXPECT_EQ(m->axes[0].values[1].label, "def");
  EXPECT_EQ(m->axes[0].values[1].settings.env.at("PYTHONPATH"), "/src/def");
  EXPECT_EQ(m->axes[0].values[1].settings.setup, "build def");
}

TEST(MatrixTest, VersionListCommandFailureNamesTheCommand) {
  absl::StatusOr<Matrix> m = Load("name: v\nscenarios: [a.yaml]\nversions:\n  list: {command: false}\n",
                                  [](const VersionListCommand&)
                                      -> absl::StatusOr<std::string> {
                                    return absl::FailedPreconditionError("`false` exited with status 1");
                                  });
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(std::string(m.status().message()),
            "m.yaml:4:19: versions.list.command: failed: `false` exited with status 1");
}

TEST(MatrixTest, VersionListTimeoutIsReadAndPassedOn) {
  absl::Duration seen = absl::ZeroDuration();
  auto runner = [&](const VersionListCommand& request) -> absl::StatusOr<std::string> {
    seen = request.timeout;
    return std::string("v1\n");
  };
  ASSERT_TRUE(Load("name: v\nscenarios: [a.yaml]\nversions:\n  list: {command: ls, timeout: 5s}\n", runner).ok());
  EXPECT_EQ(seen, absl::Seconds(5));
  ASSERT_TRUE(Load("name: v\nscenarios: [a.yaml]\nversions:\n  list: {command: ls}\n", runner).ok());
  EXPECT_EQ(seen, absl::Seconds(60));
  absl::StatusOr<Matrix> bad = Load("name: v\nscenarios: [a.yaml]\nversions:\n  list: {command: ls, timeout: soon}\n", runner);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status()));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("m.yaml:4:"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("versions.list.timeout"));
}

TEST(MatrixTest, StoppedVersionListCommandIsNotBadInput) {
  absl::StatusOr<Matrix> m = Load("name: v\nscenarios: [a.yaml]\nversions:\n  list: {command: sleep 9}\n",
                                  [](const VersionListCommand&) -> absl::StatusOr<std::string> {
                                    return absl::CancelledError("stopped while running `sleep 9`");
                                  });
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::IsCancelled(m.status()));
  EXPECT_EQ(std::string(m.status().message()), "stopped while running `sleep 9`");
}

// Every class of bad input, with file:line:column and the key.
TEST(MatrixErrorTest, MissingName) {
  EXPECT_EQ(Err("scenarios: [a.yaml]\n"), "m.yaml:1:1: name: missing required key");
}
TEST(MatrixErrorTest, UnknownTopLevelKey) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\naxis: []\n"),
            "m.yaml:3:1: axis: unknown key; did you mean axes?");
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\ncolour: red\n"),
            "m.yaml:3:1: colour: unknown key (allowed here: axes, defaults, description, exclude, "
            "include, name, scenarios, versions)");
}
TEST(MatrixErrorTest, UnknownValueKey) {
  EXPECT_THAT(Err("name: x\nscenarios: [a.yaml]\naxes:\n  - name: p\n    values:\n      - {label: a, evn: {X: 1}}\n"),
              HasSubstr("m.yaml:6:20: axes[0].values[0].evn: unknown key"));
}
TEST(MatrixErrorTest, NoScenarios) {
  EXPECT_EQ(Err("name: x\n"),
            "m.yaml:1:1: scenarios: expected a non-empty list of {file: ..., points: [...]}");
}
TEST(MatrixErrorTest, ScenarioWithoutFile) {
  EXPECT_EQ(Err("name: x\nscenarios:\n  - points: [a]\n"),
            "m.yaml:3:5: scenarios[0].file: missing required key");
}
TEST(MatrixErrorTest, WrongTypeForRanks) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\ndefaults: {ranks: four}\n"),
            "m.yaml:3:19: defaults.ranks: expected an integer, got 'four'");
}
TEST(MatrixErrorTest, ImpossibleRanks) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\naxes:\n  - name: np\n    values: [{label: a, ranks: 0}]\n"),
            "m.yaml:5:32: axes[0].values[0].ranks: must be between 1 and 4096, got 0");
}
TEST(MatrixErrorTest, BadDuration) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\ndefaults: {timeout: soon}\n"),
            "m.yaml:3:21: defaults.timeout: expected a duration such as 90s, 10m or 1h, got 'soon'");
}
// One duration grammar with scenario files (core/duration_text.h): a bare number is seconds.
TEST(MatrixTest, TimeoutBareNumberIsSeconds) {
  for (const char* text : {"60", "60s", "1m"}) {
    absl::StatusOr<Matrix> m =
        Load(std::string("name: x\nscenarios: [a.yaml]\ndefaults: {timeout: ") + text + "}\n");
    ASSERT_TRUE(m.ok()) << text << ": " << m.status();
    EXPECT_EQ(*m->defaults.timeout, absl::Seconds(60)) << text;
  }
}
TEST(MatrixErrorTest, TimeoutNanAndNegative) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\ndefaults: {timeout: nan}\n"),
            "m.yaml:3:21: defaults.timeout: expected a duration such as 90s, 10m or 1h, got 'nan'");
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\ndefaults: {timeout: -1}\n"),
            "m.yaml:3:21: defaults.timeout: must be more than 0, got '-1'");
}
// The mistyped key is named first, not the `values` it hides.
TEST(MatrixErrorTest, MistypedKeyIsReportedFirstWithASuggestion) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\naxes:\n  - name: p\n    valeus: [a]\n"),
            "m.yaml:5:5: axes[0].valeus: unknown key; did you mean values?");
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\naxes:\n  - name: p\n    values: [{label: a, evn: {X: 1}}]\n"),
            "m.yaml:5:25: axes[0].values[0].evn: unknown key; did you mean env?");
  EXPECT_EQ(Err("name: x\nscenarios:\n  - {file: a.yaml, pionts: [a]}\n"),
            "m.yaml:3:20: scenarios[0].pionts: unknown key; did you mean points?");
}
TEST(MatrixErrorTest, BadBackend) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\ndefaults: {backend: gpu}\n"),
            "m.yaml:3:21: defaults.backend: expected auto, host or cuda, got 'gpu'");
}
TEST(MatrixErrorTest, NotAFlag) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\naxes:\n  - name: f\n    values:\n      - {label: a, flags: {XLA_FLAGS: [oops]}}\n"),
            "m.yaml:6:39: axes[0].values[0].flags.XLA_FLAGS: 'oops' is not a flag (flags start with - or --)");
}
TEST(MatrixErrorTest, DuplicateLabel) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\naxes:\n  - name: p\n    values: [a, b, a]\n"),
            "m.yaml:5:20: axes[0].values: duplicate label 'a'");
}
TEST(MatrixErrorTest, DuplicateAxis) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\naxes:\n  - {name: p, values: [a]}\n  - {name: p, values: [b]}\n"),
            "m.yaml:5:5: name: duplicate axis name 'p'");
}
TEST(MatrixErrorTest, EmptyValues) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\naxes:\n  - {name: p, values: []}\n"),
            "m.yaml:4:23: axes[0].values: expected a non-empty list of values");
}
TEST(MatrixErrorTest, SetupOnlyOnVersions) {
  EXPECT_THAT(Err("name: x\nscenarios: [a.yaml]\naxes:\n  - name: p\n    values: [{label: a, setup: make}]\n"),
              HasSubstr("m.yaml:5:25: axes[0].values[0].setup: unknown key (allowed here: args, "
                        "backend, env, env_append, env_prepend, flags, label, launcher, points, "
                        "ranks, share_gpu, timeout)"));
}
TEST(MatrixErrorTest, VersionsNeedValuesOrList) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\nversions: {name: v}\n"),
            "m.yaml:3:11: versions: needs exactly one of `values`, `list`, `pip`, `git` or `container`");
}
TEST(MatrixErrorTest, IncludeUnknownAxis) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\naxes: [{name: p, values: [a]}]\ninclude: [{q: a}]\n"),
            "m.yaml:4:12: include[0].q: no axis of that name");
}
TEST(MatrixErrorTest, ExcludeUnknownLabel) {
  EXPECT_EQ(Err("name: x\nscenarios: [a.yaml]\naxes: [{name: p, values: [a]}]\nexclude: [{p: z}]\n"),
            "m.yaml:4:15: exclude[0].p: axis 'p' has no label 'z'");
}
TEST(MatrixErrorTest, YamlSyntax) {
  EXPECT_THAT(Err("name: x\nscenarios: [a.yaml\n"), HasSubstr("m.yaml:3:1: invalid YAML: "));
}
TEST(MatrixErrorTest, MissingFileNamesThePath) {
  absl::StatusOr<Matrix> m = LoadMatrixFile("/nonexistent/m.yaml");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(m.status()));
  EXPECT_THAT(std::string(m.status().message()),
              HasSubstr("/nonexistent/m.yaml: cannot read the matrix file"));
}

// Issue 15: labels, axis names and env names pass one validator (core/name_rules), whether
// written in the matrix or printed by versions.list.command; each error names file:line:col
// and the key.
TEST(MatrixTest, HostileLabelsAreRefusedWhereTheyAreWritten) {
  const std::string head = "name: m\nscenarios: [a.yaml]\naxes:\n  - name: p\n    values: [";
  ::gh::testing::ExpectErrors(
      Err, head,
      {{"\"a,b\"]\n", "m.yaml:5:14: axes[0].values[0].label: label 'a,b' holds ',' or '=' (cell ids are "
                       "axis=label,axis=label: it would make them ambiguous)"},
       {"\"x=y\"]\n", "m.yaml:5:14: axes[0].values[0].label: label 'x=y' holds"},
       {"\"\\e[31m\"]\n", "axes[0].values[0].label: label '\\x1b[31m' holds a control"},
       {"\"a\\0b\"]\n", "axes[0].values[0].label: label 'a\\x00b' holds a control"},
       {"\"a\xff\"]\n", "axes[0].values[0].label: label 'a\\xff' is not valid UTF-8"}});
  EXPECT_THAT(Err("name: m\nscenarios: [a.yaml]\naxes:\n  - name: \"p\\t\"\n    values: [x]\n"),
              HasSubstr("m.yaml:4:5: name: axis name: label 'p\\x09' holds a control"));
}

TEST(MatrixTest, HostileListCommandLabelsAreRefused) {
  const std::string text = "name: m\nscenarios: [a.yaml]\nversions:\n  list: {command: list}\n";
  for (const std::string& printed : {std::string("1.0\na,b\n"), std::string("x=y,v=z\n"), std::string("\xff\n"),
                                     std::string("a\x1b[2J\n"), std::string("a\0b\n", 4)}) {
    absl::StatusOr<Matrix> m = Load(text, [&](const VersionListCommand&) -> absl::StatusOr<std::string> {
      return printed;
    });
    ASSERT_FALSE(m.ok()) << printed;
    EXPECT_TRUE(absl::IsInvalidArgument(m.status()));
    EXPECT_THAT(m.status().message(), HasSubstr("m.yaml:4:19: versions.list.command: printed a bad version: label '"));
  }
}

TEST(MatrixTest, HostileEnvNamesAndValuesAreRefused) {
  const std::string head = "name: m\nscenarios: [a.yaml]\naxes:\n  - name: p\n    values: [{label: x, ";
  ::gh::testing::ExpectErrors(
      Err, head,
      {{"env: {\"A=B\": \"1\"}}]\n", "m.yaml:5:31: axes[0].values[0].env.A=B: 'A=B' is not an environment "
                                     "variable name (letters, digits and '_', not starting with a digit)"},
       {"env: {\"\": \"1\"}}]\n", "axes[0].values[0].env.: '' is not an environment"},
       {"env: {X: \"a\\0b\"}}]\n", "axes[0].values[0].env.X: the value 'a\\x00b' holds a NUL"},
       {"env_append: {\"9X\": \"/p\"}}]\n", "env_append.9X: '9X' is not an environment"},
       {"flags: {\"X-Y\": \"--a\"}}]\n", "flags.X-Y: 'X-Y' is not an environment"},
       {"timeout: nan}]\n", "axes[0].values[0].timeout"}});
}

}  // namespace
}  // namespace gh::driver
