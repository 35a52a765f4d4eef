#include "harness/history/history_listing.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/history/history_text.h"

namespace gh {
namespace {

std::string OrDash(const std::string& text) { return text.empty() ? "-" : text; }

std::string Metrics(const NightResult& n) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : n.metrics) {
    const std::string& unit = n.units.at(name);
    parts.push_back(absl::StrCat(name, "=", ThreeSignificant(value), unit.empty() ? "" : " ", unit));
  }
  return absl::StrJoin(parts, ", ");
}

// Text lines end with ": signature" when there is one.
std::string SignatureSuffix(const std::string& signature) {
  return signature.empty() ? "" : absl::StrCat(": ", OneLineText(signature));
}

}  // namespace

std::string ShowListing(const std::vector<PointHistory>& histories) {
  std::string out;
  for (const PointHistory& h : histories) {
    absl::StrAppend(&out, OneLineText(h.key.ToString()), "\n");
    for (const NightResult& n : h.nights) {
      absl::StrAppend(&out, "  ", n.night, "  version ", OrDash(n.version), "  ", n.Described(), "  trials ",
                      absl::StrJoin(n.outcomes, ","), n.unmet ? "  UNMET" : "",
                      n.signature.empty() ? "" : absl::StrCat("  ", OneLineText(n.signature)),
                      n.metrics.empty() ? "" : absl::StrCat("  ", Metrics(n)), "\n");
    }
  }
  return out;
}

std::string StatusListing(const std::vector<std::string>& nights, const std::vector<PointHistory>& histories,
                          ListingFormat format) {
  const std::vector<Broken> broken = FindBroken(histories);
  std::string out;
  if (format == ListingFormat::kTsv) {
    for (const Broken& b : broken) {
      out += TsvLine({b.key.matrix, b.key.cell, b.key.point, b.key.version, b.now.verdict, b.now.expected,
                      b.now.night, b.since, b.since_version, b.last_good, b.last_good_version,
                      std::to_string(b.nights), b.now.signature});
    }
    return out;
  }
  if (nights.empty()) return "no sweep results yet\n";
  std::map<std::string, std::string> latest;  // matrix -> its latest night
  for (const PointHistory& h : histories) {
    if (!h.nights.empty()) latest[h.key.matrix] = std::max(latest[h.key.matrix], h.nights.back().night);
  }
  int current = 0;  // series that ran on their matrix's latest night
  for (const PointHistory& h : histories) {
    if (!h.nights.empty() && h.nights.back().night == latest[h.key.matrix]) ++current;
  }
  absl::StrAppend(&out, "as of night ", nights.back(), " (", nights.size(), nights.size() == 1 ? " night" : " nights",
                  "): ");
  if (broken.empty()) {
    absl::StrAppend(&out, "nothing broken among ", current, current == 1 ? " point\n" : " points\n");
    return out;
  }
  absl::StrAppend(&out, broken.size(), " of ", current, current == 1 ? " point" : " points", " broken\n");
  for (const Broken& b : broken) {
    absl::StrAppend(&out, OneLineText(b.key.ToString()), ": ", b.now.Described(), " since ", b.SinceText(),
                    "; last good ", b.LastGoodText(), b.infra_tonight ? "; latest night infra only" : "", SignatureSuffix(b.now.signature), "\n");
  }
  return out;
}

std::string FlipsListing(const std::vector<Flip>& flips, ListingFormat format) {
  std::string out;
  for (const Flip& f : flips) {
    if (format == ListingFormat::kTsv) {
      out += TsvLine({f.key.matrix, f.key.cell, f.key.point, f.from, f.to, f.night, f.version, f.previous_night,
                      f.previous_version, f.signature, f.key.version});
      continue;
    }
    absl::StrAppend(&out, OneLineText(f.key.ToString()), ": ", f.from, " -> ", f.to, " at night ", f.night,
                    " (version ", OrDash(f.version), "; before: night ", f.previous_night, ", version ",
                    OrDash(f.previous_version), ")", SignatureSuffix(f.signature), "\n");
  }
  return out;
}

std::string FlakyListing(const std::vector<Flaky>& flaky, ListingFormat format) {
  std::string out;
  for (const Flaky& f : flaky) {
    if (format == ListingFormat::kTsv) {
      out += TsvLine({f.key.matrix, f.key.cell, f.key.point, f.key.version, std::to_string(f.trials.failed),
                      std::to_string(f.trials.trials), ThreeSignificant(f.trials.rate), ThreeSignificant(f.trials.low),
                      ThreeSignificant(f.trials.high), std::to_string(f.failed_nights), std::to_string(f.nights),
                      std::to_string(f.changes), f.strip, absl::StrJoin(f.mixed_nights, ",")});
      continue;
    }
    absl::StrAppend(&out, OneLineText(f.key.ToString()), ": failed ", f.trials.ToString(), " on ", f.failed_nights,
                    " of ", f.nights, f.nights == 1 ? " night" : " nights", "; verdicts ", f.strip, " (", f.changes,
                    f.changes == 1 ? " change)" : " changes)",
                    f.mixed_nights.empty() ? "" : absl::StrCat("; trials disagree on ", absl::StrJoin(f.mixed_nights, ", ")),
                    "\n");
  }
  return out;
}

std::string RegressionsListing(const NightRegressions& regressions, ListingFormat format) {
  std::string out;
  for (const NightRegression& r : regressions.regressions) {
    if (format == ListingFormat::kTsv) {
      out += TsvLine({r.point, r.cell_arg, r.is_new ? "new" : "known", r.baseline_version, r.version, r.now,
                      r.signature});
      continue;
    }
    absl::StrAppend(&out, "regression", r.is_new ? " (new)" : "", ": ", OneLineText(r.point), " [",
                    r.cell_arg.empty() ? "all" : OneLineText(r.cell_arg), "]: pass -> ", r.now, " (", r.failed_trials,
                    "/", r.trials, " trials failed", r.version.empty() ? "" : absl::StrCat(" at version ", r.version),
                    r.baseline_version.empty() ? "" : absl::StrCat(", baseline version ", r.baseline_version), ")",
                    SignatureSuffix(r.signature), "\n");
  }
  return out;
}

}  // namespace gh
