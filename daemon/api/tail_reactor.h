// One Tail stream served without a thread of its own: it writes what its
// subscription encodes, one message in flight at a time, and parks in the
// hub while there is nothing to send or its uid's bytes in flight are at
// their cap. It reserves room for a whole message in its uid's share
// before it builds one, so that a parked stream holds no message. A
// client that does not read costs its cursor and the one message in
// flight, counted in its uid's share, nothing more.
#ifndef OPTRACE_DAEMON_API_TAIL_REACTOR_H_
#define OPTRACE_DAEMON_API_TAIL_REACTOR_H_

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/server_callback.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "api/stream_quota.h"
#include "live/tail_hub.h"
#include "live/tail_message_encoder.h"
#include "live/tail_subscription.h"

namespace optrace::daemon {

// Thread rules: gRPC calls the On* methods, the hub's notifier calls
// Resume. Exactly one party owns the stream at a time (the constructor, a
// pending write's OnWriteDone, or the hub's park list and then Resume);
// only the owner builds, writes or finishes. OnCancel takes ownership only
// when it finds the stream parked. Deletes itself in OnDone, after which
// the subscription (and the level it raised) is gone.
//
// The stream is served raw: its messages are TailResponse bytes that the
// encoder writes, handed to gRPC without a copy.
class TailReactor final : public grpc::ServerWriteReactor<grpc::ByteBuffer>, public TailWaiter {
 public:
  // `hub` must outlive the stream. Starts streaming at once.
  TailReactor(TailHub* hub, std::shared_ptr<TailSubscription> subscription, bool batch,
              StreamQuota::Lease lease);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;
  void Resume() override;

 private:
  ~TailReactor() override = default;
  // REQUIRES: the caller owns the stream and no message is in flight.
  // Writes the next message, or parks, or finishes when cancelled;
  // ownership passes on in each case.
  void Pump();

  TailHub* const hub_;
  const std::shared_ptr<TailSubscription> subscription_;
  const bool batch_;
  StreamQuota::Lease lease_;
  TailMessageEncoder encoder_;
  grpc::ByteBuffer message_;    // built by the owner; gRPC reads it while in flight
  uint64_t message_bytes_ = 0;  // its size, reserved in lease_ while in flight
  std::atomic<bool> cancelled_{false};
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_TAIL_REACTOR_H_
