#include "harness/runtime/hang_report.h"

#include <algorithm>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "harness/runtime/gpu_binding.h"
#include "harness/runtime/stack_dump.h"

namespace gh {
namespace {

struct Group {
  std::string key;
  std::vector<int> ranks;
};

// Groups in order of first appearance; `key` decides membership.
void AddToGroup(std::vector<Group>& groups, const std::string& key, int rank) {
  auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.key == key; });
  if (it == groups.end()) {
    groups.push_back(Group{key, {rank}});
  } else {
    it->ranks.push_back(rank);
  }
}

std::string Ranks(const std::vector<int>& ranks) {
  return absl::StrCat(ranks.size() == 1 ? "rank " : "ranks ", FormatRankList(ranks));
}

std::string IsAre(const std::vector<int>& ranks) { return ranks.size() == 1 ? "is" : "are"; }

// The call part of a summary ("MPI_Barrier" of "MPI_Barrier <- RingShift::RunSteps").
std::string CallOf(const std::string& summary) {
  const size_t arrow = summary.find(" <- ");
  return arrow == std::string::npos ? summary : summary.substr(0, arrow);
}

bool Finished(const WatchdogReport& report, const OpEntry& op) {
  const auto it = std::find_if(report.ops.begin(), report.ops.end(), [&](const OpEntry& e) {
    return e.step == op.step && e.occurrence == op.occurrence;
  });
  return it != report.ops.end() && it + 1 != report.ops.end();
}

}  // namespace

bool IsCommunicationWait(const std::string& summary) {
  // The harness's own wait for its stream (it polls cudaStreamQuery and sleeps between polls).
  if (absl::StrContains(summary, "<- CudaResources::Synchronize")) return true;
  const std::string call = CallOf(summary);
  for (const char* prefix : {"MPI_", "nccl", "cudaStream", "cudaDevice", "cudaEvent", "cuStream",
                             "cuEvent", "cuCtxSynchronize", "ompi_", "opal_"}) {
    if (absl::StartsWith(call, prefix)) return true;
  }
  return false;
}

std::vector<std::string> HangSummaryLines(const std::vector<WatchdogReport>& reports) {
  std::vector<Group> groups;
  for (const WatchdogReport& report : reports) {
    const std::string summary = StackSummary(report.stack);
    const std::string where =
        summary.empty() ? absl::StrCat("no stack (", report.stack_note, ")") : summary;
    AddToGroup(groups, absl::StrCat(where, " (step ", report.step, ")"), report.rank);
  }
  std::vector<std::string> lines;
  for (const Group& group : groups) lines.push_back(absl::StrCat(Ranks(group.ranks), ": ", group.key));
  return lines;
}

std::string DivergenceLine(const std::vector<WatchdogReport>& reports) {
  std::vector<const WatchdogReport*> known;
  std::vector<int> silent;
  for (const WatchdogReport& report : reports) {
    if (report.ops.empty()) {
      silent.push_back(report.rank);
    } else {
      known.push_back(&report);
    }
  }
  std::string line;
  if (!known.empty()) {
    int64_t behind = known.front()->ops.back().sequence;
    for (const WatchdogReport* r : known) behind = std::min(behind, r->ops.back().sequence);
    std::vector<Group> lagging, ahead;
    const WatchdogReport* first_lagging = nullptr;
    for (const WatchdogReport* r : known) {
      const std::string op = FormatOpWithCall(r->ops.back());
      if (r->ops.back().sequence == behind) {
        if (first_lagging == nullptr) first_lagging = r;
        AddToGroup(lagging, op, r->rank);
      } else {
        AddToGroup(ahead, op, r->rank);
      }
    }
    if (!ahead.empty()) {
      const OpEntry& stuck = first_lagging->ops.back();
      for (const Group& g : lagging) {
        absl::StrAppend(&line, line.empty() ? "" : "; ", Ranks(g.ranks), " ", IsAre(g.ranks),
                        " in ", g.key);
      }
      for (const Group& g : ahead) {
        const WatchdogReport& first = *std::find_if(
            reports.begin(), reports.end(),
            [&](const WatchdogReport& r) { return r.rank == g.ranks.front(); });
        // "finished #17": the lagging ranks' operation, just named.
        const bool finished = Finished(first, stuck);
        absl::StrAppend(&line, ", ", Ranks(g.ranks), " ",
                        finished ? absl::StrCat("finished #", stuck.occurrence, " and ",
                                                g.ranks.size() == 1 ? "waits" : "wait")
                                 : IsAre(g.ranks),
                        " in ", g.key);
      }
    } else {
      // Every rank at the same operation: their stacks tell who is not waiting for the others.
      std::vector<Group> idle, waiting;
      for (const WatchdogReport* r : known) {
        const std::string summary = StackSummary(r->stack);
        const std::string where = FormatOpWithCall(r->ops.back());
        if (!summary.empty() && !IsCommunicationWait(summary)) {
          AddToGroup(idle, absl::StrCat(where, " outside any communication call (", summary, ")"),
                     r->rank);
        } else {
          AddToGroup(waiting, summary.empty() ? absl::StrCat(where, " (no stack)")
                                              : absl::StrCat(where, " waiting in ", CallOf(summary)),
                     r->rank);
        }
      }
      if (!idle.empty()) {
        for (const Group& g : idle) {
          absl::StrAppend(&line, line.empty() ? "" : "; ", Ranks(g.ranks), " ", IsAre(g.ranks),
                          " in ", g.key);
        }
        for (const Group& g : waiting) {
          absl::StrAppend(&line, "; ", Ranks(g.ranks), " ", IsAre(g.ranks), " in ", g.key);
        }
      } else if (waiting.size() == 1) {
        line = absl::StrCat(known.size() == reports.size() ? "every rank" : Ranks(waiting[0].ranks),
                            " ", known.size() == reports.size() ? "is" : IsAre(waiting[0].ranks),
                            " in ", waiting[0].key, ": no rank is behind the others");
      } else {
        for (const Group& g : waiting) {
          absl::StrAppend(&line, line.empty() ? "" : "; ", Ranks(g.ranks), " ", IsAre(g.ranks),
                          " in ", g.key);
        }
      }
    }
  }
  if (!silent.empty()) {
    absl::StrAppend(&line, line.empty() ? "" : "; ", Ranks(silent), " left no record of ",
                    silent.size() == 1 ? "its" : "their", " operations");
  }
  return line;
}

}  // namespace gh
