#include "harness/runtime/rank_outcome_codec.h"

#include "absl/strings/str_cat.h"

namespace gh {

nlohmann::json RankOutcomeToJson(const RankOutcome& outcome) {
  nlohmann::json json = {
      {"rank", outcome.rank},
      {"host", outcome.host},
      {"device", outcome.device},
      {"outcome", std::string(OutcomeName(outcome.outcome))},
      {"signature", outcome.signature},
      {"step", outcome.step},
  };
  if (outcome.mismatch) {
    const Mismatch& m = *outcome.mismatch;
    json["mismatch"] = {{"wrong_elements", m.wrong_elements},
                        {"checked_elements", m.checked_elements},
                        {"first_index", m.first_index},
                        {"expected", m.expected},
                        {"actual", m.actual}};
  }
  nlohmann::json metrics = nlohmann::json::array();
  for (const Metric& metric : outcome.metrics) {
    metrics.push_back({{"name", metric.name}, {"value", metric.value}, {"unit", metric.unit}});
  }
  json["metrics"] = std::move(metrics);
  if (!outcome.output_tail.empty()) json["output_tail"] = outcome.output_tail;
  return json;
}

absl::StatusOr<RankOutcome> RankOutcomeFromJson(const nlohmann::json& json) {
  // nlohmann's typed access throws on a wrong type: this is the module's edge.
  try {
    RankOutcome outcome;
    outcome.rank = json.at("rank").get<int>();
    outcome.host = json.at("host").get<std::string>();
    outcome.device = json.at("device").get<int>();
    absl::StatusOr<Outcome> parsed = ParseOutcome(json.at("outcome").get<std::string>());
    if (!parsed.ok()) return parsed.status();
    outcome.outcome = *parsed;
    outcome.signature = json.at("signature").get<std::string>();
    outcome.step = json.at("step").get<std::string>();
    if (json.contains("output_tail")) outcome.output_tail = json.at("output_tail").get<std::string>();
    if (json.contains("mismatch")) {
      const nlohmann::json& m = json.at("mismatch");
      outcome.mismatch = Mismatch{m.at("wrong_elements").get<int64_t>(),
                                  m.at("checked_elements").get<int64_t>(),
                                  m.at("first_index").get<int64_t>(),
                                  m.at("expected").get<std::string>(),
                                  m.at("actual").get<std::string>()};
    }
    for (const nlohmann::json& metric : json.at("metrics")) {
      outcome.metrics.push_back(Metric{metric.at("name").get<std::string>(),
                                       metric.at("value").get<double>(),
                                       metric.at("unit").get<std::string>()});
    }
    return outcome;
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("rank outcome: ", e.what()));
  }
}

std::string EncodeRankOutcome(const RankOutcome& outcome) {
  return RankOutcomeToJson(outcome).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

absl::StatusOr<RankOutcome> DecodeRankOutcome(std::string_view bytes) {
  nlohmann::json json = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank outcome: not JSON (", bytes.size(), " bytes)"));
  }
  return RankOutcomeFromJson(json);
}

}  // namespace gh
