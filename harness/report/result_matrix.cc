#include "harness/report/result_matrix.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace gh {
namespace {

using Components = std::vector<std::pair<std::string, std::string>>;

// "<scenario>/bytes=4K/dtype=f32/np=4" -> {bytes:4K, dtype:f32, np:4}. A piece without '='
// belongs to the previous value (a value that itself holds '/').
Components ParsePointComponents(const std::string& point, const std::string& scenario) {
  std::string_view rest = point;
  if (rest.substr(0, scenario.size() + 1) == scenario + "/") rest.remove_prefix(scenario.size() + 1);
  Components components;
  for (absl::string_view piece : absl::StrSplit(absl::string_view(rest.data(), rest.size()), '/')) {
    size_t eq = piece.find('=');
    if (eq == absl::string_view::npos) {
      if (components.empty()) {
        components.push_back({std::string(piece), ""});
      } else {
        absl::StrAppend(&components.back().second, "/", piece);
      }
      continue;
    }
    components.push_back({std::string(piece.substr(0, eq)), std::string(piece.substr(eq + 1))});
  }
  return components;
}

std::string ValueOf(const Components& components, const std::string& key) {
  for (const auto& [name, value] : components) {
    if (name == key) return value;
  }
  return "";
}

std::vector<std::string> AxisOrder(const std::vector<const PointComparison*>& entries,
                                   const SweepInfo* sweep) {
  std::vector<std::string> order;
  if (sweep != nullptr) {
    for (const SweepAxisInfo& axis : sweep->axes) order.push_back(axis.name);
  }
  for (const PointComparison* entry : entries) {
    for (const auto& [name, label] : entry->now->cell) {
      if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
    }
  }
  return order;
}

std::string LabelOf(const std::map<std::string, std::string>& cell, const std::string& axis) {
  auto it = cell.find(axis);
  return it == cell.end() ? "" : it->second;
}

// The cell axes that label the rows: those that vary among `entries` (all present ones when none
// varies), in axis order.
std::vector<std::string> RowAxes(const std::vector<const PointComparison*>& entries, const SweepInfo* sweep) {
  std::vector<std::string> present_axes, varying_axes;
  for (const std::string& axis : AxisOrder(entries, sweep)) {
    std::set<std::string> labels;
    bool present = false;
    for (const PointComparison* entry : entries) {
      present = present || entry->now->cell.count(axis) != 0;
      labels.insert(LabelOf(entry->now->cell, axis));
    }
    if (present) present_axes.push_back(axis);
    if (present && labels.size() > 1) varying_axes.push_back(axis);
  }
  if (varying_axes.empty()) varying_axes = present_axes;
  return varying_axes;
}

// Each cell's rank: sweep cell order first, then first appearance.
std::map<std::string, size_t> CellRanks(const std::vector<const PointComparison*>& entries, const SweepInfo* sweep) {
  std::map<std::string, size_t> cell_rank;
  if (sweep != nullptr) {
    for (const SweepCellInfo& cell : sweep->cells) cell_rank.try_emplace(CellKey(cell.axes), cell_rank.size());
  }
  for (const PointComparison* entry : entries) cell_rank.try_emplace(entry->key.cell, cell_rank.size());
  return cell_rank;
}

// Orders `rows` by `row_order` (one key per row), keeping ties in place.
void SortRows(const std::vector<std::pair<size_t, size_t>>& row_order, std::vector<MatrixRow>& rows) {
  std::vector<size_t> permutation(rows.size());
  for (size_t i = 0; i < permutation.size(); ++i) permutation[i] = i;
  std::stable_sort(permutation.begin(), permutation.end(),
                   [&](size_t a, size_t b) { return row_order[a] < row_order[b]; });
  std::vector<MatrixRow> sorted;
  for (size_t i : permutation) sorted.push_back(std::move(rows[i]));
  rows = std::move(sorted);
}

ScenarioMatrix BuildOne(const std::string& scenario, const std::vector<const PointComparison*>& entries,
                        const SweepInfo* sweep) {
  ScenarioMatrix matrix;
  matrix.scenario = scenario;
  matrix.kind = entries.front()->now->kind;

  // Which point parameters vary within a cell: those are swept; the rest follow from the cell.
  std::vector<Components> components;
  std::vector<std::string> keys;
  std::map<std::string, std::map<std::string, std::set<std::string>>> values_by_cell;
  std::map<std::string, std::vector<std::string>> distinct_values;
  for (const PointComparison* entry : entries) {
    components.push_back(ParsePointComponents(entry->key.point, scenario));
    for (const auto& [name, value] : components.back()) {
      if (std::find(keys.begin(), keys.end(), name) == keys.end()) keys.push_back(name);
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    for (const std::string& key : keys) {
      std::string value = ValueOf(components[i], key);
      values_by_cell[key][entries[i]->key.cell].insert(value);
      auto& distinct = distinct_values[key];
      if (std::find(distinct.begin(), distinct.end(), value) == distinct.end()) distinct.push_back(value);
    }
  }
  std::vector<std::string> swept;
  for (const std::string& key : keys) {
    for (const auto& [cell, values] : values_by_cell[key]) {
      if (values.size() > 1) {
        swept.push_back(key);
        break;
      }
    }
  }
  auto combo_of = [&](size_t i, const std::vector<std::string>& params) {
    std::vector<std::string> parts;
    for (const std::string& param : params) parts.push_back(absl::StrCat(param, "=", ValueOf(components[i], param)));
    return absl::StrJoin(parts, ", ");
  };
  std::set<std::string> all_combos;
  for (size_t i = 0; i < entries.size(); ++i) all_combos.insert(combo_of(i, swept));
  std::vector<std::string> row_params;
  if (all_combos.size() <= kMaxMatrixColumns) {
    matrix.column_params = swept;
  } else {
    auto widest = std::max_element(swept.begin(), swept.end(), [&](const auto& a, const auto& b) {
      return distinct_values[a].size() < distinct_values[b].size();
    });
    matrix.column_params = {*widest};
    for (const std::string& key : swept) {
      if (key != *widest) row_params.push_back(key);
    }
  }

  // Row headers: the cell axes that vary here (all of them when none varies), then row params.
  const std::vector<std::string> varying_axes = RowAxes(entries, sweep);
  matrix.row_headers = varying_axes;
  for (const std::string& param : row_params) matrix.row_headers.push_back(param);
  const bool label_by_scenario = matrix.row_headers.empty();
  if (label_by_scenario) matrix.row_headers.push_back("scenario");

  std::map<std::string, size_t> cell_rank = CellRanks(entries, sweep);

  std::map<std::string, size_t> column_index;
  std::map<std::pair<std::string, std::string>, size_t> row_index;
  std::vector<std::pair<size_t, size_t>> row_order;  // (cell rank, first appearance)
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string column = matrix.column_params.empty() ? "result" : combo_of(i, matrix.column_params);
    if (column_index.try_emplace(column, matrix.columns.size()).second) {
      matrix.columns.push_back(column);
      std::vector<std::string> values;
      for (const std::string& param : matrix.column_params) values.push_back(ValueOf(components[i], param));
      matrix.column_values.push_back(values);
    }
    auto row_key = std::make_pair(entries[i]->key.cell, combo_of(i, row_params));
    if (row_index.try_emplace(row_key, matrix.rows.size()).second) {
      MatrixRow row;
      row.cell_key = entries[i]->key.cell;
      if (label_by_scenario) {
        row.labels.push_back(scenario);
      } else {
        for (const std::string& axis : varying_axes) row.labels.push_back(LabelOf(entries[i]->now->cell, axis));
        for (const std::string& param : row_params) row.labels.push_back(ValueOf(components[i], param));
      }
      matrix.rows.push_back(std::move(row));
      row_order.push_back({cell_rank[entries[i]->key.cell], row_order.size()});
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    MatrixRow& row = matrix.rows[row_index[{entries[i]->key.cell, combo_of(i, row_params)}]];
    row.entries.resize(matrix.columns.size(), nullptr);
    std::string column = matrix.column_params.empty() ? "result" : combo_of(i, matrix.column_params);
    row.entries[column_index[column]] = entries[i];
  }
  for (MatrixRow& row : matrix.rows) row.entries.resize(matrix.columns.size(), nullptr);
  SortRows(row_order, matrix.rows);
  return matrix;
}

}  // namespace

std::vector<ScenarioMatrix> BuildScenarioMatrices(const Comparison& comparison, const SweepInfo* sweep) {
  std::vector<std::string> scenarios;
  std::map<std::string, std::vector<const PointComparison*>> by_scenario;
  for (const PointComparison& entry : comparison.points) {
    if (!entry.now) continue;
    auto& list = by_scenario[entry.now->scenario];
    if (list.empty()) scenarios.push_back(entry.now->scenario);
    list.push_back(&entry);
  }
  std::vector<ScenarioMatrix> matrices;
  for (const std::string& scenario : scenarios) matrices.push_back(BuildOne(scenario, by_scenario[scenario], sweep));
  return matrices;
}

std::string CellDisplayLabel(const std::map<std::string, std::string>& cell, const SweepInfo* sweep) {
  std::vector<std::string> labels;
  std::set<std::string> used;
  if (sweep != nullptr) {
    for (const SweepAxisInfo& axis : sweep->axes) {
      auto it = cell.find(axis.name);
      if (it == cell.end()) continue;
      labels.push_back(it->second);
      used.insert(axis.name);
    }
  }
  for (const auto& [name, label] : cell) {
    if (used.count(name) == 0) labels.push_back(label);
  }
  return absl::StrJoin(labels, " / ");
}

std::string SweepShape(const SweepInfo& sweep) {
  std::vector<std::string> axes;
  for (const SweepAxisInfo& axis : sweep.axes) axes.push_back(absl::StrCat(axis.name, " (", axis.labels.size(), ")"));
  std::string text = absl::StrCat("Matrix ", sweep.matrix_file.empty() ? sweep.matrix_name : sweep.matrix_file, ": ",
                                  sweep.cells.size(), sweep.cells.size() == 1 ? " cell" : " cells");
  if (!axes.empty()) absl::StrAppend(&text, ", ", absl::StrJoin(axes, " × "));
  return text;
}

std::string TrialsText(const PointTrials& trials) {
  if (trials.trials > 0 && trials.skipped == trials.trials) {
    return trials.skip_reason.empty() ? "skip" : absl::StrCat("skip: ", trials.skip_reason);
  }
  if (trials.trials == 1) {
    return trials.failed == 0 ? "pass" : trials.failure_counts.front().first;
  }
  // A point run with `trials:` reads like the seed reports: "10 trials, 10 failed (9 swallowed,
  // 1 crash (SIGSEGV))".
  std::string text = trials.judged_by_verdict
                         ? absl::StrCat(trials.trials, " trials, ", trials.failed, " failed")
                         : absl::StrCat(trials.failed, "/", trials.trials, " failed");
  std::vector<std::string> parts;
  for (const auto& [label, count] : trials.failure_counts) parts.push_back(absl::StrCat(count, " ", label));
  if (trials.skipped > 0) parts.push_back(absl::StrCat(trials.skipped, " skipped"));
  if (!parts.empty()) absl::StrAppend(&text, " (", absl::StrJoin(parts, ", "), ")");
  return text;
}

std::string EntryAnnotation(const PointComparison& entry) {
  switch (entry.change) {
    case BaselineChange::kRegression: return "regression";
    case BaselineChange::kFix: return "fixed";
    case BaselineChange::kChangedSignature: return absl::StrCat("was ", TrialsText(*entry.baseline));
    default: break;
  }
  return entry.expectation_met() ? "" : "unexpected";
}

std::string EntryClass(const PointTrials& trials) {
  if (trials.flaky()) return "flaky";
  return std::string(OutcomeName(trials.worst));
}

std::string HeadlineMetricName(const ScenarioMatrix& matrix) {
  bool time = false;
  for (const MatrixRow& row : matrix.rows) {
    for (const PointComparison* entry : row.entries) {
      if (entry == nullptr) continue;
      if (entry->now->FindMetric("bandwidth_GBps") != nullptr) return "bandwidth_GBps";
      time = time || entry->now->FindMetric("time_median_us") != nullptr;
    }
  }
  return time ? "time_median_us" : "";
}

std::string FormatMetric(const Metric& metric) {
  char number[64];
  double magnitude = metric.value < 0 ? -metric.value : metric.value;
  // Three significant digits, whole numbers from 100 up; tiny values keep their digits.
  const char* format = magnitude >= 100 ? "%.0f" : magnitude >= 10 ? "%.1f" : magnitude >= 1 ? "%.2f" : "%.3g";
  std::snprintf(number, sizeof(number), format, metric.value);
  return metric.unit.empty() ? std::string(number) : absl::StrCat(number, " ", metric.unit);
}

}  // namespace gh
