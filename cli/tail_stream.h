// The read loop of a Tail stream, shared by `optrace tail` and the tail
// latency benchmark (tests/bench/tail_latency.cc).
#ifndef OPTRACE_CLI_TAIL_STREAM_H_
#define OPTRACE_CLI_TAIL_STREAM_H_

#include <grpcpp/support/sync_stream.h>

#include <functional>

#include "optrace/v1/optrace.pb.h"

namespace optrace::cli {

// Reads `reader` until the stream ends or fails, and hands each message to
// `on_message` as it arrives. Each message is parsed onto one arena that is
// reset before the next read: a batch's items cost a few block
// allocations, not several allocations each.
// The message passed to `on_message` lives only until it returns. The
// caller then calls reader.Finish() for the stream's status.
void ReadTailStream(grpc::ClientReaderInterface<v1::TailResponse>& reader,
                    const std::function<void(const v1::TailResponse& message)>& on_message);

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_TAIL_STREAM_H_
