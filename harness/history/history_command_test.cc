// `gpuharness history` as its users type it: exact lines, TSV that never splits, exit statuses.
#include "harness/history/history_command.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/history/testdata/history_fixture.h"

namespace gh {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::HistoryTest;
using testing::kP2p;
using testing::kPut;
using testing::NightRecord;

TEST_F(HistoryTest, CommandFlipsStatusAndFlaky) {
  { HistoryDb db = OpenDb(); ThreeNights(db); }
  CommandRun run = History({"flips", "--db", db_path_, "--format", "tsv"});
  EXPECT_EQ(run.exit, 0);
  EXPECT_EQ(run.out, absl::StrCat("nightly\ttransport=p2p\t", kP2p, "\tpass\tfail\tnight2\tn08\tnight1\tn03\twrong data on ranks 1\t\n"));
  run = History({"flips", "--db", db_path_});
  EXPECT_EQ(run.out, absl::StrCat("nightly [transport=p2p] :: ", kP2p,
                                  ": pass -> fail at night night2 (version n08; before: night night1, version n03): wrong data on ranks 1\n"));
  run = History({"status", "--db", db_path_});
  EXPECT_EQ(run.exit, 0);
  EXPECT_EQ(run.out, absl::StrCat("as of night night3 (3 nights): 1 of 2 points broken\n", "nightly [transport=p2p] :: ", kP2p,
                                  ": fail since night2 (version n08), 2 nights; last good night1 (version n03): wrong data on ranks 1\n"));
  run = History({"status", "--db", db_path_, "--format", "tsv"});
  EXPECT_EQ(run.out, absl::StrCat("nightly\ttransport=p2p\t", kP2p, "\t\tfail\tpass\tnight3\tnight2\tn08\tnight1\tn03\t2\twrong data on ranks 1\n"));
  run = History({"status", "--db", db_path_, "--points", "*mpi_put*"});
  EXPECT_EQ(run.out, "as of night night3 (3 nights): nothing broken among 1 point\n");
  run = History({"flaky", "--db", db_path_});
  EXPECT_EQ(run.exit, 0);
  EXPECT_EQ(run.out, "");
}

TEST_F(HistoryTest, CommandTextAndTsvAreEscaped) {
  {
    HistoryDb db = OpenDb();
    Ingest(db, WriteSweep("n1", "n01", {{kP2p, {Outcome::kPass}}}), "night1");
    Record r = NightRecord(kP2p, "n02", 0, Outcome::kError);
    r.result.signature = "RuntimeError: boom\nTraceback:\n\tFile \"x.py\", line 3";
    Ingest(db, WriteRecords("n2", {r}, {"n02"}), "night2");
  }
  CommandRun run = History({"flips", "--night", "night2", "--format", "tsv", "--db", db_path_});
  EXPECT_EQ(run.exit, 0);
  std::vector<std::string> lines = absl::StrSplit(run.out, '\n');
  ASSERT_EQ(lines.size(), 2u) << run.out;  // one line and the final newline
  std::vector<std::string> fields = absl::StrSplit(lines[0], '\t');
  ASSERT_EQ(fields.size(), 11u);
  EXPECT_EQ(fields[9], "RuntimeError: boom\\nTraceback:\\n\\tFile \"x.py\", line 3");
  run = History({"status", "--db", db_path_});
  EXPECT_THAT(run.out, HasSubstr(": error since night2 (version n02); last good night1 (version n01): RuntimeError: boom\\nTraceback:\\n\\tFile"));
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 2);
  run = History({"show", kP2p, "--db", db_path_});
  EXPECT_THAT(run.out, HasSubstr("  night2  version n02  error  trials error  UNMET  RuntimeError: boom\\nTraceback:\\n\\tFile"));
}

TEST_F(HistoryTest, CommandRefusesNightsItDoesNotHaveAndLabelsThatAreNone) {
  { HistoryDb db = OpenDb(); ThreeNights(db); }
  CommandRun run = History({"flips", "--night", "NOSUCH", "--db", db_path_});
  EXPECT_EQ(run.exit, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, absl::StrCat("gpuharness history: ", db_path_, ": no night 'NOSUCH' (3 nights, night1 to night3)\n"));
  run = History({"flips", "--night", "nigth2", "--db", db_path_});
  EXPECT_EQ(run.exit, 2);
  EXPECT_THAT(run.err, HasSubstr("no night 'nigth2' (3 nights, night1 to night3); did you mean night2?"));
  run = History({"flips", "--night", "night\t2", "--db", db_path_});
  EXPECT_EQ(run.exit, 2);
  EXPECT_EQ(run.err, "gpuharness history: --night: label 'night\\x092' holds a control character (newline, tab, escape, ...)\n");
  const std::string dir = (root_ / "n1").string();
  for (const std::string& bad : {std::string("a\nb"), std::string("\x1b[2J"), std::string("x\xff")}) {
    run = History({"ingest", dir, "--night", bad, "--db", (root_ / "other.sqlite").string()});
    EXPECT_EQ(run.exit, 2) << bad;
    EXPECT_THAT(run.err, StartsWith("gpuharness history: --night: label '"));
  }
  EXPECT_FALSE(fs::exists(root_ / "other.sqlite"));
}

TEST_F(HistoryTest, CommandShowFindsPointsByGlob) {
  { HistoryDb db = OpenDb(); ThreeNights(db); }
  CommandRun run = History({"show", "*mpi_p2p*", "--db", db_path_});
  EXPECT_EQ(run.exit, 0);
  EXPECT_EQ(run.out, absl::StrCat("nightly [transport=p2p] :: ", kP2p, "\n",
                                  "  night1  version n03  pass  trials pass  time_median_us=13 us\n",
                                  "  night2  version n08  fail  trials fail  UNMET  wrong data on ranks 1  time_median_us=13 us\n",
                                  "  night3  version n08  fail  trials fail  UNMET  wrong data on ranks 1  time_median_us=13 us\n"));
  run = History({"show", "*/np=2", "--db", db_path_});
  EXPECT_THAT(run.out, HasSubstr(absl::StrCat("\nnightly [transport=put] :: ", kPut, "\n")));  // both points
  EXPECT_THAT(run.out, StartsWith(absl::StrCat("nightly [transport=p2p] :: ", kP2p, "\n")));
  run = History({"show", "ring_shift/bytes=4K/dtype=i32/transport=mpi_p2p/np=4", "--db", db_path_});
  EXPECT_EQ(run.exit, 2);
  EXPECT_THAT(run.err, HasSubstr(absl::StrCat(db_path_, ": no point matches 'ring_shift/bytes=4K/dtype=i32/transport=mpi_p2p/np=4'; did you mean ")));
}

TEST_F(HistoryTest, CommandErrors) {
  { HistoryDb db = OpenDb(); ThreeNights(db); }
  CommandRun run = History({"flips", "--db", db_path_, "--nigth", "x"});
  EXPECT_EQ(run.exit, 2);
  EXPECT_EQ(run.err, "gpuharness history: unknown flag --nigth; did you mean --night?\n");
  run = History({"flaky", "--db", (root_ / "missing.sqlite").string()});
  EXPECT_EQ(run.exit, 2);
  EXPECT_THAT(run.err, HasSubstr("missing.sqlite: no history database"));
  EXPECT_FALSE(fs::exists(root_ / "missing.sqlite"));
  // An output that cannot be written is the machine's failure (3), not bad input (2).
  ASSERT_TRUE(WriteFileAtomically((root_ / "a-file").string(), "x").ok());
  run = History({"report", "--out", (root_ / "a-file" / "history.html").string(), "--db", db_path_});
  EXPECT_EQ(run.exit, 3);
  EXPECT_THAT(run.err, HasSubstr((root_ / "a-file" / "history.html").string()));
  run = History({"report", "--out", (root_ / "history.html").string(), "--db", db_path_});
  EXPECT_EQ(run.exit, 0);
  EXPECT_EQ(run.out, absl::StrCat("wrote ", (root_ / "history.html").string(), " (3 nights, 2 points)\n"));
}

}  // namespace
}  // namespace gh
