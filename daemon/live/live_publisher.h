// The drain side of the live path: turns each ingested half, instant or
// span into one fixed-size LiveRecord in the shared broadcast buffer (no
// protobuf, no string copies, no lock per tail), copies each string a
// record needs once into the published table, and wakes parked streams.
// Nothing at all happens while no tail wants what it would publish.
#ifndef OPTRACE_DAEMON_LIVE_LIVE_PUBLISHER_H_
#define OPTRACE_DAEMON_LIVE_LIVE_PUBLISHER_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "drain/producer_session.h"
#include "live/broadcast_buffer.h"
#include "live/live_record.h"
#include "live/published_strings.h"
#include "live/tail_parking.h"

namespace optrace::daemon {

// Thread rules: the LiveEventListener methods on the drain thread only;
// SetWanted and Active from any thread.
class LivePublisher : public LiveEventListener {
 public:
  // Appends to `records`, `strings` (daemon string ids) and `labels`
  // (LiveRecord::label), and tells `parking` after each append; all four
  // must outlive the publisher.
  LivePublisher(BroadcastBuffer& records, PublishedStrings& strings, PublishedStrings& labels,
                TailParking& parking);

  // What tails want published: events (halves and instants), spans.
  void SetWanted(bool events, bool spans);

  bool Active() const override { return active_.load(std::memory_order_relaxed); }
  void OnHalf(const SessionRecord& session, const HalfOp& half, std::optional<uint64_t> duration_ns,
              const StringDictionary& strings) override;
  void OnInstant(const SessionRecord& session, const Instant& instant,
                 const StringDictionary& strings) override;
  void OnSpan(const SessionRecord& session, const Span& span,
              const StringDictionary& strings) override;

 private:
  // A record with the session's fields filled in.
  LiveRecord RecordFor(const SessionRecord& session, LiveRecordType type);
  // Makes daemon string ids up to `max_id` resolvable.
  void PublishStrings(StringId max_id, const StringDictionary& strings);
  // Appends `record` and wakes the notifier if it sleeps.
  void Publish(const LiveRecord& record);

  BroadcastBuffer& records_;
  PublishedStrings& strings_;
  PublishedStrings& labels_;
  TailParking& parking_;

  // Drain thread only.
  std::unordered_map<std::string, uint32_t> label_ids_;
  SessionId last_session_ = 0;
  uint32_t last_label_ = 0;

  std::atomic<bool> active_{false};
  std::atomic<bool> events_wanted_{false};
  std::atomic<bool> spans_wanted_{false};
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LIVE_LIVE_PUBLISHER_H_
