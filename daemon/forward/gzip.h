// gzip compression (zlib) of request bodies for ClickHouse's HTTP
// interface (Content-Encoding: gzip).
#ifndef OPTRACE_DAEMON_FORWARD_GZIP_H_
#define OPTRACE_DAEMON_FORWARD_GZIP_H_

#include <string>
#include <string_view>

#include "common/status.h"

namespace optrace::daemon {

// `data` as one gzip member (RFC 1952), at zlib's fastest level: span rows
// shrink several times even so, and the forwarder's thread stays cheap.
// Errors (kUnavailable): zlib could not allocate its state.
// Thread rules: pure.
Result<std::string> GzipCompress(std::string_view data);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_FORWARD_GZIP_H_
