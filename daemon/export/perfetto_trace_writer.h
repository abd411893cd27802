// PerfettoTraceWriter: the native Perfetto export, a protobuf `Trace` that
// ui.perfetto.dev and trace_processor read without their JSON importer.
#ifndef OPTRACE_DAEMON_EXPORT_PERFETTO_TRACE_WRITER_H_
#define OPTRACE_DAEMON_EXPORT_PERFETTO_TRACE_WRITER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "export/export_buffer.h"
#include "export/export_writer.h"
#include "export/time_ordered_events.h"
#include "model/flat_id_map.h"
#include "wire/proto_wire.h"
#include "wire/string_cache.h"

namespace optrace::daemon {

// Writes the session as TracePackets (the fields of Trace.packet, so the
// export is a Trace message), one packet at a time, all on one packet
// sequence (kSequenceId), in time order as far as the spans come in start
// order (a slice's end, and a device slice, wait in a queue until the
// export reaches their time):
// * The first packet clears the sequence's incremental state and defines
//   two clocks on REALTIME, the trace's primary clock: kSessionClockId,
//   nanoseconds since the session's start, and kDeltaClockId, the same
//   time delta-encoded (is_incremental: each packet on it gives the time
//   since the previous one on it). Packets are timed on kDeltaClockId (2
//   to 4 bytes for most) unless their time is before the last one written
//   on it (a span stored out of start order, the marks and counters that
//   come after all spans): then on kSessionClockId, or on REALTIME before
//   the session's start. Every later packet that is timed or refers to
//   interned data says SEQ_NEEDS_INCREMENTAL_STATE.
// * The defaults (TracePacketDefaults) time packets on kDeltaClockId and
//   put events on kDefaultTrackUuid, the first track described (usually
//   the main thread's), whose events leave their track out.
// * Tracks (TrackDescriptor), each announced before its first event: the
//   session's process (uuid 1, pid and "<executable> (<label>)"), one
//   thread track per thread ("thread <tid>"), one track per device stream
//   ("gpu:0 stream 1") and one counter track per counter name, the last
//   two children of the process track.
// * Event names, categories (target, "mark"), debug annotation names and
//   string values (tag, source location, status, level) are interned: each
//   text is written once, in the packet that first uses it.
// * A CPU span (or one without a target) is a slice (SLICE_BEGIN at its
//   start, SLICE_END at start + duration) on its host thread's track
//   (HostThread). A GPU or other-target span is an instant where it was
//   launched, on the launching thread's track, and a slice on its device
//   stream's track for the device-measured time (ending at start +
//   duration; the whole span when there is no device time), joined by a
//   flow from the launch to the device slice.
// * Incomplete spans are slices to `incomplete_end_ns`; complete-without-
//   launch and duplicate spans are instants; the names of all three say
//   so ("matmul (incomplete)") and an annotation "status" names it.
// * Slices and instants carry debug annotations op_id, and where set
//   parent_op_id, tag, src, and device_duration_ns where the slice's own
//   length does not already say it (a device slice lasts its device time).
// * Marks are instants on their thread's track (category "mark",
//   annotations tag, parent_op_id, level); counters are TYPE_COUNTER
//   events on their counter track.
// Memory: besides the strings and tracks, one queued event of 16 bytes per
// slice still open at the export's current time (an incomplete span's end
// waits for the session's end), and for device work not yet begun its
// encoded begin (at most kMaxEventBytes).
// Borrows `strings` and `buffer`, which must outlive it. Never fails.
// Thread rules: one thread at a time.
class PerfettoTraceWriter final : public ExportWriter {
 public:
  static constexpr uint32_t kSequenceId = 1;
  static constexpr uint32_t kSessionClockId = 64;  // the first sequence-scoped clock id
  static constexpr uint32_t kDeltaClockId = 65;
  static constexpr uint64_t kProcessTrackUuid = 1;
  static constexpr uint64_t kDefaultTrackUuid = kProcessTrackUuid + 1;

  PerfettoTraceWriter(StringCache& strings, ExportBuffer& buffer, int64_t incomplete_end_ns)
      : strings_(strings), buffer_(buffer), incomplete_end_ns_(incomplete_end_ns) {}

  Status Begin(const SessionRecord& session) override;
  Status AddSpan(const Span& span) override;
  Status AddInstant(const Instant& instant) override;
  Status Finish() override;

 private:
  // Interned debug annotation names (iids), written in the first packet.
  enum AnnotationName : uint8_t {
    kOpId = 1,
    kParentOpId,
    kTag,
    kSrc,
    kDeviceDurationNs,
    kStatus,
    kLevel,
  };

  // Track uuids, each described before it is first returned.
  uint64_t ThreadTrack(uint32_t tid);
  uint64_t DeviceTrack(const Span& span);
  uint64_t CounterTrack(StringId name);
  uint64_t SpanTrack(const Span& span);
  // Writes a packet holding the TrackDescriptor in descriptor_.
  void WriteDescriptorPacket();

  // Starts event_ as a TrackEvent of `type` on `track`.
  void StartEvent(uint32_t type, uint64_t track);
  // Adds to event_ the interned name of `name` (with `status` unless kOk).
  void AddName(StringId name, SpanStatus status);
  void AddCategory(uint32_t key, std::string_view name);
  // The name of `span` and its target as category.
  void AddSpanName(const Span& span);
  // A debug annotation `name` whose value is varint field `value_field`.
  void AddAnnotation(AnnotationName name, uint32_t value_field, uint64_t value);
  void AddUintAnnotation(AnnotationName name, uint64_t value);
  // A string annotation whose value is interned: dictionary string `id`,
  // or fixed word `word` (key `key`).
  void AddDictAnnotation(AnnotationName name, StringId id);
  void AddWordAnnotation(AnnotationName name, uint64_t key, std::string_view word);
  // The span's annotations; device_duration_ns only unless
  // `lasts_device_time` (the slice's own length says it).
  void AddSpanAnnotations(const Span& span, bool lasts_device_time);
  // The iid of `key` in `iids`; a new key gets iid `next++` and its text
  // (text(), called only then) is interned under InternedData `field`.
  template <typename TextFunction>
  uint64_t Iid(FlatIdMap<uint64_t>& iids, uint64_t& next, uint32_t field, uint64_t key,
               TextFunction&& text) {
    if (const uint64_t* iid = iids.Find(key)) return *iid;
    const uint64_t iid = next++;
    iids.Insert(key, iid);
    Intern(field, iid, text());
    return iid;
  }
  // Appends the packet of TrackEvent `event` at `unix_ns`, with the
  // interned entries collected in interned_ (cleared), to the export.
  void WriteEventPacket(int64_t unix_ns, std::string_view event);
  // Writes event_ now, after the queued events due by `unix_ns`.
  void WriteEventNow(int64_t unix_ns);
  // Queues event_ for `unix_ns` (at or after the current span's start).
  void QueueEvent(int64_t unix_ns);
  // Queues the end of the slice on `track` at `unix_ns`, of `rank`.
  void QueueSliceEnd(uint64_t track, int64_t unix_ns, uint32_t rank = kEndRank);
  // Writes the queued events due by `unix_ns`, earliest first.
  void WriteQueuedUntil(int64_t unix_ns);
  // Writes queued event `event`.
  void WriteQueued(const TimedEvent& event);
  // Writes the end of the slice on `track` at `unix_ns` now.
  void WriteSliceEnd(uint64_t track, int64_t unix_ns);
  // Adds an InternedData entry {iid, text} of `field` to interned_.
  void Intern(uint32_t field, uint64_t iid, std::string_view text);

  StringCache& strings_;
  ExportBuffer& buffer_;
  const int64_t incomplete_end_ns_;
  int64_t start_ns_ = 0;
  int32_t pid_ = 0;

  uint64_t next_track_uuid_ = kProcessTrackUuid + 1;
  FlatIdMap<uint64_t> thread_tracks_;   // tid -> uuid
  FlatIdMap<uint64_t> device_tracks_;   // DeviceTrackKey -> uuid
  FlatIdMap<uint64_t> counter_tracks_;  // counter name id -> uuid
  uint64_t next_flow_id_ = 1;
  int64_t delta_clock_ns_ = 0;  // the last time written on kDeltaClockId, Unix ns

  // Events waiting for their time: slice ends (payload: the track uuid; ranked
  // before the events of their time, but for the end of a slice of no
  // length whose begin waits too, ranked after it) and device slice begins
  // (payload: their slot in event_slots_). Keys: (time - the session's
  // start + kQueueSpanNs) << 2 | rank, for times within kQueueSpanNs (73
  // years) of the session's start; an event outside is written at once
  // (on a fallback clock: it is out of time order anyway).
  static constexpr uint32_t kEndRank = 0;
  static constexpr uint32_t kEventRank = 1;
  static constexpr uint32_t kOwnEndRank = 2;
  static constexpr int64_t kQueueSpanNs = int64_t{1} << 61;
  // The queue key of `rank` at `unix_ns`; nullopt outside the keys' range.
  std::optional<uint64_t> QueueKey(int64_t unix_ns, uint32_t rank) const;
  TimeOrderedEvents queued_;
  // Encoded TrackEvents of the queued begins; a written one's slot (and
  // its string's capacity) serves the next, so that queueing allocates
  // only while the queue grows.
  std::vector<std::string> event_slots_;
  std::vector<uint32_t> free_slots_;

  FlatIdMap<uint64_t> name_iids_;      // name id << 2 | status -> iid
  FlatIdMap<uint64_t> category_iids_;  // target, or 256 for marks -> iid
  FlatIdMap<uint64_t> string_iids_;    // dictionary id or word key -> iid
  uint64_t next_name_iid_ = 1;
  uint64_t next_category_iid_ = 1;
  uint64_t next_string_iid_ = 1;

  // The largest TrackEvent written: type, track, name and category (4
  // varint fields), 6 annotations (each a prefix and 2 varint fields), a
  // flow id and a counter value, with room to spare.
  static constexpr size_t kMaxEventBytes = 320;
  // The largest TracePacket without its interned data: the event's field
  // and 4 varint fields.
  static constexpr size_t kMaxPacketBytes =
      kMaxEventBytes + 3 + 4 * proto_wire::BoundedMessage<1>::kMaxFieldBytes;
  static_assert(4 * proto_wire::BoundedMessage<1>::kMaxFieldBytes +
                    6 * (2 + 2 * proto_wire::BoundedMessage<1>::kMaxFieldBytes) +
                    2 * proto_wire::BoundedMessage<1>::kMaxFieldBytes <=
                kMaxEventBytes);

  // Scratch, reused from packet to packet.
  proto_wire::BoundedMessage<kMaxEventBytes> event_;      // the TrackEvent being built
  proto_wire::BoundedMessage<kMaxEventBytes> end_event_;  // a queued slice end, as written
  proto_wire::BoundedMessage<kMaxPacketBytes> packet_;    // its packet
  std::string interned_;    // InternedData entries for the next packet
  std::string descriptor_;  // a TrackDescriptor
  std::string nested_;      // a descriptor's nested message
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_EXPORT_PERFETTO_TRACE_WRITER_H_
