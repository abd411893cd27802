#include "metrics/metrics_access.h"

#include <charconv>

namespace optrace::daemon {

Result<MetricsAddress> ParseMetricsAddress(std::string_view listen) {
  const std::string quoted = "metrics_listen '" + std::string(listen) + "'";
  const size_t colon = listen.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return Status::InvalidArgument(quoted + " must be HOST:PORT");
  }
  std::string_view host = listen.substr(0, colon);
  const std::string_view port_text = listen.substr(colon + 1);
  int port = 0;
  const auto [end, error] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (error != std::errc() || end != port_text.data() + port_text.size() || port < 1 ||
      port > 65535) {
    return Status::InvalidArgument(quoted + ": the port must be 1..65535");
  }
  MetricsAddress address;
  address.port = port;
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') {
      return Status::InvalidArgument(quoted + ": an IPv6 host is written [ADDRESS]");
    }
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return Status::InvalidArgument(quoted + ": an IPv6 host needs brackets, as in [::1]:9464");
  }
  address.host = std::string(host);
  return address;
}

Status CheckMetricsAccessRule(const MetricsAddress& address, bool has_token, bool insecure) {
  if (has_token || insecure) return Status::Ok();
  return Status::InvalidArgument(
      "metrics_listen " + address.host + " port " + std::to_string(address.port) +
      " would serve every user's op names to whoever connects (on a loopback address, every "
      "local user): give it metrics_token_file (--metrics-token-file), the bearer token "
      "Prometheus presents, or set metrics_insecure = true (--metrics-insecure) to serve "
      "anyone who can reach it");
}

v1::Listener DescribeMetricsListener(std::string_view listen, bool has_token, bool insecure) {
  v1::Listener listener;
  listener.set_kind(v1::LISTENER_KIND_METRICS);
  listener.set_address(std::string(listen));
  listener.set_token_users(has_token ? 1 : 0);
  if (!has_token && insecure) {
    listener.set_unauthenticated(true);
    listener.set_warning(
        "metrics_insecure = true: serves every user's op names to anyone who can reach " +
        std::string(listen) + ", without a token");
  }
  return listener;
}

}  // namespace optrace::daemon
