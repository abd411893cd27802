#include "answer_dropping_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

namespace optrace::testing {
namespace {

int ConnectLoopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t sent = ::send(fd, data, size, MSG_NOSIGNAL);
    if (sent <= 0) return false;
    data += sent;
    size -= static_cast<size_t>(sent);
  }
  return true;
}

}  // namespace

struct AnswerDroppingProxy::Connection {
  int client = -1;
  int upstream = -1;
  // Whether the last request that started on this connection is an INSERT
  // (ClickHouse's HTTP interface: "POST /?query=INSERT%20INTO...").
  std::atomic<bool> insert_in_flight{false};

  // Both directions end: each relay thread sees its recv return.
  void Shut() {
    ::shutdown(client, SHUT_RDWR);
    ::shutdown(upstream, SHUT_RDWR);
  }
  ~Connection() {
    ::close(client);
    ::close(upstream);
  }
};

AnswerDroppingProxy::AnswerDroppingProxy(int upstream_port) : upstream_port_(upstream_port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(fd, 16) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    if (fd >= 0) ::close(fd);
    return;
  }
  listen_fd_ = fd;
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { Accept(); });
}

AnswerDroppingProxy::~AnswerDroppingProxy() {
  stopping_.store(true);
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);  // accept returns
  if (acceptor_.joinable()) acceptor_.join();
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::unique_ptr<Connection>& connection : connections_) connection->Shut();
  for (std::thread& thread : threads_) thread.join();
  connections_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void AnswerDroppingProxy::Accept() {
  while (!stopping_.load()) {
    const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (stopping_.load()) return;
      continue;
    }
    auto connection = std::make_unique<Connection>();
    connection->client = client;
    connection->upstream = ConnectLoopback(upstream_port_);
    std::lock_guard<std::mutex> lock(mu_);
    if (connection->upstream < 0 || stopping_.load()) {
      connection->Shut();
      connections_.push_back(std::move(connection));
      continue;
    }
    Connection* raw = connection.get();
    connections_.push_back(std::move(connection));
    threads_.emplace_back([this, raw] { RelayRequests(raw); });
    threads_.emplace_back([this, raw] { RelayAnswers(raw); });
  }
}

void AnswerDroppingProxy::RelayRequests(Connection* connection) {
  char buffer[64 << 10];
  while (true) {
    const ssize_t got = ::recv(connection->client, buffer, sizeof buffer, 0);
    if (got <= 0) break;
    const std::string_view chunk(buffer, static_cast<size_t>(got));
    // libcurl writes a request's line and headers in one send.
    if (chunk.starts_with("POST ")) {
      const std::string_view line = chunk.substr(0, chunk.find('\r'));
      connection->insert_in_flight.store(line.find("query=INSERT") != std::string_view::npos);
    }
    if (!SendAll(connection->upstream, buffer, static_cast<size_t>(got))) break;
  }
  connection->Shut();
}

void AnswerDroppingProxy::RelayAnswers(Connection* connection) {
  char buffer[64 << 10];
  while (true) {
    const ssize_t got = ::recv(connection->upstream, buffer, sizeof buffer, 0);
    if (got <= 0) break;
    if (connection->insert_in_flight.load()) {
      int left = to_drop_.load();
      while (left > 0 && !to_drop_.compare_exchange_weak(left, left - 1)) {
      }
      if (left > 0) {  // ClickHouse has answered: the INSERT is applied
        ++dropped_;
        break;
      }
    }
    if (!SendAll(connection->client, buffer, static_cast<size_t>(got))) break;
  }
  connection->Shut();
}

}  // namespace optrace::testing
