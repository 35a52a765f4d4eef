#include "harness/core/param.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gh {
namespace {

// Suffix letters in increasing powers of 1024: K = 1024^1 ... E = 1024^6.
constexpr std::string_view kByteSuffixes = "KMGTPE";

std::string FormatDouble(double value) {
  // std::to_chars without a precision gives the shortest text that round-trips.
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (ec != std::errc()) return absl::StrCat(value);
  return std::string(buffer, end);
}

}  // namespace

std::string_view ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kInt: return "int";
    case ParamType::kFloat: return "float";
    case ParamType::kBool: return "bool";
    case ParamType::kString: return "string";
    case ParamType::kEnum: return "enum";
    case ParamType::kBytes: return "bytes";
  }
  return "unknown";
}

std::string FormatBytes(int64_t bytes) {
  if (bytes <= 0) return absl::StrCat(bytes);
  int power = 0;
  int64_t scaled = bytes;
  while (power < static_cast<int>(kByteSuffixes.size()) && scaled % 1024 == 0) {
    scaled /= 1024;
    ++power;
  }
  if (power == 0) return absl::StrCat(bytes);
  return absl::StrCat(scaled, std::string(1, kByteSuffixes[power - 1]));
}

std::string FormatParamValue(ParamType type, const ParamValue& value) {
  // Format by what the variant holds; the type only picks the byte notation.
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<int64_t>(&value)) {
    return type == ParamType::kBytes ? FormatBytes(*i) : absl::StrCat(*i);
  }
  if (const auto* d = std::get_if<double>(&value)) return FormatDouble(*d);
  return std::get<std::string>(value);
}

absl::StatusOr<int64_t> ParseBytes(std::string_view text) {
  auto garbage = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a byte size such as 4K or 1M, got '", std::string(text), "'"));
  };
  if (!text.empty() && text[0] == '-') {
    return absl::InvalidArgumentError(
        absl::StrCat("a byte size cannot be negative, got '", std::string(text), "'"));
  }
  size_t digits = 0;
  while (digits < text.size() && absl::ascii_isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  if (digits == 0) return garbage();
  uint64_t number = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, number);
  auto too_large = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("byte size '", std::string(text), "' is too large (the limit is 2^63-1 bytes)"));
  };
  if (ec == std::errc::result_out_of_range) return too_large();
  if (ec != std::errc() || ptr != text.data() + digits) return garbage();

  std::string suffix = absl::AsciiStrToUpper(std::string(text.substr(digits)));
  int power = 0;
  if (!suffix.empty()) {
    size_t pos = kByteSuffixes.find(suffix[0]);
    if (pos == std::string_view::npos) return garbage();
    std::string_view rest = std::string_view(suffix).substr(1);
    if (!rest.empty() && rest != "IB") return garbage();
    power = static_cast<int>(pos) + 1;
  }
  constexpr uint64_t kLimit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  for (int i = 0; i < power; ++i) {
    if (number > kLimit / 1024) return too_large();
    number *= 1024;
  }
  if (number > kLimit) return too_large();
  return static_cast<int64_t>(number);
}

absl::Status UnknownEnumNameError(std::string_view what, std::string_view name,
                                  const std::vector<std::string>& choices) {
  const std::string expected = absl::StrJoin(choices, ", ");
  return absl::InvalidArgumentError(absl::StrCat("unknown ", std::string(what), " '",
                                                 std::string(name), "' (expected one of ",
                                                 expected, ")"));
}

ParamsBuilder& ParamsBuilder::Add(std::string name, ParamType type, ParamValue default_value,
                                  std::string help) {
  ParamDef def;
  def.name = std::move(name);
  def.type = type;
  def.default_value = std::move(default_value);
  def.help = std::move(help);
  params_.push_back(std::move(def));
  return *this;
}

}  // namespace gh
