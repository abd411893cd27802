#include "stderr_sink.h"

#include <unistd.h>

#include "common/op_line.h"

namespace optrace::client {

void PrintEventToStderr(const abi::OpEvent& event, StringInterner& strings) {
  std::string line = FormatOpLine(static_cast<abi::EventKind>(event.kind),
                                  strings.Lookup(event.name_id), event.op_id,
                                  static_cast<abi::TargetKind>(event.target_kind), event.device_id,
                                  static_cast<int64_t>(event.arg));
  line.push_back('\n');
  // One write per line; a short write to a pipe under pressure is accepted
  // rather than blocking the runtime in a retry loop.
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace optrace::client
