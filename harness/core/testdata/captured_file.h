// Test-only: a temporary FILE* that code under test writes to (a console, a progress stream),
// and what was written to it so far.
#ifndef GPUHARNESS_CORE_TESTDATA_CAPTURED_FILE_H_
#define GPUHARNESS_CORE_TESTDATA_CAPTURED_FILE_H_

#include <cstdio>
#include <string>

namespace gh::testing {

class CapturedFile {
 public:
  CapturedFile() : file_(std::tmpfile()) {}
  ~CapturedFile() { std::fclose(file_); }
  CapturedFile(const CapturedFile&) = delete;
  CapturedFile& operator=(const CapturedFile&) = delete;

  std::FILE* file() { return file_; }
  // Everything written so far (writing may go on after).
  std::string Text() {
    std::fflush(file_);
    std::rewind(file_);
    std::string text;
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file_)) > 0;) text.append(buffer, n);
    std::fseek(file_, 0, SEEK_END);
    return text;
  }

 private:
  std::FILE* file_;
};

}  // namespace gh::testing

#endif  // GPUHARNESS_CORE_TESTDATA_CAPTURED_FILE_H_
