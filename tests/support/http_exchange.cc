#include "http_exchange.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace optrace::testing {

std::string Exchange(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return "connect failed";
  }
  size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string reply;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::recv(fd, buffer, sizeof buffer, 0)) > 0)
    reply.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  return reply;
}

HttpReply ParseHttpReply(const std::string& raw) {
  HttpReply reply;
  reply.raw = raw;
  const size_t head_end = raw.find("\r\n\r\n");
  if (raw.rfind("HTTP/1.", 0) != 0 || head_end == std::string::npos) return reply;
  reply.status = std::atoi(raw.c_str() + raw.find(' ') + 1);
  reply.body = raw.substr(head_end + 4);
  size_t line = raw.find("\r\n") + 2;
  while (line < head_end) {
    const size_t end = raw.find("\r\n", line);
    const std::string header = raw.substr(line, end - line);
    line = end + 2;
    const size_t colon = header.find(':');
    if (colon == std::string::npos) continue;
    std::string name = header.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const size_t value_start = header.find_first_not_of(' ', colon + 1);
    const std::string value =
        value_start == std::string::npos ? std::string() : header.substr(value_start);
    std::string& joined = reply.headers[name];
    joined += joined.empty() ? value : "\n" + value;
  }
  return reply;
}

HttpReply HttpGet(int port, const std::string& target, const std::string& host,
                  const std::string& extra_headers) {
  return ParseHttpReply(Exchange(port, "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n" +
                                           extra_headers + "Connection: close\r\n\r\n"));
}

std::optional<std::string> DecodeChunkedBody(const std::string& body) {
  std::string decoded;
  size_t at = 0;
  while (true) {
    const size_t line_end = body.find("\r\n", at);
    if (line_end == std::string::npos) return std::nullopt;
    size_t size = 0;
    const auto [end, error] = std::from_chars(body.data() + at, body.data() + line_end, size, 16);
    if (error != std::errc() || end == body.data() + at) return std::nullopt;
    at = line_end + 2;
    if (size == 0) return decoded;
    if (body.size() < at + size + 2 || body.compare(at + size, 2, "\r\n") != 0) {
      return std::nullopt;
    }
    decoded.append(body, at, size);
    at += size + 2;
  }
}

}  // namespace optrace::testing
