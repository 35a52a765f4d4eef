// Choosing what a sweep runs, as pytest users expect: `--collect-only` lists the points without
// running them, `-k` takes an expression over point names, `--maxfail N` and `-x` stop the sweep
// once N points were unmet (a rerun resumes the rest). Host backend, mpirun, real jobs.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/records_file.h"
#include "harness/core/testdata/temp_dir.h"
#include "tests/common/shell_run.h"

namespace gh {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Four cells, one a flavour, run one at a time; flavours b and c end in error (the command exits
// 1), a and d pass.
// Each cell runs two points (size 1 and 2), so a failing cell has 2 unmet points.
constexpr char kMatrix[] = R"(name: selection
scenarios:
  - file: check.yaml
defaults: {launcher: mpirun, backend: host, ranks: 1}
axes:
  - name: flavor
    values:
      - {label: a, env: {GH_BAD: "0"}}
      - {label: b, env: {GH_BAD: "1"}}
      - {label: c, env: {GH_BAD: "1"}}
      - {label: d, env: {GH_BAD: "0"}}
)";
constexpr char kScenario[] = R"(name: check
kind: exec
params:
  size: [1, 2]
exec:
  argv: [sh, -c, 'test "$GH_BAD" != 1']
expect: pass
)";

struct Fixture {
  std::string dir, matrix;
};

Fixture Write(const std::string& name, const std::string& matrix = kMatrix) {
  Fixture f;
  f.dir = testing::MakeKeptTempDir("gh_sweep_selection_" + name);
  f.matrix = f.dir + "/matrix.yaml";
  std::ofstream(f.matrix) << matrix;
  std::ofstream(f.dir + "/check.yaml") << kScenario;
  return f;
}

testing::CommandRun Sweep(const Fixture& f, const std::string& args, const std::string& log) {
  return testing::RunLogged(std::string(GH_GPUHARNESS_BIN) + " sweep " + testing::ShellWord(f.matrix) + " " + args,
                            f.dir + "/" + log + ".log");
}

std::vector<std::string> RecordedCells(const std::string& out) {
  absl::StatusOr<RecordsFileContents> c = ReadRecordsFile(out + "/records.jsonl");
  std::vector<std::string> cells;
  if (!c.ok()) return cells;
  for (const Record& r : c->records) cells.push_back(r.cell.at("flavor") + ":" + std::string(OutcomeName(r.result.outcome)));
  return cells;
}

TEST(SweepSelection, CollectOnlyListsEveryCellsPointsAndWritesNothing) {
  const Fixture f = Write("collect");
  testing::CommandRun run = Sweep(f, "--collect-only --out " + f.dir + "/out", "collect");
  ASSERT_EQ(run.exit_code, 0) << run.console;
  EXPECT_EQ(run.console,
            "sweep selection: 4 cells, 8 points, 8 runs\n"
            "flavor=a\n    check/size=1/np=1\n    check/size=2/np=1\n"
            "flavor=b\n    check/size=1/np=1\n    check/size=2/np=1\n"
            "flavor=c\n    check/size=1/np=1\n    check/size=2/np=1\n"
            "flavor=d\n    check/size=1/np=1\n    check/size=2/np=1\n");
  EXPECT_FALSE(std::filesystem::exists(f.dir + "/out"));
  // -k narrows it; --out is not needed to look.
  run = Sweep(f, "--collect-only -k 'check/* and not *size=2*'", "collect_k");
  ASSERT_EQ(run.exit_code, 0) << run.console;
  EXPECT_THAT(run.console, HasSubstr("sweep selection: 4 cells, 4 points, 4 runs\nflavor=a\n    check/size=1/np=1\n"));
  EXPECT_THAT(run.console, Not(HasSubstr("size=2")));
}

TEST(SweepSelection, AMalformedFilterIsBadInputNamingWhere) {
  const Fixture f = Write("bad_filter");
  testing::CommandRun run = Sweep(f, "--collect-only -k 'check/* and'", "flag");
  EXPECT_EQ(run.exit_code, 2) << run.console;
  EXPECT_THAT(run.console, HasSubstr("--filter: expected a glob, 'not' or '(' at the end"));
  // In a matrix: file, line and key.
  std::string matrix = kMatrix;
  matrix.replace(matrix.find("  - file: check.yaml"), 20, "  - {file: check.yaml, points: ['(check/*']}");
  const Fixture g = Write("bad_points", matrix);
  run = Sweep(g, "--collect-only", "points");
  EXPECT_EQ(run.exit_code, 2) << run.console;
  EXPECT_THAT(run.console, HasSubstr(g.matrix + ":3:"));
  EXPECT_THAT(run.console, HasSubstr("points: '(check/*': the '(' at column 1 is never closed"));
}

TEST(SweepSelection, ExitFirstStopsAtTheFirstFailingCellAndARerunResumesTheRest) {
  const Fixture f = Write("exitfirst");
  const std::string out = f.dir + "/out";
  testing::CommandRun run = Sweep(f, "--slots 1 -x --out " + out, "x");
  EXPECT_EQ(run.exit_code, 1) << run.console;
  // Cell b's two points were unmet when it ended: the sweep stops there.
  EXPECT_THAT(run.console, HasSubstr("stopped after 2 unmet points (--maxfail 1): 2 cells not run; rerun the same "
                                     "command without it to run them\n"));
  EXPECT_EQ(RecordedCells(out), (std::vector<std::string>{"a:pass", "a:pass", "b:error", "b:error"}));
  run = Sweep(f, "--slots 1 --out " + out, "rerun");
  EXPECT_EQ(run.exit_code, 1) << run.console;
  EXPECT_THAT(run.console, HasSubstr("cells: 2 run, 2 resumed"));
  EXPECT_EQ(RecordedCells(out), (std::vector<std::string>{"a:pass", "a:pass", "b:error", "b:error", "c:error", "c:error",
                                                         "d:pass", "d:pass"}));
}

TEST(SweepSelection, MaxFailCountsUnmetPointsAcrossCells) {
  const Fixture f = Write("maxfail");
  const std::string out = f.dir + "/out";
  // b's two unmet points are fewer than 3: c runs too, and with it there are 4.
  testing::CommandRun run = Sweep(f, "--slots 1 --maxfail 3 --out " + out, "maxfail");
  EXPECT_EQ(run.exit_code, 1) << run.console;
  EXPECT_THAT(run.console, HasSubstr("stopped after 4 unmet points (--maxfail 3): 1 cell not run;"));
  EXPECT_EQ(RecordedCells(out).size(), 6u);
  // Never reached: the whole sweep runs and nothing says it stopped.
  run = Sweep(f, "--slots 1 --maxfail 5 --fresh --out " + out, "maxfail5");
  EXPECT_EQ(run.exit_code, 1) << run.console;
  EXPECT_THAT(run.console, Not(HasSubstr("stopped after")));
  EXPECT_EQ(RecordedCells(out).size(), 8u);
  run = Sweep(f, "--maxfail 0 --out " + out, "zero");
  EXPECT_EQ(run.exit_code, 2) << run.console;
}

}  // namespace
}  // namespace gh
