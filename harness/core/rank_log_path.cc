#include "harness/core/rank_log_path.h"

#include "absl/strings/str_cat.h"
#include "harness/core/path_under.h"

namespace gh {
namespace {

// Whether `piece` (between two '/') starts a part of its own: "<known param>=..." or the last
// piece's "np=".
bool StartsPart(std::string_view piece, bool last, const std::set<std::string>& param_names) {
  if (last && piece.substr(0, 3) == "np=") return true;
  const size_t equals = piece.find('=');
  return equals != std::string_view::npos && param_names.count(std::string(piece.substr(0, equals))) != 0;
}

}  // namespace

std::vector<std::string> PointNameParts(std::string_view point_name, const std::set<std::string>& param_names) {
  std::vector<std::string_view> pieces;
  for (size_t start = 0;;) {
    const size_t slash = point_name.find('/', start);
    pieces.push_back(point_name.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  std::vector<std::string> parts;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (i == 0 || StartsPart(pieces[i], i + 1 == pieces.size(), param_names)) {
      parts.emplace_back(pieces[i]);
    } else {
      parts.back() += '/';
      parts.back() += pieces[i];
    }
  }
  return parts;
}

std::string PointLogDir(std::string_view point_name, const std::set<std::string>& param_names) {
  std::string dir = "logs";
  for (const std::string& part : PointNameParts(point_name, param_names)) absl::StrAppend(&dir, "/", SafeDirName(part));
  return dir;
}

std::string RankLogPath(std::string_view point_name, const std::set<std::string>& param_names, int rank,
                        int trial) {
  return absl::StrCat(PointLogDir(point_name, param_names), "/rank", rank,
                      trial == 0 ? "" : absl::StrCat(".trial", trial), ".log");
}

}  // namespace gh
