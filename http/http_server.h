// optrace's HTTP server: a small bounded wrapper around cpp-httplib, so
// that nothing else includes the library. The daemon's metrics endpoint
// and the CLI's web view (`optrace ui`) serve through this class; it
// knows nothing of either (the folder depends on common/ only).
#ifndef OPTRACE_HTTP_HTTP_SERVER_H_
#define OPTRACE_HTTP_HTTP_SERVER_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace optrace::http {

// Where and how much an HttpServer serves. The bounds keep stalled or
// numerous clients off the rest of the program: `threads` requests are
// served at once, at most `max_waiting` accepted connections wait for a
// thread (beyond, the accept thread waits and the kernel's backlog
// refuses), every read and write of a connection gives up after
// `io_timeout`, a connection idle before its (next) request is closed
// after `keep_alive_timeout` (whole seconds, at least 1), and a request
// line, header or body over the limits is answered with an error by the
// library without reaching the handler. Connections are served in the
// order they came: stalled clients can delay other requests (by at most
// their number / `threads` times those timeouts), never the threads of the
// rest of the program.
struct HttpServerOptions {
  std::string host;  // an address, e.g. "127.0.0.1" or "::1" (no brackets)
  int port = 0;      // 0 = any free port (see HttpServer::port)
  size_t threads = 2;
  size_t max_waiting = 16;
  std::chrono::milliseconds io_timeout{5000};
  std::chrono::seconds keep_alive_timeout{2};
  size_t max_body_bytes = 4096;  // request line and headers: 8 KiB each (the library's)
};

// What a handler sees of a request: only what it needs, copied. Every
// field is untrusted input from the client.
struct HttpRequest {
  std::string method;  // "GET" or "POST" (the only ones served)
  std::string path;    // without the query string, percent-decoded
  // The query string's parameters, decoded; of a name given twice, the
  // first value.
  std::map<std::string, std::string> query;
  std::string authorization;  // the Authorization header; "" when absent
  std::string cookie;         // the Cookie header as sent; "" when absent
  std::string host;           // the Host header; "" when absent or given twice
  std::string body;           // a POST's body (at most max_body_bytes)
};

// What a handler answers.
struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // A body owned elsewhere, served instead of `body` when set: a buffer
  // the handler reuses for its next answers (megabytes written again into
  // pages already mapped, rather than into a fresh allocation each time).
  // The server holds it until the answer is sent; the handler must not
  // change it while anyone else holds it (use_count() > 1).
  std::shared_ptr<const std::string> shared_body;
  // A body made while it is sent, instead of `body`: served with chunked
  // transfer encoding (server-sent events, ...). The server calls it again
  // and again on the request's thread until it returns false, or until a
  // write fails (the client is gone, or read nothing for io_timeout) or
  // the server stops; each call may write any number of times with
  // `write`, which returns false once the connection is lost. A call
  // should return within a fraction of a second: the server's destructor
  // waits for it. The function (and what it captures) is destroyed once
  // the answer ends, however it ends.
  std::function<bool(const std::function<bool(std::string_view bytes)>& write)> stream;
  // More headers, sent in this order (Set-Cookie, Location,
  // Cache-Control, Content-Security-Policy, WWW-Authenticate...). A name
  // may repeat. Content-Type and Content-Length are the server's.
  std::vector<std::pair<std::string, std::string>> headers;

  // Appends one header; returns *this.
  HttpResponse& AddHeader(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
    return *this;
  }
};

// Answers one request. Called on the server's threads, several at once:
// it must be thread-safe, and should be quick (it holds one of `threads`).
// An exception it throws is answered with 500.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// Serves GET and POST requests of every path with `handler` on its own
// threads (other methods are answered by the library, never the handler)
// until destroyed. Not copyable.
class HttpServer {
 public:
  // Binds host:port and starts serving. Errors: kInvalidArgument for
  // options out of range, kIoError naming the address when it cannot be
  // bound.
  static Result<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                   HttpHandler handler);

  // Stops accepting, lets requests in progress finish (each within
  // io_timeout) and joins the threads.
  ~HttpServer();

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The port bound (the one picked when options.port was 0).
  int port() const { return port_; }

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl, int port);
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace optrace::http

#endif  // OPTRACE_HTTP_HTTP_SERVER_H_
