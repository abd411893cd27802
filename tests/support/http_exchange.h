// A plain HTTP/1.1 client for tests: the bytes of one request, written to
// a real loopback socket, and all that comes back until the server
// closes, split into status, headers and body. No library between the
// test and the wire, so a test sees exactly what a browser would.
#ifndef OPTRACE_TESTS_SUPPORT_HTTP_EXCHANGE_H_
#define OPTRACE_TESTS_SUPPORT_HTTP_EXCHANGE_H_

#include <map>
#include <optional>
#include <string>

namespace optrace::testing {

// Sends `request` as it is to 127.0.0.1:`port` and returns everything the
// server sent until it closed, or "connect failed".
std::string Exchange(int port, const std::string& request);

// One response as parsed from the wire.
struct HttpReply {
  int status = 0;  // 0: no status line came back
  // Header names lower-cased; of a repeated header, the values joined
  // with "\n".
  std::map<std::string, std::string> headers;
  std::string body;  // chunked bodies are not decoded
  std::string raw;   // all that came back
};

// GET `target` ("/path?query") with the Host `host` and `extra_headers`
// (each line "Name: value\r\n"), "Connection: close".
HttpReply HttpGet(int port, const std::string& target, const std::string& host,
                  const std::string& extra_headers = "");

// Parses what Exchange returned.
HttpReply ParseHttpReply(const std::string& raw);

// The body of a reply sent with chunked transfer encoding, its chunks
// joined; nullopt when `body` is not well-formed chunks ending with the
// last (empty) chunk.
std::optional<std::string> DecodeChunkedBody(const std::string& body);

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_SUPPORT_HTTP_EXCHANGE_H_
