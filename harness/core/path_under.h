// The one way a name the user chose (a parameter value, a label, a version) becomes a place on
// disk: under a directory the harness owns, never outside it.
#ifndef GPUHARNESS_CORE_PATH_UNDER_H_
#define GPUHARNESS_CORE_PATH_UNDER_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"

namespace gh {

// `dir`/part1/part2/... when every part is a relative path that stays inside `dir`:
// InvalidArgument naming the part when one is empty, absolute, holds NUL or a ".." component,
// or when the joined path's lexical normal form leaves `dir`. Parts may hold '/' (sub-folders).
// Nothing is created; the result is lexically normal (no "." or "//").
absl::StatusOr<std::string> PathUnder(const std::string& dir, const std::vector<std::string>& parts);

// One directory-name component for any text (a cell id, a version label, a parameter value):
// [A-Za-z0-9._=,+-] kept, anything else (and a leading '.') replaced by '_'; when anything was
// replaced or the text is over 150 bytes, it is cut to 141 and "-" and 8 hex digits of a hash of
// the whole text are appended, so distinct texts give distinct names. Never empty, never "." or
// "..", no '/', at most 150 bytes, and the identity on its own results.
// "proto=ll,np=4" -> "proto=ll,np=4"; "../x" -> "_._x-" and 8 hex digits.
std::string SafeDirName(absl::string_view text);

}  // namespace gh

#endif  // GPUHARNESS_CORE_PATH_UNDER_H_
