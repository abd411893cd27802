#include "export/perfetto_trace_writer.h"

#include <algorithm>
#include <limits>

#include "common/level_names.h"
#include "common/op_line.h"
#include "export/export_columns.h"
#include "export/export_tracks.h"
#include "export/perfetto_fields.h"
#include "wire/proto_wire.h"

namespace optrace::daemon {
namespace {

namespace f = perfetto_fields;
using proto_wire::AppendBytesField;
using proto_wire::AppendFixed64Field;
using proto_wire::AppendLengthPrefix;
using proto_wire::AppendVarintField;
using proto_wire::LengthDelimitedSize;
using proto_wire::VarintFieldSize;
using proto_wire::VarintSize;

// category_iids_ key of marks (targets are 0..255).
constexpr uint64_t kMarkCategory = 256;
// string_iids_ keys of fixed words are kWordKeyBase + one of these plus
// the status or level: above every dictionary id.
constexpr uint64_t kWordKeyBase = uint64_t{1} << 32;
constexpr uint64_t kStatusWords = 0;
constexpr uint64_t kLevelWords = 256;

// start + duration, saturating at the largest time.
int64_t SpanEnd(const Span& span) {
  const __int128 end = static_cast<__int128>(span.start_ns) + span.duration_ns;
  return static_cast<int64_t>(std::min<__int128>(end, std::numeric_limits<int64_t>::max()));
}

// How a span's event name shows a status other than kOk.
std::string_view NameSuffix(SpanStatus status) {
  switch (status) {
    case SpanStatus::kOk:
      return "";
    case SpanStatus::kIncomplete:
      return " (incomplete)";
    case SpanStatus::kCompleteWithoutLaunch:
      return " (complete without launch)";
    case SpanStatus::kDuplicate:
      return " (duplicate)";
  }
  return " (unknown status)";
}

}  // namespace

void PerfettoTraceWriter::Intern(uint32_t field, uint64_t iid, std::string_view text) {
  const size_t size =
      VarintFieldSize(f::kInternedIid, iid) + LengthDelimitedSize(f::kInternedText, text.size());
  AppendLengthPrefix(interned_, field, size);
  AppendVarintField(interned_, f::kInternedIid, iid);
  AppendBytesField(interned_, f::kInternedText, text);
}

Status PerfettoTraceWriter::Begin(const SessionRecord& session) {
  start_ns_ = std::max<int64_t>(0, session.start_ns);
  delta_clock_ns_ = start_ns_;
  pid_ = static_cast<int32_t>(session.pid);
  std::string& out = buffer_.text();

  // Clocks kSessionClockId and kDeltaClockId = 0 at the session's start on
  // REALTIME.
  std::string clocks;
  std::string clock;
  AppendVarintField(clock, f::kClockId, f::kClockRealtime);
  AppendVarintField(clock, f::kClockTimestamp, static_cast<uint64_t>(start_ns_));
  AppendBytesField(clocks, f::kSnapshotClocks, clock);
  clock.clear();
  AppendVarintField(clock, f::kClockId, kSessionClockId);
  AppendVarintField(clock, f::kClockTimestamp, 0);
  AppendBytesField(clocks, f::kSnapshotClocks, clock);
  clock.clear();
  AppendVarintField(clock, f::kClockId, kDeltaClockId);
  AppendVarintField(clock, f::kClockTimestamp, 0);
  AppendVarintField(clock, f::kClockIsIncremental, 1);
  AppendBytesField(clocks, f::kSnapshotClocks, clock);
  AppendVarintField(clocks, f::kSnapshotPrimaryTraceClock, f::kClockRealtime);
  std::string packet;
  AppendBytesField(packet, f::kPacketClockSnapshot, clocks);
  AppendVarintField(packet, f::kPacketSequenceId, kSequenceId);
  AppendVarintField(packet, f::kPacketSequenceFlags, f::kSeqIncrementalStateCleared);
  AppendBytesField(out, f::kTracePacket, packet);

  // Defaults (the delta clock, the first track) and the debug annotation
  // names.
  static constexpr std::pair<AnnotationName, std::string_view> kAnnotationNames[] = {
      {kOpId, "op_id"},
      {kParentOpId, "parent_op_id"},
      {kTag, "tag"},
      {kSrc, "src"},
      {kDeviceDurationNs, "device_duration_ns"},
      {kStatus, "status"},
      {kLevel, "level"},
  };
  for (const auto& [iid, name] : kAnnotationNames) Intern(f::kInternedAnnotationNames, iid, name);
  std::string track_defaults;
  AppendVarintField(track_defaults, f::kTrackEventDefaultsTrackUuid, kDefaultTrackUuid);
  std::string defaults;
  AppendVarintField(defaults, f::kDefaultsTimestampClockId, kDeltaClockId);
  AppendBytesField(defaults, f::kDefaultsTrackEvent, track_defaults);
  packet.clear();
  AppendBytesField(packet, f::kPacketDefaults, defaults);
  AppendBytesField(packet, f::kPacketInternedData, interned_);
  AppendVarintField(packet, f::kPacketSequenceId, kSequenceId);
  AppendBytesField(out, f::kTracePacket, packet);
  interned_.clear();

  // The process track.
  const std::string process =
      session.label.empty() ? session.executable : session.executable + " (" + session.label + ")";
  nested_.clear();
  AppendVarintField(nested_, f::kProcessPid, static_cast<uint32_t>(pid_));
  AppendBytesField(nested_, f::kProcessName, process);
  descriptor_.clear();
  AppendVarintField(descriptor_, f::kTrackUuid, kProcessTrackUuid);
  AppendBytesField(descriptor_, f::kTrackProcess, nested_);
  WriteDescriptorPacket();
  return Status::Ok();
}

void PerfettoTraceWriter::WriteDescriptorPacket() {
  std::string& out = buffer_.text();
  const size_t size = LengthDelimitedSize(f::kPacketTrackDescriptor, descriptor_.size()) +
                      VarintFieldSize(f::kPacketSequenceId, kSequenceId);
  AppendLengthPrefix(out, f::kTracePacket, size);
  AppendBytesField(out, f::kPacketTrackDescriptor, descriptor_);
  AppendVarintField(out, f::kPacketSequenceId, kSequenceId);
}

uint64_t PerfettoTraceWriter::ThreadTrack(uint32_t tid) {
  if (const uint64_t* uuid = thread_tracks_.Find(tid)) return *uuid;
  const uint64_t uuid = next_track_uuid_++;
  thread_tracks_.Insert(tid, uuid);
  nested_.clear();
  AppendVarintField(nested_, f::kThreadPid, static_cast<uint32_t>(pid_));
  AppendVarintField(nested_, f::kThreadTid, tid);
  AppendBytesField(nested_, f::kThreadName, "thread " + std::to_string(tid));
  descriptor_.clear();
  AppendVarintField(descriptor_, f::kTrackUuid, uuid);
  AppendVarintField(descriptor_, f::kTrackParentUuid, kProcessTrackUuid);
  AppendBytesField(descriptor_, f::kTrackThread, nested_);
  WriteDescriptorPacket();
  return uuid;
}

uint64_t PerfettoTraceWriter::DeviceTrack(const Span& span) {
  const uint64_t key = DeviceTrackKey(span);
  if (const uint64_t* uuid = device_tracks_.Find(key)) return *uuid;
  const uint64_t uuid = next_track_uuid_++;
  device_tracks_.Insert(key, uuid);
  descriptor_.clear();
  AppendVarintField(descriptor_, f::kTrackUuid, uuid);
  AppendVarintField(descriptor_, f::kTrackParentUuid, kProcessTrackUuid);
  AppendBytesField(descriptor_, f::kTrackName, DeviceTrackName(span));
  WriteDescriptorPacket();
  return uuid;
}

uint64_t PerfettoTraceWriter::CounterTrack(StringId name) {
  if (const uint64_t* uuid = counter_tracks_.Find(name)) return *uuid;
  const uint64_t uuid = next_track_uuid_++;
  counter_tracks_.Insert(name, uuid);
  descriptor_.clear();
  AppendVarintField(descriptor_, f::kTrackUuid, uuid);
  AppendVarintField(descriptor_, f::kTrackParentUuid, kProcessTrackUuid);
  AppendBytesField(descriptor_, f::kTrackName, strings_.Get(name));
  AppendBytesField(descriptor_, f::kTrackCounter, "");  // an empty CounterDescriptor
  WriteDescriptorPacket();
  return uuid;
}

uint64_t PerfettoTraceWriter::SpanTrack(const Span& span) {
  return OnDeviceTrack(span) ? DeviceTrack(span) : ThreadTrack(HostThread(span));
}

void PerfettoTraceWriter::StartEvent(uint32_t type, uint64_t track) {
  event_.Clear();
  event_.PutVarintField(f::kEventType, type);
  if (track != kDefaultTrackUuid) event_.PutVarintField(f::kEventTrackUuid, track);
}

void PerfettoTraceWriter::AddName(StringId name, SpanStatus status) {
  const uint64_t key = (uint64_t{name} << 2) | static_cast<uint8_t>(status);
  const uint64_t iid = Iid(name_iids_, next_name_iid_, f::kInternedEventNames, key, [&] {
    return std::string(strings_.Get(name)) + std::string(NameSuffix(status));
  });
  event_.PutVarintField(f::kEventNameIid, iid);
}

void PerfettoTraceWriter::AddCategory(uint32_t key, std::string_view name) {
  const uint64_t iid =
      Iid(category_iids_, next_category_iid_, f::kInternedCategories, key, [&] { return name; });
  event_.PutVarintField(f::kEventCategoryIids, iid);
}

void PerfettoTraceWriter::AddSpanName(const Span& span) {
  AddName(span.name, span.status);
  AddCategory(span.target, TargetKindName(static_cast<abi::TargetKind>(span.target)));
}

void PerfettoTraceWriter::AddAnnotation(AnnotationName name, uint32_t value_field, uint64_t value) {
  event_.PutLengthPrefix(f::kEventDebugAnnotations, VarintFieldSize(f::kAnnotationNameIid, name) +
                                                        VarintFieldSize(value_field, value));
  event_.PutVarintField(f::kAnnotationNameIid, name);
  event_.PutVarintField(value_field, value);
}

void PerfettoTraceWriter::AddUintAnnotation(AnnotationName name, uint64_t value) {
  AddAnnotation(name, f::kAnnotationUintValue, value);
}

void PerfettoTraceWriter::AddDictAnnotation(AnnotationName name, StringId id) {
  AddAnnotation(name, f::kAnnotationStringValueIid,
                Iid(string_iids_, next_string_iid_, f::kInternedAnnotationStrings, id,
                    [&]() -> const std::string& { return strings_.Get(id); }));
}

void PerfettoTraceWriter::AddWordAnnotation(AnnotationName name, uint64_t key,
                                            std::string_view word) {
  AddAnnotation(name, f::kAnnotationStringValueIid,
                Iid(string_iids_, next_string_iid_, f::kInternedAnnotationStrings,
                    kWordKeyBase + key, [&] { return word; }));
}

void PerfettoTraceWriter::AddSpanAnnotations(const Span& span, bool lasts_device_time) {
  AddUintAnnotation(kOpId, span.op_id);
  if (span.parent_op_id != 0) AddUintAnnotation(kParentOpId, span.parent_op_id);
  if (span.tag != 0) AddDictAnnotation(kTag, span.tag);
  if (span.srcloc != 0) AddDictAnnotation(kSrc, span.srcloc);
  if (span.device_ns != 0 && !lasts_device_time) {
    AddUintAnnotation(kDeviceDurationNs, span.device_ns);
  }
  if (span.status != SpanStatus::kOk) {
    AddWordAnnotation(kStatus, kStatusWords + static_cast<uint8_t>(span.status),
                      SpanStatusName(span.status));
  }
}

void PerfettoTraceWriter::WriteEventPacket(int64_t unix_ns, std::string_view event) {
  // On the delta clock unless the time is before the last one written on
  // it; then on the session clock, or REALTIME before the session's start.
  packet_.Clear();
  if (unix_ns >= delta_clock_ns_) {
    packet_.PutVarintField(f::kPacketTimestamp,
                           static_cast<uint64_t>(unix_ns) - static_cast<uint64_t>(delta_clock_ns_));
    delta_clock_ns_ = unix_ns;
  } else if (unix_ns >= start_ns_) {
    packet_.PutVarintField(f::kPacketTimestamp,
                           static_cast<uint64_t>(unix_ns) - static_cast<uint64_t>(start_ns_));
    packet_.PutVarintField(f::kPacketTimestampClockId, kSessionClockId);
  } else {
    packet_.PutVarintField(f::kPacketTimestamp,
                           static_cast<uint64_t>(std::max<int64_t>(0, unix_ns)));
    packet_.PutVarintField(f::kPacketTimestampClockId, f::kClockRealtime);
  }
  packet_.PutBytesField(f::kPacketTrackEvent, event);
  packet_.PutVarintField(f::kPacketSequenceId, kSequenceId);
  packet_.PutVarintField(f::kPacketSequenceFlags, f::kSeqNeedsIncrementalState);
  const size_t interned =
      interned_.empty() ? 0 : LengthDelimitedSize(f::kPacketInternedData, interned_.size());

  std::string& out = buffer_.text();
  AppendLengthPrefix(out, f::kTracePacket, packet_.size() + interned);
  out.append(packet_.view());
  if (!interned_.empty()) {
    AppendBytesField(out, f::kPacketInternedData, interned_);
    interned_.clear();
  }
}

std::optional<uint64_t> PerfettoTraceWriter::QueueKey(int64_t unix_ns, uint32_t rank) const {
  const __int128 offset = static_cast<__int128>(unix_ns) - start_ns_ + kQueueSpanNs;
  if (offset < 0 || offset >= 2 * static_cast<__int128>(kQueueSpanNs)) return std::nullopt;
  return (static_cast<uint64_t>(offset) << 2) | rank;
}

void PerfettoTraceWriter::WriteSliceEnd(uint64_t track, int64_t unix_ns) {
  end_event_.Clear();
  end_event_.PutVarintField(f::kEventType, f::kTypeSliceEnd);
  if (track != kDefaultTrackUuid) end_event_.PutVarintField(f::kEventTrackUuid, track);
  WriteEventPacket(unix_ns, end_event_.view());
}

void PerfettoTraceWriter::WriteQueued(const TimedEvent& event) {
  const auto unix_ns =
      static_cast<int64_t>(static_cast<__int128>(event.key >> 2) + start_ns_ - kQueueSpanNs);
  if ((event.key & 3) != kEventRank) return WriteSliceEnd(event.payload, unix_ns);
  const auto slot = static_cast<uint32_t>(event.payload);
  WriteEventPacket(unix_ns, event_slots_[slot]);
  free_slots_.push_back(slot);
}

void PerfettoTraceWriter::WriteQueuedUntil(int64_t unix_ns) {
  // Before the queue's times: nothing is due; past them: everything.
  if (static_cast<__int128>(unix_ns) < static_cast<__int128>(start_ns_) - kQueueSpanNs) return;
  const uint64_t due = QueueKey(unix_ns, 3).value_or(std::numeric_limits<uint64_t>::max());
  while (!queued_.empty() && queued_.earliest().key <= due) {
    const TimedEvent next = queued_.earliest();
    queued_.PopEarliest();
    WriteQueued(next);
  }
}

void PerfettoTraceWriter::WriteEventNow(int64_t unix_ns) {
  WriteQueuedUntil(unix_ns);
  WriteEventPacket(unix_ns, event_.view());
}

void PerfettoTraceWriter::QueueEvent(int64_t unix_ns) {
  const std::optional<uint64_t> key = QueueKey(unix_ns, kEventRank);
  if (!key) return WriteEventPacket(unix_ns, event_.view());
  uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<uint32_t>(event_slots_.size());
    event_slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  event_slots_[slot].assign(event_.view());
  queued_.Push({.key = *key, .payload = slot});
}

void PerfettoTraceWriter::QueueSliceEnd(uint64_t track, int64_t unix_ns, uint32_t rank) {
  const std::optional<uint64_t> key = QueueKey(unix_ns, rank);
  if (!key) return WriteSliceEnd(track, unix_ns);
  queued_.Push({.key = *key, .payload = track});
}

Status PerfettoTraceWriter::AddSpan(const Span& span) {
  switch (span.status) {
    case SpanStatus::kOk: {
      const int64_t end = SpanEnd(span);
      if (!OnDeviceTrack(span)) {
        const uint64_t track = ThreadTrack(HostThread(span));
        StartEvent(f::kTypeSliceBegin, track);
        AddSpanName(span);
        AddSpanAnnotations(span, false);
        WriteEventNow(span.start_ns);
        QueueSliceEnd(track, end);
        break;
      }
      // The launch on the host, then the device's work, joined by a flow.
      const uint64_t thread = ThreadTrack(HostThread(span));
      const uint64_t device = DeviceTrack(span);
      const uint64_t flow = next_flow_id_++;
      StartEvent(f::kTypeInstant, thread);
      AddSpanName(span);
      event_.PutFixed64Field(f::kEventFlowIds, flow);
      WriteEventNow(span.start_ns);
      const bool device_timed = span.device_ns != 0 && span.device_ns <= span.duration_ns;
      // end - device_ns, in 128 bits: both may be near the ends of their
      // ranges; never before the start.
      const auto device_start = static_cast<int64_t>(std::max<__int128>(
          span.start_ns, static_cast<__int128>(end) - static_cast<__int128>(span.device_ns)));
      StartEvent(f::kTypeSliceBegin, device);
      AddSpanName(span);
      AddSpanAnnotations(span, device_timed);
      event_.PutFixed64Field(f::kEventTerminatingFlowIds, flow);
      const int64_t device_begin = device_timed ? device_start : span.start_ns;
      if (!QueueKey(end, kEndRank)) {  // past the queue's times: the slice now, in order
        WriteEventPacket(device_begin, event_.view());
        WriteSliceEnd(device, end);
        break;
      }
      QueueEvent(device_begin);
      QueueSliceEnd(device, end, device_begin == end ? kOwnEndRank : kEndRank);
      break;
    }
    case SpanStatus::kIncomplete: {
      const uint64_t track = SpanTrack(span);
      StartEvent(f::kTypeSliceBegin, track);
      AddSpanName(span);
      AddSpanAnnotations(span, false);
      WriteEventNow(span.start_ns);
      QueueSliceEnd(track, std::max(span.start_ns, incomplete_end_ns_));
      break;
    }
    case SpanStatus::kCompleteWithoutLaunch:
    case SpanStatus::kDuplicate:
      StartEvent(f::kTypeInstant, SpanTrack(span));
      AddSpanName(span);
      AddSpanAnnotations(span, false);
      WriteEventNow(span.start_ns);
      break;
  }
  return Status::Ok();
}

Status PerfettoTraceWriter::AddInstant(const Instant& instant) {
  if (static_cast<abi::EventKind>(instant.kind) == abi::EventKind::kCounter) {
    StartEvent(f::kTypeCounter, CounterTrack(instant.name));
    event_.PutVarintField(f::kEventCounterValue, static_cast<uint64_t>(instant.value));
    WriteEventNow(instant.ts_ns);
    return Status::Ok();
  }
  StartEvent(f::kTypeInstant, ThreadTrack(instant.tid));
  AddName(instant.name, SpanStatus::kOk);
  AddCategory(kMarkCategory, InstantKindName(instant.kind));
  if (instant.tag != 0) AddDictAnnotation(kTag, instant.tag);
  if (instant.parent_op_id != 0) AddUintAnnotation(kParentOpId, instant.parent_op_id);
  AddWordAnnotation(kLevel, kLevelWords + instant.level,
                    LevelName(static_cast<abi::LevelValue>(instant.level)));
  WriteEventNow(instant.ts_ns);
  return Status::Ok();
}

Status PerfettoTraceWriter::Finish() {
  WriteQueuedUntil(std::numeric_limits<int64_t>::max());
  return Status::Ok();
}

}  // namespace optrace::daemon
