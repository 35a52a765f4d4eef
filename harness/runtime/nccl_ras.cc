#include "harness/runtime/nccl_ras.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gh {
namespace {

constexpr char kUnavailable[] = "not available: ";
// The protocol NCCL's ncclras client speaks (src/ras/ras_internal.h).
constexpr int kClientProtocol = 2;
// How long RAS may wait for other processes' answers (ncclras -t); below our own bound.
constexpr int kRasLegTimeoutSeconds = 2;

using Clock = std::chrono::steady_clock;

// Waits for `events` on `fd` until `deadline`; false on a timeout or an error.
bool WaitFd(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, events, 0};
    const int rc = poll(&p, 1, static_cast<int>(left.count()));
    if (rc < 0 && errno == EINTR) continue;
    return rc > 0;
  }
}

class Connection {
 public:
  Connection(int fd, Clock::time_point deadline) : fd_(fd), deadline_(deadline) {}
  ~Connection() {
    if (fd_ >= 0) close(fd_);
  }
  bool Wait(short events) { return WaitFd(fd_, events, deadline_); }
  bool Send(const std::string& text) {
    size_t done = 0;
    while (done < text.size()) {
      if (!Wait(POLLOUT)) return false;
      const ssize_t n = send(fd_, text.data() + done, text.size() - done, MSG_NOSIGNAL);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }
  // Reads until `until_newline` sees '\n', EOF, the cap or the deadline. False on a timeout
  // or an error before anything useful arrived.
  bool Read(std::string* out, bool until_newline, bool* eof) {
    *eof = false;
    char buffer[4096];
    while (out->size() < kMaxNcclRasBytes) {
      if (until_newline && absl::StrContains(*out, '\n')) return true;
      if (!Wait(POLLIN)) return false;
      const ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n < 0) return false;
      if (n == 0) {
        *eof = true;
        return true;
      }
      out->append(buffer, static_cast<size_t>(n));
    }
    return true;
  }

 private:
  int fd_;
  Clock::time_point deadline_;
};

// A connected non-blocking socket, or -1 with `why` set.
int Connect(const std::string& host, const std::string& port, Clock::time_point deadline,
            std::string* why) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    *why = absl::StrCat("cannot resolve ", host, ":", port, ": ", gai_strerror(rc));
    return -1;
  }
  *why = absl::StrCat("no address for ", host, ":", port);
  int fd = -1;
  for (addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int err = 0;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        if (!WaitFd(fd, POLLOUT, deadline)) {
          err = ETIMEDOUT;
        } else {
          socklen_t len = sizeof(err);
          getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        }
      }
    }
    if (err != 0) {
      *why = absl::StrCat("cannot connect to ", host, ":", port, ": ", std::strerror(err));
      if (fd >= 0) close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

}  // namespace

std::string NcclRasAddress() {
  const char* address = std::getenv("NCCL_RAS_ADDR");
  return address != nullptr && *address != '\0' ? std::string(address) : kNcclRasDefaultAddress;
}

std::string QueryNcclRas(const std::string& address, absl::Duration bound) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) {
    return absl::StrCat(kUnavailable, "NCCL_RAS_ADDR '", address, "' is not host:port");
  }
  const std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  const auto deadline = Clock::now() + absl::ToChronoNanoseconds(bound);
  std::string why;
  const int fd = Connect(host, port, deadline, &why);
  if (fd < 0) return absl::StrCat(kUnavailable, why, " (is RAS enabled: NCCL 2.24+, NCCL_RAS_ENABLE?)");
  Connection connection(fd, deadline);
  const std::string timed_out =
      absl::StrCat(kUnavailable, "the RAS service at ", address, " did not answer within ",
                   absl::FormatDuration(bound));
  std::string reply;
  bool eof = false;
  if (!connection.Send(absl::StrCat("CLIENT PROTOCOL ", kClientProtocol, "\n")) ||
      !connection.Read(&reply, /*until_newline=*/true, &eof)) {
    return timed_out;
  }
  if (!absl::StartsWithIgnoreCase(reply, "SERVER PROTOCOL ")) {
    return absl::StrCat(kUnavailable, address, " is not an NCCL RAS service (it said '",
                        absl::StripAsciiWhitespace(reply.substr(0, 80)), "')");
  }
  reply.clear();
  if (!connection.Send(absl::StrCat("TIMEOUT ", kRasLegTimeoutSeconds, "\n")) ||
      !connection.Read(&reply, /*until_newline=*/true, &eof)) {
    return timed_out;
  }
  std::string report;
  if (!connection.Send("STATUS\n") || !connection.Read(&report, /*until_newline=*/false, &eof)) {
    return report.empty() ? timed_out
                          : absl::StrCat(report, "\n[cut: the RAS service did not finish within ",
                                         absl::FormatDuration(bound), "]");
  }
  if (!eof) absl::StrAppend(&report, "\n[cut at ", kMaxNcclRasBytes, " bytes]");
  if (report.empty()) return absl::StrCat(kUnavailable, "the RAS service sent an empty report");
  return report;
}

std::string NcclRasView(bool nccl_backend, const std::string& nccl_version, absl::Duration bound) {
  if (!nccl_backend) return absl::StrCat(kUnavailable, "host backend (no NCCL)");
  std::vector<std::string> parts = absl::StrSplit(nccl_version, '.');
  int major = 0, minor = 0;
  if (parts.size() < 2 || !absl::SimpleAtoi(parts[0], &major) || !absl::SimpleAtoi(parts[1], &minor)) {
    return absl::StrCat(kUnavailable, "the loaded NCCL's version is unknown ('", nccl_version, "')");
  }
  if (major < 2 || (major == 2 && minor < 24)) {
    return absl::StrCat(kUnavailable, "NCCL ", nccl_version, " has no RAS (2.24 and later do)");
  }
  if (const char* enable = std::getenv("NCCL_RAS_ENABLE"); enable != nullptr && std::string(enable) == "0") {
    return absl::StrCat(kUnavailable, "NCCL_RAS_ENABLE=0 turned it off");
  }
  return QueryNcclRas(NcclRasAddress(), bound);
}

}  // namespace gh
