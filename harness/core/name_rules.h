// The one validator for names and values the user hands the harness: environment variable names
// and values, and matrix labels (axis names and value labels, whether written in a matrix or
// printed by versions.list.command). Each returns InvalidArgument with what is wrong and a
// printable form of the text; callers add file:line:column and the key (YamlError).
#ifndef GPUHARNESS_CORE_NAME_RULES_H_
#define GPUHARNESS_CORE_NAME_RULES_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"

namespace gh {

// POSIX: [A-Za-z_][A-Za-z0-9_]*. Refuses "", "A=B", "1X", "A-B", "$(x)".
absl::Status CheckEnvName(absl::string_view name);

// Valid UTF-8 without NUL: execve would cut the value at a NUL without a word, and the harness
// records every value in JSON (cell.json, environment.json), which holds only UTF-8.
absl::Status CheckEnvValue(absl::string_view value);

// A label that names a cell: not empty, valid UTF-8, no control or escape bytes (C0, DEL, C1),
// and neither ',' nor '=' (cell ids are "axis=label,axis=label": either would make two cells
// one id). Axis names follow the same rule.
absl::Status CheckLabel(absl::string_view label);

// True when `text` is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool IsValidUtf8(absl::string_view text);

// `text` with every byte outside printable ASCII as \xNN: safe to put in any message.
std::string PrintableText(absl::string_view text);

}  // namespace gh

#endif  // GPUHARNESS_CORE_NAME_RULES_H_
