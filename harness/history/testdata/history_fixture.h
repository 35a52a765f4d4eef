// The history tests' fixture: a temporary directory (TempDirTest), a database in it, and results
// directories shaped like the nightly's (flag axis transport, version axis nightly) written record
// by record.
#ifndef GPUHARNESS_HISTORY_TESTDATA_HISTORY_FIXTURE_H_
#define GPUHARNESS_HISTORY_TESTDATA_HISTORY_FIXTURE_H_

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/core/testdata/temp_dir.h"
#include "harness/history/history_command.h"
#include "harness/history/history_db.h"
#include "harness/history/history_ingest.h"
#include "harness/report/sweep_info.h"

namespace gh::testing {

inline constexpr char kP2p[] = "ring_shift/bytes=4K/dtype=i32/transport=mpi_p2p/np=2";
inline constexpr char kPut[] = "ring_shift/bytes=4K/dtype=i32/transport=mpi_put/np=2";

// One record of the nightly's shape: `point` in cell transport=<p2p|put>, nightly=<version>.
inline Record NightRecord(const std::string& point, const std::string& version, int trial, Outcome outcome,
                          Outcome expected = Outcome::kPass) {
  Record r;
  r.scenario = "ring_shift";
  r.kind = "ring_shift";
  r.point = point;
  r.backend = "host";
  r.trial = trial;
  r.trials = trial + 1;
  r.result.outcome = outcome;
  if (outcome != Outcome::kPass) r.result.signature = "wrong data on ranks 1";
  r.result.metrics = {{"time_median_us", 10.0 + trial + version.size(), "us"}};
  r.expected.outcome = expected;
  r.matched = outcome == expected;
  r.started_at = absl::StrCat("2026-12-01T00:00:0", trial, "Z");
  r.cell = {{"transport", point == kP2p ? "p2p" : "put"}, {"nightly", version}};
  return r;
}

class HistoryTest : public TempDirTest {
 protected:
  // `records` as DIR/records.jsonl and a sweep.json whose version axis nightly holds `versions`.
  std::string WriteRecords(const std::string& name, const std::vector<Record>& records,
                           const std::vector<std::string>& versions) {
    const std::filesystem::path dir = root_ / name;
    std::filesystem::create_directories(dir);
    EXPECT_TRUE(WriteRecordsFile((dir / "records.jsonl").string(), records).ok());
    SweepInfo info;
    info.matrix_name = "nightly";
    info.axes = {{"transport", false, {"p2p", "put"}}, {"nightly", true, versions}};
    EXPECT_TRUE(WriteFileAtomically((dir / "sweep.json").string(), info.ToJson().dump()).ok());
    return dir.string();
  }

  // A sweep at one version: `outcomes[point]` is one outcome per trial.
  std::string WriteSweep(const std::string& name, const std::string& version,
                         const std::vector<std::pair<std::string, std::vector<Outcome>>>& outcomes) {
    std::vector<Record> records;
    for (const auto& [point, trials] : outcomes) {
      for (size_t t = 0; t < trials.size(); ++t) {
        records.push_back(NightRecord(point, version, static_cast<int>(t), trials[t]));
        records.back().trials = static_cast<int>(trials.size());
      }
    }
    return WriteRecords(name, records, {version});
  }

  HistoryDb OpenDb() {
    absl::StatusOr<HistoryDb> db = HistoryDb::Open(db_path_, HistoryDb::Mode::kCreate);
    EXPECT_TRUE(db.ok()) << db.status();
    return std::move(*db);
  }

  void Ingest(HistoryDb& db, const std::string& dir, const std::string& night) {
    absl::StatusOr<IngestResult> r = IngestDirectory(db, dir, night);
    ASSERT_TRUE(r.ok()) << r.status();
  }

  // Three nights with the regression planted at night2 (p2p fails from then on).
  void ThreeNights(HistoryDb& db) {
    const auto pass = Outcome::kPass, fail = Outcome::kFail;
    Ingest(db, WriteSweep("n1", "n03", {{kP2p, {pass}}, {kPut, {pass}}}), "night1");
    Ingest(db, WriteSweep("n2", "n08", {{kP2p, {fail}}, {kPut, {pass}}}), "night2");
    Ingest(db, WriteSweep("n3", "n08", {{kP2p, {fail}}, {kPut, {pass}}}), "night3");
  }

  // `gpuharness history ARGS...` in this process; stdout and stderr captured.
  struct CommandRun {
    int exit = -1;
    std::string out, err;
  };
  CommandRun History(std::vector<std::string> args) {
    args.insert(args.begin(), "history");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    CommandRun run;
    run.exit = HistoryCommand(static_cast<int>(argv.size()), argv.data());
    run.out = ::testing::internal::GetCapturedStdout();
    run.err = ::testing::internal::GetCapturedStderr();
    return run;
  }

  const std::filesystem::path root_ = temp_dir();
  const std::string db_path_ = (root_ / "history.sqlite").string();
};

}  // namespace gh::testing

#endif  // GPUHARNESS_HISTORY_TESTDATA_HISTORY_FIXTURE_H_
