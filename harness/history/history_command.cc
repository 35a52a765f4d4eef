#include "harness/history/history_command.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/did_you_mean.h"
#include "harness/core/exit_codes.h"
#include "harness/core/file_util.h"
#include "harness/core/name_rules.h"
#include "harness/history/history_db.h"
#include "harness/history/history_findings.h"
#include "harness/history/history_ingest.h"
#include "harness/history/history_listing.h"
#include "harness/history/history_queries.h"
#include "harness/history/history_report.h"
#include "harness/history/night_regressions.h"
#include "harness/history/night_summary.h"

namespace gh {
namespace {

constexpr char kPrefix[] = "gpuharness history: ";
constexpr char kUsage[] =
    "usage: gpuharness history ingest DIR [--night LABEL] | status | show POINT... | flips [--night N] | flaky\n"
    "         | report --out FILE.html | regressions DIR --baseline DIR [--night N] [--out FILE]\n"
    "         | summary NIGHT_DIR --night N --cluster C --version V --status S [--good] [--baseline DIR]\n"
    "       [--db FILE] [--points GLOB]... [--format text|tsv]\n";

int Fail(const absl::Status& status) {
  std::cerr << kPrefix << status.message() << "\n";
  return absl::IsInvalidArgument(status) || absl::IsNotFound(status) ? kExitBadInput : kExitInfrastructure;
}

int BadInput(const std::string& message) {
  std::cerr << kPrefix << message << "\n";
  return kExitBadInput;
}

void Warn(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) std::cerr << kPrefix << "warning: " << w << "\n";
}

// What the subcommands were given.
struct Args {
  std::string db_path = kDefaultHistoryDb;
  std::string dir, night, format = "text", out, baseline, cluster, version;
  std::vector<std::string> points;  // show's POINT... or --points GLOB
  int status = 0;
  bool good = false;
  ListingFormat Format() const { return format == "tsv" ? ListingFormat::kTsv : ListingFormat::kText; }
};

// A night the database must have: a label, and one of its nights (a typo is bad input, not
// an empty answer).
absl::Status CheckKnownNight(const std::string& night, const std::vector<std::string>& nights, const HistoryDb& db) {
  if (absl::Status label = CheckLabel(night); !label.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--night: ", label.message()));
  }
  if (std::find(nights.begin(), nights.end(), night) != nights.end()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      db.path(), ": no night '", night, "'",
      nights.empty() ? " (no sweep results yet)" : absl::StrCat(" (", nights.size(), " nights, ", nights.front(), " to ", nights.back(), ")"),
      DidYouMeanSuffix(night, nights)));
}

// The series the globs name; bad input when globs were given and none matched.
absl::StatusOr<std::vector<PointHistory>> Histories(const HistoryDb& db, const std::vector<std::string>& globs) {
  absl::StatusOr<std::vector<PointHistory>> histories = LoadHistories(db, globs);
  if (!histories.ok() || !histories->empty() || globs.empty()) return histories;
  absl::StatusOr<std::vector<PointHistory>> all = LoadHistories(db);
  std::vector<std::string> names;
  if (all.ok()) {
    for (const PointHistory& h : *all) names.push_back(h.key.point);
  }
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return absl::InvalidArgumentError(absl::StrCat(db.path(), ": no point matches '", absl::StrJoin(globs, "', '"), "'",
                                                 DidYouMeanSuffix(globs.front(), names)));
}

int Print(const absl::StatusOr<std::string>& text) {
  if (!text.ok()) return Fail(text.status());
  std::cout << *text;
  return kExitOk;
}

int Ingest(const Args& a) {
  // DIR is read and checked before the database file is created.
  absl::StatusOr<IngestBatch> batch = ReadIngestDirectory(a.dir, a.night);
  if (!batch.ok()) return Fail(batch.status());
  Warn(batch->warnings);
  absl::StatusOr<HistoryDb> db = HistoryDb::Open(a.db_path, HistoryDb::Mode::kCreate);
  if (!db.ok()) return Fail(db.status());
  absl::StatusOr<IngestResult> r = IngestBatchInto(*db, *batch);
  if (!r.ok()) return Fail(r.status());
  std::cout << "ingested " << a.dir << " as night " << r->night << ": " << r->records << " records from "
            << r->directories << " results directories, " << r->added << " new"
            << (r->superseded > 0 ? absl::StrCat(", ", r->superseded, " superseded (no longer in their directory)") : "")
            << " (" << a.db_path << ")\n";
  return kExitOk;
}

int Query(const Args& a, const CLI::App& sub) {
  absl::StatusOr<HistoryDb> db = HistoryDb::Open(a.db_path, HistoryDb::Mode::kQuery);
  if (!db.ok()) return Fail(db.status());
  absl::StatusOr<std::vector<std::string>> nights = Nights(*db);
  if (!nights.ok()) return Fail(nights.status());
  if (!a.night.empty()) {
    if (absl::Status known = CheckKnownNight(a.night, *nights, *db); !known.ok()) return Fail(known);
  }
  absl::StatusOr<std::vector<PointHistory>> histories = Histories(*db, a.points);
  if (!histories.ok()) return Fail(histories.status());
  const std::string name = sub.get_name();
  if (name == "show") return Print(ShowListing(*histories));
  if (name == "status") return Print(StatusListing(*nights, *histories, a.Format()));
  if (name == "flips") return Print(FlipsListing(FindFlips(*histories, a.night), a.Format()));
  if (name == "flaky") return Print(FlakyListing(FindFlaky(*histories), a.Format()));
  // report: an output that cannot be written is no fault of the input.
  absl::Status written = WriteFileAtomically(a.out, RenderHistoryHtml(*nights, *histories));
  if (!written.ok()) {
    std::cerr << kPrefix << written.message() << "\n";
    return kExitInfrastructure;
  }
  std::cout << "wrote " << a.out << " (" << nights->size() << " nights, " << histories->size() << " points)\n";
  return kExitOk;
}

int Regressions(const Args& a) {
  std::vector<PointHistory> histories;
  if (!a.night.empty()) {
    absl::StatusOr<HistoryDb> db = HistoryDb::Open(a.db_path, HistoryDb::Mode::kQuery);
    if (!db.ok()) return Fail(db.status());
    absl::StatusOr<std::vector<std::string>> nights = Nights(*db);
    if (!nights.ok()) return Fail(nights.status());
    if (absl::Status known = CheckKnownNight(a.night, *nights, *db); !known.ok()) return Fail(known);
    absl::StatusOr<std::vector<PointHistory>> loaded = LoadHistories(*db);
    if (!loaded.ok()) return Fail(loaded.status());
    histories = *std::move(loaded);
  }
  absl::StatusOr<NightRegressions> found = FindNightRegressions(a.dir, a.baseline, histories, a.night);
  if (!found.ok()) return Fail(found.status());
  Warn(found->warnings);
  const std::string out = a.out.empty() ? a.dir + "/regressions.json" : a.out;
  if (absl::Status written = WriteFileAtomically(out, found->ToJson().dump(2) + "\n"); !written.ok()) {
    std::cerr << kPrefix << written.message() << "\n";
    return kExitInfrastructure;
  }
  std::cout << RegressionsListing(*found, a.Format());
  return found->regressions.empty() ? kExitOk : kExitUnmet;
}

int Summary(const Args& a) {
  NightSummaryInputs in{a.dir, a.night, a.cluster, a.version, a.status, a.good, a.baseline, {}};
  if (absl::Status label = CheckLabel(a.night); !label.ok()) return BadInput(absl::StrCat("--night: ", label.message()));
  std::error_code ec;
  if (std::filesystem::exists(a.db_path, ec)) {
    absl::StatusOr<HistoryDb> db = HistoryDb::Open(a.db_path, HistoryDb::Mode::kQuery);
    if (!db.ok()) return Fail(db.status());
    absl::StatusOr<std::vector<PointHistory>> histories = LoadHistories(*db);
    if (!histories.ok()) return Fail(histories.status());
    in.histories = *std::move(histories);
  }
  absl::StatusOr<std::vector<std::string>> written = WriteNightSummary(in);
  if (!written.ok()) return Fail(written.status());
  for (const std::string& path : *written) std::cout << "wrote " << path << "\n";
  return kExitOk;
}

// CLI11's errors in the project's words.
int ParseFailure(const CLI::ParseError& e) {
  std::string message = e.what();
  if (!message.empty()) message[0] = static_cast<char>(std::tolower(message[0]));
  std::cerr << kPrefix << message << "\n" << kUsage;
  return kExitBadInput;
}

}  // namespace

int HistoryCommand(int argc, char** argv) {
  CLI::App app("gpuharness history: the results history database (docs/reference/history.md)", "gpuharness history");
  app.allow_extras();
  app.require_subcommand(1);
  Args a;
  app.add_option("--db", a.db_path, "the database file (default results/history.sqlite)");
  auto format = [&](CLI::App* sub) {
    sub->add_option("--format", a.format, "text (default) or tsv")->check(CLI::IsMember({"text", "tsv"}));
  };
  auto points = [&](CLI::App* sub) { sub->add_option("--points", a.points, "only points whose name matches GLOB (repeatable)"); };
  CLI::App* ingest = app.add_subcommand("ingest", "add a sweep, bisect or night directory");
  ingest->add_option("DIR", a.dir)->required();
  ingest->add_option("--night", a.night, "the night's label (default: nightly.json's, else DIR's name)");
  CLI::App* status = app.add_subcommand("status", "what is broken now, since which night, the last good night");
  points(status);
  format(status);
  CLI::App* show = app.add_subcommand("show", "the points' outcomes and metrics per night (names or globs)");
  show->add_option("POINT", a.points)->required();
  CLI::App* flips = app.add_subcommand("flips", "points whose verdict changed");
  flips->add_option("--night", a.night, "only changes on this night");
  points(flips);
  format(flips);
  CLI::App* flaky = app.add_subcommand("flaky", "points that alternate across nights or whose trials disagree");
  points(flaky);
  format(flaky);
  CLI::App* report = app.add_subcommand("report", "a self-contained HTML page");
  report->add_option("--out", a.out, "FILE.html")->required();
  points(report);
  CLI::App* regressions = app.add_subcommand("regressions", "a night's sweep against the baseline night's");
  regressions->add_option("DIR", a.dir)->required();
  regressions->add_option("--baseline", a.baseline, "the baseline night's sweep of the same matrix")->required();
  regressions->add_option("--night", a.night, "tonight's label in the database: decides which regressions are new");
  regressions->add_option("--out", a.out, "the JSON file (default DIR/regressions.json)");
  format(regressions);
  CLI::App* summary = app.add_subcommand("summary", "a night's summary.md and nightly.json");
  summary->add_option("NIGHT_DIR", a.dir)->required();
  summary->add_option("--night", a.night, "the night's label")->required();
  summary->add_option("--cluster", a.cluster, "the cluster's name")->required();
  summary->add_option("--version", a.version, "the version the night swept")->required();
  summary->add_option("--status", a.status, "ci/nightly.sh's exit status for the night")->required();
  summary->add_flag("--good", a.good, "the night becomes the baseline");
  summary->add_option("--baseline", a.baseline, "the baseline night's directory");
  std::vector<CLI::App*> subs = {ingest, status, show, flips, flaky, report, regressions, summary};
  for (CLI::App* sub : subs) {
    sub->allow_extras();
    sub->fallthrough();
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    return ParseFailure(e);
  }
  std::vector<std::string> extras = app.remaining();
  for (CLI::App* sub : app.get_subcommands()) {
    for (const std::string& x : sub->remaining()) extras.push_back(x);
  }
  if (!extras.empty()) {
    const std::string& x = extras.front();
    if (!x.empty() && x[0] == '-') {
      return BadInput(absl::StrCat("unknown flag ", x,
                                   DidYouMeanSuffix(x, {"--db", "--night", "--format", "--out", "--points", "--baseline",
                                                        "--cluster", "--version", "--status", "--good", "--help"})));
    }
    return BadInput(absl::StrCat("unexpected argument '", x, "'"));
  }
  if (ingest->parsed()) return Ingest(a);
  if (regressions->parsed()) return Regressions(a);
  if (summary->parsed()) return Summary(a);
  for (CLI::App* sub : {status, show, flips, flaky, report}) {
    if (sub->parsed()) return Query(a, *sub);
  }
  return BadInput("no subcommand");
}

}  // namespace gh
