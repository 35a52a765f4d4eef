#include "harness/runtime/nccl_ras.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

// A TCP socket bound to a free loopback port, which `port` returns.
int BindLoopback(int& port) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(s, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(s, reinterpret_cast<sockaddr*>(&address), &length);
  port = ntohs(address.sin_port);
  return s;
}

// A one-connection stand-in for NCCL's RAS service, speaking its client protocol.
class FakeRas {
 public:
  explicit FakeRas(std::string greeting, std::string report, bool answer_status = true)
      : greeting_(std::move(greeting)), report_(std::move(report)), answer_status_(answer_status) {
    listener_ = BindLoopback(port_);
    listen(listener_, 1);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeRas() {
    if (thread_.joinable()) thread_.join();
    close(listener_);
  }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }
  // What the client sent, once the connection is over.
  const std::string& Heard() {
    thread_.join();
    return heard_;
  }

 private:
  std::string ReadLine(int fd) {
    std::string line;
    char c;
    while (read(fd, &c, 1) == 1) {
      line.push_back(c);
      if (c == '\n') break;
    }
    heard_ += line;
    return line;
  }
  void Serve() {
    const int fd = accept(listener_, nullptr, nullptr);
    if (fd < 0) return;
    ReadLine(fd);  // CLIENT PROTOCOL 2
    (void)!write(fd, greeting_.data(), greeting_.size());
    if (absl::StartsWith(greeting_, "SERVER PROTOCOL")) {
      ReadLine(fd);  // TIMEOUT 2
      (void)!write(fd, "OK\n", 3);
      ReadLine(fd);  // STATUS
      if (answer_status_) {
        (void)!write(fd, report_.data(), report_.size());
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      }
    }
    close(fd);
  }
  std::string greeting_, report_;
  bool answer_status_;
  int listener_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::string heard_;
};

TEST(NcclRas, SpeaksTheClientProtocolAndReturnsTheReport) {
  FakeRas ras("SERVER PROTOCOL 2\n", "Job summary\n  Communicators: 1 (1 missing rank)\n");
  EXPECT_EQ(QueryNcclRas(ras.address(), absl::Seconds(3)),
            "Job summary\n  Communicators: 1 (1 missing rank)\n");
}

TEST(NcclRas, WhatItSentIsTheNcclrasHandshake) {
  FakeRas ras("SERVER PROTOCOL 2\n", "ok\n");
  EXPECT_EQ(QueryNcclRas(ras.address(), absl::Seconds(3)), "ok\n");
  EXPECT_EQ(ras.Heard(), "CLIENT PROTOCOL 2\nTIMEOUT 2\nSTATUS\n");
}

TEST(NcclRas, NotARasServiceIsSaidPlainly) {
  FakeRas ras("HTTP/1.1 400 Bad Request\n", "");
  EXPECT_EQ(QueryNcclRas(ras.address(), absl::Seconds(3)),
            absl::StrCat("not available: ", ras.address(),
                         " is not an NCCL RAS service (it said 'HTTP/1.1 400 Bad Request')"));
}

TEST(NcclRas, ASilentServiceIsCutAtTheBound) {
  FakeRas ras("SERVER PROTOCOL 2\n", "", /*answer_status=*/false);
  const auto start = std::chrono::steady_clock::now();
  const std::string view = QueryNcclRas(ras.address(), absl::Milliseconds(500));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1400));
  EXPECT_EQ(view, absl::StrCat("not available: the RAS service at ", ras.address(),
                               " did not answer within 500ms"));
}

TEST(NcclRas, RefusedAndMalformedAddresses) {
  // A port nobody listens on: bind one, then let it go.
  int port = 0;
  close(BindLoopback(port));
  const std::string where = absl::StrCat("127.0.0.1:", port);
  EXPECT_EQ(QueryNcclRas(where, absl::Seconds(1)),
            absl::StrCat("not available: cannot connect to ", where,
                         ": Connection refused (is RAS enabled: NCCL 2.24+, NCCL_RAS_ENABLE?)"));
  EXPECT_EQ(QueryNcclRas("localhost", absl::Seconds(1)),
            "not available: NCCL_RAS_ADDR 'localhost' is not host:port");
}

TEST(NcclRas, ViewSaysWhyThereIsNone) {
  EXPECT_EQ(NcclRasView(false, "", absl::Seconds(1)), "not available: host backend (no NCCL)");
  EXPECT_EQ(NcclRasView(true, "2.21.5", absl::Seconds(1)),
            "not available: NCCL 2.21.5 has no RAS (2.24 and later do)");
  EXPECT_EQ(NcclRasView(true, "", absl::Seconds(1)),
            "not available: the loaded NCCL's version is unknown ('')");
}

}  // namespace
}  // namespace gh
