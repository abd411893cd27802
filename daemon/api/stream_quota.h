// Per-uid caps on what serving streams hold: how many streams a uid has
// open at once, how many threads they (and a GetStats pass's second
// thread) take, and how many bytes its streams hold for their clients
// (handed to gRPC and not yet taken, or reserved for a message being
// built). Whoever passes a cap is refused alone.
#ifndef OPTRACE_DAEMON_API_STREAM_QUOTA_H_
#define OPTRACE_DAEMON_API_STREAM_QUOTA_H_

#include <grpcpp/support/status.h>

#include <cstdint>
#include <mutex>
#include <string_view>
#include <unordered_map>

namespace optrace::daemon {

struct StreamLimits {
  uint32_t max_streams_per_uid = 1024;
  uint64_t max_bytes_in_flight_per_uid = uint64_t{64} << 20;
  // Streams that run on a thread of their own while they last (QueryOps,
  // Export: BlockingStream): at most this many at once, all uids together,
  // and at most max_threaded_streams_per_uid of one uid.
  uint32_t max_threaded_streams = 16;
  uint32_t max_threaded_streams_per_uid = 4;
};

// Thread-safe.
class StreamQuota {
 public:
  explicit StreamQuota(StreamLimits limits) : limits_(limits) {}

  // One open stream's share: released when destroyed. Move-only.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

    // Counts `bytes` more in flight for the uid. False (nothing counted)
    // when that would pass the cap while some of the uid's bytes are
    // already in flight: a uid that holds nothing is never refused. A
    // refused lease counts as waiting for room until a ReserveBytes
    // succeeds or it is released: while any of a uid's streams waits, the
    // uid opens no new stream.
    bool ReserveBytes(uint64_t bytes);
    // The client took `bytes` that ReserveBytes counted.
    void ReleaseBytes(uint64_t bytes);

   private:
    friend class StreamQuota;
    void Reset();
    StreamQuota* quota_ = nullptr;
    uint32_t uid_ = 0;
    uint64_t reserved_ = 0;  // what this lease holds, released with it
    bool stream_ = false;    // counts as one of its uid's streams
    bool threaded_ = false;  // holds one of max_threaded_streams
    bool waiting_ = false;   // its last ReserveBytes was refused
  };

  // Opens a stream (`what`, e.g. "Tail") for `uid` into `*lease`, or
  // answers RESOURCE_EXHAUSTED naming the cap the uid has reached.
  // REQUIRES: `*lease` holds nothing (default-constructed).
  grpc::Status Open(uint32_t uid, std::string_view what, Lease* lease);
  // The same for a stream that runs on a thread of its own while it
  // lasts; it also counts against max_threaded_streams_per_uid and
  // max_threaded_streams (the uid's cap is named first).
  grpc::Status OpenThreaded(uint32_t uid, std::string_view what, Lease* lease);
  // A thread for `uid` that is not a stream (a GetStats pass's second
  // thread), held by `*lease` until it is destroyed, when both thread caps
  // allow one; false (nothing taken) otherwise. REQUIRES: `*lease` holds
  // nothing.
  bool TryTakeThread(uint32_t uid, Lease* lease);

  // What all uids hold now (GetStatus counters streams_open and
  // stream_bytes_in_flight).
  uint64_t streams() const;
  uint64_t bytes_in_flight() const;

 private:
  struct Usage {
    uint32_t streams = 0;
    uint32_t threads = 0;  // threaded streams and other threads it holds
    uint64_t bytes = 0;
    uint32_t waiting = 0;  // leases whose last ReserveBytes was refused
  };
  // Counts one more stream for `uid` in `*lease`, unless a stream cap is
  // reached: then its message names the cap. REQUIRES: mu_ held.
  grpc::Status OpenLocked(uint32_t uid, std::string_view what, Lease* lease);
  // OK when `uid` may have one more thread; else the cap it would pass,
  // named in the message. REQUIRES: mu_ held.
  grpc::Status CheckThreadLocked(uint32_t uid, std::string_view what) const;
  // Counts one more thread for `uid` in `*lease` (CheckThreadLocked said
  // it may). REQUIRES: mu_ held.
  void TakeThreadLocked(uint32_t uid, Lease* lease);

  const StreamLimits limits_;
  mutable std::mutex mu_;
  std::unordered_map<uint32_t, Usage> by_uid_;  // GUARDED_BY(mu_); no entry = nothing held
  uint32_t threaded_ = 0;                       // GUARDED_BY(mu_)
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_API_STREAM_QUOTA_H_
