#include "harness/core/state_json.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"
#include "harness/core/name_rules.h"
#include "harness/core/status_macros.h"

namespace gh {

absl::StatusOr<nlohmann::json> ParseStateText(absl::string_view text, const std::string& where) {
  // Without exceptions: a parse error is a discarded value, never a throw.
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(where, ": not valid JSON"));
  return j;
}

absl::StatusOr<nlohmann::json> ParseStateFile(const std::string& path) {
  GH_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseStateText(text, path);
}

StateJson::StateJson(const nlohmann::json& value, std::string file, std::string path)
    : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

std::string StateJson::Where() const { return path_.empty() ? file_ : absl::StrCat(file_, ": ", path_); }

absl::Status StateJson::Error(absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(Where(), ": ", message));
}

absl::Status StateJson::ErrorAt(absl::string_view key, absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(file_, ": ", Child(key), ": ", message));
}

std::string StateJson::Child(absl::string_view key) const {
  const std::string printable = PrintableText(key);
  return path_.empty() ? printable : absl::StrCat(path_, ".", printable);
}

absl::Status StateJson::TypeError(absl::string_view expected) const {
  return Error(absl::StrCat("expected ", expected, ", got ", value_->type_name()));
}

bool StateJson::Has(absl::string_view key) const {
  if (!value_->is_object()) return false;
  auto it = value_->find(std::string(key));
  return it != value_->end() && !it->is_null();
}

absl::Status StateJson::ExpectObject() const {
  return value_->is_object() ? absl::OkStatus() : TypeError("an object");
}

absl::StatusOr<std::string> StateJson::AsString() const {
  if (!value_->is_string()) return TypeError("a string");
  return value_->get_ref<const std::string&>();
}

absl::StatusOr<int64_t> StateJson::AsInt() const {
  if (value_->is_number_integer()) {
    if (value_->is_number_unsigned() && value_->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return Error("integer out of range");
    }
    return value_->get<int64_t>();
  }
  if (value_->is_number_float()) {
    const double d = value_->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18) return static_cast<int64_t>(d);
  }
  return TypeError("an integer");
}

absl::StatusOr<double> StateJson::AsNumber() const {
  if (!value_->is_number()) return TypeError("a number");
  return value_->get<double>();
}

absl::StatusOr<bool> StateJson::AsBool() const {
  if (!value_->is_boolean()) return TypeError("true or false");
  return value_->get<bool>();
}

absl::StatusOr<std::vector<StateJson>> StateJson::Items() const {
  if (!value_->is_array()) return TypeError("a list");
  std::vector<StateJson> items;
  items.reserve(value_->size());
  for (size_t i = 0; i < value_->size(); ++i) {
    items.emplace_back((*value_)[i], file_, absl::StrCat(path_, "[", i, "]"));
  }
  return items;
}

absl::StatusOr<std::vector<std::pair<std::string, StateJson>>> StateJson::Members() const {
  GH_RETURN_IF_ERROR(ExpectObject());
  std::vector<std::pair<std::string, StateJson>> members;
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    members.emplace_back(it.key(), StateJson(it.value(), file_, Child(it.key())));
  }
  return members;
}

absl::StatusOr<StateJson> StateJson::Field(absl::string_view key) const {
  GH_RETURN_IF_ERROR(ExpectObject());
  auto it = value_->find(std::string(key));
  if (it == value_->end() || it->is_null()) return ErrorAt(key, "missing");
  return StateJson(*it, file_, Child(key));
}

template <typename T>
absl::StatusOr<T> StateJson::Member(absl::string_view key,
                                    absl::StatusOr<T> (StateJson::*as)() const) const {
  GH_ASSIGN_OR_RETURN(StateJson field, Field(key));
  return (field.*as)();
}

template <typename T>
absl::StatusOr<T> StateJson::MemberOr(absl::string_view key, T fallback,
                                      absl::StatusOr<T> (StateJson::*as)() const) const {
  GH_RETURN_IF_ERROR(ExpectObject());
  if (!Has(key)) return fallback;
  return Member(key, as);
}

absl::StatusOr<std::string> StateJson::String(absl::string_view key) const {
  return Member(key, &StateJson::AsString);
}
absl::StatusOr<std::string> StateJson::StringOr(absl::string_view key, std::string fallback) const {
  return MemberOr(key, std::move(fallback), &StateJson::AsString);
}
absl::StatusOr<int64_t> StateJson::Int(absl::string_view key) const {
  return Member(key, &StateJson::AsInt);
}
absl::StatusOr<int64_t> StateJson::IntOr(absl::string_view key, int64_t fallback) const {
  return MemberOr(key, fallback, &StateJson::AsInt);
}
absl::StatusOr<double> StateJson::Number(absl::string_view key) const {
  return Member(key, &StateJson::AsNumber);
}
absl::StatusOr<double> StateJson::NumberOr(absl::string_view key, double fallback) const {
  return MemberOr(key, fallback, &StateJson::AsNumber);
}
absl::StatusOr<bool> StateJson::Bool(absl::string_view key) const {
  return Member(key, &StateJson::AsBool);
}
absl::StatusOr<bool> StateJson::BoolOr(absl::string_view key, bool fallback) const {
  return MemberOr(key, fallback, &StateJson::AsBool);
}

absl::StatusOr<std::vector<StateJson>> StateJson::Array(absl::string_view key) const {
  return Member(key, &StateJson::Items);
}
absl::StatusOr<std::vector<StateJson>> StateJson::ArrayOrEmpty(absl::string_view key) const {
  return MemberOr(key, std::vector<StateJson>{}, &StateJson::Items);
}

absl::StatusOr<std::vector<std::string>> StateJson::StringListOrEmpty(absl::string_view key) const {
  GH_ASSIGN_OR_RETURN(std::vector<StateJson> items, ArrayOrEmpty(key));
  std::vector<std::string> out;
  for (const StateJson& item : items) {
    GH_ASSIGN_OR_RETURN(std::string s, item.AsString());
    out.push_back(std::move(s));
  }
  return out;
}

absl::StatusOr<std::map<std::string, std::string>> StateJson::StringMapOrEmpty(absl::string_view key) const {
  GH_RETURN_IF_ERROR(ExpectObject());
  std::map<std::string, std::string> out;
  if (!Has(key)) return out;
  GH_ASSIGN_OR_RETURN(StateJson field, Field(key));
  GH_ASSIGN_OR_RETURN(auto members, field.Members());
  for (const auto& [name, value] : members) {
    GH_ASSIGN_OR_RETURN(std::string s, value.AsString());
    out[name] = std::move(s);
  }
  return out;
}

}  // namespace gh
