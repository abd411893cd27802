// Who may read the metrics endpoint. Metrics name every user's ops, so
// the endpoint is admin-level: the rule of every TCP listener
// (docs/security.md) applies, as it does to gRPC's --listen: it serves
// only callers it identifies (here, by a bearer token), unless an
// explicit insecure switch says otherwise, which `optrace status` reports.
#ifndef OPTRACE_DAEMON_METRICS_METRICS_ACCESS_H_
#define OPTRACE_DAEMON_METRICS_METRICS_ACCESS_H_

#include <string>
#include <string_view>

#include "common/status.h"
#include "optrace/v1/optrace.pb.h"

namespace optrace::daemon {

// metrics_listen split into its parts.
struct MetricsAddress {
  std::string host;  // without brackets
  int port = 0;
};

// Parses "HOST:PORT" ("127.0.0.1:9464", "[::1]:9464", "0.0.0.0:9464").
// Errors (kInvalidArgument) name the text: no port, a port outside
// 1..65535, an IPv6 host without brackets.
Result<MetricsAddress> ParseMetricsAddress(std::string_view listen);

// The start-up rule: the endpoint needs a token (Prometheus presents it;
// common/bearer_token.h reads and compares it) unless `insecure` is set,
// whatever the address: on loopback too, every local user could read
// every user's op names. Errors (kInvalidArgument) name the address.
Status CheckMetricsAccessRule(const MetricsAddress& address, bool has_token, bool insecure);

// The endpoint as `optrace status` lists it (GetStatusResponse.listeners):
// its address, the token it requires or, when `insecure` lets it serve
// without one, the warning that says so.
v1::Listener DescribeMetricsListener(std::string_view listen, bool has_token, bool insecure);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_METRICS_METRICS_ACCESS_H_
