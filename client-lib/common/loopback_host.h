// Which hosts may be talked to or served in plaintext: the loopback
// interface only. Shared by the daemon's --listen and the CLI's --server so
// that both draw the line in one place.
#ifndef OPTRACE_COMMON_LOOPBACK_HOST_H_
#define OPTRACE_COMMON_LOOPBACK_HOST_H_

#include <string_view>

namespace optrace {

// True for "localhost", an IPv4 address of 127.0.0.0/8 and the IPv6 ::1
// (with or without brackets), each parsed as an address (inet_pton): a name
// such as "127.evil.com" is not loopback, whatever it starts with.
bool IsLoopbackHost(std::string_view host);

}  // namespace optrace

#endif  // OPTRACE_COMMON_LOOPBACK_HOST_H_
