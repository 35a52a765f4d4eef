#include "harness/core/records_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"

namespace gh {
namespace {

// Where the last line of the file starts: just after its last '\n' (0 when there is none).
// Scans backwards in chunks so that a large file is not read whole.
off_t LastLineStart(int fd, off_t size) {
  char buffer[1 << 16];
  off_t end = size;
  while (end > 0) {
    off_t begin = end > static_cast<off_t>(sizeof(buffer)) ? end - sizeof(buffer) : 0;
    ssize_t n = ::pread(fd, buffer, static_cast<size_t>(end - begin), begin);
    if (n <= 0) return -1;
    for (ssize_t i = n; i-- > 0;) {
      if (buffer[i] == '\n') return begin + i + 1;
    }
    end = begin;
  }
  return 0;
}

// A killed writer can leave a last line without its '\n'. Appending after it would glue the
// next record onto it and turn a skippable torn last line into a bad line mid-file. A tail
// that is a whole JSON object only lacks its newline, which is added; anything else is the
// torn rest of a record and is cut off. `fd` reads, `write_fd` is the writer's.
absl::Status RepairTornTailOf(int fd, int write_fd, const std::string& path) {
  auto failed = [&](const char* what) {
    return absl::InternalError(absl::StrCat(path, ": ", what, ": ", std::strerror(errno)));
  };
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return absl::OkStatus();
  char last = 0;
  if (::pread(fd, &last, 1, st.st_size - 1) != 1) return failed("cannot read");
  if (last == '\n') return absl::OkStatus();
  off_t start = LastLineStart(fd, st.st_size);
  if (start < 0) return failed("cannot read");
  std::string tail(static_cast<size_t>(st.st_size - start), '\0');
  if (::pread(fd, tail.data(), tail.size(), start) != static_cast<ssize_t>(tail.size())) {
    return failed("cannot read");
  }
  if (!nlohmann::json::parse(tail, nullptr, /*allow_exceptions=*/false).is_discarded()) {
    return WriteAll(write_fd, "\n", 1) ? absl::OkStatus() : failed("cannot write");
  }
  if (::ftruncate(write_fd, start) != 0) return failed("cannot cut off a torn last line");
  return absl::OkStatus();
}

absl::Status RepairTornTail(int write_fd, const std::string& path) {
  struct stat st;
  if (::fstat(write_fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
    return absl::OkStatus();  // nothing to repair (or a pipe, which cannot be read back)
  }
  // The writer's descriptor is write-only; read the tail through a second one.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat(path, ": cannot read: ", std::strerror(errno)));
  }
  absl::Status status = RepairTornTailOf(fd, write_fd, path);
  ::close(fd);
  return status;
}

}  // namespace

std::string RecordJsonLine(const Record& record) {
  std::string line =
      RecordToJson(record).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
  return line;
}

std::string RecordsToJsonl(const std::vector<Record>& records) {
  std::string out;
  for (const Record& record : records) out += RecordJsonLine(record);
  return out;
}

absl::Status WriteRecordsFile(const std::string& path, const std::vector<Record>& records) {
  return WriteFileAtomically(path, RecordsToJsonl(records));
}

absl::StatusOr<RecordsWriter> RecordsWriter::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    int error = errno;
    std::string message = absl::StrCat(path, ": cannot open for appending: ", std::strerror(error));
    if (error == ENOSPC || error == EIO || error == EMFILE || error == ENFILE) {
      return absl::InternalError(message);
    }
    return absl::InvalidArgumentError(message);
  }
  RecordsWriter writer(fd);
  if (absl::Status repaired = RepairTornTail(fd, path); !repaired.ok()) return repaired;
  return writer;
}

RecordsWriter::RecordsWriter(RecordsWriter&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

RecordsWriter& RecordsWriter::operator=(RecordsWriter&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

RecordsWriter::~RecordsWriter() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status RecordsWriter::Append(const Record& record) {
  if (fd_ < 0) return absl::FailedPreconditionError("records file is not open");
  const std::string line = RecordJsonLine(record);
  if (!WriteAll(fd_, line.data(), line.size())) {
    return absl::InternalError(
        absl::StrCat("cannot append to the records file: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

bool RecordsWriter::AppendRawSignalSafe(const char* line, size_t length) const {
  if (fd_ < 0) return false;
  return WriteAll(fd_, line, length);
}

absl::StatusOr<RecordsFileContents> ReadRecordsFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  RecordsFileContents contents;
  size_t begin = 0;
  int line_number = 0;
  while (begin < text->size()) {
    size_t end = text->find('\n', begin);
    bool last = end == std::string::npos || end + 1 == text->size();
    if (end == std::string::npos) end = text->size();
    std::string_view line(text->data() + begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;

    nlohmann::json json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
      if (last) {  // a writer killed mid-line; everything before it is whole
        ++contents.torn_lines;
        continue;
      }
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", line_number, ": not a JSON object (a damaged records file?)"));
    }
    absl::StatusOr<Record> record = RecordFromJson(json);
    if (!record.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", line_number, ": ", record.status().message()));
    }
    contents.records.push_back(*std::move(record));
  }
  return contents;
}

}  // namespace gh
