#include "harness/history/history_command.h"

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
#include "harness/history/history_db.h"
#include "harness/history/history_ingest.h"
#include "harness/history/history_queries.h"
#include "harness/history/history_report.h"

namespace gh {
namespace {

constexpr char kPrefix[] = "gpuharness history: ";

int Fail(const absl::Status& status) {
  std::cerr << kPrefix << status.message() << "\n";
  return absl::IsInvalidArgument(status) || absl::IsNotFound(status) ? kExitBadInput : kExitInfrastructure;
}

std::string Metrics(const NightResult& n) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : n.metrics) parts.push_back(absl::StrCat(name, "=", value, n.units.at(name).empty() ? "" : " ", n.units.at(name)));
  return absl::StrJoin(parts, ", ");
}

int Show(HistoryDb& db, const std::string& point) {
  absl::StatusOr<std::vector<PointHistory>> histories = LoadHistories(db, point);
  if (!histories.ok()) return Fail(histories.status());
  if (histories->empty()) {
    absl::StatusOr<std::vector<PointHistory>> all = LoadHistories(db);
    std::vector<std::string> names;
    if (all.ok()) for (const PointHistory& h : *all) names.push_back(h.key.point);
    std::cerr << kPrefix << db.path() << ": no point '" << point << "'" << DidYouMeanSuffix(point, names) << "\n";
    return kExitBadInput;
  }
  for (const PointHistory& h : *histories) {
    std::cout << h.key.ToString() << "\n";
    for (const NightResult& n : h.nights) {
      std::cout << "  " << n.night << "  version " << (n.version.empty() ? "-" : n.version) << "  "
                << n.verdict << "  trials " << absl::StrJoin(n.outcomes, ",") << (n.unmet ? "  UNMET" : "")
                << (n.signature.empty() ? "" : absl::StrCat("  ", n.signature))
                << (n.metrics.empty() ? "" : absl::StrCat("  ", Metrics(n))) << "\n";
    }
  }
  return kExitOk;
}

int Flips(HistoryDb& db, const std::string& night, const std::string& format) {
  absl::StatusOr<std::vector<PointHistory>> histories = LoadHistories(db);
  if (!histories.ok()) return Fail(histories.status());
  for (const Flip& f : FindFlips(*histories, night)) {
    if (format == "tsv") {
      std::cout << absl::StrJoin({f.key.matrix, f.key.cell, f.key.point, f.from, f.to, f.night, f.version,
                                  f.previous_night, f.previous_version, f.signature}, "\t") << "\n";
    } else {
      std::cout << f.key.ToString() << ": " << f.from << " -> " << f.to << " at night " << f.night
                << " (version " << (f.version.empty() ? "-" : f.version) << "; before: night "
                << f.previous_night << ", version " << (f.previous_version.empty() ? "-" : f.previous_version) << ")"
                << (f.signature.empty() ? "" : absl::StrCat(": ", f.signature)) << "\n";
    }
  }
  return kExitOk;
}

int FlakyPoints(HistoryDb& db) {
  absl::StatusOr<std::vector<PointHistory>> histories = LoadHistories(db);
  if (!histories.ok()) return Fail(histories.status());
  for (const Flaky& f : FindFlaky(*histories)) {
    std::cout << f.key.ToString() << ": " << f.strip << " (" << f.changes << " changes)";
    if (!f.mixed_nights.empty()) std::cout << "; trials disagree on " << absl::StrJoin(f.mixed_nights, ", ");
    std::cout << "\n";
  }
  return kExitOk;
}

int Report(HistoryDb& db, const std::string& out) {
  absl::StatusOr<std::vector<std::string>> nights = Nights(db);
  if (!nights.ok()) return Fail(nights.status());
  absl::StatusOr<std::vector<PointHistory>> histories = LoadHistories(db);
  if (!histories.ok()) return Fail(histories.status());
  absl::Status written = WriteFileAtomically(out, RenderHistoryHtml(*nights, *histories));
  if (!written.ok()) return Fail(absl::InvalidArgumentError(written.message()));
  std::cout << "wrote " << out << " (" << nights->size() << " nights, " << histories->size() << " points)\n";
  return kExitOk;
}

// CLI11's errors in the project's words; unknown flags with a suggestion.
int ParseFailure(const CLI::App& app, const CLI::ParseError& e) {
  std::string message = e.what();
  if (!message.empty()) message[0] = static_cast<char>(std::tolower(message[0]));
  std::cerr << kPrefix << message << "\n" << "usage: gpuharness history ingest DIR [--night LABEL] | show POINT | "
            << "flips [--night N] [--format text|tsv] | flaky | report --out FILE.html   [--db FILE]\n";
  (void)app;
  return kExitBadInput;
}

}  // namespace

int HistoryCommand(int argc, char** argv) {
  CLI::App app("gpuharness history: the results history database (docs/reference/history.md)", "gpuharness history");
  app.allow_extras();
  app.require_subcommand(1);
  std::string db_path = kDefaultHistoryDb, dir, night, point, format = "text", out;
  app.add_option("--db", db_path, "the database file (default results/history.sqlite)");
  CLI::App* ingest = app.add_subcommand("ingest", "add a sweep, bisect or night directory");
  ingest->add_option("DIR", dir)->required();
  ingest->add_option("--night", night, "the night's label (default: nightly.json's, else DIR's name)");
  CLI::App* show = app.add_subcommand("show", "a point's outcome and metrics per night");
  show->add_option("POINT", point)->required();
  CLI::App* flips = app.add_subcommand("flips", "points whose verdict changed");
  flips->add_option("--night", night, "only changes on this night");
  flips->add_option("--format", format)->check(CLI::IsMember({"text", "tsv"}));
  CLI::App* flaky = app.add_subcommand("flaky", "points that alternate across nights or whose trials disagree");
  CLI::App* report = app.add_subcommand("report", "a self-contained HTML page");
  report->add_option("--out", out, "FILE.html")->required();
  for (CLI::App* sub : {ingest, show, flips, flaky, report}) {
    sub->allow_extras();
    sub->fallthrough();
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    return ParseFailure(app, e);
  }
  std::vector<std::string> extras = app.remaining();
  for (CLI::App* sub : app.get_subcommands()) {
    for (const std::string& x : sub->remaining()) extras.push_back(x);
  }
  if (!extras.empty()) {
    const std::string& x = extras.front();
    if (!x.empty() && x[0] == '-') {
      std::cerr << kPrefix << "unknown flag " << x
                << DidYouMeanSuffix(x, {"--db", "--night", "--format", "--out", "--help"}) << "\n";
    } else {
      std::cerr << kPrefix << "unexpected argument '" << x << "'\n";
    }
    return kExitBadInput;
  }
  // An ingest reads and checks DIR before it creates the database file.
  absl::StatusOr<IngestBatch> batch;
  if (ingest->parsed()) {
    batch = ReadIngestDirectory(dir, night);
    if (!batch.ok()) return Fail(batch.status());
  }
  const HistoryDb::Mode mode = ingest->parsed() ? HistoryDb::Mode::kCreate : HistoryDb::Mode::kExisting;
  absl::StatusOr<HistoryDb> db = HistoryDb::Open(db_path, mode);
  if (!db.ok()) return Fail(db.status());
  if (ingest->parsed()) {
    absl::StatusOr<IngestResult> r = IngestBatchInto(*db, *batch);
    if (!r.ok()) return Fail(r.status());
    std::cout << "ingested " << dir << " as night " << r->night << ": " << r->records << " records from "
              << r->directories << " results directories, " << r->added << " new (" << db_path << ")\n";
    return kExitOk;
  }
  if (show->parsed()) return Show(*db, point);
  if (flips->parsed()) return Flips(*db, night, format);
  if (flaky->parsed()) return FlakyPoints(*db);
  return Report(*db, out);
}

}  // namespace gh
