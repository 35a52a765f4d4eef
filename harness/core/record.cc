#include "harness/core/record.h"

#include <cmath>
#include <limits>
#include <variant>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "harness/core/status_macros.h"

namespace gh {
namespace {

using nlohmann::json;

// JSON has no NaN or infinity: non-finite metric values are written as null and read back as NaN.
json Number(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

// Point-level metrics keep their samples; a rank's copy of them leaves them out (rank 0's
// would repeat the point's).
json MetricsToJson(const std::vector<Metric>& metrics, bool with_samples) {
  json out = json::array();
  for (const Metric& m : metrics) {
    json metric = {{"name", m.name}, {"value", Number(m.value)}, {"unit", m.unit}};
    if (with_samples && !m.samples.empty()) {
      json samples = json::array();
      for (double v : m.samples) samples.push_back(Number(v));
      metric["samples"] = std::move(samples);
    }
    out.push_back(std::move(metric));
  }
  return out;
}

json RankToJson(const RankOutcome& r) {
  json out = {{"rank", r.rank},
              {"host", r.host},
              {"device", r.device},
              {"outcome", std::string(OutcomeName(r.outcome))},
              {"signature", r.signature},
              {"step", r.step}};
  if (r.mismatch.has_value()) {
    const Mismatch& m = *r.mismatch;
    out["mismatch"] = {{"wrong_elements", m.wrong_elements},
                       {"checked_elements", m.checked_elements},
                       {"first_index", m.first_index},
                       {"expected", m.expected},
                       {"actual", m.actual}};
  }
  out["metrics"] = MetricsToJson(r.metrics, /*with_samples=*/false);
  if (!r.output_tail.empty()) out["output_tail"] = r.output_tail;
  if (!r.stack.empty()) out["stack"] = r.stack;
  if (!r.stack_note.empty()) out["stack_note"] = r.stack_note;
  return out;
}

json HangToJson(const HangReport& hang) {
  json out = json::object();
  if (!hang.summary.empty()) out["summary"] = hang.summary;
  if (!hang.divergence.empty()) out["divergence"] = hang.divergence;
  if (!hang.nccl_ras.empty()) out["nccl_ras"] = hang.nccl_ras;
  if (!hang.nccl_inspector.empty()) out["nccl_inspector"] = hang.nccl_inspector;
  return out;
}

// Typed field access with errors naming the field's path ("ranks[1].outcome").
class Fields {
 public:
  Fields(const json& object, std::string path) : object_(object), path_(std::move(path)) {}

  absl::Status Check() const {
    if (!object_.is_object()) return Error("", "expected an object");
    return absl::OkStatus();
  }
  const json* Find(absl::string_view key) const {
    auto it = object_.find(std::string(key));
    if (it == object_.end() || it->is_null()) return nullptr;
    return &*it;
  }
  absl::Status Error(absl::string_view key, absl::string_view message) const {
    std::string where = path_;
    if (!key.empty()) where = where.empty() ? std::string(key) : absl::StrCat(where, ".", key);
    if (where.empty()) where = "record";
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", message));
  }
  std::string Path(absl::string_view key) const {
    return path_.empty() ? std::string(key) : absl::StrCat(path_, ".", key);
  }

  absl::Status String(absl::string_view key, std::string* out, bool required = false) const {
    const json* v = Find(key);
    if (v == nullptr) return required ? Error(key, "missing") : absl::OkStatus();
    if (!v->is_string()) return Error(key, "expected a string");
    *out = v->get<std::string>();
    return absl::OkStatus();
  }
  template <typename Int>
  absl::Status Integer(absl::string_view key, Int* out, bool required = false) const {
    const json* v = Find(key);
    if (v == nullptr) return required ? Error(key, "missing") : absl::OkStatus();
    if (!v->is_number_integer()) return Error(key, "expected an integer");
    int64_t value = v->get<int64_t>();
    if (value < std::numeric_limits<Int>::min() || value > std::numeric_limits<Int>::max()) {
      return Error(key, "integer out of range");
    }
    *out = static_cast<Int>(value);
    return absl::OkStatus();
  }
  absl::Status Double(absl::string_view key, double* out) const {
    auto it = object_.find(std::string(key));
    if (it == object_.end()) return absl::OkStatus();
    if (it->is_null()) {
      *out = std::numeric_limits<double>::quiet_NaN();
      return absl::OkStatus();
    }
    if (!it->is_number()) return Error(key, "expected a number");
    *out = it->get<double>();
    return absl::OkStatus();
  }
  absl::Status Strings(absl::string_view key, std::vector<std::string>* out) const {
    const json* v = Find(key);
    if (v == nullptr) return absl::OkStatus();
    if (!v->is_array()) return Error(key, "expected an array of strings");
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) {
        return Error(absl::StrCat(key, "[", i, "]"), "expected a string");
      }
      out->push_back((*v)[i].get<std::string>());
    }
    return absl::OkStatus();
  }
  absl::Status Bool(absl::string_view key, bool* out) const {
    const json* v = Find(key);
    if (v == nullptr) return absl::OkStatus();
    if (!v->is_boolean()) return Error(key, "expected true or false");
    *out = v->get<bool>();
    return absl::OkStatus();
  }
  absl::Status OutcomeField(absl::string_view key, Outcome* out, bool required) const {
    std::string name;
    if (absl::Status s = String(key, &name, required); !s.ok()) return s;
    if (name.empty() && !required) return absl::OkStatus();
    absl::StatusOr<Outcome> outcome = ParseOutcome(name);
    if (!outcome.ok()) return Error(key, outcome.status().message());
    *out = *outcome;
    return absl::OkStatus();
  }

 private:
  const json& object_;
  std::string path_;
};

absl::Status MetricsFromJson(const json* array, const std::string& path,
                             std::vector<Metric>* out) {
  if (array == nullptr) return absl::OkStatus();
  if (!array->is_array()) return absl::InvalidArgumentError(path + ": expected an array");
  for (size_t i = 0; i < array->size(); ++i) {
    Fields f((*array)[i], absl::StrCat(path, "[", i, "]"));
    GH_RETURN_IF_ERROR(f.Check());
    Metric m;
    GH_RETURN_IF_ERROR(f.String("name", &m.name, /*required=*/true));
    GH_RETURN_IF_ERROR(f.Double("value", &m.value));
    GH_RETURN_IF_ERROR(f.String("unit", &m.unit));
    if (const json* samples = f.Find("samples")) {
      if (!samples->is_array()) return f.Error("samples", "expected an array of numbers");
      for (size_t s = 0; s < samples->size(); ++s) {
        const json& v = (*samples)[s];
        if (v.is_null()) {
          m.samples.push_back(std::numeric_limits<double>::quiet_NaN());
        } else if (v.is_number()) {
          m.samples.push_back(v.get<double>());
        } else {
          return f.Error(absl::StrCat("samples[", s, "]"), "expected a number");
        }
      }
    }
    out->push_back(std::move(m));
  }
  return absl::OkStatus();
}

absl::Status RankFromJson(const json& object, const std::string& path, RankOutcome* r) {
  Fields f(object, path);
  GH_RETURN_IF_ERROR(f.Check());
  GH_RETURN_IF_ERROR(f.Integer("rank", &r->rank, /*required=*/true));
  GH_RETURN_IF_ERROR(f.String("host", &r->host));
  GH_RETURN_IF_ERROR(f.Integer("device", &r->device));
  GH_RETURN_IF_ERROR(f.OutcomeField("outcome", &r->outcome, /*required=*/true));
  GH_RETURN_IF_ERROR(f.String("signature", &r->signature));
  GH_RETURN_IF_ERROR(f.String("step", &r->step));
  GH_RETURN_IF_ERROR(f.String("output_tail", &r->output_tail));
  GH_RETURN_IF_ERROR(f.Strings("stack", &r->stack));
  GH_RETURN_IF_ERROR(f.String("stack_note", &r->stack_note));
  if (const json* m = f.Find("mismatch")) {
    Fields mf(*m, f.Path("mismatch"));
    GH_RETURN_IF_ERROR(mf.Check());
    Mismatch mismatch;
    GH_RETURN_IF_ERROR(mf.Integer("wrong_elements", &mismatch.wrong_elements));
    GH_RETURN_IF_ERROR(mf.Integer("checked_elements", &mismatch.checked_elements));
    GH_RETURN_IF_ERROR(mf.Integer("first_index", &mismatch.first_index));
    GH_RETURN_IF_ERROR(mf.String("expected", &mismatch.expected));
    GH_RETURN_IF_ERROR(mf.String("actual", &mismatch.actual));
    r->mismatch = std::move(mismatch);
  }
  return MetricsFromJson(f.Find("metrics"), f.Path("metrics"), &r->metrics);
}

bool HasSamples(const std::vector<Metric>& metrics) {
  for (const Metric& m : metrics) {
    if (!m.samples.empty()) return true;
  }
  return false;
}

// A fact of the job, "" when the facts do not say.
std::string FactOf(const EnvironmentFacts& facts, const std::string& name) {
  auto it = facts.values.find(name);
  return it == facts.values.end() ? std::string() : it->second;
}

}  // namespace

Record MakeRecord(const ScenarioSpec& spec, const std::string& file, const Point& point,
                  int trial, const EnvironmentFacts& facts) {
  Record record;
  record.scenario = spec.name;
  record.kind = spec.kind;
  record.description = spec.description;
  record.file = file;
  record.point = point.name;
  record.params = PointParamsJson(point);
  record.backend = FactOf(facts, "backend");
  if (!absl::SimpleAtoi(FactOf(facts, "nranks"), &record.nranks)) record.nranks = point.nranks;
  record.gpu_shared = FactOf(facts, "gpu_shared") == "true";
  record.hardware = FactOf(facts, "hardware");
  record.warmup = spec.warmup;
  record.iterations = spec.iterations;
  record.trial = trial;
  record.trials = spec.trials;
  record.verdict = spec.verdict;
  record.expected = ExpectationFor(spec.expect, point, facts);
  record.metric_bounds = MetricBoundsFor(spec.expect_metrics, point, facts);
  SetResult(record, PointOutcome{});
  return record;
}

void SetResult(Record& record, PointOutcome result) {
  record.result = std::move(result);
  const bool met = MeetsExpectation(record.expected, record.result.outcome, record.result.signature);
  record.known_failure = !met && IsKnownFailure(record.expected, record.result.outcome, record.result.signature);
  record.matched = met || record.known_failure;
}

json PointParamsJson(const Point& point) {
  json params = json::object();
  for (const PointParam& param : point.params) {
    std::visit([&](const auto& value) { params[param.name] = value; }, param.value);
  }
  return params;
}

json RecordToJson(const Record& record) {
  json expected = {{"outcome", std::string(OutcomeName(record.expected.outcome))}};
  if (record.expected.signature_regex.has_value()) {
    expected["signature"] = *record.expected.signature_regex;
  }
  expected["reason"] = record.expected.reason;
  if (!record.metric_bounds.empty()) expected["metrics"] = MetricBoundsToJson(record.metric_bounds);
  if (record.expected.known.has_value()) {
    const KnownIssue& known = *record.expected.known;
    json issue = {{"reference", known.reference}, {"versions", known.versions}};
    if (known.signature_regex.has_value()) issue["signature"] = *known.signature_regex;
    expected["known"] = std::move(issue);
  }

  json ranks = json::array();
  for (const RankOutcome& r : record.result.ranks) ranks.push_back(RankToJson(r));

  json cell = json::object();
  for (const auto& [axis, label] : record.cell) cell[axis] = label;

  json out{
      {"schema_version", record.schema_version},
      {"scenario", record.scenario},
      {"kind", record.kind},
      {"file", record.file},
      {"point", record.point},
      {"params", record.params.is_null() ? json::object() : record.params},
      {"backend", record.backend},
      {"nranks", record.nranks},
      {"trial", record.trial},
      {"trials", record.trials},
      {"outcome", std::string(OutcomeName(record.result.outcome))},
      {"signature", record.result.signature},
      {"expected", expected},
      {"matched", record.matched},
      {"gpu_shared", record.gpu_shared},
      {"started_at", record.started_at},
      {"duration_s", Number(record.duration_s)},
      {"metrics", MetricsToJson(record.result.metrics, /*with_samples=*/true)},
      {"ranks", ranks},
      {"cell", cell},
  };
  if (!record.description.empty()) out["description"] = record.description;
  if (!record.hardware.empty()) out["hardware"] = record.hardware;
  if (HasSamples(record.result.metrics)) {
    out["timing"] = {{"warmup", record.warmup}, {"iterations", record.iterations}};
  }
  if (record.not_run) out["not_run"] = true;
  if (record.known_failure) out["known_failure"] = true;
  if (record.process.has_value()) out["process"] = *record.process;
  if (!record.result.hang.empty()) out["hang"] = HangToJson(record.result.hang);
  if (!record.nccl_inspector.empty()) out["nccl_inspector"] = InspectorViewToJson(record.nccl_inspector);
  if (record.trials > 1) {
    out["verdict"] = record.verdict.kind == TrialVerdictRule::Kind::kAnyFailure
                         ? json("any_failure")
                         : json{{"failure_rate_above", record.verdict.threshold}};
  }
  return out;
}

namespace {

// The record's `expected` (its outcome, signature regex, reason and metric bounds).
absl::Status ExpectedFromJson(const json& e, Record& record) {
  Fields ef(e, "expected");
  GH_RETURN_IF_ERROR(ef.Check());
  GH_RETURN_IF_ERROR(ef.OutcomeField("outcome", &record.expected.outcome, /*required=*/true));
  std::string regex;
  if (ef.Find("signature") != nullptr) {
    GH_RETURN_IF_ERROR(ef.String("signature", &regex));
    record.expected.signature_regex = regex;
  }
  GH_RETURN_IF_ERROR(ef.String("reason", &record.expected.reason));
  if (const json* bounds = ef.Find("metrics")) {
    GH_ASSIGN_OR_RETURN(record.metric_bounds, MetricBoundsFromJson(*bounds, "expected.metrics"));
  }
  if (const json* known = ef.Find("known")) {
    Fields kf(*known, "expected.known");
    GH_RETURN_IF_ERROR(kf.Check());
    KnownIssue issue;
    GH_RETURN_IF_ERROR(kf.String("reference", &issue.reference, /*required=*/true));
    const json* versions = kf.Find("versions");
    if (versions == nullptr || !versions->is_object() || versions->empty()) {
      return kf.Error("versions", "expected an object of libraries to version ranges");
    }
    for (const auto& [library, range] : versions->items()) {
      if (!range.is_string()) return kf.Error(absl::StrCat("versions.", library), "expected a string");
      issue.versions[library] = range.get<std::string>();
    }
    if (kf.Find("signature") != nullptr) {
      std::string regex;
      GH_RETURN_IF_ERROR(kf.String("signature", &regex));
      issue.signature_regex = regex;
    }
    record.expected.known = std::move(issue);
  }
  return absl::OkStatus();
}

// The record's `hang` (a timeout's summary lines, divergence, NCCL's views).
absl::Status HangFromJson(const json& hang, Record& record) {
  Fields hf(hang, "hang");
  GH_RETURN_IF_ERROR(hf.Check());
  GH_RETURN_IF_ERROR(hf.Strings("summary", &record.result.hang.summary));
  GH_RETURN_IF_ERROR(hf.String("divergence", &record.result.hang.divergence));
  GH_RETURN_IF_ERROR(hf.String("nccl_ras", &record.result.hang.nccl_ras));
  return hf.String("nccl_inspector", &record.result.hang.nccl_inspector);
}

}  // namespace

absl::StatusOr<Record> RecordFromJson(const json& object) {
  Fields f(object, "");
  GH_RETURN_IF_ERROR(f.Check());
  Record record;
  GH_RETURN_IF_ERROR(f.Integer("schema_version", &record.schema_version, /*required=*/true));
  if (record.schema_version > kRecordSchemaVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        "schema_version ", record.schema_version, " is newer than this gpuharness reads (",
        kRecordSchemaVersion, "): use a newer gpuharness"));
  }
  if (record.schema_version < 1) {
    return f.Error("schema_version", absl::StrCat("invalid version ", record.schema_version));
  }
  GH_RETURN_IF_ERROR(f.String("scenario", &record.scenario, /*required=*/true));
  GH_RETURN_IF_ERROR(f.String("kind", &record.kind));
  GH_RETURN_IF_ERROR(f.String("description", &record.description));
  GH_RETURN_IF_ERROR(f.String("file", &record.file));
  GH_RETURN_IF_ERROR(f.String("point", &record.point, /*required=*/true));
  if (const json* params = f.Find("params")) {
    if (!params->is_object()) return f.Error("params", "expected an object");
    record.params = *params;
  } else {
    record.params = json::object();
  }
  GH_RETURN_IF_ERROR(f.String("backend", &record.backend));
  GH_RETURN_IF_ERROR(f.Integer("nranks", &record.nranks));
  GH_RETURN_IF_ERROR(f.Integer("trial", &record.trial));
  GH_RETURN_IF_ERROR(f.Integer("trials", &record.trials));
  if (f.Find("process") != nullptr) {
    int process = 0;
    GH_RETURN_IF_ERROR(f.Integer("process", &process));
    if (process < 0) return f.Error("process", absl::StrCat("expected 0 or more, got ", process));
    record.process = process;
  }
  if (const json* verdict = f.Find("verdict")) {
    if (verdict->is_string() && verdict->get<std::string>() == "any_failure") {
      record.verdict = TrialVerdictRule{};
    } else if (verdict->is_object() && verdict->size() == 1 &&
               verdict->contains("failure_rate_above") &&
               (*verdict)["failure_rate_above"].is_number()) {
      record.verdict = TrialVerdictRule{TrialVerdictRule::Kind::kFailureRateAbove,
                                        (*verdict)["failure_rate_above"].get<double>()};
    } else {
      return f.Error("verdict", "expected \"any_failure\" or {\"failure_rate_above\": RATE}");
    }
  }
  GH_RETURN_IF_ERROR(f.OutcomeField("outcome", &record.result.outcome, /*required=*/true));
  GH_RETURN_IF_ERROR(f.String("signature", &record.result.signature));
  if (const json* e = f.Find("expected")) GH_RETURN_IF_ERROR(ExpectedFromJson(*e, record));
  GH_RETURN_IF_ERROR(f.Bool("matched", &record.matched));
  GH_RETURN_IF_ERROR(f.Bool("gpu_shared", &record.gpu_shared));
  GH_RETURN_IF_ERROR(f.Bool("not_run", &record.not_run));
  GH_RETURN_IF_ERROR(f.Bool("known_failure", &record.known_failure));
  GH_RETURN_IF_ERROR(f.String("hardware", &record.hardware));
  if (const json* timing = f.Find("timing")) {
    Fields tf(*timing, "timing");
    GH_RETURN_IF_ERROR(tf.Check());
    GH_RETURN_IF_ERROR(tf.Integer("warmup", &record.warmup));
    GH_RETURN_IF_ERROR(tf.Integer("iterations", &record.iterations));
  }
  GH_RETURN_IF_ERROR(f.String("started_at", &record.started_at));
  GH_RETURN_IF_ERROR(f.Double("duration_s", &record.duration_s));
  GH_RETURN_IF_ERROR(MetricsFromJson(f.Find("metrics"), "metrics", &record.result.metrics));
  if (const json* ranks = f.Find("ranks")) {
    if (!ranks->is_array()) return f.Error("ranks", "expected an array");
    for (size_t i = 0; i < ranks->size(); ++i) {
      RankOutcome r;
      GH_RETURN_IF_ERROR(RankFromJson((*ranks)[i], absl::StrCat("ranks[", i, "]"), &r));
      record.result.ranks.push_back(std::move(r));
    }
  }
  if (const json* hang = f.Find("hang")) GH_RETURN_IF_ERROR(HangFromJson(*hang, record));
  if (const json* inspector = f.Find("nccl_inspector")) {
    GH_ASSIGN_OR_RETURN(record.nccl_inspector, InspectorViewFromJson(*inspector, "nccl_inspector"));
  }
  if (const json* cell = f.Find("cell")) {
    if (!cell->is_object()) return f.Error("cell", "expected an object");
    for (const auto& [axis, label] : cell->items()) {
      if (!label.is_string()) return f.Error(absl::StrCat("cell.", axis), "expected a string");
      record.cell[axis] = label.get<std::string>();
    }
  }
  return record;
}

}  // namespace gh
