#include "ui/event_stream_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace optrace::cli::testing {

EventStreamClient::EventStreamClient(int port, const std::string& target, const std::string& host,
                                     const std::string& extra_headers, int receive_buffer) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  if (receive_buffer > 0) {
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const std::string request = "GET " + target + " HTTP/1.1\r\nHost: " + host +
                              "\r\nAccept: text/event-stream\r\n" + extra_headers + "\r\n";
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
          static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return;
  }
  fd_ = fd;
}

EventStreamClient::~EventStreamClient() {
  if (fd_ >= 0) ::close(fd_);
}

bool EventStreamClient::ReadUntil(const std::string& needle, std::chrono::milliseconds timeout,
                                  size_t times) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + timeout;
  const auto found = [&] {
    size_t count = 0;
    for (size_t at = text_.find(needle); at != std::string::npos && count < times;
         at = text_.find(needle, at + needle.size())) {
      ++count;
    }
    return count >= times;
  };
  while (!found()) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (fd_ < 0 || left.count() <= 0) return false;
    pollfd readable{fd_, POLLIN, 0};
    if (::poll(&readable, 1, static_cast<int>(left.count())) <= 0) continue;
    char buffer[16384];
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n <= 0) return false;
    text_.append(buffer, static_cast<size_t>(n));
  }
  return true;
}

}  // namespace optrace::cli::testing
