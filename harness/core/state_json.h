// The one strict reader of the JSON state files the harness reads back (done.json, cell.json,
// job.json, summary.json, bisect_state.json, sweep.json, environment.json, records.jsonl lines):
// every byte of them is untrusted input. Getters check the type and return InvalidArgument
// "FILE: key.sub[3]: expected a string, got number" instead of throwing (nlohmann's get<T>()
// and value() throw on a wrong type, which ended the process in std::terminate).
#ifndef GPUHARNESS_CORE_STATE_JSON_H_
#define GPUHARNESS_CORE_STATE_JSON_H_

#include <cstdint>
#include <map>
#include <string>
#include "absl/strings/string_view.h"
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace gh {

// The whole file parsed: its read error as it comes, InvalidArgument "PATH: not valid JSON
// (...)" when it does not parse. Never throws.
absl::StatusOr<nlohmann::json> ParseStateFile(const std::string& path);
// The same for text already read; `where` names it in the error.
absl::StatusOr<nlohmann::json> ParseStateText(absl::string_view text, const std::string& where);

// A value in a state file and where it lies. It refers to the json it was made from, which
// must outlive it. Getters without "Or" require the key; the "Or" forms return the fallback
// when the key is absent or null, and still refuse a wrong type.
class StateJson {
 public:
  StateJson(const nlohmann::json& value, std::string file, std::string path = "");

  const nlohmann::json& raw() const { return *value_; }
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  // "FILE: PATH" ("FILE" at the root): how errors begin.
  std::string Where() const;
  // InvalidArgument "FILE: PATH: MESSAGE" (or "FILE: PATH.key: MESSAGE").
  absl::Status Error(absl::string_view message) const;
  absl::Status ErrorAt(absl::string_view key, absl::string_view message) const;

  bool IsObject() const { return value_->is_object(); }
  // An object holding `key` with a value other than null.
  bool Has(absl::string_view key) const;

  // This value itself, typed.
  absl::Status ExpectObject() const;
  absl::StatusOr<std::string> AsString() const;
  absl::StatusOr<int64_t> AsInt() const;    // an integral number in int64 range
  absl::StatusOr<double> AsNumber() const;  // any number
  absl::StatusOr<bool> AsBool() const;
  absl::StatusOr<std::vector<StateJson>> Items() const;  // an array's elements
  // An object's members, sorted by key.
  absl::StatusOr<std::vector<std::pair<std::string, StateJson>>> Members() const;

  // A member, typed. This value must be an object.
  absl::StatusOr<StateJson> Field(absl::string_view key) const;
  absl::StatusOr<std::string> String(absl::string_view key) const;
  absl::StatusOr<std::string> StringOr(absl::string_view key, std::string fallback) const;
  absl::StatusOr<int64_t> Int(absl::string_view key) const;
  absl::StatusOr<int64_t> IntOr(absl::string_view key, int64_t fallback) const;
  absl::StatusOr<double> Number(absl::string_view key) const;
  absl::StatusOr<double> NumberOr(absl::string_view key, double fallback) const;
  absl::StatusOr<bool> Bool(absl::string_view key) const;
  absl::StatusOr<bool> BoolOr(absl::string_view key, bool fallback) const;
  absl::StatusOr<std::vector<StateJson>> Array(absl::string_view key) const;
  absl::StatusOr<std::vector<StateJson>> ArrayOrEmpty(absl::string_view key) const;
  // A list of strings / a map of strings to strings; absent is empty.
  absl::StatusOr<std::vector<std::string>> StringListOrEmpty(absl::string_view key) const;
  absl::StatusOr<std::map<std::string, std::string>> StringMapOrEmpty(absl::string_view key) const;

 private:
  // Member `key` read by `as` (AsString, AsInt, ...); the *Or form gives `fallback` when absent.
  template <typename T>
  absl::StatusOr<T> Member(absl::string_view key, absl::StatusOr<T> (StateJson::*as)() const) const;
  template <typename T>
  absl::StatusOr<T> MemberOr(absl::string_view key, T fallback,
                             absl::StatusOr<T> (StateJson::*as)() const) const;
  std::string Child(absl::string_view key) const;
  absl::Status TypeError(absl::string_view expected) const;

  const nlohmann::json* value_;
  std::string file_;
  std::string path_;
};

}  // namespace gh

#endif  // GPUHARNESS_CORE_STATE_JSON_H_
