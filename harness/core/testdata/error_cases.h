// Test-only: table-driven checks of a loader's error messages. Each case is the text that
// follows a shared document head and the error that text must give (all of it, or a part).
#ifndef GPUHARNESS_CORE_TESTDATA_ERROR_CASES_H_
#define GPUHARNESS_CORE_TESTDATA_ERROR_CASES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh::testing {

// The message of a result that must be a bad-input error (InvalidArgument); a test failure,
// and "", where it is anything else.
template <typename T>
std::string InvalidArgumentMessage(const absl::StatusOr<T>& result) {
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << result.status();
  return result.ok() ? std::string() : std::string(result.status().message());
}

struct ErrorCase {
  std::string tail;     // appended to the head
  std::string message;  // the error, or a substring of it (ExpectErrors)
};

// `error_of(text)` is the error message loading `text` gives ("" when it loads).
template <typename ErrorOf>
void ExpectErrors(ErrorOf error_of, const std::string& head, const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) {
    EXPECT_THAT(error_of(head + c.tail), ::testing::HasSubstr(c.message)) << "for: " << c.tail;
  }
}

// The same where each message is the whole error.
template <typename ErrorOf>
void ExpectExactErrors(ErrorOf error_of, const std::string& head,
                       const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) EXPECT_EQ(error_of(head + c.tail), c.message) << "for: " << c.tail;
}

}  // namespace gh::testing

#endif  // GPUHARNESS_CORE_TESTDATA_ERROR_CASES_H_
