// A client of ClickHouse's HTTP interface (libcurl): statements, queries
// with a RowBinary answer, and RowBinary INSERTs, optionally gzip-compressed.
#ifndef OPTRACE_DAEMON_FORWARD_CLICKHOUSE_CLIENT_H_
#define OPTRACE_DAEMON_FORWARD_CLICKHOUSE_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace optrace::daemon {

// Where and how to reach one ClickHouse server.
struct ClickHouseEndpoint {
  std::string url;       // http(s)://HOST:PORT[/], user:password@ allowed
  std::string user;      // HTTP basic authentication; "" = ClickHouse's default user
  std::string password;  // never logged nor shown
  bool gzip = false;     // compress request bodies (INSERT data)
  int connect_timeout_ms = 3000;
  int timeout_ms = 60000;                 // a whole request
  size_t max_response_bytes = 256 << 20;  // a longer answer is an error
};

// `url` without "user:password@", for logs, status and messages.
std::string RedactedUrl(std::string_view url);

// Reads a credentials file: "user:password" on its first line (a line
// without ':' is a user without password). Errors name the file, never its
// content: kNotFound / kIoError when it cannot be read, kInvalidArgument
// when its first line is empty.
Status ReadCredentialsFile(const std::string& path, std::string* user, std::string* password);

// Why a request failed, for a caller deciding whether to send it again.
enum class ClickHouseFailure {
  kNone,
  kNotSent,  // no connection was made: the server never saw the request
  kRefused,  // the server answered with an error: it did not apply it
  kUnknown,  // the request may have reached and been applied (timeout, reset)
};

// One connection's worth of state (a libcurl easy handle, which keeps the
// connection alive between requests).
// Thread rules: one thread at a time; make one client per thread.
// Errors: kUnavailable for transport failures and error answers, with the
// redacted URL, the HTTP status and the first line of ClickHouse's message
// ("ClickHouse at http://ch1:8123: HTTP 404: Code: 60, ... Table optrace.x
// doesn't exist"); failure() then says whether it may have been applied.
class ClickHouseClient {
 public:
  // `cancel`, when not null, is polled during transfers: once true, the
  // request in flight is abandoned (kUnknown). It must outlive the client.
  static Result<std::unique_ptr<ClickHouseClient>> Create(
      ClickHouseEndpoint endpoint, const std::atomic<bool>* cancel = nullptr);
  ~ClickHouseClient();
  ClickHouseClient(const ClickHouseClient&) = delete;
  ClickHouseClient& operator=(const ClickHouseClient&) = delete;

  // ClickHouse settings sent with a request, as URL parameters.
  using Settings = std::vector<std::pair<std::string, std::string>>;

  // Runs one statement (DDL, SELECT ...) sent as the request body and
  // returns the body of the answer (its format is the statement's FORMAT).
  Result<std::string> Query(std::string_view sql, const Settings& settings = {});

  // Sends `data` (rows in the format that `insert_statement` names, e.g.
  // "INSERT INTO db.t (a, b) FORMAT RowBinary") as the body; gzip-compressed
  // when the endpoint says so.
  Status Insert(std::string_view insert_statement, std::string_view data,
                const Settings& settings = {});

  // How the last request failed (kNone after a success).
  ClickHouseFailure failure() const { return failure_; }

  const std::string& redacted_url() const { return redacted_url_; }

 private:
  ClickHouseClient(ClickHouseEndpoint endpoint, const std::atomic<bool>* cancel, void* curl);
  // POSTs `body` to the URL with `query` (if not empty) and `settings` as
  // parameters; the answer's body goes to `*response`.
  Status Post(std::string_view query, const Settings& settings, std::string_view body,
              bool compressed, std::string* response);

  const ClickHouseEndpoint endpoint_;
  const std::atomic<bool>* cancel_;
  void* curl_;  // CURL*, owned
  std::string redacted_url_;
  ClickHouseFailure failure_ = ClickHouseFailure::kNone;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_FORWARD_CLICKHOUSE_CLIENT_H_
