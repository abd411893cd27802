#include "http/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "http_exchange.h"

namespace optrace::http {
namespace {

using optrace::testing::Exchange;
using optrace::testing::HttpGet;
using optrace::testing::ParseHttpReply;

std::unique_ptr<HttpServer> EchoServer(HttpServerOptions options = {}) {
  options.host = "127.0.0.1";
  auto server = HttpServer::Start(options, [](const HttpRequest& request) {
    HttpResponse response;
    response.body = request.method + " " + request.path + " [" + request.authorization + "]";
    for (const auto& [name, value] : request.query) response.body += " " + name + "=" + value;
    response.body +=
        " cookie=[" + request.cookie + "] host=[" + request.host + "] body=[" + request.body + "]";
    if (request.path == "/throw") throw std::runtime_error("handler failed");
    if (request.path == "/headers") {
      response.AddHeader("Set-Cookie", "a=1; HttpOnly")
          .AddHeader("Set-Cookie", "b=2")
          .AddHeader("Cache-Control", "no-store")
          .AddHeader("X-Split", "ok\r\nInjected: yes");
    }
    return response;
  });
  EXPECT_TRUE(server.ok()) << server.status().message();
  return server.ok() ? std::move(server).value() : nullptr;
}

TEST(HttpServerTest, Get_HandlerSeesPathAndAuthorization) {
  auto server = EchoServer();
  ASSERT_NE(server, nullptr);
  const std::string reply = Exchange(server->port(),
                                     "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nAuthorization: "
                                     "Bearer t\r\nConnection: close\r\n\r\n");
  EXPECT_NE(reply.find("200 OK"), std::string::npos) << reply;
  EXPECT_NE(reply.find("GET /metrics [Bearer t]"), std::string::npos) << reply;
}

TEST(HttpServerTest, Get_HandlerSeesQueryCookieAndHost) {
  auto server = EchoServer();
  ASSERT_NE(server, nullptr);
  const auto reply =
      HttpGet(server->port(), "/p?b=2&a=%2Fx&a=second", "127.0.0.1:99", "Cookie: k=v; other=w\r\n");
  EXPECT_EQ(reply.status, 200) << reply.raw;
  EXPECT_EQ(reply.body, "GET /p [] a=/x b=2 cookie=[k=v; other=w] host=[127.0.0.1:99] body=[]");
}

TEST(HttpServerTest, Malicious_TwoHostHeaders_HandlerSeesNone) {
  auto server = EchoServer();
  ASSERT_NE(server, nullptr);
  const auto reply = HttpGet(server->port(), "/", "evil.example", "Host: 127.0.0.1\r\n");
  EXPECT_NE(reply.body.find("host=[]"), std::string::npos) << reply.raw;
}

TEST(HttpServerTest, Post_HandlerSeesBody) {
  auto server = EchoServer();
  ASSERT_NE(server, nullptr);
  const auto reply =
      ParseHttpReply(Exchange(server->port(),
                              "POST /set HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Type: "
                              "text/plain\r\nConnection: close\r\n\r\nhello"));
  EXPECT_EQ(reply.status, 200) << reply.raw;
  EXPECT_NE(reply.body.find("POST /set"), std::string::npos) << reply.raw;
  EXPECT_NE(reply.body.find("body=[hello]"), std::string::npos) << reply.raw;
}

TEST(HttpServerTest, ResponseHeaders_SentInOrder_NoHeaderSplitting) {
  auto server = EchoServer();
  ASSERT_NE(server, nullptr);
  const auto reply = HttpGet(server->port(), "/headers", "a");
  EXPECT_EQ(reply.status, 200) << reply.raw;
  EXPECT_EQ(reply.headers.at("set-cookie"), "a=1; HttpOnly\nb=2");
  EXPECT_EQ(reply.headers.at("cache-control"), "no-store");
  EXPECT_EQ(reply.headers.count("x-split"), 0u) << "a value with CR LF is dropped";
  EXPECT_EQ(reply.headers.count("injected"), 0u) << reply.raw;
}

TEST(HttpServerTest, Malicious_OtherMethods_NeverReachTheHandler) {
  auto server = EchoServer();
  ASSERT_NE(server, nullptr);
  for (const char* method : {"PUT", "DELETE", "OPTIONS", "PATCH"}) {
    const auto reply = ParseHttpReply(
        Exchange(server->port(),
                 std::string(method) + " / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"));
    EXPECT_NE(reply.status, 200) << method << ": " << reply.raw;
    EXPECT_EQ(reply.body.find(method), std::string::npos) << method;
  }
}

// A body the handler keeps and writes again for its next answers: each
// answer is sent whole, with its own content type and length, and the
// server lets go of the buffer once sent (the handler may then reuse it).
TEST(HttpServerTest, SharedBody_SentWholeAndReleased) {
  auto buffer = std::make_shared<std::string>();
  std::atomic<long> held_while_answering{0};
  HttpServerOptions options;
  options.host = "127.0.0.1";
  auto server = HttpServer::Start(options, [&](const HttpRequest& request) {
    held_while_answering = buffer.use_count();
    *buffer = std::string(3 << 20, request.path == "/a" ? 'a' : 'b') + "end";
    HttpResponse response;
    response.content_type = "text/plain; version=0.0.4";
    response.shared_body = buffer;
    return response;
  });
  ASSERT_TRUE(server.ok()) << server.status().message();
  for (const char* path : {"/a", "/b"}) {
    const auto reply = HttpGet(server.value()->port(), path, "a");
    EXPECT_EQ(reply.status, 200);
    ASSERT_EQ(reply.body.size(), (3u << 20) + 3) << path;
    EXPECT_EQ(reply.body[0], path[1]);
    EXPECT_EQ(reply.body.substr(reply.body.size() - 3), "end");
    EXPECT_NE(reply.raw.find("Content-Type: text/plain; version=0.0.4"), std::string::npos);
    EXPECT_EQ(held_while_answering.load(), 1) << "the last answer still held the buffer";
  }
}

// A body made while it is sent (server-sent events): chunked, each write
// reaching the client, until the stream function says it is done.
TEST(HttpServerTest, StreamBody_ChunkedUntilTheStreamEnds) {
  HttpServerOptions options;
  options.host = "127.0.0.1";
  auto server = HttpServer::Start(options, [](const HttpRequest&) {
    HttpResponse response;
    response.content_type = "text/event-stream";
    auto calls = std::make_shared<int>(0);
    response.stream = [calls](const std::function<bool(std::string_view)>& write) {
      if (++*calls > 3) return false;
      return write("part" + std::to_string(*calls) + ";");
    };
    return response;
  });
  ASSERT_TRUE(server.ok()) << server.status().message();
  const auto reply = HttpGet(server.value()->port(), "/s", "a");
  EXPECT_EQ(reply.status, 200) << reply.raw;
  EXPECT_EQ(reply.headers.count("transfer-encoding") ? reply.headers.at("transfer-encoding") : "",
            "chunked");
  EXPECT_EQ(reply.headers.count("content-type") ? reply.headers.at("content-type") : "",
            "text/event-stream");
  EXPECT_NE(reply.body.find("part1;"), std::string::npos) << reply.raw;
  EXPECT_NE(reply.body.find("part3;"), std::string::npos) << reply.raw;
  EXPECT_EQ(reply.body.find("part4;"), std::string::npos) << reply.raw;
  EXPECT_NE(reply.raw.find("\r\n0\r\n\r\n"), std::string::npos) << "the last chunk" << reply.raw;
}

// A client that goes away ends a stream that would never end, and the
// stream function (with what it holds) is released; so does stopping the
// server with a stream open.
TEST(HttpServerTest, StreamBody_ClientGoneOrServerStopped_StreamReleased) {
  auto held = std::make_shared<int>(0);
  std::weak_ptr<int> watch = held;
  std::atomic<int> writes{0};
  HttpServerOptions options;
  options.host = "127.0.0.1";
  auto server = HttpServer::Start(options, [&](const HttpRequest&) {
    HttpResponse response;
    response.stream = [held, &writes](const std::function<bool(std::string_view)>& write) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      ++writes;
      return write("tick\n");
    };
    return response;
  });
  ASSERT_TRUE(server.ok()) << server.status().message();
  const auto open_stream = [&] {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(server.value()->port()));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    const std::string request = "GET /s HTTP/1.1\r\nHost: a\r\n\r\n";
    EXPECT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(request.size()));
    char buffer[256];
    EXPECT_GT(::recv(fd, buffer, sizeof buffer, 0), 0) << "the stream began";
    return fd;
  };
  const auto streams_of = [&] { return watch.use_count() - 1; };  // less `held` itself
  const int gone = open_stream();
  EXPECT_EQ(streams_of(), 1);
  ::close(gone);
  for (int i = 0; i < 500 && streams_of() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(streams_of(), 0) << "the stream outlived its client";
  const int open = open_stream();
  EXPECT_EQ(streams_of(), 1);
  server.value().reset();  // returns: the stream ends with the server
  EXPECT_EQ(streams_of(), 0) << "the stream outlived the server";
  EXPECT_GT(writes.load(), 0);
  ::close(open);
}

TEST(HttpServerTest, Malicious_HandlerThrows_500) {
  auto server = EchoServer();
  ASSERT_NE(server, nullptr);
  const std::string reply =
      Exchange(server->port(), "GET /throw HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  EXPECT_NE(reply.find(" 500 "), std::string::npos) << reply;
}

TEST(HttpServerTest, Malicious_HugeHeaderAndGarbage_ErrorsNotCrash) {
  HttpServerOptions options;
  options.io_timeout = std::chrono::milliseconds(500);
  options.keep_alive_timeout = std::chrono::seconds(1);
  auto server = EchoServer(options);
  ASSERT_NE(server, nullptr);
  const std::string huge = "GET / HTTP/1.1\r\nHost: a\r\nX: " + std::string(100'000, 'x') +
                           "\r\nConnection: close\r\n\r\n";
  EXPECT_EQ(Exchange(server->port(), huge).find("200 OK"), std::string::npos);
  EXPECT_EQ(Exchange(server->port(), "\x01\x02garbage\r\n\r\n").find("200 OK"), std::string::npos);
  const std::string post =
      "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000\r\n"
      "Connection: close\r\n\r\n" +
      std::string(10'000, 'b');
  EXPECT_EQ(Exchange(server->port(), post).find("200 OK"), std::string::npos);
  // Still serving.
  EXPECT_NE(Exchange(server->port(), "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                .find("200 OK"),
            std::string::npos);
}

// Stalled clients (connected, sending nothing) hold a thread for the
// keep-alive timeout each: a real request behind 6 of them on 2 threads is
// served after about 3 s.
TEST(HttpServerTest, StalledClients_TimedOut_ServingGoesOn) {
  HttpServerOptions options;
  options.threads = 2;
  options.max_waiting = 4;
  options.io_timeout = std::chrono::milliseconds(300);
  options.keep_alive_timeout = std::chrono::seconds(1);
  auto server = EchoServer(options);
  ASSERT_NE(server, nullptr);
  std::vector<int> stalled;
  for (int i = 0; i < 6; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(server->port()));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    stalled.push_back(fd);
  }
  const auto start = std::chrono::steady_clock::now();
  const std::string reply =
      Exchange(server->port(), "GET /ok HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  EXPECT_NE(reply.find("200 OK"), std::string::npos) << reply;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
  for (const int fd : stalled) ::close(fd);
}

TEST(HttpServerTest, ManyConcurrentClients_AllServed) {
  auto server = EchoServer();
  ASSERT_NE(server, nullptr);
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 16; ++i) {
    clients.emplace_back([&] {
      for (int j = 0; j < 10; ++j) {
        if (Exchange(server->port(), "GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                .find("200 OK") != std::string::npos) {
          ++ok;
        }
      }
    });
  }
  for (std::thread& client : clients) client.join();
  EXPECT_EQ(ok.load(), 160);
}

TEST(HttpServerTest, PortTaken_ErrorNamesAddress) {
  auto first = EchoServer();
  ASSERT_NE(first, nullptr);
  HttpServerOptions options;
  options.host = "127.0.0.1";
  options.port = first->port();
  auto second = HttpServer::Start(options, [](const HttpRequest&) { return HttpResponse{}; });
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find(std::to_string(first->port())), std::string::npos);
}

}  // namespace
}  // namespace optrace::http
