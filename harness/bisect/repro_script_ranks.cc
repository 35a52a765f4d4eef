#include "harness/bisect/repro_script_ranks.h"

#include <filesystem>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "harness/core/state_json.h"
#include "harness/core/status_macros.h"

namespace gh {

namespace {

namespace fs = std::filesystem;

constexpr char kSuffix[] = ".log.command.json";

// The rank of "rank<r>.log.command.json" (trial 0's; later trials' files are "rank<r>.trial<t>...").
bool RankOfName(const std::string& name, int& rank) {
  if (!absl::StartsWith(name, "rank") || !absl::EndsWith(name, kSuffix)) return false;
  const std::string digits = name.substr(4, name.size() - 4 - (sizeof(kSuffix) - 1));
  return !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos &&
         absl::SimpleAtoi(digits, &rank);
}

absl::StatusOr<ReproRank> ReadRank(const StateJson& j) {
  GH_RETURN_IF_ERROR(j.ExpectObject());
  ReproRank rank;
  GH_ASSIGN_OR_RETURN(rank.argv, j.StringListOrEmpty("argv"));
  if (rank.argv.empty()) return j.ErrorAt("argv", "missing or empty");
  GH_ASSIGN_OR_RETURN(std::vector<StateJson> env, j.ArrayOrEmpty("env"));
  for (const StateJson& pair : env) {
    GH_ASSIGN_OR_RETURN(std::vector<StateJson> parts, pair.Items());
    if (parts.size() != 2) return pair.Error("expected [name, value]");
    GH_ASSIGN_OR_RETURN(std::string name, parts[0].AsString());
    GH_ASSIGN_OR_RETURN(std::string value, parts[1].AsString());
    rank.env.emplace_back(name, value);
  }
  GH_ASSIGN_OR_RETURN(rank.workdir, j.StringOr("workdir", ""));
  GH_ASSIGN_OR_RETURN(rank.coordinator, j.StringOr("coordinator", ""));
  GH_ASSIGN_OR_RETURN(int64_t exit_status, j.IntOr("exit_status", 0));
  rank.exit_status = static_cast<int>(exit_status);
  return rank;
}

}  // namespace

absl::StatusOr<std::vector<ReproRank>> ReadReproRanks(const std::string& out, const std::string& point) {
  std::map<int, ReproRank> found;
  int64_t nranks = 0;
  std::error_code ec;
  const fs::path logs = fs::path(out) / "logs";
  if (out.empty() || !fs::is_directory(logs, ec)) return std::vector<ReproRank>();
  for (auto it = fs::recursive_directory_iterator(logs, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    int r = 0;
    if (!it->is_regular_file(ec) || !RankOfName(it->path().filename().string(), r)) continue;
    const std::string path = it->path().string();
    absl::StatusOr<nlohmann::json> parsed = ParseStateFile(path);
    if (!parsed.ok()) return absl::InvalidArgumentError(parsed.status().message());
    const StateJson j(*parsed, path);
    GH_RETURN_IF_ERROR(j.ExpectObject());
    GH_ASSIGN_OR_RETURN(std::string p, j.String("point"));
    if (p != point) continue;
    GH_ASSIGN_OR_RETURN(int64_t rank, j.Int("rank"));
    GH_ASSIGN_OR_RETURN(nranks, j.Int("nranks"));
    if (rank != r) return j.ErrorAt("rank", absl::StrCat("is ", rank, " in the file of rank ", r));
    GH_ASSIGN_OR_RETURN(found[r], ReadRank(j));
  }
  std::vector<ReproRank> ranks;
  // Not every rank's (or a rank out of range): no standalone command.
  if (nranks <= 0 || static_cast<int64_t>(found.size()) != nranks || found.rbegin()->first >= nranks) return ranks;
  for (auto& [r, rank] : found) ranks.push_back(std::move(rank));
  return ranks;
}

}  // namespace gh
