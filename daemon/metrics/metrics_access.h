// Who may read the metrics endpoint. Metrics name every user's ops, so
// the endpoint is admin-level: the rule for TCP listeners (docs/security.md)
// applies, as it does to gRPC's --listen: loopback serves without more,
// any other address needs a bearer token, or an explicit insecure switch.
#ifndef OPTRACE_DAEMON_METRICS_METRICS_ACCESS_H_
#define OPTRACE_DAEMON_METRICS_METRICS_ACCESS_H_

#include <string>
#include <string_view>

#include "common/status.h"

namespace optrace::daemon {

// metrics_listen split into its parts.
struct MetricsAddress {
  std::string host;  // without brackets
  int port = 0;
  bool loopback = false;
};

// Parses "HOST:PORT" ("127.0.0.1:9464", "[::1]:9464", "0.0.0.0:9464").
// Errors (kInvalidArgument) name the text: no port, a port outside
// 1..65535, an IPv6 host without brackets.
Result<MetricsAddress> ParseMetricsAddress(std::string_view listen);

// The token of `path`'s first line (surrounding blanks trimmed), read
// once. Errors (kInvalidArgument) name the file, never its content: it
// cannot be read, it is readable by others than its owner and group (a
// mode with the "other" read bit), or its first line is empty.
Result<std::string> ReadBearerTokenFile(const std::string& path);

// The start-up rule: a non-loopback address needs a token unless
// `insecure` is set. Errors (kInvalidArgument) name the address.
Status CheckMetricsAccessRule(const MetricsAddress& address, bool has_token, bool insecure);

// Whether `authorization_untrusted` (the request's Authorization header)
// is "Bearer <token>". Compares in time that does not depend on where
// the two differ.
bool BearerTokenMatches(std::string_view authorization_untrusted, std::string_view token);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_METRICS_METRICS_ACCESS_H_
