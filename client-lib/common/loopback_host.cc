#include "common/loopback_host.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <string>

namespace optrace {

bool IsLoopbackHost(std::string_view host) {
  if (host == "localhost") return true;
  const bool bracketed = host.size() > 2 && host.front() == '[' && host.back() == ']';
  const std::string bare(bracketed ? host.substr(1, host.size() - 2) : host);
  in6_addr v6{};
  if (::inet_pton(AF_INET6, bare.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  in_addr v4{};
  // inet_pton takes only the dotted quad: "127.1" or "0x7f.1" are refused.
  if (bracketed || ::inet_pton(AF_INET, bare.c_str(), &v4) != 1) return false;
  return (ntohl(v4.s_addr) >> 24) == 127;
}

}  // namespace optrace
