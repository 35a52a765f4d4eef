#include "harness/history/history_findings.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/history/history_text.h"

namespace gh {
namespace {

// The nights of `h` with a verdict on the code, in order.
std::vector<const NightResult*> Judged(const PointHistory& h) {
  std::vector<const NightResult*> nights;
  for (const NightResult& n : h.nights) {
    if (n.has_verdict()) nights.push_back(&n);
  }
  return nights;
}

}  // namespace

std::string Broken::SinceText() const {
  return absl::StrCat(NightAndVersion(since, since_version), nights > 1 ? absl::StrCat(", ", nights, " nights") : "");
}

std::string Broken::LastGoodText() const {
  return last_good.empty() ? "never" : NightAndVersion(last_good, last_good_version);
}

std::vector<Broken> FindBroken(const std::vector<PointHistory>& histories) {
  std::map<std::string, std::string> latest;  // matrix -> its latest night
  for (const PointHistory& h : histories) {
    if (h.nights.empty()) continue;
    std::string& night = latest[h.key.matrix];
    night = std::max(night, h.nights.back().night);
  }
  std::vector<Broken> broken;
  for (const PointHistory& h : histories) {
    if (h.nights.empty() || h.nights.back().night != latest[h.key.matrix]) continue;  // not run now
    const std::vector<const NightResult*> judged = Judged(h);
    if (judged.empty() || !judged.back()->unmet) continue;
    Broken b{h.key, *judged.back(), "", "", "", "", 0, !h.nights.back().has_verdict()};
    size_t first = judged.size();
    while (first > 0 && judged[first - 1]->unmet) --first;
    b.since = judged[first]->night;
    b.since_version = judged[first]->version;
    b.nights = static_cast<int>(judged.size() - first);
    if (first > 0) {
      b.last_good = judged[first - 1]->night;
      b.last_good_version = judged[first - 1]->version;
    }
    broken.push_back(std::move(b));
  }
  std::stable_sort(broken.begin(), broken.end(), [](const Broken& a, const Broken& b) {
    return a.since != b.since ? a.since > b.since : a.key < b.key;
  });
  return broken;
}

std::vector<Flip> FindFlips(const std::vector<PointHistory>& histories, const std::string& night) {
  std::vector<Flip> flips;
  for (const PointHistory& h : histories) {
    const std::vector<const NightResult*> judged = Judged(h);
    for (size_t i = 1; i < judged.size(); ++i) {
      const NightResult& before = *judged[i - 1];
      const NightResult& now = *judged[i];
      if (before.verdict == now.verdict) continue;
      if (!night.empty() && now.night != night) continue;
      flips.push_back({h.key, before.verdict, now.verdict, now.night, now.version, before.night,
                       before.version, now.signature, now.unmet});
    }
  }
  return flips;
}

std::vector<Flaky> FindFlaky(const std::vector<PointHistory>& histories) {
  std::vector<Flaky> flaky;
  for (const PointHistory& h : histories) {
    Flaky f{h.key, 0, {}, "", {}, 0, 0};
    std::vector<std::string> strip;
    int failed = 0, trials = 0;
    const std::vector<const NightResult*> judged = Judged(h);
    for (size_t i = 0; i < judged.size(); ++i) {
      const NightResult& n = *judged[i];
      strip.push_back(n.verdict);
      if (i > 0 && n.verdict != judged[i - 1]->verdict) ++f.changes;
      std::set<std::string> outcomes;
      for (const std::string& o : n.outcomes) {
        if (o != "skip" && o != "infra") outcomes.insert(o);
      }
      if (outcomes.size() > 1) f.mixed_nights.push_back(n.night);
      failed += n.failed;
      trials += n.judged;
      if (n.failed > 0) ++f.failed_nights;
      ++f.nights;
    }
    f.strip = absl::StrJoin(strip, " ");
    f.trials = FailureRateOf(failed, trials);
    if (f.changes >= 2 || !f.mixed_nights.empty()) flaky.push_back(std::move(f));
  }
  std::stable_sort(flaky.begin(), flaky.end(), [](const Flaky& a, const Flaky& b) { return a.trials.rate > b.trials.rate; });
  return flaky;
}

}  // namespace gh
