#include "metrics/metrics_access.h"

#include <sys/stat.h>

#include <charconv>
#include <fstream>

#include "common/loopback_host.h"
#include "http/constant_time.h"

namespace optrace::daemon {
namespace {

std::string_view Trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

}  // namespace

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
  address.loopback = IsLoopbackHost(host);
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

Result<std::string> ReadBearerTokenFile(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return Status::InvalidArgument("metrics_token_file " + path + " cannot be read");
  }
  if ((info.st_mode & S_IROTH) != 0) {
    return Status::InvalidArgument("metrics_token_file " + path +
                                   " is readable by every user: chmod o-r it (e.g. 0640)");
  }
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) {
    return Status::InvalidArgument("metrics_token_file " + path + " cannot be read");
  }
  const std::string_view token = Trimmed(line);
  if (token.empty()) {
    return Status::InvalidArgument("metrics_token_file " + path + " has an empty first line");
  }
  return std::string(token);
}

Status CheckMetricsAccessRule(const MetricsAddress& address, bool has_token, bool insecure) {
  if (address.loopback || has_token || insecure) return Status::Ok();
  return Status::InvalidArgument(
      "metrics_listen " + address.host + " port " + std::to_string(address.port) +
      " is not a loopback address: it needs metrics_token_file (--metrics-token-file), or "
      "metrics_insecure = true (--metrics-insecure) to serve every user's op names to anyone "
      "who can reach it");
}

bool BearerTokenMatches(std::string_view authorization_untrusted, std::string_view token) {
  constexpr std::string_view kScheme = "Bearer ";  // not a secret: compared as usual
  return authorization_untrusted.starts_with(kScheme) &&
         http::ConstantTimeEquals(authorization_untrusted.substr(kScheme.size()), token);
}

}  // namespace optrace::daemon
