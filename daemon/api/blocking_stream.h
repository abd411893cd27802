// A server stream whose producing side is plain blocking code (a SQLite
// scan that writes as it goes: Export, QueryOps) served by the callback
// API: the code runs on a thread of its own, started once the stream is
// admitted, and gRPC's handler threads are never held by it. A client
// that does not read blocks that thread in Write, which pauses the
// producer at one message; a client that goes away fails the pending
// Write at once, and the producer stops.
#ifndef OPTRACE_DAEMON_API_BLOCKING_STREAM_H_
#define OPTRACE_DAEMON_API_BLOCKING_STREAM_H_

#include <grpcpp/support/server_callback.h>
#include <grpcpp/support/status.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "api/stream_quota.h"

namespace optrace::daemon {

// Thread rules: Write and cancelled() from the body's thread only; the
// On* methods from gRPC. Deletes itself when gRPC is done with it.
template <typename Response>
class BlockingStream final : public grpc::ServerWriteReactor<Response> {
 public:
  using Body = std::function<grpc::Status(BlockingStream* stream)>;

  // Runs `body` on a new thread and finishes the stream with what it
  // returns. `lease` is the stream's share (StreamQuota), released before
  // the stream finishes.
  static BlockingStream* Start(Body body, StreamQuota::Lease lease) {
    auto* stream = new BlockingStream(std::move(lease));
    std::thread([stream, body = std::move(body)] {
      grpc::Status status = body(stream);
      stream->lease_ = StreamQuota::Lease();
      // Last use of the stream on this thread: OnDone may delete it now.
      stream->Finish(status);
    }).detach();
    return stream;
  }

  // Sends `response` and waits until gRPC took it. False when the client
  // is gone or the call was cancelled.
  bool Write(Response response) {
    std::unique_lock<std::mutex> lock(mu_);
    if (cancelled_) return false;
    pending_ = std::move(response);
    writing_ = true;
    lock.unlock();
    this->StartWrite(&pending_);
    lock.lock();
    written_.wait(lock, [this] { return !writing_; });
    return write_ok_ && !cancelled_;
  }

  bool cancelled() const {
    std::lock_guard<std::mutex> lock(mu_);
    return cancelled_;
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard<std::mutex> lock(mu_);
    write_ok_ = ok;
    writing_ = false;
    written_.notify_one();
  }
  void OnCancel() override {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
  }
  void OnDone() override { delete this; }

 private:
  explicit BlockingStream(StreamQuota::Lease lease) : lease_(std::move(lease)) {}

  StreamQuota::Lease lease_;
  mutable std::mutex mu_;
  std::condition_variable written_;
  Response pending_;        // in flight while writing_; gRPC reads it
  bool writing_ = false;    // GUARDED_BY(mu_)
  bool write_ok_ = true;    // GUARDED_BY(mu_)
  bool cancelled_ = false;  // GUARDED_BY(mu_)
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_BLOCKING_STREAM_H_
