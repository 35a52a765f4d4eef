#include "harness/driver/slurm_allocation.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "harness/core/child_process.h"
#include "harness/core/regex.h"
#include "harness/core/shell_quote.h"
#include "harness/core/status_macros.h"

namespace gh::driver {
namespace {

absl::Status BadHostlist(const std::string& hostlist, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("SLURM_JOB_NODELIST '", hostlist, "': ", why));
}

// Splits at the commas outside brackets.
std::vector<std::string> TopLevelItems(const std::string& text) {
  std::vector<std::string> items;
  std::string current;
  int depth = 0;
  for (char ch : text) {
    if (ch == '[') ++depth;
    if (ch == ']') --depth;
    if (ch == ',' && depth == 0) {
      items.push_back(current);
      current.clear();
    } else {
      current += ch;
    }
  }
  items.push_back(current);
  return items;
}

// "01-03" -> 01 02 03 (the width of the first bound kept); "5" -> 5.
absl::Status ExpandRange(const std::string& range, const std::string& prefix,
                         const std::string& suffix, const std::string& hostlist,
                         std::vector<std::string>& out) {
  std::vector<std::string> bounds = absl::StrSplit(range, '-');
  int lo = 0, hi = 0;
  if (bounds.size() > 2 || !absl::SimpleAtoi(bounds[0], &lo) ||
      !absl::SimpleAtoi(bounds.back(), &hi) || hi < lo || bounds[0].empty()) {
    return BadHostlist(hostlist, absl::StrCat("bad range '", range, "'"));
  }
  const size_t width = bounds[0].size();
  for (int i = lo; i <= hi; ++i) {
    std::string n = absl::StrCat(i);
    if (n.size() < width) n.insert(0, width - n.size(), '0');
    out.push_back(absl::StrCat(prefix, n, suffix));
  }
  return absl::OkStatus();
}

}  // namespace

std::string SlurmAllocation::ToString() const {
  int cpus = 0, gpus = 0;
  for (const SlurmNode& n : nodes) {
    cpus += n.cpus;
    gpus += n.gpus;
  }
  return absl::StrCat("Slurm job ", job_id, ": ", nodes.size(), " node(s) ", nodelist, ", ", cpus,
                      " CPUs, ", gpus, " GPUs");
}

absl::StatusOr<std::vector<std::string>> ExpandHostlist(const std::string& hostlist) {
  std::vector<std::string> hosts;
  if (hostlist.empty()) return BadHostlist(hostlist, "empty");
  for (const std::string& item : TopLevelItems(hostlist)) {
    if (item.empty()) return BadHostlist(hostlist, "an empty host name");
    size_t open = item.find('[');
    if (open == std::string::npos) {
      if (item.find(']') != std::string::npos) return BadHostlist(hostlist, "unbalanced ']'");
      hosts.push_back(item);
      continue;
    }
    size_t close = item.find(']', open);
    if (close == std::string::npos || item.find('[', open + 1) != std::string::npos) {
      return BadHostlist(hostlist, absl::StrCat("unbalanced brackets in '", item, "'"));
    }
    const std::string prefix = item.substr(0, open), suffix = item.substr(close + 1);
    for (absl::string_view range : absl::StrSplit(item.substr(open + 1, close - open - 1), ',')) {
      GH_RETURN_IF_ERROR(ExpandRange(std::string(range), prefix, suffix, hostlist, hosts));
    }
  }
  return hosts;
}

absl::StatusOr<std::vector<int>> ParseCpusPerNode(const std::string& text, size_t nodes) {
  std::vector<int> counts;
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("SLURM_JOB_CPUS_PER_NODE '", text, "': ", why));
  };
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    int count = 0, repeat = 1;
    size_t paren = item.find('(');
    absl::string_view number = item.substr(0, paren);
    if (paren != absl::string_view::npos) {
      absl::string_view times = item.substr(paren);
      if (!absl::ConsumePrefix(&times, "(x") || !absl::ConsumeSuffix(&times, ")") ||
          !absl::SimpleAtoi(times, &repeat) || repeat < 1) {
        return bad(absl::StrCat("bad repeat in '", item, "'"));
      }
    }
    if (!absl::SimpleAtoi(number, &count) || count < 1) {
      return bad(absl::StrCat("bad count in '", item, "'"));
    }
    counts.insert(counts.end(), repeat, count);
  }
  if (counts.size() != nodes) {
    return bad(absl::StrCat("gives ", counts.size(), " node(s), SLURM_JOB_NODELIST has ", nodes));
  }
  return counts;
}

absl::StatusOr<std::map<std::string, int>> ParseJobGpus(const std::string& scontrol_text) {
  GH_ASSIGN_OR_RETURN(Regex line, Regex::Compile(R"(Nodes=(\S+) .*GRES=\S*gpu[^ (]*\(IDX:([0-9,\-]+)\))"));
  std::map<std::string, int> gpus;
  for (absl::string_view text : absl::StrSplit(scontrol_text, '\n')) {
    std::optional<std::vector<std::string>> found = line.SearchGroups(std::string_view(text.data(), text.size()));
    if (!found) continue;
    const std::vector<std::string>& groups = *found;
    int count = 0;
    for (absl::string_view range : absl::StrSplit(groups[2], ',')) {
      std::vector<std::string> bounds = absl::StrSplit(range, '-');
      int lo = 0, hi = 0;
      if (!absl::SimpleAtoi(bounds[0], &lo) || !absl::SimpleAtoi(bounds.back(), &hi) || hi < lo) {
        return absl::InvalidArgumentError(
            absl::StrCat("scontrol show job: bad GPU index range '", range, "' in: ", text));
      }
      count += hi - lo + 1;
    }
    GH_ASSIGN_OR_RETURN(std::vector<std::string> nodes, ExpandHostlist(groups[1]));
    for (const std::string& n : nodes) gpus[n] = count;
  }
  return gpus;
}

absl::StatusOr<std::optional<SlurmAllocation>> DiscoverSlurmAllocation(const GetEnvFn& getenv,
                                                                     const ScontrolFn& scontrol) {
  const char* job = getenv("SLURM_JOB_ID");
  const char* nodelist = getenv("SLURM_JOB_NODELIST");
  if (job == nullptr || nodelist == nullptr || *job == '\0' || *nodelist == '\0') {
    return std::optional<SlurmAllocation>();
  }
  if (getenv("SLURM_STEP_ID") != nullptr) return std::optional<SlurmAllocation>();
  SlurmAllocation a;
  a.job_id = job;
  a.nodelist = nodelist;
  GH_ASSIGN_OR_RETURN(std::vector<std::string> hosts, ExpandHostlist(a.nodelist));
  const char* cpus_text = getenv("SLURM_JOB_CPUS_PER_NODE");
  if (cpus_text == nullptr) {
    return absl::InvalidArgumentError("SLURM_JOB_NODELIST is set but SLURM_JOB_CPUS_PER_NODE is not");
  }
  GH_ASSIGN_OR_RETURN(std::vector<int> cpus, ParseCpusPerNode(cpus_text, hosts.size()));
  std::map<std::string, int> gpus;
  if (absl::StatusOr<std::string> text = scontrol(a.job_id); text.ok()) {
    GH_ASSIGN_OR_RETURN(gpus, ParseJobGpus(*text));
  }
  for (size_t i = 0; i < hosts.size(); ++i) {
    a.nodes.push_back(SlurmNode{hosts[i], cpus[i], gpus.count(hosts[i]) ? gpus[hosts[i]] : 0});
  }
  return std::optional<SlurmAllocation>(std::move(a));
}

absl::StatusOr<std::string> RunScontrol(const std::vector<std::string>& args) {
  CommandRequest request;
  request.child.argv = {"scontrol"};
  request.child.argv.insert(request.child.argv.end(), args.begin(), args.end());
  request.timeout = kScontrolTimeout;
  absl::StatusOr<CommandResult> ran = RunCommand(request);
  const std::string what = ShellQuoteJoin(request.child.argv);
  if (!ran.ok()) return absl::UnavailableError(absl::StrCat(what, ": ", ran.status().message()));
  if (!ran->ok()) {
    const std::string why = LastLine(ran->err);
    return absl::UnavailableError(absl::StrCat(what, " failed (", ran->exit.ToString(), ")", why.empty() ? "" : ": ", why));
  }
  return std::move(ran->out);
}

absl::StatusOr<std::string> RunScontrolShowJob(const std::string& job_id) {
  return RunScontrol({"show", "job", "-d", job_id});
}

}  // namespace gh::driver
