// A server-streaming reactor that only answers an error: what a callback
// handler returns when it refuses the request before streaming anything.
#ifndef OPTRACE_DAEMON_API_REFUSED_STREAM_H_
#define OPTRACE_DAEMON_API_REFUSED_STREAM_H_

#include <grpcpp/support/server_callback.h>
#include <grpcpp/support/status.h>

namespace optrace::daemon {

// Finishes with `status` at once and deletes itself when gRPC is done.
template <typename Response>
class RefusedStream final : public grpc::ServerWriteReactor<Response> {
 public:
  explicit RefusedStream(const grpc::Status& status) { this->Finish(status); }
  void OnDone() override { delete this; }
};

// The reactor a handler returns to refuse with `status` (not OK).
template <typename Response>
grpc::ServerWriteReactor<Response>* RefuseStream(const grpc::Status& status) {
  return new RefusedStream<Response>(status);
}

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_REFUSED_STREAM_H_
