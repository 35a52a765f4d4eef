#include "harness/core/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace gh {
namespace {

absl::Status Errno(const std::string& path, absl::string_view action, int error) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", action, ": ", std::strerror(error)));
}

// Writing: a bad path is bad input (exit 2); a full or failing disk is infrastructure (exit 3).
absl::Status WriteErrno(const std::string& path, absl::string_view action, int error) {
  switch (error) {
    case EACCES: case EPERM: case ENOENT: case ENOTDIR: case EISDIR: case EROFS:
    case ENAMETOOLONG: case ELOOP: case EEXIST:
      return Errno(path, action, error);
    default:
      return absl::InternalError(absl::StrCat(path, ": ", action, ": ", std::strerror(error)));
  }
}

}  // namespace

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string AbsolutePath(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path.empty() ? "." : path, ec);
  return ec ? path : p.lexically_normal().string();
}

std::string CanonicalPath(const std::string& path) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path.empty() ? "." : path, ec);
  if (ec) return path;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(abs, ec);
  return (ec ? abs : canonical).lexically_normal().string();
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno(path, "cannot read", errno);
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Errno(path, "cannot read", EISDIR);
  }
  std::string contents;
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      int error = errno;
      ::close(fd);
      return Errno(path, "cannot read", error);
    }
    if (n == 0) break;
    contents.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return contents;
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  // The temporary lives in the target's directory so that rename(2) is atomic.
  std::string tmp = absl::StrCat(path, ".tmp.", ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return WriteErrno(tmp, "cannot create", errno);
  if (!WriteAll(fd, contents.data(), contents.size()) || ::fsync(fd) != 0) {
    int error = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return WriteErrno(tmp, "cannot write", error);
  }
  if (::close(fd) != 0) {
    int error = errno;
    ::unlink(tmp.c_str());
    return WriteErrno(tmp, "cannot write", error);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(tmp.c_str());
    return WriteErrno(path, "cannot replace", error);
  }
  // Make the rename itself durable; failing to sync a directory is not worth failing over.
  int dir = ::open(DirectoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return absl::OkStatus();
}

absl::Status MakeDirectories(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("empty directory path");
  std::string prefix;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    prefix = path.substr(0, slash);
    pos = slash + 1;
    if (prefix.empty()) continue;  // leading '/'
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return WriteErrno(prefix, "cannot create directory", errno);
    }
    struct stat st;
    if (::stat(prefix.c_str(), &st) != 0) return WriteErrno(prefix, "cannot create directory", errno);
    if (!S_ISDIR(st.st_mode)) return WriteErrno(prefix, "cannot create directory", ENOTDIR);
  }
  return absl::OkStatus();
}

}  // namespace gh
